"""Deprecated: ``robodyn.csv_table`` is now ``robodyn.core.csv_table``."""

from .core.csv_table import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.csv_table", "robodyn.core.csv_table")
