"""The other Lagrange routes of the textbooks: ``M`` from the kinetic energy, and ``M``, ``g``
from the link Jacobians.

Both end where the Euler–Lagrange route (:mod:`.lagrange`) ends, with
``tau = M qdd + C qd + g``, and must give the identical ``M`` and ``g`` (tests prove it
in the ring for every built-in model); what differs is the way there, which the steps
show.

**Energy route** (lecture notes on planar arms): with ``K = 1/2 qd^T M(q) qd`` (the energies of
:func:`.lagrange.energies`), ``M`` is the Hessian of ``K`` in the rates, and ``g`` the
gradient of ``U``::

    M_ij = d^2 K / (dqd_i dqd_j),      g_i = dU / dq_i.

**Jacobian route** (Siciliano et al., Robotics, §7.2 and §7.4): with the Jacobian of
each link's centre of mass, column ``j <= i`` (zero for ``j > i``)::

    J_P,j^(i) = z_j x (p_ci - o_j)  (revolute j),    z_j  (prismatic j)
    J_O,j^(i) = z_j                 (revolute j),    0    (prismatic j)

(``z_j``, ``o_j``: joint ``j``'s axis and a point of it, the origin of link frame ``j``,
base frame), the inertia matrix and the gravity torques are::

    B = sum_i m_i J_P^(i)T J_P^(i) + J_O^(i)T R_i I_i R_i^T J_O^(i)   (+ G_i^2 Jm_i on the
                                                                      diagonal, motors)
    g_i = -sum_j m_j g0^T J_P,i^(j).

A point mass ``m_jk`` of link ``j`` (at ``p_jk``) is one more body: its own ``J_P`` (the
columns above with ``p_jk`` for ``p_ci``) adds ``m_jk J_P^T J_P`` to ``B_j`` and
``-m_jk g0^T J_P,i`` to ``g_i``; it has no rotational part.

In both routes ``C`` comes from the Christoffel symbols of ``M``
(:func:`.derivation.christoffel`), and ``tau = M qdd + C qd + g``.
"""

from __future__ import annotations

from sympy import QQ

from ..core import linalg3 as la
from ..model.chain import REVOLUTE, Chain
from .derivation import (
    Derivation,
    RawStep,
    christoffel,
    finish,
    point_positions,
    poly,
    pose_list,
    potential_energy,
    vec,
)
from .lagrange import energies
from .ring.trig_ring import TrigRing

__all__ = ["ROUTES", "energy_route", "jacobian_route", "route_of"]

#: The Lagrange routes, by name: what ``M`` is read from.
ROUTES = {
    "euler-lagrange": "tau = d/dt dL/dqd - dL/dq, M the coefficients of qdd",
    "energy": "M the Hessian of K in qd, g the gradient of U",
    "jacobian": "M and g from the link Jacobians",
}
_ALIASES = {"default": "euler-lagrange", "lagrange": "euler-lagrange", "el": "euler-lagrange",
            "euler_lagrange": "euler-lagrange", "kinetic-energy": "energy",
            "hessian": "energy", "jacobians": "jacobian"}

SECTION_M_ENERGY = "Inertia matrix from the kinetic energy"
SECTION_G_ENERGY = "Gravity from the potential energy"
SECTION_JACOBIANS = "Jacobians of the centres of mass (base frame)"
SECTION_B = "Inertia matrix from the Jacobians"
SECTION_G_JACOBIAN = "Gravity from the Jacobians"


def route_of(route: str | None, method: str) -> str:
    """The canonical name of ``route`` (``None``: ``"euler-lagrange"``); only the
    Lagrange method has routes."""
    from ..core.errors import InputError

    key = "euler-lagrange" if route is None else str(route).strip().lower()
    key = _ALIASES.get(key, key)
    if key not in ROUTES:
        raise InputError(f"route: {str(route)[:40]!r} is not a route; use one of "
                         f"{', '.join(repr(r) for r in ROUTES)}")
    if method != "lagrange" and key != "euler-lagrange":
        raise InputError(f"route={key!r} is a Lagrange route; use it with method='lagrange' "
                         "(Newton-Euler has one route, the recursion)")
    return key


