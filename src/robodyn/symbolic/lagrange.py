"""Equations of motion by Lagrange–Euler (Siciliano et al., Robotics, §7.1–7.2; the RP arm of
lecture notes; a tutorial 2R arm).

From the core's forward kinematics (:func:`robodyn.dynamics.kinematics.link_poses`),
per link ``i``, everything in the base frame::

    p_ci = o_i + R_i c_i                       centre of mass
    v_ci = d p_ci / dt = sum_j (d p_ci / d q_j) qd_j
    w_i  = sum_{j <= i, revolute} z_j qd_j       (z_j = R_j u_j, the joint axis; z_{j-1}
                                               with standard DH, Siciliano's index; in a
                                               tree j runs over link i's ancestors)
    K_i  = 1/2 m_i v_ci^T v_ci + 1/2 w_i^T R_i I_i R_i^T w_i
           + sum_k 1/2 m_ik v_ik^T v_ik      point masses m_ik of the link at p_ik
    K_mi = 1/2 G_i^2 J_mi qd_i^2               motor i's rotor, if the model has one
    U_i  = -m_i g0^T p_ci - sum_k m_ik g0^T p_ik

then ``L = K - U`` and, for every joint, ``tau_i = d/dt (dL/dqd_i) - dL/dq_i`` with the
time derivative by the chain rule ``d/dt f(q, qd) = sum_k df/dq_k qd_k + df/dqd_k
qdd_k``. ``M``, ``g`` and ``C qd`` are read off ``tau``
(:func:`~.derivation.collect`); ``C`` comes from the Christoffel symbols of ``M``.
"""

from __future__ import annotations

from dataclasses import replace

from sympy import QQ

from ..core import linalg3 as la
from ..dynamics.friction import friction_torques
from ..dynamics.ops import SYMPY
from ..model.chain import REVOLUTE, Chain
from ..model.expressions import to_sympy
from ..model.joints import joint_twist
from .derivation import (
    Derivation,
    PlusExpr,
    RawStep,
    finish,
    point_positions,
    poly,
    pose_list,
    potential_energy,
    vec,
)
from .lugre import bristle_symbols, lugre_terms
from .ring.trig_ring import TrigRing

SECTION_KINEMATICS = "Kinematics of the centres of mass (base frame)"
SECTION_ENERGY = "Kinetic and potential energy"
SECTION_EL = "Euler-Lagrange equations"

#: d L / d qd_k in LaTeX (a piece of the formulas below).
_DL_DQD = r"\frac{{\partial L}}{{\partial \dot q_{{{k}}}}}"

