"""What a derivation produces, before anything is printed: polynomials of one ring.

Both routes (:mod:`.lagrange`, :mod:`.newton_euler`) end with the joint torques
``tau(q, qd, qdd)`` as polynomials; :func:`collect` reads ``M``, ``g`` and the
velocity terms off them the same way for both, and forms the Christoffel symbols and
``C`` from ``M``. The steps are kept as polynomials too and printed only when asked
for (:class:`~.equations.Equations` converts lazily), so a 6-DOF derivation does not
pay for printing what nobody reads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any

import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

from .. import linalg3 as la
from ..dynamics.friction import friction_torques
from ..dynamics.kinematics import jacobian, link_poses
from ..dynamics.ops import SYMPY
from ..model.chain import SNAP, Chain, Transform, snap
from ..model.expressions import to_sympy
from .from_sympy import chain_expressions
from .trig_ring import TrigRing
from .trig_scalar import TrigScalar

#: Names of the end-effector wrench h_e = (f_e, mu_e), base frame (Siciliano eq. 7.83).
WRENCH_NAMES = ("f_ex", "f_ey", "f_ez", "mu_ex", "mu_ey", "mu_ez")


@dataclass(frozen=True)
class RawStep:
    """One step of a derivation, its value still a polynomial (or a vector/matrix of them,
    or a ready SymPy expression).

    ``lhs``/``latex_lhs``: what the step defines (``K_1``, ``K_{1}``); ``formula`` /
    ``latex_formula``: the general equation it instantiates; ``section``: the heading
    it is printed under.
    """

    section: str
    title: str
    lhs: str
    latex_lhs: str
    value: Any
    formula: str = ""
    latex_formula: str = ""


@dataclass
class Derivation:
    """The results of one route, as polynomials of ``ring`` (0-based indices)."""

    method: str
    ring: TrigRing
    chain: Chain
    tau: list[PolyElement]                 # M qdd + C qd + g (no friction, no wrench)
    M: list[list[PolyElement]] = field(default_factory=list)
    g: list[PolyElement] = field(default_factory=list)
    Cqd: list[PolyElement] = field(default_factory=list)
    christoffel: list[list[list[PolyElement]]] = field(default_factory=list)
    C: list[list[PolyElement]] = field(default_factory=list)
    kinetic: PolyElement | None = None
    potential: PolyElement | None = None
    wrench: list[PolyElement] | None = None     # J^T h_e, if asked for
    wrench_symbols: tuple[sp.Symbol, ...] = ()
    friction: list[sp.Expr] = field(default_factory=list)
    steps: list[RawStep] = field(default_factory=list)


def tidy_chain(chain: Chain) -> Chain:
    """``chain`` with the rounding of its constant rotations undone, so that the closed
    forms stay sparse and exact:

    * entries within :data:`~robodyn.model.chain.SNAP` of 0 or +-1 become exactly 0 or
      +-1 (:func:`~robodyn.model.chain.snap`, as the numeric kernels do);
    * a rotation about one coordinate axis by a Float angle (entries ``c, -s, s, c`` in
      one 2x2 block) is written with ``cos(theta)``, ``sin(theta)`` of that angle, which
      the ring reduces with ``cos^2 + sin^2 = 1`` (otherwise ``R^T R = 1`` holds only to
      rounding and the expressions swell). The block must be a rotation to within
      :data:`~robodyn.model.chain.SNAP` too.

    The torques change by the rounding only (below SNAP relative), as in the numeric
    kernels (:func:`~robodyn.model.chain.snap_rotations`).
    """
    def tidy(transform: Transform) -> Transform:
        rot = [[_snap(x) for x in row] for row in transform.rotation]
        rot = _single_axis(rot)
        return Transform(tuple(tuple(row) for row in rot), transform.translation)

    links = tuple(replace(link, joint=replace(link.joint, placement=tidy(link.joint.placement)))
                  for link in chain.links)
    return replace(chain, links=links, tip=tidy(chain.tip))


def _snap(x):
    """A Float entry that :func:`~robodyn.model.chain.snap` makes 0 or +-1, as that
    SymPy integer; anything else unchanged."""
    if isinstance(x, (sp.Float, float)):
        v = snap(float(x))
        if v in (0.0, 1.0, -1.0):
            return sp.Integer(int(v))
    return x


def _single_axis(rot):
    floats = [(r, c) for r in range(3) for c in range(3) if isinstance(rot[r][c], sp.Float)]
    if len(floats) != 4:
        return rot
    rows = sorted({r for r, _ in floats})
    cols = sorted({c for _, c in floats})
    if rows != cols or len(rows) != 2:
        return rot
    i, j = rows
    cos_ii, cos_jj, sin_ji, sin_ij = rot[i][i], rot[j][j], rot[j][i], rot[i][j]
    if abs(float(cos_ii) - float(cos_jj)) > SNAP or \
            abs(float(sin_ij) + float(sin_ji)) > SNAP or \
            abs(float(cos_ii) ** 2 + float(sin_ji) ** 2 - 1) > SNAP:
        return rot
    theta = sp.Float(math.atan2(float(sin_ji), float(cos_ii)))
    c, s = sp.cos(theta, evaluate=False), sp.sin(theta, evaluate=False)
    out = [list(row) for row in rot]
    out[i][i] = out[j][j] = c
    out[j][i], out[i][j] = s, -s
    return out


def make_ring(chain: Chain, wrench: bool = False) -> TrigRing:
    """The ring of ``chain``'s closed forms (both routes of one robot share it)."""
    extra = tuple(sp.Symbol(n) for n in WRENCH_NAMES) if wrench else ()
    clash = {str(s) for s in chain.free_symbols()} & set(WRENCH_NAMES)
    if clash:
        raise ValueError(f"model parameter(s) {', '.join(sorted(clash))} clash with the names "
                         "of the end-effector wrench; rename them to use h_e")
    return TrigRing([link.joint.type for link in chain.links], chain_expressions(chain),
                    extra_symbols=extra)


