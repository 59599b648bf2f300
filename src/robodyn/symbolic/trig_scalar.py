"""Deprecated: ``robodyn.symbolic.trig_scalar`` is now ``robodyn.symbolic.ring.trig_scalar``."""

from ..core.deprecation import moved
from ..symbolic.ring.trig_scalar import *  # noqa: F403

moved("robodyn.symbolic.trig_scalar", "robodyn.symbolic.ring.trig_scalar")
