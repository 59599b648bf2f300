"""Deprecated: ``robodyn.symbolic.trig_ring`` is now ``robodyn.symbolic.ring.trig_ring``."""

from ..core.deprecation import moved
from ..symbolic.ring.trig_ring import *  # noqa: F403

moved("robodyn.symbolic.trig_ring", "robodyn.symbolic.ring.trig_ring")
