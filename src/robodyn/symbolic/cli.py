"""Deprecated: ``robodyn.symbolic.cli`` is now ``robodyn.cli.derive``."""

from ..cli.derive import *  # noqa: F403
from ..core.deprecation import moved

moved("robodyn.symbolic.cli", "robodyn.cli.derive")
