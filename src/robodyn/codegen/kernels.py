"""Deprecated: ``robodyn.codegen.kernels`` is now ``robodyn.codegen.kernel``."""

from ..codegen.kernel import *  # noqa: F403
from ..core.deprecation import moved

moved("robodyn.codegen.kernels", "robodyn.codegen.kernel")
