"""Deprecated: ``robodyn.symbolic.normal_form`` is now ``robodyn.symbolic.ring.normal_form``."""

from ..core.deprecation import moved
from ..symbolic.ring.normal_form import *  # noqa: F403

moved("robodyn.symbolic.normal_form", "robodyn.symbolic.ring.normal_form")
