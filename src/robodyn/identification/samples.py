"""The measured samples of an identification, read and checked before the fit: a CSV
file (:func:`read_csv`) or arrays ``q, qd, qdd, tau`` (:func:`sample_array`), angles,
magnitudes and the regressor that must stay finite, the weights and the base parameters
given; every error names the sample, the joint and the input (or the file's line and
column, :class:`SampleLocator`)."""

from __future__ import annotations

import math
import numbers
import os
import re

import numpy as np

from ..core.csv_table import read_number_table
from ..core.errors import InputError, RobodynError, excerpt

__all__ = ["read_csv", "split_samples", "sizes_of", "MAX_ANGLE", "sample_array",
           "read_samples", "SampleLocator",
           "check_angles", "check_base", "checked_regressor", "check_magnitudes",
           "joint_weights", "check_grouping"]

#: Largest magnitude of a revolute joint angle taken, in rad (about 1.6 million turns).
MAX_ANGLE = 1e7
#: Largest magnitude of a regressor entry or torque times the square root of the number
#: of equations: squares summed in the fit stay below the float64 range.
_LSQ_MAX = 1e150

_KINDS = ("q", "qd", "qdd", "tau")


def sample_array(name: str, value, dof: int) -> np.ndarray:
    """``value`` as a ``(N, dof)`` float64 array of finite real numbers, else an
    :class:`InputError` naming ``name`` (and the first bad sample)."""
    try:
        raw = np.asarray(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected an array of real numbers, shape (N, {dof}) (rows "
                         "of equal length)") from None
    kind = raw.dtype.kind
    if kind == "c" or (kind == "O" and any(isinstance(x, complex | np.complexfloating)
                                           for x in raw.flat)):
        raise InputError(f"{name}: complex values; give real numbers (take the real part "
                         "yourself if the imaginary parts are rounding)")
    if kind not in "fiuO" or (kind == "O" and not all(
            isinstance(x, numbers.Real) and not isinstance(x, bool | np.bool_)
            for x in raw.flat)):
        raise InputError(f"{name}: expected real numbers, shape (N, {dof}), got "
                         f"{'text' if kind in 'US' else f'dtype {raw.dtype}'} "
                         f"({excerpt(raw.flat[0] if raw.size else raw, 40)}...)")
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"{name}: expected an array of real numbers, shape (N, {dof})") from None
    if arr.ndim == 1 and dof == 1:
        arr = arr[:, None]
    if arr.ndim != 2 or arr.shape[1] != dof:
        raise InputError(f"{name}: expected shape (N, {dof}) (one row per sample), got "
                         f"{arr.shape}")
    bad = np.argwhere(~np.isfinite(arr))
    if bad.size:
        r, c = bad[0]
        raise InputError(f"{name}[{r}, {c}] (sample {r}, joint {c + 1}) is {arr[r, c]}; every "
                         "value must be a finite number (drop or interpolate that sample)")
    return arr


def sizes_of(dof) -> tuple[int, int, int, int]:
    """The values a sample of ``q``, ``qd``, ``qdd``, ``tau`` has: ``dof`` each, or
    ``(nq, nv, nv, nv)`` given as such (quaternions of ball and free joints in ``q``)."""
    return (dof,) * 4 if isinstance(dof, int) else tuple(dof)


def read_samples(path, dof):
    """The :class:`~robodyn.core.csv_table.NumberTable` of :func:`read_csv` (``dof``: the
    values of each input, an int or ``(nq, nv, nv, nv)``)."""
    wanted = [f"{k}{j}" for k, n in zip(_KINDS, sizes_of(dof), strict=True)
              for j in range(1, n + 1)]
    family = re.compile(r"(?:q|qd|qdd|tau)[0-9]+", re.ASCII)
    return read_number_table(path, wanted, header=True,
                             foreign=lambda name: family.fullmatch(name) is not None)


