"""Deprecated: ``robodyn.cli_exercise`` is now ``robodyn.cli.exercise``."""

from .cli.exercise import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_exercise", "robodyn.cli.exercise")
