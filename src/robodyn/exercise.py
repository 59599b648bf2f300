"""Deprecated: ``robodyn.exercise`` is now ``robodyn.teaching.exercise``."""

from .core.deprecation import moved
from .teaching.exercise import *  # noqa: F403

moved("robodyn.exercise", "robodyn.teaching.exercise")
