"""robodyn's version, below every layer that prints it; pyproject.toml reads it from here
(``[tool.setuptools.dynamic]``), the one place it is written."""

VERSION = "0.1.0"
