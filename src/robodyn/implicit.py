"""Deprecated: ``robodyn.implicit`` is now ``robodyn.motion.implicit``."""

from .core.deprecation import moved
from .motion.implicit import *  # noqa: F403

moved("robodyn.implicit", "robodyn.motion.implicit")
