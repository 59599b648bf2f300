"""Deprecated: ``robodyn.cli_args`` is now ``robodyn.cli.common``."""

from .cli.common import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_args", "robodyn.cli.common")