def _tau(ring: TrigRing, M, g) -> list:
    """``tau_i = sum_j M_ij qdd_j + sum_j C_ij qd_j + g_i`` with ``C`` of Christoffel."""
    n = ring.dof
    gens = ring.ring.gens
    qdd = [gens[k] for k in ring.qdd_index]
    qd = [gens[k] for k in ring.qd_index]
    _, C = christoffel(ring, M)
    return [ring.reduce(sum((M[i][j] * qdd[j] + C[i][j] * qd[j] for j in range(n)), ring.zero)
                        + g[i]) for i in range(n)]


def energy_route(chain: Chain, ring: TrigRing) -> Derivation:
    """``M_ij = d^2 K / dqd_i dqd_j``, ``g_i = dU/dq_i`` (lecture notes on planar arms); see
    the module."""
    n = ring.dof
    K, U, steps, chain_r, q_args = energies(chain, ring)
    M = [[ring.diff_qd(ring.diff_qd(K, i), j) for j in range(n)] for i in range(n)]
    for i in range(n):
        for j in range(i, n):
            a, b = i + 1, j + 1
            steps.append(RawStep(
                SECTION_M_ENERGY, f"Entry M_{a}{b}" + (f" (= M_{b}{a})" if a != b else "")
                + ": second derivative of K in the rates", f"M_{a}{b}", f"M_{{{a}{b}}}",
                M[i][j], f"d^2 K / (dqd{a} dqd{b})",
                rf"\frac{{\partial^2 K}}{{\partial \dot q_{{{a}}}\,\partial \dot q_{{{b}}}}}"))
    g = [ring.diff_q(U, i) for i in range(n)]
    for i in range(n):
        steps.append(RawStep(SECTION_G_ENERGY, f"Joint {i + 1}: gravity torque", f"g_{i + 1}",
                             f"g_{{{i + 1}}}", g[i], f"dU/dq{i + 1}",
                             rf"\frac{{\partial U}}{{\partial q_{{{i + 1}}}}}"))
    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=_tau(ring, M, g), kinetic=K,
                   potential=U, steps=steps, route="energy")
    finish(d, chain_r, q_args)
    return d


def _link_jacobians(ring: TrigRing, i: int, p, z, o, revolute):
    """``(J_P, J_O)`` of link ``i`` (3 x n, columns past ``i`` zero): column ``j`` is
    ``z_j x (p - o_j)``, ``z_j`` for a revolute joint ``j`` and ``z_j``, 0 for a prismatic
    one (Siciliano eq. 7.16-7.17)."""
    n, zero = ring.dof, ring.zero
    JP = [[zero] * n for _ in range(3)]
    JO = [[zero] * n for _ in range(3)]
    for j in range(i + 1):
        if revolute[j]:
            col = [ring.reduce(x) for x in la.cross(z[j], la.sub(p, o[j]))]
            for r in range(3):
                JP[r][j], JO[r][j] = col[r], z[j][r]
        else:
            for r in range(3):
                JP[r][j] = z[j][r]
    return JP, JO


def _inertia_part(ring: TrigRing, m, JP, JO, I_base):
    """One link's part of the inertia matrix, ``m J_P^T J_P + J_O^T (R I R^T) J_O``."""
    n, zero = ring.dof, ring.zero
    Bi = [[zero] * n for _ in range(n)]
    for a in range(n):
        for b in range(a, n):
            lin = sum((ring.product(JP[r][a], JP[r][b]) for r in range(3)), zero)
            ang = sum((ring.product(ring.product(JO[r][a], I_base[r][s]), JO[s][b])
                       for r in range(3) for s in range(3) if JO[r][a] and JO[s][b]), zero)
            Bi[a][b] = Bi[b][a] = ring.reduce(ring.product(m, lin) + ang)
    return Bi


