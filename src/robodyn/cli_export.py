"""Deprecated: ``robodyn.cli_export`` is now ``robodyn.cli.export``."""

from .cli.export import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_export", "robodyn.cli.export")
