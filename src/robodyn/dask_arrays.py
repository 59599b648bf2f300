"""Deprecated: ``robodyn.dask_arrays`` is now ``robodyn.codegen.dask``."""

from .codegen.dask import *  # noqa: F403
from .core.deprecation import moved

moved("robodyn.dask_arrays", "robodyn.codegen.dask")