def poly(x, ring: TrigRing) -> PolyElement:
    """A scalar produced by the core's algorithms on the ring, as a polynomial."""
    if isinstance(x, TrigScalar):
        return x.p
    return ring.poly(x)


def vec(v, ring: TrigRing) -> tuple[PolyElement, ...]:
    return tuple(poly(x, ring) for x in v)


def collect(d: Derivation) -> None:
    """Fill ``M``, ``g``, ``Cqd``, Christoffel symbols and ``C`` of ``d`` from ``d.tau``.

    ``M_ij`` = coefficient of ``qdd_j`` in ``tau_i``; ``g = tau(q, 0, 0)``;
    ``C qd = tau - M qdd - g``; ``c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)``
    (Siciliano eq. 7.44, seed 002), ``C_ij = sum_k c_ijk qd_k``.
    """
    ring = d.ring
    n = ring.dof
    qdd_idx = ring.qdd_index
    d.M = [[ring.coefficient(d.tau[i], qdd_idx[j], 1) for j in range(n)] for i in range(n)]
    d.g = [ring.at_rest(t) for t in d.tau]
    d.Cqd = [ring.drop(t, qdd_idx) - gi for t, gi in zip(d.tau, d.g, strict=True)]
    d.christoffel, d.C = christoffel(ring, d.M)


def christoffel(ring: TrigRing, M) -> tuple[list, list]:
    """Christoffel symbols of the first kind of ``M`` and the matrix ``C`` they give."""
    n = ring.dof
    half = QQ(1, 2)
    dM = [[[ring.diff_q(M[i][j], k) for k in range(n)] for j in range(n)] for i in range(n)]
    c = [[[(dM[i][j][k] + dM[i][k][j] - dM[j][k][i]) * half for k in range(n)]
          for j in range(n)] for i in range(n)]
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    C = [[ring.reduce(sum((c[i][j][k] * qd[k] for k in range(n)), ring.zero))
          for j in range(n)] for i in range(n)]
    return c, C


def potential_energy(ring: TrigRing, chain_r: Chain, poses) -> tuple[list, list]:
    """``U_i = -m_i g0^T p_ci`` per link (and the COM positions ``p_ci``), base frame."""
    U, coms = [], []
    for link, (rot, origin) in zip(chain_r.links, poses, strict=True):
        p_c = la.add(origin, la.matvec(rot, link.inertial.com))
        coms.append(p_c)
        U.append(poly(-(link.inertial.mass * la.dot(chain_r.gravity, p_c)), ring))
    return U, coms


def finish(d: Derivation, chain_r: Chain, q_args) -> None:
    """The common tail of both routes: collect M, g, C; friction; the wrench term."""
    ring = d.ring
    collect(d)
    d.friction = [to_sympy(f) for f in friction_torques(d.chain, ring.qd, SYMPY)]
    if ring.extra:
        jac = jacobian(chain_r, q_args, ring.ops())
        h = [ring.gen(s) for s in ring.extra]
        d.wrench = [ring.reduce(sum((poly(jac[r][i], ring) * h[r] for r in range(6)),
                                    ring.zero)) for i in range(ring.dof)]
        d.wrench_symbols = ring.extra


def pose_list(chain_r: Chain, q_args, ring: TrigRing):
    return link_poses(chain_r, q_args, ring.ops())
