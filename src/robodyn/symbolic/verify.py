"""The proof that both methods agree: :func:`verify` derives Lagrange–Euler and
Newton–Euler in one polynomial ring and subtracts (:class:`Agreement`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy as sp

from ..core.errors import InputError
from .derivation import make_ring
from .derive import chain_of, derive
from .equations import Equations
from .simplify import equal, float_scale, polys_equal, simplify_expression, textbook


@dataclass(frozen=True)
class Agreement:
    """Outcome of :func:`verify`: ``difference`` is ``tau_LE - tau_NE`` in normal form
    (a matrix of zeros when the routes agree); ``quantities`` says which of
    ``M``, ``C``, ``g``, ``tau`` are identical. ``exact`` is false where the agreement
    holds only up to the rounding of the model's Float numbers (e.g. a URDF ``rpy``
    rotation, orthonormal to 1e-16 only)."""

    name: str
    difference: sp.Matrix
    quantities: tuple[tuple[str, bool], ...]
    exact: bool = True

    @property
    def holds(self) -> bool:
        return all(ok for _, ok in self.quantities)

    def __bool__(self) -> bool:
        return self.holds

    def __str__(self) -> str:
        how = "" if self.exact or not self.holds else " (up to the rounding of its Float numbers)"
        lines = [f"{self.name}: Lagrange-Euler and Newton-Euler "
                 + ("agree" if self.holds else "DISAGREE") + how]
        lines += [f"  {q}: {'identical' if ok else 'different'}" for q, ok in self.quantities]
        lines.append(f"  tau_LE - tau_NE = {list(self.difference)}")
        return "\n".join(lines)


def verify(model, other: Equations | None = None, *, values: Any = None,
           h_e: bool = False) -> Agreement:
    """Prove that Lagrange–Euler and Newton–Euler give the same equations.

    ``verify(robot)`` derives both in one polynomial ring and subtracts: the normal form
    of ``tau_LE - tau_NE`` (and of the differences of ``M``, ``C``, ``g``) is zero
    exactly when the two are identical for all ``q``, ``qd``, ``qdd`` and all parameter
    values. ``verify(eq_a, eq_b)`` compares two :class:`Equations`.
    """
    if isinstance(model, Equations):
        a, b = model, other
        if b is None:
            raise InputError("verify(eq_a, eq_b): give both equations")
    else:
        chain, name, defaults = chain_of(model, values)
        ring = make_ring(chain, wrench=h_e)
        a = derive(chain, "lagrange", h_e=h_e, name=name, defaults=defaults, ring=ring)
        b = derive(chain, "newton-euler", h_e=h_e, name=name, defaults=defaults, ring=ring)
    da, db = a.derivation, b.derivation
    if da.ring is db.ring:
        ring = da.ring
        tau_a, tau_b = da.tau_with_wrench, db.tau_with_wrench
        diff = [x - y for x, y in zip(tau_a, tau_b, strict=True)]
        flat = [x for row in da.M for x in row], [x for row in db.M for x in row]
        flat_c = [x for row in da.C for x in row], [x for row in db.C for x in row]
        same = [
            ("M", polys_equal(ring, *flat)),
            ("C", polys_equal(ring, *flat_c)),
            ("g", polys_equal(ring, da.g, db.g)),
            ("tau", polys_equal(ring, tau_a, tau_b)),
        ]
        exact = not any(diff)
        scale = float_scale(ring, tau_a)
        difference = sp.Matrix([textbook(ring, p, scale=scale) for p in diff])
    else:
        same = [(k, equal(getattr(a, k), getattr(b, k), joint_types=a.joint_types))
                for k in ("M", "C", "g", "tau")]
        exact = all(ok for _, ok in same)
        difference = sp.Matrix([simplify_expression(x, joint_types=a.joint_types)
                                for x in a.tau - b.tau])
    return Agreement(a.name, difference, tuple(same), exact)
