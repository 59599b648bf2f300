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
import re
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import sympy as sp
from sympy import QQ
from sympy.polys.rings import PolyElement

from ..core import linalg3 as la
from ..core.errors import ModelError
from ..dynamics.friction import friction_torques
from ..dynamics.kinematics import jacobian, joint_transform, link_poses
from ..dynamics.ops import SYMPY
from ..model.chain import SNAP, Chain, Transform, snap
from ..model.expressions import to_sympy
from .dh_frames import dh_links
from .lugre import bristle_symbols, lugre_terms
from .ring.coordinates import joint_coordinates
from .ring.from_sympy import chain_expressions
from .ring.trig_ring import TrigRing
from .ring.trig_scalar import TrigScalar

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


@dataclass(frozen=True)
class PlusExpr:
    """A step's value that is a polynomial plus a SymPy expression the ring does not hold
    (friction's ``F_s sign(qd)``): printed as ``textbook(poly) + extra``."""

    poly: Any
    extra: Any


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
    bristle: tuple[sp.Symbol, ...] = ()       # LuGre's z_i (:mod:`.lugre`), if any
    bristle_rate: list[sp.Expr] = field(default_factory=list)   # their dz_i/dt
    steps: list[RawStep] = field(default_factory=list)
    route: str = "euler-lagrange"            # the Lagrange route (:mod:`.routes`)

    @property
    def tau_with_wrench(self) -> list[PolyElement]:
        """``tau`` with the wrench's ``J^T h_e`` added, if asked for (friction aside)."""
        if self.wrench is None:
            return list(self.tau)
        return [t + w for t, w in zip(self.tau, self.wrench, strict=True)]


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
    links = tuple(replace(link, joint=replace(link.joint,
                                              placement=tidy_transform(link.joint.placement)))
                  for link in chain.links)
    return replace(chain, links=links, tip=tidy_transform(chain.tip))


