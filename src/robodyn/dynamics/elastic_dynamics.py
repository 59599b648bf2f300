"""The forward dynamics of elastic joints as a traced algorithm, for the exported code
(:mod:`robodyn.codegen.export`) of a model with springs: Spong's model on the ``2n`` state
(M. W. Spong, "Modeling and control of elastic joint robots", ASME J. Dyn. Sys., Meas.,
Control 109(4), 1987; the numeric model is :mod:`robodyn.motion.elastic`)::

    spring = K (theta - q) + D (theta' - q')
    q''    = FD_links(q, q', spring)                      (the links, no rotor behind a spring)
    theta'' = B^-1 (tau - spring),   B = G^2 J_m

and behind a coupled transmission with springs (:mod:`robodyn.motion.elastic_coupled`,
``theta`` the motors' angles, ``tau`` the joint torques ``N^T tau_m``)::

    spring  = K_m (theta - N q) + D_m (theta' - N q')
    q''     = FD_links(q, q', N^T spring)
    theta'' = J_m^-1 (N^-T tau - B_m theta' - F_m sign(theta') - spring)

With only the joints ``E`` elastic (``m = |E|`` springs, ``S`` the ``m x n`` matrix that
picks them out of ``q``, ``P`` the rigid others; De Luca and Book, "Robots with flexible
elements", Springer Handbook of Robotics, ch. 11) ``theta`` has ``m`` entries and::

    spring  = K (theta - S q) + D (theta' - S q')
    q''     = FD_links(q, q', S^T spring + P^T P tau)     (a rigid joint's rotor in M)
    theta'' = B^-1 (S tau - spring)

the result then ``[q'' (n), theta'' (m)]`` flat, ``n + m`` values (the same memory as the
``2 x n`` of every joint elastic).

Behind a coupled transmission with some motors rigid (``stiffness: [K_m, null]``;
:mod:`robodyn.motion.elastic_coupled`) ``theta`` has the ``m`` elastic motors' angles,
``FD_links`` is the rigid coupled model of the rigid motors (``N_R^T J_R N_R`` in ``M``,
their friction through ``N_R^T``) under ``N_E^T spring + N_R^T tau_mR``, and the result is
``n + m`` values too.

``FD_links`` is the links' forward dynamics
(:func:`~robodyn.dynamics.forward_dynamics.forward_dynamics`) with their own friction. The
other exported functions of such a model are the rigid model's (its limit ``K -> inf``,
the rotors in ``M``).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..core.errors import InputError
from .driven_dynamics import driven_forward_dynamics
from .forward_dynamics import forward_dynamics
from .registry import KernelSpec, input_width

__all__ = ["ELASTIC", "elastic_spec", "has_springs_of", "elastic_forward_dynamics",
           "exports_elastic", "elastic_joints", "motor_count"]

#: The name of the exported function.
ELASTIC = "elastic_forward_dynamics"


def has_springs_of(chain) -> bool:
    """Whether ``chain`` has springs: its motors' ``stiffness``, or a transmission's."""
    tr = getattr(chain, "transmission", None)
    return (tr is not None and tr.stiffness is not None) or any(
        link.motor.stiffness is not None for link in chain.links)


def elastic_joints(chain) -> list[int]:
    """The joints whose motor has a spring (``motor.stiffness``), 0-based: ``E``."""
    return [j for j, link in enumerate(chain.links) if link.motor.stiffness is not None]


def motor_count(chain) -> int:
    """The entries of ``theta``: one per spring (per elastic joint, or per motor of a
    coupled transmission with springs)."""
    return input_width("theta", chain)


def _links_only(chain, coupled: bool):
    """``chain`` without what sits behind the springs: the elastic joints' rotors, springs
    and dampings (per joint; a rigid joint keeps its rotor), or the transmission
    (coupled)."""
    if coupled:
        return replace(chain, transmission=None)
    links = tuple(replace(link, motor=replace(link.motor, inertia=0, stiffness=None,
                                              spring_damping=None))
                  if link.motor.stiffness is not None else link for link in chain.links)
    return replace(chain, links=links)


def _per_joint(chain, q, theta, qd, thetad, tau, ops) -> list:
    joints = elastic_joints(chain)
    motors = [chain.links[j].motor for j in joints]
    spring = []
    for j, m, a, ad in zip(joints, motors, theta, thetad, strict=True):
        s = m.stiffness * (a - q[j])
        if m.spring_damping is not None:
            s = s + m.spring_damping * (ad - qd[j])
        spring.append(s)
    links = list(tau)  # S^T spring + P^T P tau
    for j, s in zip(joints, spring, strict=True):
        links[j] = s
    qdd = forward_dynamics(_links_only(chain, False), q, qd, links, ops)
    thetadd = [(tau[j] - s) / m.armature for j, s, m in zip(joints, spring, motors,
                                                            strict=True)]
    return [qdd, thetadd] if len(joints) == len(chain.links) else [*qdd, *thetadd]


def _coupled(chain, q, theta, qd, thetad, tau, ops) -> list:
    tr = chain.transmission
    N = tr.N.tolist()
    inverse_t = np.linalg.inv(tr.N.T).tolist()   # N^-T as constants
    n, springs = len(N), tr.springs
    rigid = len(springs) < n

    def rate(row, x):
        return sum((a * v for a, v in zip(row, x, strict=True) if a != 0), 0)

    tau_m = [rate(inverse_t[k], tau) for k in range(n)]
    spring = {k: tr.stiffness[k] * (theta[e] - rate(N[k], q))
              + (tr.spring_damping[k] * (thetad[e] - rate(N[k], qd))
                 if tr.spring_damping[k] else 0) for e, k in enumerate(springs)}
    push = [spring[k] if k in spring else tau_m[k] for k in range(n)]  # a rigid motor's tau_m
    links = [sum((N[k][i] * push[k] for k in range(n) if N[k][i] != 0), 0) for i in range(n)]
    side = replace(chain, transmission=None)   # the links, with the rigid motors if any
    qdd = (driven_forward_dynamics(side, q, qd, links, ops, tr.rigid_motors()) if rigid
           else forward_dynamics(side, q, qd, links, ops))
    thetadd = []
    for e, k in enumerate(springs):
        torque = tau_m[k] - spring[k]
        if tr.motor_viscous[k]:
            torque = torque - tr.motor_viscous[k] * thetad[e]
        if tr.motor_coulomb[k]:
            torque = torque - tr.motor_coulomb[k] * ops.sign(thetad[e])
        thetadd.append(torque / tr.motor_inertia[k])
    return [qdd, thetadd] if not rigid else [*qdd, *thetadd]


def elastic_forward_dynamics(chain, q, theta, qd, thetad, tau, ops) -> list:
    """``[q'', theta'']`` of ``chain``'s elastic joints (module docstring), ``2 x n``; with
    ``m < n`` joints elastic, ``n + m`` values."""
    tr = getattr(chain, "transmission", None)
    if tr is not None and tr.stiffness is not None:
        return _coupled(chain, q, theta, qd, thetad, tau, ops)
    return _per_joint(chain, q, theta, qd, thetad, tau, ops)


def exports_elastic(chain) -> bool:
    """Whether the exported code of ``chain`` has :data:`ELASTIC` among every function:
    springs on some or every joint, or behind a coupled transmission."""
    try:
        elastic_spec(chain)
    except InputError:
        return False
    return True


def elastic_spec(chain) -> KernelSpec:
    """The exported function :data:`ELASTIC` of ``chain``; an :class:`InputError` for a
    chain without springs, or with free or ball joints. Its result is ``2 x n`` with a
    spring on every joint (or motor), ``n + m`` (``q''`` then ``theta''``) with ``m`` of
    the ``n`` joints elastic."""
    if not has_springs_of(chain):
        raise InputError(f"functions: {ELASTIC} is for a model with elastic joints (motor."
                         "stiffness, or transmission: stiffness); this one has none")
    if not chain.single_valued:
        raise InputError(f"functions: {ELASTIC} is exported for springs on revolute or "
                         "prismatic joints; this model has free or ball joints: use "
                         "robodyn.motion.elastic.elastic_forward_dynamics from Python")
    n, m = chain.nv, motor_count(chain)
    doc = ("qdd and thetadd of the elastic joints (Spong 1987): links FD(q, qd, springs), "
           "motors B thetadd = tau - springs; the other functions are the rigid limit K -> inf")
    if m < n:
        tr = getattr(chain, "transmission", None)
        coupled = tr is not None and tr.stiffness is not None
        which = tr.springs if coupled else elastic_joints(chain)
        what = "motor" if coupled else "the motors of joint"
        doc += (f"; theta, thetad: {m} entr{'ies' if m > 1 else 'y'}, {what}"
                f"{'s' if m > 1 else ''} {', '.join(str(j + 1) for j in which)} (the others "
                f"rigid{', their rotors in M' if coupled else ', tau on their links'}); "
                f"result [qdd ({n}), thetadd ({m})]")
    return KernelSpec(elastic_forward_dynamics, ("q", "theta", "qd", "thetad", "tau"),
                      lambda n, links: (2, n), name=ELASTIC, output="acc",
                      parts=("qdd", "thetadd"), doc=doc,
                      chain_shape=lambda chain: (2, n) if m == n else (n + m,))
