"""Joint friction ``tau_f = F_v qd + F_s sign(qd)`` (Siciliano et al., Robotics, eq. 7.83):
viscous ``F_v`` and Coulomb ``F_s`` coefficients per joint, diagonal."""

from __future__ import annotations

from collections.abc import Sequence

from ..model.chain import Chain


def friction_torques(chain: Chain, qd: Sequence, ops) -> list:
    """``F_v qd + F_s sign(qd)`` per joint (``nv`` values); a multi-value joint
    (spherical, free) has none."""
    out: list = []
    for link, v in zip(chain.links, chain.per_joint(qd), strict=True):
        if not link.joint.model.single:
            out += [0] * link.joint.nv
            continue
        fr = link.friction
        out.append(fr.viscous * v + fr.coulomb * ops.sign(v))
    return out
