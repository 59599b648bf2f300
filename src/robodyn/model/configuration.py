"""The configuration space of a chain, for its users: ``q`` and ``v`` in words, and the
arrays of a call checked against ``nq``, ``nv`` and unit quaternions."""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from .chain import Chain

#: How far from 1 the norm of a joint's quaternion may be (rounding of a file's or a user's
#: numbers); farther is an :class:`InputError` asking to normalise it.
QUATERNION_TOL = 1e-6


def layout(chain: Chain, velocity: bool) -> str:
    """The values of ``q`` (or of ``qd`` with ``velocity``) joint by joint, in words."""
    parts = []
    for link in chain.links:
        joint = link.joint
        name = joint.name or link.name
        if joint.type == "free":
            parts.append(f"{name}: v_x, v_y, v_z, w_x, w_y, w_z (body frame)" if velocity
                         else f"{name}: x, y, z, qx, qy, qz, qw")
        elif joint.type == "spherical":
            parts.append(f"{name}: w_x, w_y, w_z (link frame)" if velocity
                         else f"{name}: qx, qy, qz, qw")
        else:
            parts.append(name)
    return "; ".join(parts[:6]) + (f"; ... ({len(parts)} joints)" if len(parts) > 6 else "")


#: The arguments that are configurations (``(..., nq)``); the others are velocities.
CONFIGURATIONS = ("q", "q0", "q1", "q_ref")


def checked_arrays(chain: Chain, what: str, arrays: dict) -> list:
    """``arrays`` (``{name: array}``, in call order) of a call ``what`` on a chain with
    quaternion joints: the last axis of ``q`` checked against ``nq`` and every quaternion in
    it against unit norm, the others' against ``nv``; an :class:`InputError` naming the
    argument, the sizes or the joint otherwise. Values that are no real arrays pass through
    (the runner names what is wrong with them)."""
    out = []
    nq, nv = chain.nq, chain.nv
    for name, value in arrays.items():
        if type(value).__module__.startswith("dask"):
            out.append(value)
            continue
        try:
            arr = np.asarray(value)
        except (TypeError, ValueError):
            out.append(value)
            continue
        if arr.dtype.kind not in "iuf":
            out.append(value)
            continue
        if name in CONFIGURATIONS:
            if arr.ndim == 0 or arr.shape[-1] != nq:
                raise InputError(f"{what}: {name}: expected shape (..., nq) with nq = {nq} "
                                 f"({layout(chain, velocity=False)}), got {arr.shape}")
            _check_quaternions(chain, what, arr, name)
        elif arr.ndim > 0 and arr.shape[-1] != nv:
            raise InputError(f"{what}: {name}: expected shape (..., nv) with nv = {nv} "
                             f"({layout(chain, velocity=True)}), got {arr.shape}")
        out.append(value)
    return out


def _check_quaternions(chain: Chain, what: str, q: np.ndarray, name: str = "q") -> None:
    for link, k in zip(chain.links, chain.q_offsets(), strict=True):
        start = link.joint.model.quaternion
        if start is None:
            continue
        k += start
        norm = np.linalg.norm(np.asarray(q[..., k:k + 4], dtype=float), axis=-1)
        bad = np.isfinite(norm) & (np.abs(norm - 1) > QUATERNION_TOL)
        if bad.any():
            index = np.unravel_index(int(np.argmax(bad)), norm.shape)
            where = ", ".join(str(int(i)) for i in index)
            raise InputError(
                f"{what}: {name}[{where + ', ' if where else ''}{k}:{k + 4}]: the quaternion "
                f"(qx, qy, qz, qw) of joint {link.joint.name!r} has norm "
                f"{float(norm[index]):.6g}, not 1; divide it by its norm")


def integrate_configuration(chain: Chain, q, qd, dt: float) -> np.ndarray:
    """``q ⊕ qd dt`` (:meth:`robodyn.Robot.integrate`): checked arrays, a finite ``dt``."""
    dt = float(dt)
    if not np.isfinite(dt):
        raise InputError(f"integrate: dt = {dt} is not finite")
    if chain.single_valued:
        return np.asarray(q, dtype=float) + np.asarray(qd, dtype=float) * dt
    q, qd = (np.asarray(a, dtype=float)
             for a in checked_arrays(chain, "integrate", {"q": q, "qd": qd}))
    if qd.ndim == 0:
        qd = np.broadcast_to(qd, (chain.nv,))
    return chain.integrate(q, qd, dt)


def difference_configuration(chain: Chain, q0, q1) -> np.ndarray:
    """``q1 ⊖ q0`` (:meth:`robodyn.Robot.difference`): checked arrays."""
    if chain.single_valued:
        return np.asarray(q1, dtype=float) - np.asarray(q0, dtype=float)
    q0, q1 = (np.asarray(a, dtype=float)
              for a in checked_arrays(chain, "difference", {"q0": q0, "q1": q1}))
    return chain.difference(q0, q1)


#: Half the side of the cube a free joint's position is drawn from when its joint gives no
#: limits (metres): :func:`random_configuration`.
FREE_POSITION_RANGE = 1.0


def sampling_box(chain: Chain) -> tuple[np.ndarray, np.ndarray]:
    """The range each one-value joint's ``q`` is drawn from by :func:`random_configuration`
    (``(low, high)``, one entry per joint with one value): its limits where finite, else
    ``[-pi, pi]``."""
    low, high = [], []
    for link in chain.links:
        if link.joint.nq != 1:
            continue
        limits = link.joint.limits
        lo, hi = -np.pi, np.pi
        if limits is not None and len(limits) >= 2:
            a, b = float(limits[0]), float(limits[1])
            if np.isfinite(a) and np.isfinite(b) and a < b:
                lo, hi = a, b
        low.append(lo)
        high.append(hi)
    return np.array(low), np.array(high)


def random_configuration(chain: Chain, rng: np.random.Generator, size: int) -> np.ndarray:
    """``size`` configurations ``(size, nq)`` drawn as Pinocchio's ``randomConfiguration``
    draws them: a one-value joint uniform in :func:`sampling_box`; a ball joint's and a free
    joint's orientation uniform on SO(3) (a normal 4-vector normalised: the uniform measure
    on the unit quaternions); a free joint's position uniform in the cube of half side
    :data:`FREE_POSITION_RANGE` metres. With one-value joints only it is
    ``rng.uniform(low, high, (size, nq))``, the draw of earlier versions."""
    low, high = sampling_box(chain)
    if chain.single_valued:
        return rng.uniform(low, high, size=(size, chain.nq))
    q = np.empty((size, chain.nq))
    j = 0
    for link, k in zip(chain.links, chain.q_offsets(), strict=True):
        n, start = link.joint.nq, link.joint.model.quaternion
        if n == 1:
            q[:, k] = rng.uniform(low[j], high[j], size)
            j += 1
        elif start is not None:
            q[:, k:k + start] = rng.uniform(-FREE_POSITION_RANGE, FREE_POSITION_RANGE,
                                            (size, start))
            quat = rng.standard_normal((size, 4))
            q[:, k + start:k + start + 4] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    return q