_STEPS = {
    # name: (section, title, text lhs, latex lhs, text formula, latex formula), formatted
    # with k (the link or joint, 1-based), K_sum/U_sum (K_1 + ... + K_n) and dqd (_DL_DQD)
    "p_c": (SECTION_KINEMATICS, "Centre of mass of link {k}", "p_c{k}", "p_{{c{k}}}",
            "o_{k} + R_{k} c_{k}", r"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{k}}}"),
    "v_c": (SECTION_KINEMATICS, "Velocity of the centre of mass of link {k}", "v_c{k}",
            "v_{{c{k}}}", "d p_c{k}/dt = sum_j dp_c{k}/dq_j qd_j",
            r"\dot p_{{c{k}}} = \sum_j \frac{{\partial p_{{c{k}}}}}{{\partial q_j}}"
            r"\,\dot q_j"),
    "p_p": (SECTION_KINEMATICS, "Point mass {j} of link {k}: position", "p_c{k},{j}",
            "p_{{c{k},{j}}}", "o_{k} + R_{k} c_{k},{j}",
            r"o_{{{k}}} + R_{{{k}}}\, \mathbf{{c}}_{{{k},{j}}}"),
    "v_p": (SECTION_KINEMATICS, "Point mass {j} of link {k}: velocity", "v_c{k},{j}",
            "v_{{c{k},{j}}}", "d p_c{k},{j}/dt", r"\dot p_{{c{k},{j}}}"),
    "w": (SECTION_KINEMATICS, "Angular velocity of link {k}", "w_{k}", r"\omega_{{{k}}}",
          "sum of {zj} qd_j over the revolute joints j <= {k}",
          r"\sum_{{j \le {k},\ \mathrm{{revolute}}}} {zj_tex}\,\dot q_j"),
    "K_link": (SECTION_ENERGY, "Kinetic energy of link {k}", "K_{k}", "K_{{{k}}}",
               "1/2 m_{k} v_c{k}^T v_c{k} + 1/2 w_{k}^T R_{k} I_{k} R_{k}^T w_{k}",
               r"\tfrac12 m_{{{k}}}\, v_{{c{k}}}^T v_{{c{k}}} + \tfrac12\, "
               r"\omega_{{{k}}}^T R_{{{k}}} I_{{{k}}} R_{{{k}}}^T \omega_{{{k}}}"),
    "K_motor": (SECTION_ENERGY, "Kinetic energy of motor {k} (reflected rotor inertia)",
                "K_m{k}", "K_{{m{k}}}", "1/2 G{k}^2 Jm{k} qd{k}^2",
                r"\tfrac12 G_{{{k}}}^2 J_{{m{k}}}\, \dot q_{{{k}}}^2"),
    "U_link": (SECTION_ENERGY, "Potential energy of link {k}", "U_{k}", "U_{{{k}}}",
               "-m_{k} g0^T p_c{k}", r"-m_{{{k}}}\, g_0^T p_{{c{k}}}"),
    "K": (SECTION_ENERGY, "Kinetic energy", "K", "K", "{K_sum}", "{K_sum_latex}"),
    "U": (SECTION_ENERGY, "Potential energy (a constant in U, its zero, does not change tau)",
          "U", "U", "{U_sum}", "{U_sum_latex}"),
    "L": (SECTION_ENERGY, "Lagrangian", "L", "L", "K - U", "K - U"),
    "dL_dqd": (SECTION_EL, "Joint {k}: derivative of L with respect to qd{k}", "dL/dqd{k}",
               "{dqd}", "", ""),
    "ddt_dL_dqd": (SECTION_EL, "Joint {k}: its time derivative", "d/dt dL/dqd{k}",
                   r"\frac{{d}}{{dt}} {dqd}",
                   "sum_j d(dL/dqd{k})/dq_j qd_j + d(dL/dqd{k})/dqd_j qdd_j",
                   r"\sum_j \frac{{\partial}}{{\partial q_j}}{dqd}\,\dot q_j + "
                   r"\frac{{\partial}}{{\partial \dot q_j}}{dqd}\,\ddot q_j"),
    "dL_dq": (SECTION_EL, "Joint {k}: derivative of L with respect to q{k}", "dL/dq{k}",
              r"\frac{{\partial L}}{{\partial q_{{{k}}}}}", "", ""),
    "tau": (SECTION_EL, "Joint {k}: torque (without friction)", "tau{k}", r"\tau_{{{k}}}",
            "d/dt dL/dqd{k} - dL/dq{k}",
            r"\frac{{d}}{{dt}} {dqd} - \frac{{\partial L}}{{\partial q_{{{k}}}}}"),
}


def _step(name: str, value, k: int = 0, **fmt) -> RawStep:
    """The step ``name`` of :data:`_STEPS` for link or joint ``k`` with ``value``."""
    section, title, lhs, latex_lhs, formula, latex_formula = _STEPS[name]
    fmt = dict({"zj": "z_j", "zj_tex": "z_j"}, **fmt)
    fmt = dict(fmt, k=k, dqd=_DL_DQD.format(k=k))
    return RawStep(section, title.format(**fmt), lhs.format(**fmt), latex_lhs.format(**fmt),
                   value, formula.format(**fmt), latex_formula.format(**fmt))


def _with_point_masses(step: RawStep, link, which: str) -> RawStep:
    """A link's ``K_i`` or ``U_i`` step with its point masses' terms in the formula."""
    if not link.point_masses:
        return step
    i = step.lhs.split("_")[1]
    text, latex = [], []
    for j in range(1, len(link.point_masses) + 1):
        idx = f"{i},{j}"
        if which == "K":
            text.append(f" + 1/2 m_{idx} v_c{idx}^T v_c{idx}")
            latex.append(rf" + \tfrac12 m_{{{idx}}}\, v_{{c{idx}}}^T v_{{c{idx}}}")
        else:
            text.append(f" - m_{idx} g0^T p_c{idx}")
            latex.append(rf" - m_{{{idx}}}\, g_0^T p_{{c{idx}}}")
    return replace(step, title=step.title + " (with its point masses)",
                   formula=step.formula + "".join(text),
                   latex_formula=step.latex_formula + "".join(latex))


