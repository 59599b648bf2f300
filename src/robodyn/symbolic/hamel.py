"""Equations of motion by Lagrange with quasi-velocities: the Boltzmann–Hamel equations
(Euler–Poincaré on a joint's group), for chains with ball (spherical) and free joints.

The velocity of a ball or free joint is its body twist ``v`` (the link's angular and
linear velocity in its own frame, Pinocchio's layout), not the rate of its configuration
(a position and a unit quaternion, :mod:`.ring.coordinates`): ``dq/dt = T(q) v``. So the
Euler–Lagrange equations ``d/dt dL/dqd - dL/dq = tau`` do not apply to ``v``; with the
vector fields ``X_k`` of the velocity coordinates (``X_k f = sum_m df/dq_m T_mk``) and
their brackets ``[X_i, X_k] = sum_j c^j_ik X_j``, the Lagrangian ``L(q, v) = K - U``
gives the Boltzmann–Hamel equations (Hamel 1904; Greenwood, *Advanced Dynamics*, 2003,
§3.4; Bloch, *Nonholonomic Mechanics and Control*, §5.2; Marsden & Ratiu, *Introduction
to Mechanics and Symmetry*, §13.5 for the Euler–Poincaré form ``d/dt dl/dxi =
ad*_xi dl/dxi`` on a group)::

    tau_k = d/dt (dL/dv_k) - X_k L - sum_(i,j) c^j_ik v_i dL/dv_j
          = d/dt (dL/dv_k) - X_k L - (ad_v^T dL/dv)_k,     (ad_v)_jk = sum_i c^j_ik v_i

where the last, the transport term, is zero for the rates of one-value joints (their fields
commute, and then this is the Euler–Lagrange equation). For a free body it gives the
Newton–Euler equations in the body frame, ``d/dt p + w × p = f``, ``d/dt l + w × l + v ×
p = n`` (``p``, ``l`` the linear and angular momentum), for a ball joint Euler's
``d/dt l + w × l = n``. ``tau`` is the generalised force of the joint: a free joint's
force and moment on its link (link frame, moment about its origin), a ball joint's
moment, as :func:`robodyn.dynamics.rnea.rnea` gives them.

``K`` and ``U`` are those of :func:`.lagrange.energies` (the angular velocity of a link
sums ``R_j w_Jj`` of the ball and free joints that move it; the velocity of a centre of
mass is ``sum_k X_k(p_c) v_k``). ``M`` is read off ``tau`` as the coefficients of the
accelerations ``vd``, and ``C`` comes from the Christoffel symbols of ``M`` in the frame
``X`` (:func:`.derivation.christoffel`), the same ``C`` as the Newton–Euler route's and as
:func:`robodyn.dynamics.coriolis.coriolis_matrix`.
"""

from __future__ import annotations

import sympy as sp

from ..model.chain import Chain
from .derivation import Derivation, RawStep, finish
from .lagrange import energies
from .ring.coordinates import coordinate_tex
from .ring.trig_ring import TrigRing

__all__ = ["boltzmann_hamel"]

SECTION_FRAME = "Velocity coordinates of the ball and free joints"
SECTION_BH = "Boltzmann-Hamel equations (Lagrange with quasi-velocities)"


def boltzmann_hamel(chain: Chain, ring: TrigRing, standard_dh: tuple = ()) -> Derivation:
    """``tau_k = d/dt dL/dv_k - X_k L - (ad_v^T dL/dv)_k`` for every velocity coordinate
    ``k`` of ``chain`` in ``ring`` (module docstring). ``standard_dh`` is accepted for
    the signature of the routes (a chain with ball or free joints has no DH table)."""
    K, U, steps, chain_r, q_args = energies(chain, ring, bool(standard_dh))
    steps = frame_steps(ring) + steps
    L = K - U
    steps.append(RawStep("Kinetic and potential energy", "Lagrangian", "L", "L", L,
                         "K - U", "K - U"))
    gens = ring.ring.gens
    v = [gens[k] for k in ring.qd_index]
    momenta = [ring.diff_qd(L, k) for k in range(ring.dof)]
    tau = []
    for k in range(ring.dof):
        name, tex = str(ring.qd[k]), _tex(ring.qd[k])
        ddt = ring.time_derivative(momenta[k])
        along = ring.diff_q(L, k)
        transport = ring.zero
        for (i, b), terms in ring.structure.items():
            if b == k:
                for j, c in terms:
                    transport -= ring.product(v[i] * c, momenta[j])
        transport = ring.reduce(transport)
        tau_k = ring.reduce(ddt - along + transport)
        tau.append(tau_k)
        steps += _coordinate_steps(ring, k, name, tex, momenta[k], ddt, along,
                                   transport, tau_k)
    d = Derivation(method="lagrange", ring=ring, chain=chain, tau=tau, kinetic=K, potential=U,
                   steps=steps)
    finish(d, chain_r, q_args)
    return d


def _tex(symbol: sp.Symbol) -> str:
    return coordinate_tex(str(symbol)) or str(symbol)


