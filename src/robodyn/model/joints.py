"""Joint models: what every algorithm needs to know of a joint, one entry per joint type.

A joint moves its link relative to the joint frame (placed in the parent link by
``joint.placement``) with ``nq`` configuration values and ``nv`` velocity values
(Pinocchio's ``JointModel``; Featherstone, *Rigid Body Dynamics Algorithms*, §4.4):

==============  ====  ====  =========================================================
type            nq    nv    configuration ``q`` / velocity ``v`` (link frame)
==============  ====  ====  =========================================================
``revolute``    1     1     the angle about ``axis`` (plus ``offset``) / its rate
``prismatic``   1     1     the displacement along ``axis`` (plus ``offset``) / its rate
``spherical``   4     3     a unit quaternion ``(x, y, z, w)`` / the angular velocity
``free``        7     6     ``[x, y, z, qx, qy, qz, qw]`` / ``[v, w]``, body frame
==============  ====  ====  =========================================================

``free`` is Pinocchio's ``JointModelFreeFlyer`` (a floating base is one at the root);
``spherical`` its ``JointModelSpherical`` (MJCF ``ball``). Every joint here has a motion
subspace ``S`` that is constant in the link frame and no bias ``c_J = 0`` (the velocity of
a multi-axis joint is expressed in the moving link frame), so the relative motion of the
link is the twist ``S v`` in its own frame, and the generalised force of a wrench ``(n, f)``
on the link (link frame, moment about its origin) is ``S^T (n, f)``.

The configuration space of a quaternion joint is a manifold: :func:`integrate` is
``q ⊕ v dt`` (``pin.integrate``), :func:`configuration_rate` ``dq/dt`` of the embedded
coordinates, :func:`normalized` the quaternions scaled to unit norm, :func:`neutral` the
zero configuration (the identity quaternion). They work on NumPy arrays ``(..., nq)``,
batched.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import linalg3 as la


@dataclass(frozen=True)
class JointModel:
    """A joint type: ``nq`` configuration and ``nv`` velocity values; ``coordinates`` the
    names of the velocity coordinates (a free joint's ``v_x .. w_z``; empty for one value);
    ``units`` the unit of each velocity coordinate's position (``rad`` or ``m``) and
    ``quaternion`` the index of the quaternion's first value in ``q`` (``None``: none)."""

    name: str
    nq: int
    nv: int
    units: tuple[str, ...]
    coordinates: tuple[str, ...] = ()
    quaternion: int | None = None

    @property
    def single(self) -> bool:
        """One configuration value, its velocity the rate of that value."""
        return self.nq == 1 and self.nv == 1


REVOLUTE = "revolute"
PRISMATIC = "prismatic"
SPHERICAL = "spherical"
FREE = "free"

#: Every joint type, by name: the one list of joint types the algorithms and readers know.
JOINT_MODELS: dict[str, JointModel] = {
    REVOLUTE: JointModel(REVOLUTE, 1, 1, ("rad",)),
    PRISMATIC: JointModel(PRISMATIC, 1, 1, ("m",)),
    SPHERICAL: JointModel(SPHERICAL, 4, 3, ("rad",) * 3, ("w_x", "w_y", "w_z"), 0),
    FREE: JointModel(FREE, 7, 6, ("m",) * 3 + ("rad",) * 3,
                     ("v_x", "v_y", "v_z", "w_x", "w_y", "w_z"), 3),
}
JOINT_TYPES = tuple(JOINT_MODELS)


def joint_model(type_name: str) -> JointModel:
    """The :class:`JointModel` of a joint type name."""
    return JOINT_MODELS[type_name]


def quaternion_rotation(quat: Sequence) -> la.Mat3:
    """The rotation matrix of the quaternion ``(x, y, z, w)``; one that is not of unit norm
    gives the rotation of the unit quaternion along it (``s = 2 / |q|^2``). On any scalars."""
    x, y, z, w = quat
    s = 2 / (x * x + y * y + z * z + w * w)
    xx, yy, zz = s * x * x, s * y * y, s * z * z
    xy, xz, yz = s * x * y, s * x * z, s * y * z
    wx, wy, wz = s * w * x, s * w * y, s * w * z
    return ((1 - (yy + zz), xy - wz, xz + wy),
            (xy + wz, 1 - (xx + zz), yz - wx),
            (xz - wy, yz + wx, 1 - (xx + yy)))


def joint_motion(joint, q, ops) -> tuple[la.Mat3, la.Vec3]:
    """Rotation and origin of a link frame in its parent's frame at joint value ``q`` (a
    scalar for a one-value joint, a sequence of ``nq`` values otherwise)."""
    placement = joint.placement
    kind = joint.type
    if kind == REVOLUTE:
        x = q + joint.offset
        motion = la.rotation_about_axis(joint.axis, ops.cos(x), ops.sin(x))
        return la.matmul(placement.rotation, motion), placement.translation
    if kind == PRISMATIC:
        x = q + joint.offset
        moved = la.add(placement.translation,
                       la.matvec(placement.rotation, la.scale(x, joint.axis)))
        return placement.rotation, moved
    if kind == SPHERICAL:
        return la.matmul(placement.rotation, quaternion_rotation(tuple(q[0:4]))), \
            placement.translation
    # free: the position in the joint frame, then the orientation
    moved = la.add(placement.translation, la.matvec(placement.rotation, tuple(q[0:3])))
    return la.matmul(placement.rotation, quaternion_rotation(tuple(q[3:7]))), moved


def joint_twist(joint, qd) -> tuple[la.Vec3, la.Vec3]:
    """``S v``: the link's angular and linear velocity relative to its parent, in the link
    frame, for the joint velocity ``qd`` (scalar or ``nv`` values; accelerations alike)."""
    kind = joint.type
    if kind == REVOLUTE:
        return la.scale(qd, joint.axis), la.ZERO3
    if kind == PRISMATIC:
        return la.ZERO3, la.scale(qd, joint.axis)
    if kind == SPHERICAL:
        return tuple(qd[0:3]), la.ZERO3
    return tuple(qd[3:6]), tuple(qd[0:3])


def joint_columns(joint) -> list[tuple[la.Vec3, la.Vec3]]:
    """The columns of the motion subspace ``S``, each ``(angular, linear)`` in the link
    frame, one per velocity coordinate."""
    kind = joint.type
    if kind == REVOLUTE:
        return [(joint.axis, la.ZERO3)]
    if kind == PRISMATIC:
        return [(la.ZERO3, joint.axis)]
    if kind == SPHERICAL:
        return [(e, la.ZERO3) for e in la.IDENTITY3]
    return [(la.ZERO3, e) for e in la.IDENTITY3] + [(e, la.ZERO3) for e in la.IDENTITY3]


def joint_forces(joint, moment, force) -> list:
    """``S^T (n, f)``: the generalised forces of the joint (``nv`` values) for the wrench
    ``(n, f)`` on its link (link frame, moment about the link origin)."""
    kind = joint.type
    if kind == REVOLUTE:
        return [la.dot(joint.axis, moment)]
    if kind == PRISMATIC:
        return [la.dot(joint.axis, force)]
    if kind == SPHERICAL:
        return list(moment)
    return [*force, *moment]


def _product(a, b) -> tuple:
    """``a ⊗ b`` of quaternions ``(x, y, z, w)`` on any scalars."""
    va, wa, vb, wb = a[0:3], a[3], b[0:3], b[3]
    vector = la.add(la.add(la.scale(wa, vb), la.scale(wb, va)), la.cross(va, vb))
    return (*vector, wa * wb - la.dot(va, vb))


def joint_configuration_rate(kind: str, q, v) -> list:
    """``dq/dt`` of a joint's configuration values for its velocity ``v`` on any scalars (the
    tangent map ``dq/dv``, column by column with unit ``v``): ``v`` for one value; the
    quaternion's ``1/2 q ⊗ (w, 0)``; a free joint's position ``R v_lin`` first. ``kind``: the
    joint's type."""
    if kind in (REVOLUTE, PRISMATIC):
        return [v]
    if kind == SPHERICAL:
        return [x / 2 for x in _product(tuple(q[0:4]), (*v[0:3], 0))]
    quat = tuple(q[3:7])
    position = la.matvec(quaternion_rotation(quat), tuple(v[0:3]))
    return [*position, *(x / 2 for x in _product(quat, (*v[3:6], 0)))]


# -- the configuration manifold (NumPy, batched) ------------------------------------------
def quaternion_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a ⊗ b`` of quaternions ``(..., 4)`` stored ``(x, y, z, w)``."""
    va, wa, vb, wb = a[..., :3], a[..., 3:], b[..., :3], b[..., 3:]
    vector = wa * vb + wb * va + np.cross(va, vb)
    return np.concatenate([vector, wa * wb - np.sum(va * vb, axis=-1, keepdims=True)], axis=-1)


def rotation_matrices(quat: np.ndarray) -> np.ndarray:
    """``(..., 3, 3)`` rotations of the quaternions ``(..., 4)`` ``(x, y, z, w)``."""
    x, y, z, w = np.moveaxis(np.asarray(quat, dtype=float), -1, 0)
    rows = quaternion_rotation((x, y, z, w))
    return np.stack([np.stack(row, axis=-1) for row in rows], axis=-2)


def _turned(quat0: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``quat0 ⊗ exp(w / 2)`` (``w`` a rotation vector in the body frame), renormalised, the
    sign with ``quat0 · quat1 >= 0``."""
    theta = np.linalg.norm(w, axis=-1, keepdims=True)
    small = theta < 1e-4
    t = np.where(small, 1.0, theta)  # a safe angle for the closed form
    half_sin = np.where(small, 0.5 - theta * theta / 48, np.sin(t / 2) / t)
    turn = np.concatenate([half_sin * w, np.cos(theta / 2)], axis=-1)
    quat = quaternion_product(quat0, turn)
    quat = np.where(np.sum(quat * quat0, axis=-1, keepdims=True) < 0, -quat, quat)
    return quat / np.linalg.norm(quat, axis=-1, keepdims=True)


def _se3_translation(u: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``V(w) u``, the translation of the SE(3) exponential of the body twist ``(u, w)``
    in the body frame at its start: ``u + (1 - cos t)/t^2 w × u + (t - sin t)/t^3 w × (w × u)``."""
    theta = np.linalg.norm(w, axis=-1, keepdims=True)
    small = theta < 1e-4
    t = np.where(small, 1.0, theta)
    t2 = theta * theta
    one_minus_cos = np.where(small, 0.5 - t2 / 24, (1 - np.cos(t)) / (t * t))
    minus_sin = np.where(small, 1 / 6 - t2 / 120, (t - np.sin(t)) / (t * t * t))
    wu = np.cross(w, u)
    return u + one_minus_cos * wu + minus_sin * np.cross(w, wu)


def integrate_joint(model: JointModel, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``q ⊕ v`` of one joint (``v`` already scaled by the step): ``q + v`` for one value;
    ``q ⊗ exp(v / 2)`` for a spherical joint; the SE(3) exponential of the body twist for a
    free joint, ``p1 = p0 + R0 V(w) v_lin`` (``pin.integrate``)."""
    if model.single:
        return q + v
    if model.name == SPHERICAL:
        return _turned(q, v)
    quat0 = q[..., 3:7]
    position = q[..., 0:3] + np.einsum("...ij,...j->...i", rotation_matrices(quat0),
                                       _se3_translation(v[..., 0:3], v[..., 3:6]))
    return np.concatenate([position, _turned(quat0, v[..., 3:6])], axis=-1)


def joint_rate(model: JointModel, q: np.ndarray, v: np.ndarray) -> np.ndarray:
    """``dq/dt`` of one joint's embedded configuration ``(..., nq)`` for its velocity
    ``(..., nv)``: :func:`joint_configuration_rate` on the arrays' columns."""
    if model.single:
        return v
    rate = joint_configuration_rate(model.name, [q[..., k] for k in range(model.nq)],
                                    [v[..., k] for k in range(model.nv)])
    return np.stack(np.broadcast_arrays(*rate), axis=-1)


def _rotation_vector(rel: np.ndarray) -> np.ndarray:
    """``log(rel)``: the rotation vector ``w`` of a unit quaternion ``(..., 4)`` with
    ``exp(w / 2) = rel`` (the shorter way round: ``|w| <= pi``)."""
    rel = np.where(rel[..., 3:] < 0, -rel, rel)
    vector, w = rel[..., :3], rel[..., 3:]
    n = np.linalg.norm(vector, axis=-1, keepdims=True)
    small = n < 1e-6
    safe = np.where(small, 1.0, n)
    # 2 atan2(n, w) / n, and its series 2/w (1 - n^2 / (3 w^2)) near the identity
    scale = np.where(small, 2 / w * (1 - n * n / (3 * w * w)), 2 * np.arctan2(n, w) / safe)
    return scale * vector


def _se3_translation_inverse(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``V(w)^-1 p`` (:func:`_se3_translation` inverted): ``p - 1/2 w × p + c w × (w × p)``
    with ``c = (1 - t sin t / (2 (1 - cos t))) / t^2`` (Murray, Li & Sastry, eq. 2.37)."""
    theta = np.linalg.norm(w, axis=-1, keepdims=True)
    small = theta < 1e-4
    t = np.where(small, 1.0, theta)
    c = np.where(small, 1 / 12 + theta * theta / 720,
                 (1 - t * np.sin(t) / (2 * (1 - np.cos(t)))) / (t * t))
    wp = np.cross(w, p)
    return p - 0.5 * wp + c * np.cross(w, wp)


def difference_joint(model: JointModel, q0: np.ndarray, q1: np.ndarray) -> np.ndarray:
    """``q1 ⊖ q0`` of one joint, the velocity ``v`` with ``q0 ⊕ v = q1``
    (:func:`integrate_joint` inverted, ``pin.difference``): ``q1 - q0`` for one value; the
    rotation vector of ``q0^-1 ⊗ q1`` for a spherical joint; for a free joint the body twist
    ``log(M0^-1 M1)`` of SE(3), ``(V(w)^-1 R0^T (p1 - p0), w)``."""
    if model.single:
        return q1 - q0
    k = model.quaternion
    quat0, quat1 = q0[..., k:k + 4], q1[..., k:k + 4]
    conjugate = np.concatenate([-quat0[..., :3], quat0[..., 3:]], axis=-1)
    w = _rotation_vector(quaternion_product(conjugate, quat1))
    if model.name == SPHERICAL:
        return w
    body = np.einsum("...ji,...j->...i", rotation_matrices(quat0), q1[..., :3] - q0[..., :3])
    return np.concatenate([_se3_translation_inverse(body, w), w], axis=-1)


def neutral_joint(model: JointModel) -> np.ndarray:
    """The zero configuration of a joint (the identity quaternion ``(0, 0, 0, 1)``)."""
    q = np.zeros(model.nq)
    if model.quaternion is not None:
        q[model.quaternion + 3] = 1.0
    return q


__all__ = ["JointModel", "JOINT_MODELS", "JOINT_TYPES", "REVOLUTE", "PRISMATIC", "SPHERICAL",
           "FREE", "joint_model", "joint_motion", "joint_twist", "joint_columns",
           "joint_forces", "joint_configuration_rate", "quaternion_rotation",
           "quaternion_product", "rotation_matrices", "integrate_joint", "difference_joint",
           "joint_rate", "neutral_joint"]
