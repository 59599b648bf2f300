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

__all__ = ["sp", "is_sympy", "Parameter", "is_parameter"]


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


class Parameter:
    """``factor * Symbol(name)`` before SymPy is imported: the one symbol a model file's
    numbers need (a URDF's or MJCF's gravity ``(0, 0, -g)``), so that loading the file and
    evaluating its numbers (``robot.values`` give ``g``) import no SymPy.

    It becomes the SymPy expression at its first symbolic use: SymPy converts it through
    ``_sympy_`` (``sp.cos(p)``, ``sp.Matrix([p])``, ``symbol * p``); Python arithmetic with
    it, comparisons and any other attribute (``p.free_symbols``, ``p.subs``) answer as that
    expression does. The numeric path reads :attr:`name` and :attr:`factor` only.
    """

    __slots__ = ("name", "factor", "_expr")

    def __init__(self, name: str, factor: float = 1):
        self.name = name
        self.factor = factor
        self._expr = None

    def _sympy_(self):
        if self._expr is None:
            factor = self.factor
            if isinstance(factor, float) and factor.is_integer():
                factor = int(factor)  # -1, not -1.0: closed forms print -g
            self._expr = factor * sp.Symbol(self.name)
        return self._expr

    def value(self, values) -> float:
        """The number with ``values[name]`` (a mapping of names to floats) substituted."""
        return self.factor * float(values[self.name])

    def __neg__(self):
        return Parameter(self.name, -self.factor)

    def __getstate__(self):
        return (self.name, self.factor)

    def __setstate__(self, state):
        self.name, self.factor = state
        self._expr = None

    def __eq__(self, other):
        if isinstance(other, Parameter):
            return (self.name, self.factor) == (other.name, other.factor)
        return self._sympy_() == other

    def __hash__(self):
        return hash(("robodyn.Parameter", self.name, self.factor))

    def __repr__(self):
        if self.factor in (1, -1):
            return self.name if self.factor == 1 else f"-{self.name}"
        return f"{self.factor:g}*{self.name}"

    __str__ = __repr__

    def __getattr__(self, attribute):  # .free_symbols, .subs, .is_zero: as the expression
        if attribute.startswith("__") or attribute in Parameter.__slots__:
            raise AttributeError(attribute)  # (a slot read before unpickling set it)
        return getattr(self._sympy_(), attribute)


def _delegate(name):
    def method(self, *args):
        return getattr(self._sympy_(), name)(*args)

    method.__name__ = name
    return method


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__pow__", "__rpow__", "__pos__", "__abs__",
              "__lt__", "__le__", "__gt__", "__ge__"):
    setattr(Parameter, _name, _delegate(_name))


def is_parameter(x: object) -> bool:
    """Whether ``x`` is a :class:`Parameter` (a symbol SymPy has not made yet)."""
    return type(x) is Parameter
