"""Deprecated: ``robodyn.symbolic.trigpoly`` is now ``robodyn.symbolic.ring``."""

from ..core.deprecation import moved
from ..symbolic.ring import *  # noqa: F403

moved("robodyn.symbolic.trigpoly", "robodyn.symbolic.ring")
