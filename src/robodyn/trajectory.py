"""Deprecated: ``robodyn.trajectory`` is now ``robodyn.motion.trajectory``."""

from .core.deprecation import moved
from .motion.trajectory import *  # noqa: F403

moved("robodyn.trajectory", "robodyn.motion.trajectory")