def lagrange_euler(chain: Chain, ring: TrigRing, standard_dh: tuple = ()) -> Derivation:
    """Derive ``tau = d/dt dL/dqd - dL/dq`` for ``chain`` in ``ring``; see the module.
    ``standard_dh``: the rows of a standard DH table (joint ``j`` turns about
    ``z_{j-1}``, as the steps then say)."""
    n = chain.dof
    K, U, steps, chain_r, q_args = energies(chain, ring, bool(standard_dh))
    friction = [to_sympy(f) for f in friction_torques(chain, ring.qd, SYMPY)]
    bristle = bristle_symbols(chain)
    if bristle:  # LuGre's F(qd, z) is friction too (:mod:`.lugre`)
        lugre = lugre_terms(chain.lugre, ring.qd, bristle)[1]
        friction = [f + x for f, x in zip(friction, lugre, strict=True)]
    L = K - U
    steps.append(_step("L", L))

    tau = []
    for i in range(n):
        k = i + 1
        dL_dqd = ring.diff_qd(L, i)
        ddt = ring.time_derivative(dL_dqd)
        dL_dq = ring.diff_q(L, i)
        tau_i = ring.reduce(ddt - dL_dq)
        tau.append(tau_i)
        last = _step("tau", tau_i, k)
        prismatic = chain.links[i].joint.type != REVOLUTE
        if prismatic:  # a prismatic joint's tau is a force
            last = replace(last, title=f"Joint {k}: force (prismatic joint; without friction)",
                           lhs=f"f{k}", latex_lhs=f"f_{{{k}}}")
        steps += [_step("dL_dqd", dL_dqd, k), _step("ddt_dL_dqd", ddt, k),
                  _step("dL_dq", dL_dq, k)]
        if friction[i] != 0:  # Siciliano §7.1: Lagrange gives xi = tau - F qd, not tau
            steps.append(replace(last, title=f"Joint {k}: generalised force (Lagrange's "
                                 "equation: actuation minus friction)",
                                 lhs=f"xi{k}", latex_lhs=rf"\xi_{{{k}}}"))
            what = "force" if prismatic else "torque"
            steps.append(RawStep(
                SECTION_EL, f"Joint {k}: actuation {what}, from xi_{k} = tau_{k} - friction_{k} "
                "(friction opposes the motion)", f"tau{k}", rf"\tau_{{{k}}}",
                PlusExpr(tau_i, friction[i]), f"xi{k} + friction_{k}",
                rf"\xi_{{{k}}} + \tau_{{f,{k}}}"))
        else:
            steps.append(last)

    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=tau, kinetic=K, potential=U,
                   steps=steps)
    finish(d, chain_r, q_args)
    return d


