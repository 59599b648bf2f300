"""Joint friction torques (the model: :mod:`robodyn.model.friction`)::

    tau_f = F_v qd + F_c(qd) s(qd) + (F_st - F_c(qd)) exp(-|qd / v_st|^delta) s(qd) + tau_0

with ``F_c(qd) = a + b s(qd)``, ``a = (F_c+ + F_c-)/2``, ``b = (F_c+ - F_c-)/2`` and
``s = sign`` or ``tanh(qd / v_s)`` (Armstrong-Helouvry et al., Automatica 1994, the Stribeck curve;
Siciliano et al., *Robotics*, eq. 7.83 for ``F_v qd + F_c sign(qd)``). Per joint,
diagonal. Written once on the ``ops`` of its scalars (numbers, SymPy, the tracer, dual
numbers): the kernels, the closed forms and the exported code all run this function, and
a coefficient that is exactly 0 records no operation.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..model.chain import Chain
from ..model.friction import Friction, is_zero
from .dual import Dual, DualOps


def joint_friction(fr: Friction, v, ops):
    """``tau_f`` of one joint (module docstring) at velocity ``v``; ``F_v v + F_c sign(v)``
    term for term when ``fr`` has nothing more."""
    if fr.symmetric:
        a, b = fr.coulomb, 0
    else:
        a, b = (fr.coulomb + fr.negative) / 2, (fr.coulomb - fr.negative) / 2
    out = fr.viscous * v  # recorded first, as F_v qd + F_c sign(qd) always was
    s = ops.sign(v) if is_zero(fr.smooth_velocity) else ops.tanh(v / fr.smooth_velocity)
    out = out + a * s
    if not is_zero(b):
        out = out + b * (s * s)
    if not is_zero(fr.static):
        x = v * ops.sign(v) / fr.stribeck_velocity  # |v| / v_st
        delta = fr.stribeck_exponent
        power = x if delta == 1 else x * x if delta == 2 else ops.pow(x, delta)
        level = fr.static - a if is_zero(b) else fr.static - a - b * s
        out = out + level * ops.exp(-power) * s
    if not is_zero(fr.offset):
        out = out + fr.offset
    return out


def joint_friction_rate(fr: Friction, v, ops):
    """``d tau_f / d qd`` of one joint: ``F_v`` when ``fr`` is viscous and Coulomb only
    (``d sign/dqd`` taken as 0, exact away from ``qd = 0``), else the forward-mode
    derivative of :func:`joint_friction` (dual numbers, :mod:`robodyn.dynamics.dual`)."""
    if not fr.extended:
        return fr.viscous
    rate = joint_friction(fr, Dual(v, (1.0,)), DualOps(ops))
    return rate.t[0] if isinstance(rate, Dual) else 0.0


def friction_torques(chain: Chain, qd: Sequence, ops) -> list:
    """``tau_f`` per joint (``nv`` values, module docstring); a multi-value joint
    (spherical, free) has ``F_v qd_k + F_c sign(qd_k)`` on each of its velocity values
    ``qd_k`` (a ball joint's damping as MuJoCo's ``qfrc_passive = -damping qvel`` for each
    of its 3 dofs, MuJoCo's documentation of ``joint/damping``; its ``frictionloss`` as the
    dry friction MuJoCo puts on each of those dofs, one friction row per dof, whose force
    is ``-frictionloss sign(qvel_k)`` while the dof slides), none when both are 0."""
    out: list = []
    for link, v in zip(chain.links, chain.per_joint(qd), strict=True):
        if not link.joint.model.single:
            out += _per_value(link.friction, v, ops)
            continue
        out.append(joint_friction(link.friction, v, ops))
    return out


def _per_value(fr: Friction, v: Sequence, ops) -> list:
    """``F_v v_k + F_c sign(v_k)`` for each velocity value ``v_k`` of a multi-value joint
    (:func:`friction_torques`); the terms whose coefficient is exactly 0 left out."""
    viscous, coulomb = fr.viscous, fr.coulomb
    if is_zero(coulomb):
        return [0] * len(v) if is_zero(viscous) else [viscous * x for x in v]
    if is_zero(viscous):
        return [coulomb * ops.sign(x) for x in v]
    return [viscous * x + coulomb * ops.sign(x) for x in v]


def multi_value_extras(chain: Chain) -> list[str]:
    """The multi-value joints (ball, free) with an armature, damping or dry friction, which
    the numeric algorithms model on each of their velocity values (MuJoCo's semantics) but
    the regressor and the closed forms do not yet."""
    return [link.joint.name or link.name for link in chain.links
            if not link.joint.model.single and not (
                is_zero(link.motor.armature) and is_zero(link.friction.viscous)
                and is_zero(link.friction.coulomb))]
