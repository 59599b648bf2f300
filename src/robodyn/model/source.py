"""What a loader hands over: a parsed model and where it came from.

Every loader (YAML model files, URDF) returns a :class:`ModelSource`; the
:class:`~robodyn.Robot` is built from it by :func:`robodyn.robot.from_source`.
The model layer never builds a ``Robot`` itself (the model is separate from the
algorithms, see ``shared/STYLE.md``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core.errors import ModelError, excerpt
from ..core.lazy import is_sympy
from .chain import Chain
from .expressions import check_parameter_name
from .names import check_source_names


@dataclass(frozen=True)
class Provenance:
    """Where a model came from, and what only that kind of source knows.

    ``loader``: ``"yaml"`` or ``"urdf"``; ``path``: the file (or built-in model name);
    ``convention``: ``"standard"``/``"modified"`` when the geometry came from a DH table,
    with its rows in ``dh_rows``; ``locked``: the URDF joints held at ``q = 0`` because
    they leave the chosen chain (a gripper's fingers); ``notes``: what the loader
    changed on the way (e.g. angles snapped to right angles), one line each;
    ``display``: ``(symbol, display name)`` pairs from the model file's ``display:`` key
    (``q2 -> d_2``), the lecture's notation for printed derivations; ``terms`` and
    ``potential_zero`` likewise only change how a derivation is printed.
    """

    loader: str = ""
    path: str = ""
    convention: str | None = None
    dh_rows: tuple[Any, ...] = ()
    locked: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()
    display: tuple[tuple[str, str], ...] = ()
    #: ``(name, SymPy expression)``: the model file's ``terms:`` (``h = m2 l1 c2 sin q2``)
    terms: tuple[tuple[str, Any], ...] = ()
    #: the model file's ``potential_zero:``, a configuration where ``U = 0`` (or empty)
    potential_zero: tuple[Any, ...] = ()


@dataclass(frozen=True)
class ModelSource:
    """A parsed model: its chain, default parameter values and description.

    Every loader ends here, so this is where the names are checked (one line of
    printable text each, :func:`~robodyn.model.names.check_source_names`): the model's,
    its links' and joints', the parameters', the display names."""

    name: str
    chain: Chain
    values: dict[str, float]
    description: str = ""
    provenance: Provenance = field(default_factory=Provenance)
    #: Named joint configurations ``(name, (q1, ..., qn))``, from the model file's
    #: ``configurations:`` (checked there: one number per joint, within the limits).
    configurations: tuple[tuple[str, tuple[float, ...]], ...] = ()

    #: Whether the names are checked on construction: a loader's output is; a robot's
    #: description (``robot.model``) is not again, as ``Robot.with_chain`` may hold any
    #: symbol name, which generated code renames and markup escapes.
    check_names: bool = field(default=True, repr=False, compare=False)

    def __post_init__(self):
        if self.check_names:
            check_source_names(self)


def bound_values(model: str, symbols, values: Mapping, updates: Mapping) -> dict[str, float]:
    """``values`` with ``updates`` bound (:meth:`robodyn.Robot.with_values`): each key one of
    ``symbols``, each value a finite real number; errors start with ``model``."""
    where = f"{model}.with_values"
    known = {str(s) for s in symbols}
    new = dict(values)
    for key, value in updates.items():
        key = str(key)
        check_parameter_name(key, where)
        if key not in known:
            raise ModelError(f"{where}: {key!r} is not a parameter of this model; its "
                             f"parameters are {', '.join(sorted(known)) or '(none)'}")
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating,
                                                             np.integer)):
            raise ModelError(f"{where}: {key} = {value!r:.80} is not a number")
        try:
            number = float(value)
        except OverflowError:  # an int past float's range (10**400)
            number = float("inf")
        if not np.isfinite(number):
            raise ModelError(f"{where}: {key} = {excerpt(value)} is not finite (a float64 "
                             "holds magnitudes up to 1.8e308)")
        new[key] = number
    return new


class ParameterValues(dict):
    """``{parameter name: value}``, :attr:`Robot.values`: a dict whose keys are names
    (strings), where a SymPy symbol finds its name too (``values[sp.Symbol("m1")]``), as
    robodyn's ``symbols`` were SymPy symbols before they became names."""

    def __getitem__(self, key):
        return super().__getitem__(_name(key))

    def __contains__(self, key) -> bool:
        return super().__contains__(_name(key))

    def get(self, key, default=None):
        return super().get(_name(key), default)


def _name(key):
    return str(key) if is_sympy(key) else key  # a Symbol: its name (no SymPy import)


__all__ = ["ModelSource", "Provenance", "ParameterValues"]