def energies(chain: Chain, ring: TrigRing, standard_dh: bool = False):
    """``K``, ``U`` of ``chain`` in ``ring`` (the module's formulas for ``p_ci``, ``v_ci``,
    ``w_i``, ``K_i``, ``U_i``) with their steps; also the chain on the ring and the
    joint arguments. Shared by the Euler-Lagrange route and the energy route
    (:mod:`.routes`)."""
    n = chain.dof
    chain_r = ring.chain(chain)
    q_args, qd_args, _ = ring.joint_arguments()
    poses = pose_list(chain_r, q_args, ring)
    gens = ring.ring.gens
    qd = [gens[k] for k in ring.qd_index]
    half = QQ(1, 2)
    steps: list[RawStep] = []

    U_links, coms = potential_energy(ring, chain_r, poses)
    axes = [la.matvec(rot, link.joint.axis) for link, (rot, _) in zip(chain_r.links, poses,
                                                                       strict=True)]
    v_offsets = chain.v_offsets()
    K_links, K_motors = [], []
    for i, (link, (rot, _)) in enumerate(zip(chain_r.links, poses, strict=True)):
        k = i + 1
        p_c = vec(coms[i], ring)
        # the joints that move link i: all j <= i in a chain, its ancestors in a tree;
        # their velocity coordinates (one per one-value joint)
        moving = sorted(chain.ancestors(i))
        coords = [v_offsets[j] + a for j in moving for a in range(chain.links[j].joint.nv)]
        v_c = tuple(ring.reduce(sum((ring.diff_q(x, j) * qd[j] for j in coords), ring.zero))
                    for x in p_c)
        w = la.ZERO3
        for j in moving:
            joint = chain_r.links[j].joint
            if joint.type == REVOLUTE:
                w = la.add(w, la.scale(qd_args[v_offsets[j]], axes[j]))
            elif not joint.model.single:  # ball, free: R_j w_J, w_J in link frame j
                own = qd_args[v_offsets[j]:v_offsets[j] + joint.nv]
                w_joint, _ = joint_twist(joint, own)
                w = la.add(w, la.matvec(poses[j][0], w_joint))
        w = vec(w, ring)
        w_scalars = tuple(ring.scalar(x) for x in w)
        w_link = la.tmatvec(rot, w_scalars)          # R_i^T w_i: the rate in link frame i
        inertial = link.inertial
        translational = ring.product(poly(inertial.mass, ring), ring.reduce(
            sum((ring.product(x, x) for x in v_c), ring.zero)))
        rotational = poly(la.dot(w_link, la.matvec(inertial.inertia, w_link)), ring)
        points = []
        for j, (mass, p) in enumerate(point_positions(chain_r, poses)[i]):
            p_p = vec(p, ring)
            v_p = tuple(ring.reduce(sum((ring.diff_q(x, b) * qd[b] for b in coords),
                                        ring.zero)) for x in p_p)
            translational = translational + ring.product(poly(mass, ring), ring.reduce(
                sum((ring.product(x, x) for x in v_p), ring.zero)))
            points += [_step("p_p", p_p, k, j=j + 1), _step("v_p", v_p, k, j=j + 1)]
        K_i = ring.reduce((translational + rotational) * half)
        K_links.append(K_i)
        armature = poly(link.motor.armature, ring) if link.joint.model.single else ring.zero
        rate = qd[v_offsets[i]]
        K_motors.append(ring.reduce(armature * rate * rate * half) if armature != ring.zero
                        else None)
        axis = {"zj": "z_(j-1)", "zj_tex": "z_{j-1}"} if standard_dh else {}
        if standard_dh and not chain.is_serial:  # joint j turns about its parent's z
            axis = {"zj": "z_parent(j)", "zj_tex": r"z_{\mathrm{parent}(j)}"}
        w_step = _step("w", w, k, **axis)
        if not chain.single_valued:  # ball and free joints turn the links with R_j w_Jj
            w_step = replace(w_step, formula=w_step.formula + " + sum of R_j w_Jj over the "
                             "ball and free joints j (w_Jj: its angular velocity, frame j)",
                             latex_formula=w_step.latex_formula + r" + \sum_{j\ \mathrm{ball,"
                             r"\ free}} R_j\, \omega_{J_j}")
        if not chain.is_serial:  # a tree: the joints between link k and the base
            joints = ", ".join(str(j + 1) for j in moving)
            w_step = replace(w_step, formula=w_step.formula.replace(
                f"j <= {k}", f"j in {{{joints}}} (link {k} and its ancestors)"),
                latex_formula=w_step.latex_formula.replace(
                    rf"j \le {k}", rf"j \in \{{{joints}\}}"))
        steps += [_step("p_c", p_c, k), _step("v_c", v_c, k), *points, w_step]
    for i in range(n):
        steps.append(_with_point_masses(_step("K_link", K_links[i], i + 1), chain_r.links[i],
                                        "K"))
        if K_motors[i] is not None:
            steps.append(_step("K_motor", K_motors[i], i + 1))
        steps.append(_with_point_masses(_step("U_link", U_links[i], i + 1), chain_r.links[i],
                                        "U"))
    K = ring.reduce(sum(K_links + [k for k in K_motors if k is not None], ring.zero))
    U = ring.reduce(sum(U_links, ring.zero))
    sums = {f"{x}_sum": " + ".join(f"{x}_{k}" for k in range(1, n + 1)) for x in "KU"}
    sums.update({f"{x}_sum_latex": " + ".join(f"{x}_{{{k}}}" for k in range(1, n + 1))
                 for x in "KU"})
    motors = [k for k in range(1, n + 1) if K_motors[k - 1] is not None]
    sums["K_sum"] += "".join(f" + K_m{k}" for k in motors)
    sums["K_sum_latex"] += "".join(f" + K_{{m{k}}}" for k in motors)
    steps += [_step("K", K, **sums), _step("U", U, **sums)]
    return K, U, steps, chain_r, q_args
