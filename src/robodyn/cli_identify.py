"""Deprecated: ``robodyn.cli_identify`` is now ``robodyn.cli.identify``."""

from .cli.identify import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_identify", "robodyn.cli.identify")
