"""The size of a derivation, estimated from the model before anything is expanded.

The closed forms grow fast with the length of a chain: the term budget of the ring
(:data:`~robodyn.symbolic.ring.trig_ring.MAX_TERMS` terms per polynomial) stops a
30-joint chain after 40 s, but a 200-joint one ran out of memory (6 GB) before any one
polynomial reached it. So :func:`check_derivable` refuses, in microseconds, a model whose
estimate exceeds :data:`MAX_ESTIMATED_TERMS`.

The estimate is a lower bound on the terms of the mass matrix alone. Entry ``M_ij``
(``i`` an ancestor of ``j`` or ``j`` itself) sums, over every link ``k`` at or below
``j``, products of the Jacobian columns ``i`` and ``j`` of link ``k``'s velocity
(``M = sum_k J_k^T M_k J_k``, Siciliano et al., *Robotics*, eq. 7.32); column ``i`` of
link ``k`` depends on every joint between ``i`` and ``k``, at least one term each (one
angle sum per joint even for a planar arm, whose ring reduces products of sines and
cosines to sums of angles). So link ``k`` at depth ``d`` (``d`` coordinates from the
base to it) contributes at least ``sum_{i<=j<=d} (d - i + 1) >= sum_{m=1}^{d} m^2 =
d (d + 1) (2 d + 1) / 6`` terms; the estimate is the sum over the coordinates. A serial
chain of ``n`` joints: about ``n^4 / 12`` (30 joints: 70 000; 200 joints: 1.3e8).
Each term held costs at least :data:`BYTES_PER_TERM` bytes.
"""

from __future__ import annotations

from ..core.errors import ExpansionError
from ..model.chain import Chain

__all__ = ["estimated_terms", "check_derivable", "MAX_ESTIMATED_TERMS", "BYTES_PER_TERM"]

#: The largest estimate :func:`check_derivable` lets through (about 70 joints in a series;
#: the ring's own budget stops the derivation earlier for most such chains).
MAX_ESTIMATED_TERMS = 2_000_000
#: Bytes of memory per term of a polynomial, at least (a monomial's exponent tuple and
#: its coefficient in a dictionary).
BYTES_PER_TERM = 200


def estimated_terms(chain: Chain) -> int:
    """A lower bound on the terms of ``chain``'s mass matrix in closed form (module
    docstring), from its tree of velocity coordinates alone."""
    parents = chain.velocity_parents()
    depth: list[int] = []
    total = 0
    for p in parents:  # a coordinate's parent comes before it
        d = 1 + (depth[p] if p >= 0 else 0)
        depth.append(d)
        total += d * (d + 1) * (2 * d + 1) // 6
    return total


def check_derivable(chain: Chain, name: str) -> None:
    """Refuse, before expanding anything, a derivation whose estimate
    (:func:`estimated_terms`) exceeds :data:`MAX_ESTIMATED_TERMS`."""
    terms = estimated_terms(chain)
    if terms > MAX_ESTIMATED_TERMS:
        gigabytes = terms * BYTES_PER_TERM / 1e9
        raise ExpansionError(
            f"{name}: the closed forms of this {chain.nv}-coordinate model would hold at "
            f"least {terms:,} terms (estimated from the model before expanding: the mass "
            f"matrix alone, about {gigabytes:,.1f} GB), more than the budget of "
            f"{MAX_ESTIMATED_TERMS:,} (robodyn.symbolic.estimate.MAX_ESTIMATED_TERMS); use "
            "the numeric functions (robot.mass_matrix, robot.inverse_dynamics, ...), which "
            "take models of any size, or derive a shorter part of the chain (tip=...)")
