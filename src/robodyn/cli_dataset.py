"""Deprecated: ``robodyn.cli_dataset`` is now ``robodyn.cli.dataset``."""

from .cli.dataset import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.cli_dataset", "robodyn.cli.dataset")
