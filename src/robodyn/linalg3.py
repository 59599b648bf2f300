"""Deprecated: ``robodyn.linalg3`` is now ``robodyn.core.linalg3``."""

from .core.deprecation import moved
from .core.linalg3 import *  # noqa: F403

moved("robodyn.linalg3", "robodyn.core.linalg3")
