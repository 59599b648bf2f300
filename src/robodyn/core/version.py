"""robodyn's version (the one pyproject.toml declares), below every layer that prints it."""

VERSION = "0.1.0"
