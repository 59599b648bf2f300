"""SymPy on first use: ``import robodyn`` and the numeric path never import it.

``from ..core.lazy import sp`` gives a stand-in for the ``sympy`` module that imports it at
its first attribute read (``sp.Symbol``, ``sp.cos``): modules that build expressions only
in some of their functions keep their ``sp.`` spelling, and a URDF, its kernels and their
numbers never pay SymPy's import (0.2-0.4 s). :func:`is_sympy` asks whether a value is a
SymPy object without importing SymPy: none can exist before it is imported.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["sp", "is_sympy"]


class _Lazy(ModuleType):
    """A module imported at the first read of one of its attributes."""

    def __init__(self, name: str):
        super().__init__(name)
        self.__dict__["_target"] = name

    def __getattr__(self, attribute: str):
        value = getattr(importlib.import_module(self.__dict__["_target"]), attribute)
        self.__dict__[attribute] = value  # the next read finds it here
        return value


sp = _Lazy("sympy")


def is_sympy(x: object) -> bool:
    """Whether ``x`` is a SymPy object (``sympy.Basic``), without importing SymPy."""
    module = sys.modules.get("sympy")
    return module is not None and isinstance(x, module.Basic)
