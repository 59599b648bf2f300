"""What :func:`robodyn.simulate` starts from and what drives it, checked.

The start state (:func:`start_state`; a batch's, :func:`robodyn.motion.rollouts.start_states`),
the torques (None, a :class:`TorqueTable` of values at times, or a callable ``tau(t, q,
qd)`` whose every value is checked, :func:`torque_value`) and the wrench ``h_e``
(:func:`checked_wrench`, :func:`wrench_value`): finite, and no value beyond
:data:`MAX_MAGNITUDE`. :class:`Problem` holds them for the drivers.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core.errors import InputError, RobodynError
from ..model.configuration import checked_arrays, layout

__all__ = ["MAX_MAGNITUDE", "check_magnitude", "state_vector", "start_state",
           "manifold_options", "TorqueTable", "torque_input", "checked_wrench", "torque_value",
           "wrench_value", "Problem"]

#: Largest ``|q|``, ``|qd|`` (rad, m, rad/s, m/s) a run starts from or reaches, and largest
#: given torque or wrench value: beyond it a motion is taken as diverged (no arm turns 1e10
#: rad, and products of such values soon overflow float64).
MAX_MAGNITUDE = 1e10


def _state(value, name: str, dof: int, bounded: bool = False) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {dof} real numbers") from None
    arr = np.broadcast_to(arr, (dof,)).copy() if arr.ndim == 0 else arr
    if arr.shape != (dof,):
        raise InputError(f"{name}: expected {dof} values (one per joint), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: {arr.tolist()} is not finite")
    if bounded:
        check_magnitude(arr, name)
    return arr


def state_vector(value, name: str, dof: int) -> np.ndarray:
    """``value`` as ``dof`` finite numbers of magnitude at most :data:`MAX_MAGNITUDE` (a
    position or velocity to start from), else :class:`InputError` naming ``name``."""
    return _state(value, name, dof, bounded=True)


def check_magnitude(values, name: str) -> None:
    """:class:`InputError` naming ``name`` when a (finite) value of ``values`` exceeds
    :data:`MAX_MAGNITUDE` in magnitude."""
    values = np.asarray(values, dtype=float)
    big = float(np.abs(values).max()) if values.size else 0.0
    if big > MAX_MAGNITUDE:
        raise InputError(f"{name}: a value of magnitude {big:.3g} is out of range: at most "
                         f"{MAX_MAGNITUDE:g} (rad, m, rad/s, m/s, N m, N); larger ones overflow "
                         "float64 in the dynamics")


def start_state(robot, q0, qd0) -> tuple[np.ndarray, np.ndarray]:
    """The start ``(q0, qd0)`` of one run, checked: ``dof`` values each (one number: the
    same for every joint), finite and within :data:`MAX_MAGNITUDE`; for a model with
    quaternion joints ``nq`` and ``nv`` values, the quaternions unit to rounding and then
    normalised."""
    dof = robot.dof
    if not robot.chain.single_valued:  # q of nq values with unit quaternions, qd of nv
        q0 = _manifold_state(q0, "q0", robot.nq, layout(robot.chain, velocity=False))
        (q0,) = checked_arrays(robot.chain, "simulate", {"q": q0})
        q0 = robot.chain.normalized(q0)
        qd0 = _manifold_state(qd0, "qd0", dof, layout(robot.chain, velocity=True))
    else:
        q0 = state_vector(q0, "q0", dof)
        qd0 = state_vector(qd0, "qd0", dof)
    return q0, qd0


def _manifold_state(value, name: str, size: int, layout: str) -> np.ndarray:
    """A start state of a model with quaternion joints: ``size`` finite values (``qd0`` may
    be one number for all; ``q0`` may not, a number is no configuration)."""
    what = f"{'nq' if name == 'q0' else 'nv'} = {size}: {layout}"
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected {size} real numbers ({what})") from None
    if arr.ndim == 0 and name != "q0":
        arr = np.full(size, float(arr))
    if arr.shape != (size,):
        raise InputError(f"{name}: expected {size} values ({what}), got shape {arr.shape}")
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: {arr.tolist()} is not finite")
    check_magnitude(arr, name)
    return arr


def manifold_options(method, tau, values) -> None:
    """What a model with quaternion joints does not take yet: an :class:`InputError` (or
    :class:`RobodynError`) saying so."""
    if getattr(tau, "kind", None) in ("pd_gravity", "computed_torque"):
        raise RobodynError("simulate: the controllers of rd.control take one value per joint; "
                           "a model with quaternion joints (a free-flying base, ball joints) "
                           "takes a torque table or tau(t, q, qd)")


class TorqueTable:
    """Torques given at times from ``t = 0`` (or before) on: linear in between, the last
    value held; a table starting after 0 is refused (it does not say what acts before).
    ``name`` (``"tau"``, ``"voltage"``) is the argument the errors name, and ``name + "_times"``
    its times."""

    def __init__(self, values, times, duration: float, dof: int, name: str = "tau"):
        try:
            values = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"{name}: expected an array (T, {dof}) of numbers or a callable "
                             f"{name}(t, q, qd)") from None
        if values.ndim == 1 and dof == 1:
            values = values[:, None]
        if values.ndim != 2 or values.shape[1] != dof:
            raise InputError(f"{name}: expected an array (T, {dof}) or a callable "
                             f"{name}(t, q, qd), got shape {values.shape}")
        if not np.isfinite(values).all():
            raise InputError(f"{name}: every value must be finite")
        check_magnitude(values, name)
        if times is None:
            times = np.linspace(0.0, duration, values.shape[0]) if values.shape[0] > 1 \
                else np.zeros(1)
        times = np.asarray(times, dtype=float).reshape(-1)
        if times.shape[0] != values.shape[0]:
            raise InputError(f"{name}_times: {times.shape[0]} times for {values.shape[0]} rows "
                             f"of {name}")
        if not np.isfinite(times).all():
            raise InputError(f"{name}_times: every time must be finite")
        if (np.diff(times) <= 0).any():
            raise InputError(f"{name}_times: must increase strictly")
        if times[0] > 0:  # what acts before the first time is not the table's to say
            raise InputError(f"{name}_times: starts at {times[0]:g}, not 0; give the values "
                             "from the start (a first row at t = 0)")
        self.values, self.times = values, times

    def __call__(self, t, q=None, qd=None) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        out = np.stack([np.interp(t, self.times, self.values[:, j])
                        for j in range(self.values.shape[1])], axis=-1)
        return out


def torque_input(tau, tau_times, duration: float, dof: int):
    """The torque of one run from :func:`~robodyn.simulate`'s ``tau``: a callable as it is,
    None (no torque), else the :class:`TorqueTable` of the values at ``tau_times``."""
    if callable(tau):
        return tau
    if tau is None:
        return None
    return TorqueTable(tau, tau_times, duration, dof)


def checked_wrench(h_e, robot=None):
    if h_e is None or callable(h_e):
        return h_e
    if isinstance(h_e, Mapping):  # constant wrenches at named frames
        if not h_e:
            raise InputError("h_e: an empty dict; give {frame name: wrench (6 numbers)} or "
                             "leave h_e out")
        out = {}
        for frame, wrench in h_e.items():
            if robot is not None:
                robot.frame_index(frame)  # a frame the robot has, or an error naming it
            try:
                h = np.asarray(wrench, dtype=float)
            except (TypeError, ValueError):
                h = np.full(1, np.nan)
            if h.shape != (6,) or not np.isfinite(h).all():
                raise InputError(f"h_e[{frame!r}]: expected 6 finite numbers (force, moment; "
                                 "base frame, about the frame's origin)")
            check_magnitude(h, f"h_e[{frame!r}]")
            out[frame] = h
        return out
    try:
        h = np.asarray(h_e, dtype=float)
    except (TypeError, ValueError):
        h = np.full(1, np.nan)
    if h.shape != (6,) or not np.isfinite(h).all():
        raise InputError("h_e: expected 6 finite numbers (force, moment; base frame) or a "
                         "callable h_e(t, q, qd)")
    check_magnitude(h, "h_e")
    return h


def torque_value(torque, t, q, qd, dof):
    if torque is None:
        return np.zeros(dof)
    return _state(torque(t, q, qd), "tau(t, q, qd)", dof, bounded=True)


def wrench_value(wrench, t, q, qd):
    if wrench is None or not callable(wrench):
        return wrench
    h = np.asarray(wrench(t, q, qd), dtype=float)
    if h.shape != (6,) or not np.isfinite(h).all():
        raise InputError(f"h_e(t, q, qd) returned {h!r:.80}; expected 6 finite numbers")
    return h


@dataclass(frozen=True, kw_only=True)
class Problem:
    """What one run integrates, checked: the arm, its start ``(q0, qd0)`` and what drives
    it: ``torque`` (None, a :class:`TorqueTable` or a callable ``tau(t, q, qd)``) and
    ``wrench`` (None, 6 values, a dict of them at named frames, or a callable ``h_e(t, q,
    qd)``); or ``drives``, the motors and their voltages
    (:class:`~robodyn.motion.voltage.Drives`) of a voltage-driven run. How it is integrated
    is a :class:`~robodyn.motion.options.SimulationOptions`."""

    robot: Any
    q0: np.ndarray
    qd0: np.ndarray
    torque: Any
    wrench: Any
    drives: Any = None
