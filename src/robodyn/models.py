"""Deprecated: ``robodyn.models`` is now ``robodyn.model.builtin``."""

from .core.deprecation import moved
from .model.builtin import *  # noqa: F403

moved("robodyn.models", "robodyn.model.builtin")
