"""Deprecated: ``robodyn.symbolic.render`` is now ``robodyn.symbolic.printing.render``."""

from ..core.deprecation import moved
from ..symbolic.printing.render import *  # noqa: F403

moved("robodyn.symbolic.render", "robodyn.symbolic.printing.render")