def tidy_transform(transform: Transform) -> Transform:
    """``transform`` with its rotation tidied as :func:`tidy_chain` tidies a chain's."""
    rot = [[_snap(x) for x in row] for row in transform.rotation]
    rot = _single_axis(rot)
    return Transform(tuple(tuple(row) for row in rot), transform.translation)


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
    names = {str(s) for s in chain.free_symbols()}
    clash = names & set(WRENCH_NAMES)
    if clash:
        raise ValueError(f"model parameter(s) {', '.join(sorted(clash))} clash with the names "
                         "of the end-effector wrench; rename them to use h_e")
    taken = {str(s) for jc in joint_coordinates([link.joint.type for link in chain.links])
             for s in jc.q + jc.qd + jc.qdd}
    if names & taken:
        raise ModelError(f"model parameter(s) {', '.join(sorted(names & taken))} have the "
                         "name of a joint coordinate (q1, qd1, x1, qx1, v_x1, ...); rename "
                         "them")
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
    (Siciliano et al., Robotics, eq. 7.44), ``C_ij = sum_k c_ijk qd_k``.
    """
    ring = d.ring
    n = ring.dof
    qdd_idx = ring.qdd_index
    d.M = [[ring.coefficient(d.tau[i], qdd_idx[j], 1) for j in range(n)] for i in range(n)]
    d.g = [ring.at_rest(t) for t in d.tau]
    d.Cqd = [ring.drop(t, qdd_idx) - gi for t, gi in zip(d.tau, d.g, strict=True)]
    d.christoffel, d.C = christoffel(ring, d.M)


def christoffel(ring: TrigRing, M) -> tuple[list, list]:
    """Christoffel symbols of the first kind of ``M`` and the matrix ``C`` they give.

    ``c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)`` (Siciliano et al., Robotics,
    eq. 7.44) for the rates of one-value joints. The velocity of a ball or free joint is
    its body twist, a non-holonomic frame ``X_k`` (:mod:`.ring.coordinates`): ``d/dq_k``
    is the derivative along ``X_k`` and the brackets ``[X_a, X_b] = sum_m c^m_ab X_m`` add
    (the Koszul formula of the Levi-Civita connection of the kinetic-energy metric ``M``
    in that frame; do Carmo, *Riemannian Geometry*, §2.3)::

        c_ijk = 1/2 (X_k M_ij + X_j M_ik - X_i M_jk)
                + 1/2 sum_m (c^m_kj M_mi - c^m_ji M_mk - c^m_ki M_mj)

    ``C_ij = sum_k c_ijk qd_k``. ``dM/dt - 2C`` is skew-symmetric (the connection is
    metric), ``C qd`` is the velocity term of the Boltzmann–Hamel equations, and this is
    the ``C`` of the spatial form (Echeandia & Wensing; Pinocchio's
    ``computeCoriolisMatrix``), :func:`robodyn.dynamics.coriolis.coriolis_matrix`.
    """
    n = ring.dof
    half = QQ(1, 2)
    dM = [[[ring.diff_q(M[i][j], k) for k in range(n)] for j in range(n)] for i in range(n)]
    c = [[[(dM[i][j][k] + dM[i][k][j] - dM[j][k][i]) * half for k in range(n)]
          for j in range(n)] for i in range(n)]
    for (a, b), terms in ring.structure.items():  # [X_a, X_b] = sum_m c^m_ab X_m
        for m, coef in terms:
            w = coef * half
            for r in range(n):
                c[r][b][a] += M[m][r] * w      # c^m_kj M_mi: k = a, j = b, i = r
                c[b][a][r] -= M[m][r] * w      # c^m_ji M_mk: j = a, i = b, k = r
                c[b][r][a] -= M[m][r] * w      # c^m_ki M_mj: k = a, i = b, j = r
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    C = [[ring.reduce(sum((c[i][j][k] * qd[k] for k in range(n)), ring.zero))
          for j in range(n)] for i in range(n)]
    return c, C


def mass_matrix_rate(d: Derivation) -> list[list[PolyElement]]:
    """``dM/dt = sum_k dM/dq_k qd_k`` of ``d``, entry by entry."""
    ring = d.ring
    return [[ring.time_derivative(x) for x in row] for row in d.M]


def n_matrix(d: Derivation) -> list[list[PolyElement]]:
    """``N = dM/dt - 2C`` of ``d``, skew-symmetric for the Christoffel ``C`` (Siciliano et
    al., Robotics, §7.3.1)."""
    Mdot, C, n = mass_matrix_rate(d), d.C, d.ring.dof
    return [[Mdot[i][j] - 2 * C[i][j] for j in range(n)] for i in range(n)]


def potential_energy(ring: TrigRing, chain_r: Chain, poses) -> tuple[list, list]:
    """``U_i = -m_i g0^T p_ci - sum_k m_ik g0^T p_ik`` per link, its point masses ``m_ik``
    at ``p_ik`` included (and the COM positions ``p_ci`` of the bodies), base frame."""
    U, coms = [], []
    for link, (rot, origin), points in zip(chain_r.links, poses,
                                           point_positions(chain_r, poses), strict=True):
        p_c = la.add(origin, la.matvec(rot, link.inertial.com))
        coms.append(p_c)
        u = -(link.inertial.mass * la.dot(chain_r.gravity, p_c))
        for mass, p in points:
            u = u - mass * la.dot(chain_r.gravity, p)
        U.append(poly(u, ring))
    return U, coms


def point_positions(chain_r: Chain, poses) -> list[list]:
    """Per link, ``(m_ik, p_ik)`` of each of its point masses: the mass and its position
    ``p_ik = o_i + R_i at_ik`` in the base frame."""
    return [[(point.mass, la.add(origin, la.matvec(rot, point.at)))
             for point in link.point_masses]
            for link, (rot, origin) in zip(chain_r.links, poses, strict=True)]


def finish(d: Derivation, chain_r: Chain, q_args) -> None:
    """The common tail of both routes: the drives of a coupled transmission; collect M, g,
    C; friction (LuGre's with its bristle states, :mod:`.lugre`); the wrench term."""
    ring = d.ring
    drives = getattr(d.chain, "transmission", None)
    if drives is not None:
        _add_drives(d, drives)
    collect(d)
    d.friction = [to_sympy(f) for f in friction_torques(d.chain, ring.qd, SYMPY)]
    if drives is not None:  # the motors' friction, N^T (B_m N qd + F_m sign(N qd))
        N = drives.N.tolist()
        thetad = motor_rates(drives, ring.qd)
        motor = [sp.Float(b) * w + sp.Float(c) * sp.sign(w)
                 for b, c, w in zip(drives.motor_viscous, drives.motor_coulomb, thetad,
                                    strict=True)]
        d.friction = [f + sum((sp.Float(N[k][i]) * motor[k] for k in range(len(N)) if N[k][i]),
                              sp.Integer(0)) for i, f in enumerate(d.friction)]
    d.bristle = bristle_symbols(d.chain)
    if d.bristle:  # LuGre: F(qd, z) with the bristle states z_i (:mod:`.lugre`)
        d.bristle_rate, lugre = lugre_terms(d.chain.lugre, ring.qd, d.bristle)
        d.friction = [f + x for f, x in zip(d.friction, lugre, strict=True)]
    if ring.extra:
        jac = jacobian(chain_r, q_args, ring.ops())
        h = [ring.gen(s) for s in ring.extra]
        d.wrench = [ring.reduce(sum((poly(jac[r][i], ring) * h[r] for r in range(6)),
                                    ring.zero)) for i in range(ring.dof)]
        d.wrench_symbols = ring.extra


def motor_rates(tr, qd) -> list:
    """``theta_d = N qd`` as SymPy sums ``sum_j N_kj qd_j`` (the Floats of ``N``, its zeros
    left out): the closed forms' and the closed-form regressor's one spelling of them."""
    return [sum((sp.Float(x) * v for x, v in zip(row, qd, strict=True) if x), sp.Integer(0))
            for row in tr.N.tolist()]


def exact(x: float) -> sp.Rational:
    """A drive's number as the decimal of 15 digits it prints as, exact in the ring (whose
    Floats are the model's own numbers only)."""
    return sp.Rational(f"{float(x):.15g}")


def _add_drives(d: Derivation, tr) -> None:
    """A coupled transmission ``theta = N q`` (:mod:`robodyn.model.transmission`): its
    rotors' kinetic energy ``1/2 qd^T N^T J_m N qd`` (Spong, Hutchinson & Vidyasagar, *Robot
    Modeling and Control*, §6.4) adds ``R qdd`` to every route's ``tau``, ``R = N^T J_m N``
    constant (so ``M + R`` and no velocity term); a step shows ``R``. ``R`` is summed
    exactly from the decimals of ``N`` and ``J_m`` (:func:`exact`), so the closed-form
    regressor's ``Jm`` columns times ``J_m`` are exactly it."""
    ring = d.ring
    N = tr.N
    R = (N.T @ (np.asarray(tr.motor_inertia, dtype=float)[:, None] * N)).tolist()
    n = ring.dof
    gens = ring.ring.gens
    qdd = [gens[k] for k in ring.qdd_index]
    qd = [gens[k] for k in ring.qd_index]
    Nx = [[exact(x) for x in row] for row in N.tolist()]
    Jx = [exact(x) for x in tr.motor_inertia]
    Rp = [[ring.poly(sum((Nx[k][i] * Jx[k] * Nx[k][j] for k in range(n)), sp.Integer(0)))
           for j in range(n)] for i in range(n)]
    d.tau = [ring.reduce(d.tau[i] + sum((Rp[i][j] * qdd[j] for j in range(n) if R[i][j]),
                                        ring.zero)) for i in range(n)]
    if d.kinetic is not None:  # the Lagrange route's T: the rotors' energy added
        d.kinetic = ring.reduce(d.kinetic + sum((Rp[i][j] * qd[i] * qd[j] for i in range(n)
                                                 for j in range(n) if R[i][j]), ring.zero)
                                * QQ(1, 2))
    shown = sp.Matrix([[sp.Float(f"{x:.15g}", 15) for x in row] for row in R])
    d.steps.append(RawStep("Drives", "Motors behind the coupled transmission theta = N q: "
                           "their reflected inertia (constant, added to M in every route)",
                           "R", "R", shown, "N^T diag(Jm) N", r"N^T \mathrm{diag}(J_m)\, N"))


def pose_list(chain_r: Chain, q_args, ring: TrigRing):
    return link_poses(chain_r, q_args, ring.ops())


SECTION_GIVEN = "Given"


def given_steps(d: Derivation, dh_rows=(), convention: str | None = None) -> list[RawStep]:
    """The data a derivation starts from, as the lecture lists them before any step:

    * the DH table (joint variable added: ``theta_i = q_i + theta_i0`` for a revolute
      joint, ``d_i = q_i + d_i0`` for a prismatic one), or the joint placements of a
      URDF chain (origin, rotation, axis);
    * each ``A_i`` (link frame ``i`` in frame ``i-1``, homogeneous 4x4: with standard DH
      ``Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)`` of row ``i``, frame ``i`` at the distal
      end of link ``i``, :mod:`.dh_frames`) and the products ``T_i = A_1 ... A_i``
      (``R_i``, ``o_i`` of link frame ``i`` in the base frame);
    * each link's mass, COM vector ``c_i`` and inertia tensor ``I_i`` (about the COM),
      both in link frame ``i`` as the model file gives them; gravity ``g0`` in the base
      frame;
    * for Newton–Euler the boundary values ``w_0 = wd_0 = 0``, ``vd_0 = -g0`` and
      ``f_{n+1} = n_{n+1} = 0`` (a wrench ``h_e`` enters as ``J^T h_e``).
    """
    ring = d.ring
    chain_r = ring.chain(d.chain)
    standard = bool(dh_rows) and convention != "modified"
    steps = _geometry_steps(ring, d.chain, dh_rows, convention)
    if standard:
        links = dh_links(ring, d.chain, dh_rows)
        steps += _frame_steps(ring, [(x.rot, x.origin) for x in links], convention, d.chain)
        inertials = [(x.mass, x.com, x.inertia) for x in links]
    else:
        q_args = chain_r.per_joint(ring.joint_arguments()[0], velocity=False)
        frames = [joint_transform(link.joint, q_args[i], ring.ops())
                  for i, link in enumerate(chain_r.links)]
        steps += _frame_steps(ring, frames, convention if dh_rows else None, d.chain)
        inertials = [(x.inertial.mass, x.inertial.com, x.inertial.inertia)
                     for x in chain_r.links]
    steps += _inertial_steps(ring, chain_r, inertials, standard)
    steps += point_mass_steps(ring, chain_r)
    if d.method == "newton-euler":
        steps += _boundary_steps(ring, chain_r, standard)
    return steps


def _geometry_steps(ring, chain: Chain, dh_rows, convention) -> list[RawStep]:
    """The DH table with the joint variables added, or each joint's axis and placement."""
    S = SECTION_GIVEN
    if dh_rows:
        table = []
        for i, row in enumerate(dh_rows):
            qi = ring.q[i]
            theta = qi + row.theta if row.joint == "revolute" else row.theta
            dd = qi + row.d if row.joint == "prismatic" else row.d
            table.append([to_sympy(row.a), to_sympy(row.alpha), to_sympy(dd), to_sympy(theta)])
        name = "modified (Craig): a_{i-1}, alpha_{i-1}" if convention == "modified" else \
            "standard (Siciliano): a_i, alpha_i"
        steps = [RawStep(S, f"DH table ({name}, d_i, theta_i; row i = joint i)",
                         "DH", r"\mathrm{DH}", sp.Matrix(table))]
        return steps + _parent_steps(chain)
    steps = _parent_steps(chain)
    for i, link in enumerate(chain.links):
        k = i + 1
        p = link.joint.placement
        if not link.joint.model.single:  # a ball or free joint: no axis, its coordinates
            jc = ring.coordinates[i]
            where = f"its position in frame {chain.parent(i) + 1}, then " \
                if link.joint.type == "free" else ""
            twist = "linear, then angular velocity" if link.joint.type == "free" else \
                "angular velocity"
            steps.append(RawStep(
                S, f"Joint {k} ({link.joint.type}): its configuration, {where}a unit "
                "quaternion (x, y, z, w)", f"q_{k}", rf"q_{{{k}}}", sp.Matrix(jc.q)))
            steps.append(RawStep(
                S, f"Joint {k}: its velocity, the {twist} of link {k} relative to its "
                f"parent, in link frame {k} (dq_{k}/dt is not v_{k})", f"v_{k}",
                rf"v_{{{k}}}", sp.Matrix(jc.qd)))
        else:
            steps.append(RawStep(
                S, f"Joint {k} ({link.joint.type}): unit vector of its axis in link frame {k}",
                f"u_{k}", rf"\mathbf{{u}}_{{{k}}}",
                sp.Matrix([to_sympy(x) for x in link.joint.axis])))
        steps.append(RawStep(
            S, f"Joint {k}: placement in frame {chain.parent(i) + 1} (rotation, origin)",
            f"P_{k}", rf"P_{{{k}}}", sp.Matrix([[to_sympy(x) for x in row]
                                               + [to_sympy(p.translation[r])]
                                               for r, row in enumerate(p.rotation)])))
    return steps


def _parent_steps(chain: Chain) -> list[RawStep]:
    """A tree's shape: the parent of each link (0: the base), each DH row (or joint
    placement) given in its parent's frame; nothing for a serial chain."""
    if chain.is_serial:
        return []
    return [RawStep(SECTION_GIVEN, "Tree: the parent of link i (0: the base); row i is "
                    "given in its parent's frame", "parent", r"\mathrm{parent}",
                    sp.Matrix([[p + 1 for p in chain.parent_indices]]))]


#: ``A_k`` of a DH row, by convention: (text, LaTeX) with ``{k}``, ``{p}`` = k - 1.
_A_FORMULA = {
    "standard": ("Rz(theta_{k}) Tz(d_{k}) Tx(a_{k}) Rx(alpha_{k})",
                 r"R_z(\theta_{{{k}}})\, T_z(d_{{{k}}})\, T_x(a_{{{k}}})\, R_x(\alpha_{{{k}}})"),
    "modified": ("Rx(alpha_{p}) Tx(a_{p}) Rz(theta_{k}) Tz(d_{k})",
                 r"R_x(\alpha_{{{p}}})\, T_x(a_{{{p}}})\, R_z(\theta_{{{k}}})\, T_z(d_{{{k}}})"),
    None: ("[R, r; 0, 1]", r"\begin{{bmatrix}} R & r \\ 0 & 1\end{{bmatrix}}"),
}


def _frame_steps(ring, frames, convention, chain: Chain | None = None) -> list[RawStep]:
    """Each ``A_i`` (from ``frames``: rotation and origin of link frame ``i`` in frame
    ``i-1``, in a tree ``chain`` in its parent's frame) and the products ``T_i = A_1 ...
    A_i`` (in a tree over the path from the base: ``T_3 = A_1 A_3``)."""
    S = SECTION_GIVEN
    steps: list[RawStep] = []
    parents = chain.parent_indices if chain is not None else tuple(range(-1, len(frames) - 1))
    products = []
    text, latex = _A_FORMULA[convention or None]
    for i, (rot, origin) in enumerate(frames):
        k, p = i + 1, parents[i] + 1
        row = f" (DH row {k})" if convention else ""
        steps.append(RawStep(
            S, f"Link frame {k} in frame {p}{row}", f"A_{k}", rf"A_{{{k}}}^{{{p}}}",
            # the formula names row k's own parameters (Craig's a_{k-1}, alpha_{k-1})
            _homogeneous(ring, rot, origin), text.format(k=k, p=k - 1),
            latex.format(k=k, p=k - 1)))
        rot_0, pos_0 = products[p - 1] if p else (la.IDENTITY3, la.ZERO3)
        products.append((la.matmul(rot_0, rot), la.add(pos_0, la.matvec(rot_0, origin))))
    for i, (rot, origin) in enumerate(products):
        if i == 0:
            continue
        k = i + 1
        path = [k]  # the frames from the base to frame k
        while parents[path[0] - 1] >= 0:
            path.insert(0, parents[path[0] - 1] + 1)
        lhs = " ".join(f"A_{j}" for j in path)
        steps.append(RawStep(
            S, f"Link frame {k} in the base frame: [R_{k}, o_{k}; 0, 1]", f"T_{k}",
            rf"T_{{{k}}}^{{0}}", _homogeneous(ring, rot, origin), lhs,
            r"\,".join(f"A_{{{j}}}^{{{parents[j - 1] + 1}}}" for j in path)))
    return steps


def _inertial_steps(ring, chain_r: Chain, inertials, standard: bool) -> list[RawStep]:
    """Each link's mass, centre of mass, inertia (and rotor inertia); gravity."""
    S = SECTION_GIVEN
    steps = []
    frame = "DH frame" if standard else "link frame"
    for i, (link, (mass, com, inertia)) in enumerate(zip(chain_r.links, inertials,
                                                         strict=True)):
        k = i + 1
        steps.append(RawStep(S, f"Link {k}: mass", f"m_{k}", rf"m_{{{k}}}", poly(mass, ring)))
        steps.append(RawStep(S, f"Link {k}: centre of mass in {frame} {k}", f"c_{k}",
                             rf"\mathbf{{c}}_{{{k}}}", vec(com, ring)))
        steps.append(RawStep(S, f"Link {k}: inertia tensor about the centre of mass, {frame} "
                             f"{k}{inertia_words(k, vec(com, ring), inertia, ring, mass)}",
                             f"I_{k}",
                             rf"\mathbf{{I}}_{{{k}}}",
                             [list(vec(row, ring)) for row in inertia]))
        if poly(link.motor.armature, ring) != ring.zero:
            steps.append(RawStep(S, f"Motor {k}: reflected rotor inertia", f"G{k}^2 Jm{k}",
                                 rf"G_{{{k}}}^2 J_{{m{k}}}", poly(link.motor.armature, ring)))
    steps.append(RawStep(S, "Gravity (base frame)", "g0", r"\mathbf{g}_0",
                         vec(chain_r.gravity, ring)))
    return steps


_AXIS_NAME = re.compile(r"^I(xx|yy|zz)")


def inertia_words(k: int, com, inertia, ring, mass) -> str:
    """What a reader of the Given step must not miss about link ``k``'s inertia tensor:
    a diagonal whose names follow another frame's axes (``[Iyy1, Izz1, Ixx1]`` in DH frame
    1: the lecture's tensor, named in its own frame), and, when the centre of mass is off
    the frame's origin, that it is about the centre of mass, not about the joint (the
    parallel-axis theorem, Siciliano §7.2.1: about a parallel axis at distance r it is
    I + m r^2)."""
    words = ""
    diagonal = [str(poly(inertia[j][j], ring).as_expr()) for j in range(3)]
    named = [_AXIS_NAME.match(name) for name in diagonal]
    if all(named) and [m.group(1) for m in named] != ["xx", "yy", "zz"]:
        words += ("; its diagonal is named in another frame's axes: on x, y, z of this "
                  f"frame sit the {', '.join(m.group(1) for m in named)} names")
    mass_ = poly(mass, ring).as_expr()
    name = mass_.name if isinstance(mass_, sp.Symbol) else f"m_{k}"  # the model's name
    if any(c != ring.zero for c in com) and any(x != "0" for x in diagonal):
        words += ("; about the centre of mass, not the joint: about a parallel axis at "
                  f"distance r add {name} times r squared")
    return words


def point_mass_steps(ring, chain_r: Chain) -> list[RawStep]:
    """Each point mass of a link (a motor, a payload): its mass ``m_{i,k}`` and where it
    sits, ``c_{i,k}`` in link frame ``i`` (a point is its own centre of mass)."""
    steps = []
    for i, link in enumerate(chain_r.links):
        for j, point in enumerate(link.point_masses):
            k, idx = i + 1, f"{i + 1},{j + 1}"
            steps.append(RawStep(SECTION_GIVEN, f"Link {k}: point mass {j + 1}", f"m_{idx}",
                                 rf"m_{{{idx}}}", poly(point.mass, ring)))
            steps.append(RawStep(SECTION_GIVEN, f"Link {k}: where point mass {j + 1} sits, "
                                 f"link frame {k}", f"c_{idx}", rf"\mathbf{{c}}_{{{idx}}}",
                                 vec(point.at, ring)))
    return steps


def _boundary_steps(ring, chain_r: Chain, standard: bool = False) -> list[RawStep]:
    """Newton–Euler's boundary values: the base's motion (gravity as its acceleration)
    and the tip's force and moment (Siciliano's names ``pdd_0``, ``mu`` for standard DH)."""
    S = SECTION_GIVEN
    n = chain_r.dof  # the links (the tip is link n)
    zero = (ring.zero,) * 3
    acc, acc_tex = ("pdd_0", r"\ddot p_0") if standard else ("vd_0", r"\dot v_0")
    moment, moment_tex = ("mu", r"\mu") if standard else ("n", "n")
    wrench = ("" if not ring.extra else "0 (h_e enters as J^T h_e)",
              "" if not ring.extra else r"0 \quad (h_e\ \text{enters as}\ J^T h_e)")
    tips = [RawStep(S, f"Tip: force and moment of the environment on link {n}",
                    f"f_{n + 1} = {moment}_{n + 1}",
                    rf"f_{{{n + 1}}} = {moment_tex}_{{{n + 1}}}", zero, *wrench)]
    if not chain_r.is_serial:  # a tree: every link without children is a tip
        leaves = [i + 1 for i in range(n) if not chain_r.children(i)]
        tips = [RawStep(S, f"Tips (links {', '.join(map(str, leaves))}, without children): "
                        "no force or moment from a child", f"f = {moment} = 0 from children",
                        rf"f = {moment_tex} = 0", zero, *wrench)]
    return [
        RawStep(S, "Base: angular velocity and acceleration", "w_0 = wd_0", r"\omega_0 = "
                r"\dot\omega_0", zero),
        RawStep(S, "Base: gravity as an upward acceleration of the base", acc,
                acc_tex, vec(la.neg(chain_r.gravity), ring), "-g0", r"-\mathbf{g}_0"),
        *tips,
    ]


def _homogeneous(ring: TrigRing, rot, origin) -> list[list[PolyElement]]:
    rows = [list(vec(row, ring)) + [poly(origin[r], ring)] for r, row in enumerate(rot)]
    return rows + [[ring.zero, ring.zero, ring.zero, ring.one]]
