"""Deprecated: ``robodyn.control`` is now ``robodyn.motion.control``."""

from .core.deprecation import moved
from .motion.control import *  # noqa: F403

moved("robodyn.control", "robodyn.motion.control")
