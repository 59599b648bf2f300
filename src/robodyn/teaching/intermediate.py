"""The intermediate answers :func:`robodyn.teaching.compare.compare` checks beside ``M``,
``C``, ``g``, ``tau``: the energies ``K`` and ``U``, single Christoffel symbols ``c_ijk``
(:func:`scalar_answers`) and any step of the derivation by its left side
(:func:`step_answers`; also the regressor ``Y`` in the exercise's parameters ``pi``),
each as ``(given, expected)`` with the expected value a matrix; their entries named by
:func:`entry_name`. :func:`canonical` reads a grader's key (``c_112``, ``omega_2``,
``J_O^(l1)``) as the name the derivation gives it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import sympy as sp

from ..core.errors import InputError, excerpt
from ..symbolic.parse import entry_label

if TYPE_CHECKING:
    from ..symbolic.equations import Equations

__all__ = ["canonical", "entry_name", "scalar_answers", "step_answers", "ALIASES"]


_CHRISTOFFEL = re.compile(r"^c_?(\d)(\d)(\d)$")


def scalar_answers(eq: Equations, K, U, christoffel) -> dict[str, tuple[Any, sp.Expr]]:
    """``{name: (given, expected)}`` of the intermediate answers: ``K``, ``U`` and each
    ``c_ijk`` (``{"c112": ...}``, 1-based), their 1x1 matrices expected."""
    out = {}
    if K is not None:
        out["K"] = (K, sp.Matrix([[eq.kinetic_energy]]))
    if U is not None:
        out["U"] = (U, sp.Matrix([[eq.potential_energy]]))
    for key, value in dict(christoffel or {}).items():
        m = _CHRISTOFFEL.match(str(key))
        if not m:
            raise InputError(f"christoffel: {excerpt(str(key), 20)} is not c_ijk with three "
                             "joint numbers, e.g. c112")
        i, j, k = (int(x) - 1 for x in m.groups())
        if not all(0 <= x < eq.dof for x in (i, j, k)):
            raise InputError(f"christoffel: {key} has an index outside 1..{eq.dof} ({eq.name} "
                             f"has {eq.dof} joints)")
        out[f"c{i + 1}{j + 1}{k + 1}"] = (value, sp.Matrix([[eq.christoffel[i][j][k]]]))
    return out


def entry_name(quantity: str, index: tuple) -> str:
    """``M12``, ``g2``, ``c112``; a derivation step's entry in brackets, ``w_2[3]``."""
    if quantity.isalnum() or not index:
        return f"{quantity}{entry_label(*index)}"
    return f"{quantity}[{','.join(str(i + 1) for i in index)}]"


#: The course's names of Newton-Euler's and the Jacobian route's steps (Siciliano et al.
#: §7.5: omega_i, n_i; the issue's v'_ci) and the derivation's own: ``omega_2`` is ``w_2``.
ALIASES = (("omegadot_", "wd_"), ("omega_", "w_"), ("vdot_c", "pddc_"), ("vdotc_", "pddc_"),
           ("n_", "mu_"), ("J_O^", "J_theta^"))


def canonical(key: str) -> str:
    """A grader's key as the derivation names it: ``c_112`` -> ``c112``, ``omega_2`` ->
    ``w_2``, ``n_1`` -> ``mu_1``, ``vdot_c2`` -> ``pddc_2``, ``J_O^(l1)`` ->
    ``J_theta^(l1)``; ``K``, ``U``, ``Y`` and other names as they are."""
    key = str(key).strip()
    m = _CHRISTOFFEL.match(key)
    if m:
        return "c" + "".join(m.groups())
    for alias, name in ALIASES:
        if key.startswith(alias):
            return name + key[len(alias):]
    return key


def step_answers(eq: Equations, steps, pi=None) -> dict[str, tuple[Any, sp.Matrix]]:
    """``{left side: (given, expected)}`` of the derivation's steps asked for; ``Y``, the
    regressor ``tau = Y(q, qd, qdd) pi`` in the parameters ``pi`` (the model's own names,
    Siciliano et al. §7.4), when ``pi`` is given."""
    out = {}
    if not steps:
        return out
    found = {s.lhs: s.expression for s in eq.steps}
    plain = {k.replace("_", ""): k for k in found}
    for key, value in dict(steps).items():
        if str(key) == "Y" and pi:
            out["Y"] = (value, sp.Matrix(eq.regressor(parameters=list(pi)).Y))
            continue
        if str(key) in ("B_A", "tau_s"):  # the sheet's questions beyond the derivation
            out[str(key)] = (value, _beyond(eq, str(key)))
            continue
        name = str(key) if str(key) in found else plain.get(str(key).replace("_", ""))
        expr = found.get(name)
        if name is None or not isinstance(expr, (sp.Expr, sp.MatrixBase)):
            shown = ", ".join(k for k, v in found.items()
                              if isinstance(v, (sp.Expr, sp.MatrixBase)))[:300]
            raise InputError(f"steps: {excerpt(str(key), 30)} is not a step of this "
                             f"derivation ({shown} ...); Newton-Euler's w_i, f_i, ... need "
                             "--method newton-euler")
        out[name] = (value, sp.Matrix(expr) if isinstance(expr, sp.MatrixBase)
                     else sp.Matrix([[expr]]))
    return out


def _beyond(eq: Equations, key: str) -> sp.Matrix:
    """The expected ``B_A`` (tip x, y; :mod:`robodyn.symbolic.task_space`) or ``tau_s``
    (:func:`.sheet.scaled_torques`)."""
    if key == "B_A":
        from ..symbolic.task_space import task_space
        from .sheet import task_rows

        return sp.Matrix(task_space(eq, task_rows(eq), simplify=False).B_A)
    from .sheet import scaled_torques

    return scaled_torques(eq)