def read_csv(path: str | os.PathLike[str], dof) -> tuple[np.ndarray, ...]:
    """``(q, qd, qdd, tau)`` from a CSV file with a header naming the columns ``q1..qn``,
    ``qd1..qdn``, ``qdd1..qddn``, ``tau1..taun`` (any order; other columns such as ``t``
    are ignored, but ``q3`` for a 2-joint robot is an error). The format is that of
    :mod:`robodyn.core.csv_table` (one reader for every number table): UTF-8 (a byte-order mark
    is fine), ``#`` comments, each column named once, every row as many values as the
    header, values plain decimal numbers (``1_0``, ``nan``, ``0x10``, ``1+2j`` are
    refused). A broken rule is an :class:`InputError` naming the line and the column.
    ``dof``: the joints, or ``(nq, nv, nv, nv)`` for a model with ball or free joints
    (``q1..q{nq}`` with the quaternions ``x y z w``, the rates ``qd1..qd{nv}``)."""
    return split_samples(read_samples(path, dof).values, dof)


def split_samples(values: np.ndarray, dof) -> tuple[np.ndarray, ...]:
    """The columns of a table of samples as ``(q, qd, qdd, tau)``."""
    ends = np.cumsum((0, *sizes_of(dof)))
    return tuple(values[:, a:b] for a, b in zip(ends[:-1], ends[1:], strict=True))


def _input_of(flat: int, sizes) -> tuple[int, int]:
    """``(k, j)``: input ``k`` (q, qd, qdd) and its value ``j`` at index ``flat`` of the
    concatenated ``q, qd, qdd`` of one sample."""
    k = 0
    while flat >= sizes[k]:
        flat -= sizes[k]
        k += 1
    return k, flat


class SampleLocator:
    """Names sample ``s``, joint ``j`` of input ``k`` (0..3: q, qd, qdd, tau) in a message:
    ``data.csv, line 7, column qd2`` for a file, ``qd[5, 1] (sample 5, joint 2)`` for
    arrays."""

    def __init__(self, table=None, sizes=None):
        self.table = table
        self.sizes = sizes  # (nq, nv, nv, nv) when q has more values than the rates

    def __call__(self, k: int, s: int, j: int, dof: int) -> str:
        if self.table is not None:
            return self.table.where(s, sum(sizes_of(self.sizes or dof)[:k]) + j)
        return f"{_KINDS[k]}[{s}, {j}] (sample {s}, joint {j + 1})"


def check_angles(robot, q, where) -> None:
    """Revolute angles within :data:`MAX_ANGLE` (beyond, float64 rounds the angle by
    more than ``2e-9`` rad and its sine and cosine are noise)."""
    revolute = [k for link, k in zip(robot.links, robot.chain.q_offsets(), strict=True)
                if link.joint.type == "revolute"]
    if not revolute:
        return
    big = np.abs(q[:, revolute]) > MAX_ANGLE
    if big.any():
        s, c = np.argwhere(big)[0]
        j = revolute[c]
        raise InputError(f"{where(0, int(s), j, robot.dof)}: {q[s, j]:g} rad is too large for "
                         f"an angle (at most {MAX_ANGLE:g}: beyond, float64 rounds it by more "
                         "than 2e-9 rad); wrap the angles, e.g. (q + pi) % (2 pi) - pi")


def check_base(robot, base):
    """``base`` as the :class:`~robodyn.symbolic.base_parameters.BaseParameters` to use (default
    ``robot.base_parameters()``), and whether it is that default (a ``base`` given is
    checked against the samples by :func:`check_grouping`)."""
    from ..symbolic.base_parameters import BaseParameters

    if base is None:
        return robot.base_parameters(), True
    if not isinstance(base, BaseParameters):
        raise InputError(f"base: expected the BaseParameters of this robot "
                         f"(robot.base_parameters()), got {type(base).__name__}")
    names = robot.inertial_parameters().names
    if tuple(base.names) != tuple(names):
        raise InputError(f"base: the base parameters of another robot ({len(base.names)} "
                         f"standard parameters {', '.join(base.names[:3])}, ...; "
                         f"{robot.name} has {len(names)}); use {robot.name}'s own, "
                         "robot.base_parameters()")
    return base, False


