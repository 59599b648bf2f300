"""Deprecated: ``robodyn.errors`` is now ``robodyn.core.errors``."""

from .core.deprecation import moved
from .core.errors import *  # noqa: F403

moved("robodyn.errors", "robodyn.core.errors")
