"""Deprecated: ``robodyn.cli_motion`` is now ``robodyn.cli.motion``."""

from .cli.motion import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_motion", "robodyn.cli.motion")
