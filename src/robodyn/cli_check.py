"""Deprecated: ``robodyn.cli_check`` is now ``robodyn.cli.check``."""

from .cli.check import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_check", "robodyn.cli.check")
