"""Deprecated: ``robodyn.simulation`` is now ``robodyn.motion.simulation``."""

from .core.deprecation import moved
from .motion.simulation import *  # noqa: F403

moved("robodyn.simulation", "robodyn.motion.simulation")