def _coordinate_steps(ring: TrigRing, k: int, name: str, tex: str, momentum, ddt, along,
                      transport, tau_k) -> list[RawStep]:
    """The steps of coordinate ``k``: ``dL/dv_k``, its rate, ``X_k L``, the transport term
    (ball and free joints) and ``tau_k``."""
    S = SECTION_BH
    jc = _joint_of(ring, k)
    holonomic = jc.single
    dl = rf"\frac{{\partial L}}{{\partial {tex}}}"
    head = f"Joint {jc.number}, {name}"
    steps = [
        RawStep(S, f"{head}: derivative of L with respect to {name}", f"dL/d{name}", dl,
                momentum),
        RawStep(S, f"{head}: its time derivative", f"d/dt dL/d{name}",
                rf"\frac{{d}}{{dt}} {dl}",
                ddt,
                f"sum_j X_j(dL/d{name}) v_j + d(dL/d{name})/dv_j vd_j",
                rf"\sum_j X_j\!\left({dl}\right) v_j + \frac{{\partial}}{{\partial v_j}}"
                rf"{dl}\,\dot v_j"),
    ]
    q_name = str(ring.q[ring.field[k]]) if holonomic else ""
    if holonomic:
        steps.append(RawStep(S, f"{head}: derivative of L with respect to {q_name}",
                             f"dL/d{q_name}",
                             rf"\frac{{\partial L}}{{\partial {_tex(ring.q[ring.field[k]])}}}",
                             along))
    else:
        steps.append(RawStep(
            S, f"{head}: derivative of L along {name} (the configuration moved by a unit "
            f"{name}: X_k L = sum_m dL/dq_m T_mk)", f"X_{name} L", rf"X_{{{tex}}} L", along,
            "sum_m dL/dq_m T_mk(q)", r"\sum_m \frac{\partial L}{\partial q_m}\, T_{mk}(q)"))
        steps.append(RawStep(
            S, f"{head}: transport term of the body-frame velocity", f"h_{name}",
            rf"h_{{{tex}}}", transport, "-sum_(i,j) c^j_ik v_i dL/dv_j = -(ad_v^T dL/dv)_k",
            r"-\sum_{i,j} c^j_{ik}\, v_i \frac{\partial L}{\partial v_j} = "
            r"-\left(\mathrm{ad}_v^T \frac{\partial L}{\partial v}\right)_k"))
    what = {"free": "force" if jc.qd.index(ring.qd[k]) < 3 else "moment",
            "spherical": "moment", "prismatic": "force"}.get(jc.type, "torque")
    last = RawStep(S, f"{head}: generalised {what} (without friction)", f"tau_{name}",
                   rf"\tau_{{{tex}}}", tau_k,
                   f"d/dt dL/d{name} - dL/d{q_name}" if holonomic else
                   f"d/dt dL/d{name} - X_{name} L + h_{name}",
                   rf"\frac{{d}}{{dt}} {dl} - \frac{{\partial L}}{{\partial "
                   rf"{_tex(ring.q[ring.field[k]])}}}" if holonomic else
                   rf"\frac{{d}}{{dt}} {dl} - X_{{{tex}}} L + h_{{{tex}}}")
    return steps + [last]


def _joint_of(ring: TrigRing, k: int):
    """The coordinates (:class:`~.ring.coordinates.JointCoordinates`) of the joint that
    velocity coordinate ``k`` belongs to."""
    for jc in ring.coordinates:
        if jc.v_offset <= k < jc.v_offset + len(jc.qd):
            return jc
    raise IndexError(k)  # pragma: no cover


def frame_steps(ring: TrigRing) -> list[RawStep]:
    """Per ball or free joint: the tangent map ``T(q)`` (``dq/dt = T v``, column ``k`` the
    field ``X_k``) and ``ad_v`` (``[v, X_j] = sum_m (ad_v)_mj X_m``, the brackets of its
    coordinates: ``[[w^, v^], [0, w^]]`` for a free joint's ``(v, w)``, ``w^`` for a ball
    joint's ``w``), shared by the Boltzmann–Hamel route and the Christoffel symbols."""
    steps = []
    gens = ring.ring.gens
    for jc in ring.coordinates:
        if jc.single:
            continue
        k0, n = jc.v_offset, len(jc.qd)
        T = [[ring.zero] * n for _ in jc.q]
        for a in range(n):
            for g, t in ring.field[k0 + a]:
                T[ring.q_index.index(g) - jc.q_offset][a] = t
        names = ", ".join(str(s) for s in jc.q)
        steps.append(RawStep(
            SECTION_FRAME, f"Joint {jc.number} ({jc.type}): the rate of its configuration "
            f"({names}) for its velocity, dq/dt = T(q) v", f"T_{jc.number}",
            rf"T_{{{jc.number}}}", T,
            "quaternion: 1/2 e ⊗ (w, 0)" + ("; position: R(e) v" if jc.type == "free" else ""),
            r"\dot e = \tfrac12\, e \otimes (\omega, 0)"
            + (r",\ \dot p = R(e)\, v" if jc.type == "free" else "")))
        ad = [[ring.zero] * n for _ in range(n)]
        for (i, j), terms in ring.structure.items():
            if k0 <= j < k0 + n:
                for m, c in terms:
                    ad[m - k0][j - k0] += gens[ring.qd_index[i]] * c
        steps.append(RawStep(
            SECTION_FRAME, f"Joint {jc.number}: the brackets of its velocity coordinates, "
            "[X_i, X_k] = sum_j c^j_ik X_j, as (ad_v)_jk = sum_i c^j_ik v_i",
            f"ad_v{jc.number}", rf"\mathrm{{ad}}_{{v,{jc.number}}}", ad,
            "[[w^, v^], [0, w^]] (free), w^ (ball)",
            r"\begin{bmatrix}\hat\omega & \hat v\\ 0 & \hat\omega\end{bmatrix}"
            r"\ (\text{free}),\ \hat\omega\ (\text{ball})"))
    return steps