def checked_regressor(robot, q, qd, qdd, where) -> np.ndarray:
    """``robot.regressor`` of the samples; a sample whose inputs overflow it is an
    :class:`InputError` naming the input of largest magnitude there."""
    def run(rows):
        try:
            with np.errstate(over="ignore", invalid="ignore"):
                Y = robot.regressor(q[rows], qd[rows], qdd[rows])
        except RobodynError as exc:
            return None, exc
        return (Y, None) if np.isfinite(Y).all() else (None, None)

    Y, err = run(slice(None))
    if Y is not None:
        return Y
    rows = np.arange(q.shape[0])
    while len(rows) > 1:  # bisect to one sample whose regressor is not finite
        half = rows[:len(rows) // 2]
        rows = half if run(half)[0] is None else rows[len(rows) // 2:]
    s = int(rows[0])
    sizes = (q.shape[1], qd.shape[1], qdd.shape[1])
    inputs = np.concatenate([q[s], qd[s], qdd[s]])
    order = np.argsort(-np.abs(inputs))
    trial = inputs.copy()
    for flat in order:  # zero the largest values until the regressor is finite
        trial[flat] = 0.0
        with np.errstate(over="ignore", invalid="ignore"):
            try:
                ok = np.isfinite(robot.regressor(*split_samples(trial[None], sizes + (0,))[:3])
                                 ).all()
            except RobodynError:
                ok = False
        if ok:
            k, j = _input_of(int(order[0]), sizes)
            raise InputError(f"{where(k, s, j, robot.dof)}: {inputs.flat[order[0]]:g} is too "
                             "large: the regressor (products of the rates and geometry) "
                             "overflows float64 at that sample; give values in a physical "
                             "range (SI units)")
    if err is not None:
        raise err
    raise InputError(f"{robot.name}: the regressor is not finite at sample {s} although its "
                     "inputs are; check the model's parameter values")


def check_magnitudes(Y, tau, q, qd, qdd, where) -> None:
    """The squares summed in the least-squares fit stay finite (else an error naming the
    input of largest magnitude in the offending sample)."""
    n, dof = tau.shape
    limit = _LSQ_MAX / math.sqrt(n * dof)
    big_tau = np.abs(tau)
    if big_tau.max() > limit:
        s, j = np.unravel_index(int(np.argmax(big_tau)), tau.shape)
        raise InputError(f"{where(3, int(s), int(j), dof)}: {tau[s, j]:g} is too large: its "
                         "square overflows float64 in the least-squares fit; give torques in "
                         "a physical range (SI units)")
    per_sample = np.abs(Y).reshape(n, -1).max(axis=1)
    if per_sample.max() > limit:
        s = int(np.argmax(per_sample))
        inputs = np.concatenate([q[s], qd[s], qdd[s]])
        flat = int(np.argmax(np.abs(inputs)))
        k, j = _input_of(flat, (q.shape[1], qd.shape[1], qdd.shape[1]))
        raise InputError(f"{where(k, s, j, dof)}: {inputs[flat]:g} is too large: the "
                         f"regressor at that sample ({per_sample[s]:.3g}) squared overflows "
                         "float64 in the least-squares fit; give values in a physical range "
                         "(SI units)")


def joint_weights(weights, dof: int) -> np.ndarray:
    """The ``weights`` of :func:`robodyn.identify` as ``dof`` positive finite numbers (one
    per joint), else an :class:`InputError` naming ``weights``."""
    try:
        raw = np.asarray(weights)
        ok = raw.dtype.kind in "fiu"
        w = np.asarray(raw, dtype=float).reshape(-1) if ok else None
    except (TypeError, ValueError):
        ok, w = False, None
    if not ok or w.shape != (dof,) or not np.all(np.isfinite(w)) or np.any(w <= 0):
        raise InputError(f"weights: expected {dof} positive finite numbers (one per joint), "
                         f"got {excerpt(weights, 60)}")
    return w


def check_grouping(robot, base, Y, Yb) -> None:
    """A ``base`` given (not the robot's own) groups the parameters as this robot's
    regressor does on the samples: ``Y[..., dependent] = Y_b beta``."""
    if not base.dependent:
        return
    diff = Y[..., list(base.dependent)] - Yb @ base.beta
    scale = float(np.abs(Y).max()) or 1.0
    err = float(np.abs(diff).max()) / scale
    if not err <= 1e-8:
        raise InputError(f"base: these base parameters do not group {robot.name}'s parameters "
                         f"(their relations are off by {err:.2g} relative on the samples): "
                         "the base parameters of another robot or of other parameter values; "
                         "use robot.base_parameters()")