def jacobian_route(chain: Chain, ring: TrigRing) -> Derivation:
    """``B = sum_i m_i J_P^T J_P + J_O^T R_i I_i R_i^T J_O``,
    ``g_i = -sum_j m_j g0^T J_P,i^(j)`` (Siciliano et al., §7.2, §7.4); see the module."""
    n = ring.dof
    zero = ring.zero
    chain_r = ring.chain(chain)
    q_args = ring.joint_arguments()[0]
    poses = pose_list(chain_r, q_args, ring)
    U_links, coms = potential_energy(ring, chain_r, poses)
    revolute = [link.joint.type == REVOLUTE for link in chain_r.links]
    z = [vec(la.matvec(rot, link.joint.axis), ring)
         for link, (rot, _) in zip(chain_r.links, poses, strict=True)]
    o = [vec(origin, ring) for _, origin in poses]
    gravity = vec(chain_r.gravity, ring)
    steps: list[RawStep] = []
    S = SECTION_JACOBIANS
    for j in range(n):
        k = j + 1
        steps.append(RawStep(S, f"Joint {k}: axis z_{k} = R_{k} a_{k}", f"z_{k}",
                             rf"\mathbf{{z}}_{{{k}}}", z[j]))
        if revolute[j]:
            steps.append(RawStep(S, f"Joint {k}: a point of its axis (origin of link frame {k})",
                                 f"o_{k}", rf"\mathbf{{o}}_{{{k}}}", o[j]))

    B = [[zero] * n for _ in range(n)]
    JPs = []
    points: list[list] = [[] for _ in range(n)]  # per link: (m, J_P) of each point mass
    b_steps: list[RawStep] = []
    for i, link in enumerate(chain_r.links):
        k = i + 1
        p = vec(coms[i], ring)
        JP, JO = _link_jacobians(ring, i, p, z, o, revolute)
        JPs.append(JP)
        rot = poses[i][0]
        I_base = [list(vec(row, ring)) for row in la.rotate_tensor(rot, link.inertial.inertia)]
        Bi = _inertia_part(ring, poly(link.inertial.mass, ring), JP, JO, I_base)
        point_steps = []
        for j, (mass, p_point) in enumerate(point_positions(chain_r, poses)[i]):
            # a point mass: one more body of link i, m J_P^T J_P with its own J_P
            idx = f"{k},{j + 1}"
            p_point = vec(p_point, ring)
            JPp, _ = _link_jacobians(ring, i, p_point, z, o, revolute)
            points[i].append((poly(mass, ring), JPp))
            Bp = _inertia_part(ring, poly(mass, ring), JPp, JO, [[zero] * 3] * 3)
            Bi = [[ring.reduce(Bi[a][b] + Bp[a][b]) for b in range(n)] for a in range(n)]
            point_steps += [
                RawStep(S, f"Link {k}: point mass {j + 1}, position", f"p_c{idx}",
                        rf"p_{{c{idx}}}", p_point, f"o_{k} + R_{k} c_{idx}",
                        rf"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{idx}}}"),
                RawStep(S, f"Link {k}: point mass {j + 1}, translational Jacobian",
                        f"J_P^({idx})", rf"J_P^{{({idx})}}", JPp,
                        f"column j: z_j x (p_c{idx} - o_j) (revolute j), z_j (prismatic j)",
                        rf"\mathbf{{z}}_j \times (p_{{c{idx}}} - \mathbf{{o}}_j)")]
        B = [[B[a][b] + Bi[a][b] for b in range(n)] for a in range(n)]
        steps += [
            RawStep(S, f"Link {k}: centre of mass", f"p_c{k}", rf"p_{{c{k}}}", p,
                    f"o_{k} + R_{k} c_{k}", rf"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{k}}}"),
            RawStep(S, f"Link {k}: translational Jacobian (columns j > {k} zero)",
                    f"J_P^({k})", rf"J_P^{{({k})}}", JP,
                    f"column j: z_j x (p_c{k} - o_j) (revolute j), z_j (prismatic j)",
                    rf"\mathbf{{z}}_j \times (p_{{c{k}}} - \mathbf{{o}}_j)\ \text{{(revolute)}},"
                    r"\ \mathbf{z}_j\ \text{(prismatic)}"),
            RawStep(S, f"Link {k}: rotational Jacobian (columns j > {k} zero)", f"J_O^({k})",
                    rf"J_O^{{({k})}}", JO, "column j: z_j (revolute j), 0 (prismatic j)",
                    r"\mathbf{z}_j\ \text{(revolute)},\ 0\ \text{(prismatic)}"), *point_steps]
        b_steps += [
            RawStep(SECTION_B, f"Link {k}: inertia tensor in the base frame",
                    f"R_{k} I_{k} R_{k}^T", rf"R_{{{k}}} \mathbf{{I}}_{{{k}}} R_{{{k}}}^T",
                    I_base),
            RawStep(SECTION_B, f"Link {k}: its part of the inertia matrix", f"B_{k}",
                    f"B_{{{k}}}", Bi,
                    f"m_{k} J_P^({k})T J_P^({k}) + J_O^({k})T R_{k} I_{k} R_{k}^T J_O^({k})",
                    rf"m_{{{k}}}\, J_P^{{({k})T}} J_P^{{({k})}} + J_O^{{({k})T}} R_{{{k}}} "
                    rf"\mathbf{{I}}_{{{k}}} R_{{{k}}}^T J_O^{{({k})}}")]
        if link.point_masses:  # B_k's formula names the point masses' terms too
            extra = range(1, len(link.point_masses) + 1)
            last = b_steps[-1]
            b_steps[-1] = RawStep(
                last.section, last.title + " (with its point masses)", last.lhs,
                last.latex_lhs, last.value,
                last.formula + "".join(f" + m_{k},{j} J_P^({k},{j})T J_P^({k},{j})"
                                       for j in extra),
                last.latex_formula + "".join(
                    rf" + m_{{{k},{j}}}\, J_P^{{({k},{j})T}} J_P^{{({k},{j})}}" for j in extra))
    steps += b_steps
    armature = [poly(link.motor.armature, ring) for link in chain_r.links]
    motors = [i + 1 for i in range(n) if armature[i] != zero]
    if motors:
        diag = [[armature[a] if a == b else zero for b in range(n)] for a in range(n)]
        B = [[B[a][b] + diag[a][b] for b in range(n)] for a in range(n)]
        steps.append(RawStep(SECTION_B, "Motors: reflected rotor inertias (diagonal)", "B_m",
                             "B_m", diag, "diag(G_i^2 Jm_i)", r"\mathrm{diag}(G_i^2 J_{m_i})"))
    terms = " + ".join(f"B_{k}" for k in range(1, n + 1)) + (" + B_m" if motors else "")
    steps.append(RawStep(SECTION_B, "Inertia matrix", "B", "B", B, terms,
                         " + ".join(f"B_{{{k}}}" for k in range(1, n + 1))
                         + (" + B_m" if motors else "")))
    masses = [poly(link.inertial.mass, ring) for link in chain_r.links]
    bodies = list(zip(masses, JPs, strict=True)) + [b for per_link in points for b in per_link]
    g = [ring.reduce(-sum((ring.product(m, sum((gravity[r] * JP[r][i] for r in range(3)), zero))
                           for m, JP in bodies), zero))
         for i in range(n)]
    labels = [str(k) for k in range(1, n + 1)] + [
        f"{i + 1},{j + 1}" for i in range(n) for j in range(len(points[i]))]
    for i in range(n):
        a = i + 1
        steps.append(RawStep(
            SECTION_G_JACOBIAN, f"Joint {a}: gravity torque", f"g_{a}", f"g_{{{a}}}", g[i],
            " ".join(f"- m_{k} g0^T J_P{a}^({k})" for k in labels).lstrip(),
            " ".join(rf"- m_{{{k}}}\, \mathbf{{g}}_0^T J_{{P{a}}}^{{({k})}}"
                     for k in labels)))
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    K = ring.reduce(sum((B[a][b] * qd[a] * qd[b] for a in range(n) for b in range(n)), zero)
                    * QQ(1, 2))
    U = ring.reduce(sum(U_links, zero))
    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=_tau(ring, B, g), kinetic=K,
                   potential=U, steps=steps, route="jacobian")
    finish(d, chain_r, q_args)
    return d
