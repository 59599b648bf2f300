"""Deprecated: ``robodyn.energy`` is now ``robodyn.motion.energy``."""

from .core.deprecation import moved
from .motion.energy import *  # noqa: F403

moved("robodyn.energy", "robodyn.motion.energy")
