"""Deprecated: ``robodyn.excitation`` is now ``robodyn.identification.excitation``."""

from .core.deprecation import moved
from .identification.excitation import *  # noqa: F403

moved("robodyn.excitation", "robodyn.identification.excitation")
