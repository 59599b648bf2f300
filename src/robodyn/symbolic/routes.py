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
each link's centre of mass ``p_li``, column ``j <= i`` (zero for ``j > i``)::

    J_P,j^(li)     = z_(j-1) x (p_li - p_(j-1))  (revolute j),    z_(j-1)  (prismatic j)
    J_theta,j^(li) = z_(j-1)                     (revolute j),    0        (prismatic j)

(``z_(j-1)``, ``p_(j-1)``: joint ``j``'s axis and a point of it, the origin of DH frame
``j-1``, base frame: Siciliano §7.4's indices, for a standard DH model; a modified-DH or URDF
model's joint ``j`` sits in its link frame ``j``, so there they are ``z_j``, ``p_j``),
the inertia matrix and the gravity torques are::

    B = sum_i m_i J_P^(li)T J_P^(li) + J_theta^(li)T R_i I_i R_i^T J_theta^(li)
        (+ G_i^2 Jm_i on the diagonal, motors)
    g_i = -sum_j m_j g0^T J_P,i^(lj).

A point mass ``m_jk`` of link ``j`` (at ``p_jk``) is one more body: its own ``J_P`` (the
columns above with ``p_jk`` for ``p_ci``) adds ``m_jk J_P^T J_P`` to ``B_j`` and
``-m_jk g0^T J_P,i`` to ``g_i``; it has no rotational part.

In both routes ``C`` comes from the Christoffel symbols of ``M``
(:func:`.derivation.christoffel`), and ``tau = M qdd + C qd + g``.

A ball or free joint (velocity: the body twist, :mod:`.ring.coordinates`) takes the same
routes with ``d/dq_k`` the derivative along velocity coordinate ``k`` (``g_k = X_k U``) and
``C`` from the Christoffel symbols in that frame; in the Jacobians each of its columns
``S_c`` (in link frame ``j``, Featherstone's motion subspace) is a turn about ``z = R_j
S_c,ang`` through ``o_j`` plus a shift ``t = R_j S_c,lin``: ``J_P`` column ``z x (p - o_j) +
t``, ``J_theta`` column ``z``.
"""

from __future__ import annotations

from sympy import QQ

from ..core import linalg3 as la
from ..model.chain import REVOLUTE, Chain
from ..model.expressions import to_sympy
from ..model.joints import joint_columns
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
from .ring.coordinates import coordinate_tex
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


def energy_route(chain: Chain, ring: TrigRing, standard_dh: tuple = ()) -> Derivation:
    """``M_ij = d^2 K / dqd_i dqd_j``, ``g_i = dU/dq_i`` (lecture notes on planar arms); see
    the module."""
    n = ring.dof
    K, U, steps, chain_r, q_args = energies(chain, ring, bool(standard_dh))
    M = [[ring.diff_qd(ring.diff_qd(K, i), j) for j in range(n)] for i in range(n)]
    rate, rate_tex = _rate_names(ring)
    for i in range(n):
        for j in range(i, n):
            a, b = i + 1, j + 1
            steps.append(RawStep(
                SECTION_M_ENERGY, f"Entry M_{a}{b}" + (f" (= M_{b}{a})" if a != b else "")
                + ": second derivative of K in the rates", f"M_{a}{b}", f"M_{{{a}{b}}}",
                M[i][j], f"d^2 K / (d{rate[i]} d{rate[j]})",
                rf"\frac{{\partial^2 K}}{{\partial {rate_tex[i]}\,\partial {rate_tex[j]}}}"))
    g = [ring.diff_q(U, i) for i in range(n)]
    for i in range(n):
        holonomic = isinstance(ring.field[i], int)
        joint = rate[i][2:]  # qd3: joint 3
        steps.append(RawStep(
            SECTION_G_ENERGY, f"Joint {joint}: gravity torque" if holonomic else
            f"Coordinate {rate[i]}: gravity (U differentiated along {rate[i]})",
            f"g_{i + 1}", f"g_{{{i + 1}}}", g[i],
            f"dU/dq{joint}" if holonomic else f"X_{rate[i]} U",
            rf"\frac{{\partial U}}{{\partial q_{{{joint}}}}}" if holonomic else
            rf"X_{{{rate_tex[i]}}} U"))
    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=_tau(ring, M, g), kinetic=K,
                   potential=U, steps=steps, route="energy")
    finish(d, chain_r, q_args)
    return d


def _rate_names(ring: TrigRing) -> tuple[list[str], list[str]]:
    """The names of the velocity coordinates in the steps, text and LaTeX: ``qd1`` and
    ``\\dot q_{1}`` for a one-value joint, ``v_x1`` and ``v_{x,1}`` for a ball or free
    joint's (:mod:`.ring.coordinates`)."""
    text, tex = [str(symbol) for symbol in ring.qd], []
    for k, symbol in enumerate(ring.qd):
        if isinstance(ring.field[k], int):  # qd3: joint 3's rate
            tex.append(rf"\dot q_{{{str(symbol)[2:]}}}")
        else:
            tex.append(coordinate_tex(str(symbol)) or str(symbol))
    return text, tex


def _link_jacobians(ring: TrigRing, i: int, p, z, o, revolute, moving=None, columns=None):
    """``(J_P, J_O)`` of link ``i`` (3 x n, columns past ``i`` zero; in a tree every column
    off ``moving``, link ``i`` and its ancestors, zero): column ``j`` is
    ``z_j x (p - o_j)``, ``z_j`` for a revolute joint ``j`` and ``z_j``, 0 for a prismatic
    one (Siciliano eq. 7.16-7.17). ``columns`` (a chain with ball or free joints): per
    joint, ``(velocity coordinate, z, t)`` of each column of its motion subspace in the
    base frame, a turn about ``z`` through ``o_j`` and a shift along ``t`` (``None``: none),
    so that column ``c`` is ``z x (p - o_j) + t`` and ``z``."""
    n, zero = ring.dof, ring.zero
    JP = [[zero] * n for _ in range(3)]
    JO = [[zero] * n for _ in range(3)]
    for j in (range(i + 1) if moving is None else moving):
        for c, axis, shift in (columns[j] if columns is not None else
                               [(j, z[j], None) if revolute[j] else (j, None, z[j])]):
            col = [zero] * 3
            if axis is not None:
                col = [ring.reduce(x) for x in la.cross(axis, la.sub(p, o[j]))]
                for r in range(3):
                    JO[r][c] = axis[r]
            if shift is not None:
                col = [ring.reduce(x + y) for x, y in zip(col, shift, strict=True)]
            for r in range(3):
                JP[r][c] = col[r]
    return JP, JO


def _joint_columns(ring: TrigRing, chain_r: Chain, poses) -> list | None:
    """Per joint, ``(velocity coordinate, z, t)`` of the columns of its motion subspace in
    the base frame (:func:`_link_jacobians`); ``None`` for a chain of one-value joints (its
    columns are the joint axes ``z_j``)."""
    if chain_r.single_valued:
        return None
    out = []
    for link, (rot, _), k in zip(chain_r.links, poses, chain_r.v_offsets(), strict=True):
        cols = []
        for a, (angular, linear) in enumerate(joint_columns(link.joint)):
            axis = None if angular is la.ZERO3 else vec(la.matvec(rot, angular), ring)
            shift = None if linear is la.ZERO3 else vec(la.matvec(rot, linear), ring)
            cols.append((k + a, axis, shift))
        out.append(cols)
    return out


def _columns_matrix(ring: TrigRing, cols) -> list:
    """The 6 x nv matrix ``[z; t]`` of a joint's columns (zeros for ``None``)."""
    zero = (ring.zero,) * 3
    return [[(axis if axis is not None else zero)[r] if r < 3 else
             (shift if shift is not None else zero)[r - 3] for _, axis, shift in cols]
            for r in range(6)]


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


def _jacobian_names(standard: bool, axis_is_z: bool, chain: Chain | None = None):
    """How the Jacobian route names joint ``k``'s axis and a point of it: Siciliano's
    ``z_{k-1}``, ``p_{k-1}`` (standard DH: joint ``k`` turns about ``z_{k-1}`` through the
    origin of frame ``k-1``; in a tree ``chain`` the frame of its parent), else ``z_k``,
    ``p_k`` of link frame ``k`` (Craig, URDF)."""
    def names(k: int) -> dict:
        if standard:
            j = chain.parent(k - 1) + 1 if chain is not None else k - 1
        else:
            j = k
        if standard and j == 0:
            source = source_tex = ""  # z_0 itself
        elif standard:
            source, source_tex = f"R_{j} z_0", rf"R_{{{j}}}\, \mathbf{{z}}_0"
        elif axis_is_z:
            source, source_tex = f"R_{j} [0, 0, 1]^T", rf"R_{{{j}}} [0, 0, 1]^T"
        else:
            source, source_tex = f"R_{j} u_{j}", rf"R_{{{j}}}\, \mathbf{{u}}_{{{j}}}"
        return {"z": f"z_{j}", "z_tex": rf"\mathbf{{z}}_{{{j}}}", "p": f"p_{j}",
                "p_tex": rf"\mathbf{{p}}_{{{j}}}", "j": j, "source": source,
                "source_tex": source_tex}
    return names


def jacobian_route(chain: Chain, ring: TrigRing, standard_dh: tuple = ()) -> Derivation:
    """``B = sum_i m_i J_P^T J_P + J_theta^T R_i I_i R_i^T J_theta``,
    ``g_i = -sum_j m_j g0^T J_P,i^(j)`` (Siciliano et al., §7.2, §7.4); see the module.
    With a standard DH table (``standard_dh``) the steps use Siciliano's indices
    (``z_{j-1}``, ``p_{j-1}``)."""
    n = ring.dof
    zero = ring.zero
    chain_r = ring.chain(chain)
    q_args = ring.joint_arguments()[0]
    poses = pose_list(chain_r, q_args, ring)
    columns = _joint_columns(ring, chain_r, poses)  # ball or free joints: their columns
    U_links, coms = potential_energy(ring, chain_r, poses)
    revolute = [link.joint.type == REVOLUTE for link in chain_r.links]
    z = [vec(la.matvec(rot, link.joint.axis), ring)
         for link, (rot, _) in zip(chain_r.links, poses, strict=True)]
    # the origin of the core's link frame j: on joint j's axis (with standard DH the
    # origin of DH frame j-1, for a revolute joint)
    o = [vec(origin, ring) for _, origin in poses]
    gravity = vec(chain_r.gravity, ring)
    axis_is_z = all(tuple(to_sympy(x) for x in link.joint.axis) == (0, 0, 1)
                    for link in chain.links)
    names = _jacobian_names(bool(standard_dh), axis_is_z, chain)
    steps: list[RawStep] = []
    S = SECTION_JACOBIANS
    for j in range(len(chain.links)):
        k = j + 1
        nm = names(k)
        if columns is not None and not chain.links[j].joint.model.single:
            steps.append(RawStep(
                S, f"Joint {k} ({chain.links[j].joint.type}): the columns of its motion "
                f"subspace in the base frame, a turn about z (through o_{k}) over a shift t",
                f"S_{k}", rf"S_{{{k}}}", _columns_matrix(ring, columns[j]),
                f"R_{k} S (S in link frame {k})", rf"R_{{{k}}} S"))
            continue
        steps.append(RawStep(S, f"Joint {k}: unit vector of its axis", nm["z"],
                             nm["z_tex"], z[j], nm["source"], nm["source_tex"]))
        if revolute[j]:
            steps.append(RawStep(S, f"Joint {k}: a point of its axis (origin of frame "
                                 f"{nm['j']})", nm["p"], nm["p_tex"], o[j]))
    zj = "z_(j-1)" if standard_dh else "z_j"
    pj = "p_(j-1)" if standard_dh else "p_j"
    zj_tex = r"\mathbf{z}_{j-1}" if standard_dh else r"\mathbf{z}_j"
    pj_tex = r"\mathbf{p}_{j-1}" if standard_dh else r"\mathbf{p}_j"

    B = [[zero] * n for _ in range(n)]
    JPs = []
    points: list[list] = [[] for _ in range(n)]  # per link: (m, J_P) of each point mass
    b_steps: list[RawStep] = []
    for i, link in enumerate(chain_r.links):
        k = i + 1
        p = vec(coms[i], ring)
        moving = sorted(chain.ancestors(i))  # the joints that move link i
        JP, JO = _link_jacobians(ring, i, p, z, o, revolute, moving, columns)
        JPs.append(JP)
        rot = poses[i][0]
        I_base = [list(vec(row, ring)) for row in la.rotate_tensor(rot, link.inertial.inertia)]
        Bi = _inertia_part(ring, poly(link.inertial.mass, ring), JP, JO, I_base)
        point_steps = []
        for j, (mass, p_point) in enumerate(point_positions(chain_r, poses)[i]):
            # a point mass: one more body of link i, m J_P^T J_P with its own J_P
            idx = f"{k},{j + 1}"
            p_point = vec(p_point, ring)
            JPp, _ = _link_jacobians(ring, i, p_point, z, o, revolute, moving, columns)
            points[i].append((poly(mass, ring), JPp))
            Bp = _inertia_part(ring, poly(mass, ring), JPp, JO, [[zero] * 3] * 3)
            Bi = [[ring.reduce(Bi[a][b] + Bp[a][b]) for b in range(n)] for a in range(n)]
            point_steps += [
                RawStep(S, f"Link {k}: point mass {j + 1}, position", f"p_c{idx}",
                        rf"p_{{c{idx}}}", p_point, f"o_{k} + R_{k} c_{idx}",
                        rf"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{idx}}}"),
                RawStep(S, f"Link {k}: point mass {j + 1}, translational Jacobian",
                        f"J_P^({idx})", rf"J_P^{{({idx})}}", JPp,
                        f"column j: {zj} x (p_c{idx} - {pj}) (revolute j), {zj} (prismatic j)",
                        rf"{zj_tex} \times (p_{{c{idx}}} - {pj_tex})")]
        B = [[B[a][b] + Bi[a][b] for b in range(n)] for a in range(n)]
        zeros = (f"columns j > {k} zero" if chain.is_serial else
                 f"columns zero but for joint{'s' if len(moving) > 1 else ''} "
                 f"{', '.join(str(j + 1) for j in moving)}: link {k} and its ancestors")
        steps += [
            RawStep(S, f"Link {k}: centre of mass", f"p_l{k}", rf"\mathbf{{p}}_{{l_{k}}}", p,
                    f"o_{k} + R_{k} c_{k}", rf"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{k}}}"),
            RawStep(S, f"Link {k}: translational Jacobian ({zeros})",
                    f"J_P^(l{k})", rf"J_P^{{l_{k}}}", JP,
                    f"column j: {zj} x (p_l{k} - {pj}) (revolute j), {zj} (prismatic j)",
                    rf"{zj_tex} \times (\mathbf{{p}}_{{l_{k}}} - {pj_tex})\ "
                    rf"\text{{(revolute)}},\ {zj_tex}\ \text{{(prismatic)}}"),
            RawStep(S, f"Link {k}: rotational Jacobian ({zeros})",
                    f"J_theta^(l{k})", rf"J_\theta^{{l_{k}}}", JO,
                    f"column j: {zj} (revolute j), 0 (prismatic j)",
                    rf"{zj_tex}\ \text{{(revolute)}},\ 0\ \text{{(prismatic)}}"), *point_steps]
        b_steps += [
            RawStep(SECTION_B, f"Link {k}: inertia tensor in the base frame",
                    f"R_{k} I_{k} R_{k}^T", rf"R_{{{k}}} \mathbf{{I}}_{{{k}}} R_{{{k}}}^T",
                    I_base),
            RawStep(SECTION_B, f"Link {k}: its part of the inertia matrix", f"B_{k}",
                    f"B_{{{k}}}", Bi,
                    f"m_{k} J_P^(l{k})T J_P^(l{k}) + J_theta^(l{k})T R_{k} I_{k} R_{k}^T "
                    f"J_theta^(l{k})",
                    rf"m_{{{k}}}\, (J_P^{{l_{k}}})^T J_P^{{l_{k}}} + (J_\theta^{{l_{k}}})^T "
                    rf"R_{{{k}}} \mathbf{{I}}_{{{k}}} R_{{{k}}}^T J_\theta^{{l_{k}}}")]
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
    armature = [zero] * n  # per velocity coordinate: a one-value joint's motor
    for link, k in zip(chain_r.links, chain_r.v_offsets(), strict=True):
        if link.joint.model.single:
            armature[k] = poly(link.motor.armature, ring)
    motors = [i + 1 for i in range(n) if armature[i] != zero]
    if motors:
        diag = [[armature[a] if a == b else zero for b in range(n)] for a in range(n)]
        B = [[B[a][b] + diag[a][b] for b in range(n)] for a in range(n)]
        steps.append(RawStep(SECTION_B, "Motors: reflected rotor inertias (diagonal)", "B_m",
                             "B_m", diag, "diag(G_i^2 Jm_i)", r"\mathrm{diag}(G_i^2 J_{m_i})"))
    links = len(chain.links)
    terms = " + ".join(f"B_{k}" for k in range(1, links + 1)) + (" + B_m" if motors else "")
    steps.append(RawStep(SECTION_B, "Inertia matrix", "B", "B", B, terms,
                         " + ".join(f"B_{{{k}}}" for k in range(1, links + 1))
                         + (" + B_m" if motors else "")))
    masses = [poly(link.inertial.mass, ring) for link in chain_r.links]
    bodies = list(zip(masses, JPs, strict=True)) + [b for per_link in points for b in per_link]
    g = [ring.reduce(-sum((ring.product(m, sum((gravity[r] * JP[r][i] for r in range(3)), zero))
                           for m, JP in bodies), zero))
         for i in range(n)]
    labels = [str(k) for k in range(1, links + 1)] + [
        f"{i + 1},{j + 1}" for i in range(links) for j in range(len(points[i]))]
    rate, _ = _rate_names(ring)
    for i in range(n):
        a = i + 1
        title = f"Joint {rate[i][2:]}: gravity torque" if isinstance(ring.field[i], int) \
            else f"Coordinate {rate[i]}: gravity"
        steps.append(RawStep(
            SECTION_G_JACOBIAN, title, f"g_{a}", f"g_{{{a}}}", g[i],
            " ".join(f"- m_{k} g0^T J_P{a}^({'l' if ',' not in k else ''}{k})"
                     for k in labels).lstrip(),
            " ".join(rf"- m_{{{k}}}\, \mathbf{{g}}_0^T J_{{P_{a}}}^{{"
                     + (f"l_{k}" if "," not in k else f"({k})") + "}"
                     for k in labels)))
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    K = ring.reduce(sum((B[a][b] * qd[a] * qd[b] for a in range(n) for b in range(n)), zero)
                    * QQ(1, 2))
    U = ring.reduce(sum(U_links, zero))
    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=_tau(ring, B, g), kinetic=K,
                   potential=U, steps=steps, route="jacobian")
    finish(d, chain_r, q_args)
    return d
