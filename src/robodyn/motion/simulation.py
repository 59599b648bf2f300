"""Simulation: the direct dynamics integrated in time (the model's first use: simulation).

``rd.simulate(robot, q0, ...)`` integrates ``M(q) qdd + C qd + F_v qd + F_s sign(qd)
+ g = tau - J^T h_e`` from ``(q0, qd0)``:

* adaptive (``dt=None``): SciPy's ``RK45`` (``"rk45"``), or ``DOP853`` (``"dop853"``)
  for tight tolerances, error controlled by ``rtol``/``atol``, samples at the
  solver's steps (with ``dt``: at the times of a fixed step), dense output kept in
  ``sim.solution``;
* implicit, for stiff motions (large friction, stiff feedback): ``"radau"``
  (adaptive, SciPy's Radau IIA with the exact Jacobian) or ``"implicit-euler"``
  (fixed ``dt``, Newton's method), both driven by the dynamics' derivatives
  (:mod:`robodyn.motion.implicit`);
* fixed step (``dt`` given): classic ``"rk4"`` or ``"semi-implicit-euler"``
  (symplectic: velocity first, then position with the new velocity), as a
  control loop at ``1/dt`` Hz would run. With Numba, torque tables and the
  built-in controllers (:mod:`robodyn.motion.control`) run in a compiled loop
  (:mod:`robodyn.motion.loops`); Python callables still work, one call per
  stage.

Torques ``tau``: ``None`` (zero), an array ``(T, dof)`` at ``tau_times``
(default: ``T`` instants spread evenly over the duration; linear in between,
the last value held), or a callable ``tau(t, q, qd)``. ``h_e``: ``None``, a
constant wrench (6 values), a callable ``h_e(t, q, qd)``, or (a tree's hands, feet) a dict
of constant wrenches at named frames ``{frame: 6 values}`` (``robot.frames``; see
:meth:`~robodyn.Robot.inverse_dynamics`).

Joint limits the model knows (URDF ``<limit>``) are reported, not enforced: a
:class:`JointLimitWarning` names each limit crossed and when it first was.

Every run ends, and says when it went wrong:

* fixed steps: at most :data:`MAX_STEPS` (``duration / dt``; the run is kept in
  memory); ``dt`` may not exceed ``duration``, and when ``duration`` is not a
  multiple of ``dt`` the last step is shorter, so the run ends at ``duration``
  exactly (the times of :meth:`Trajectory.sample <robodyn.motion.trajectory.Trajectory.sample>`);
* adaptive steps: at most ``max_steps`` (default :data:`DEFAULT_MAX_STEPS`), and an
  explicit method (``"rk45"``, ``"dop853"``) whose step is held down by stability
  (a stiff system: large friction, stiff feedback gains) stops as soon as the
  budget cannot last, with an error that suggests ``method="radau"``;
* a state that stops being finite or grows past :data:`MAX_MAGNITUDE` is a
  diverged run: an error naming the time and the likely cause (for a fixed step:
  ``dt`` beyond the method's stability limit for the motion's fastest rate);
* the work-energy balance ``E(end) - E(0) = W_tau + W_h - L_friction``
  (:func:`energy_balance`) off by more than :data:`ENERGY_TOLERANCE` of the
  energy scale gives one :class:`EnergyBalanceWarning`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike

from ..codegen.cache import generated_function
from ..core.display import number, numbers, png, span
from ..core.errors import InputError, RobodynError, excerpt, positive_number, warn, whole_number
from ..core.progress import ProgressOption, check_progress, tracker
from .loops import loop_source
from .steps import RK4, SEMI_IMPLICIT_EULER, bind, joint_table
from .trajectory import sample_times

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["simulate", "Simulation", "JointLimitWarning", "EnergyBalanceWarning",
           "EnergyBalance", "energy_balance", "time_grid", "METHODS", "MAX_DURATION", "MAX_STEPS",
           "DEFAULT_MAX_STEPS", "MAX_MAGNITUDE", "ENERGY_TOLERANCE", "check_magnitude",
           "state_vector"]

METHODS = ("rk45", "dop853", "rk4", "semi-implicit-euler", "implicit-euler", "radau")
#: Longest motion one run simulates, in seconds (``robodyn simulate --duration`` too).
MAX_DURATION = 1.0e5
#: Most fixed steps (and samples) one run takes: the run is kept in memory.
MAX_STEPS = 2_000_000
#: Adaptive steps one run takes unless ``max_steps`` says otherwise.
DEFAULT_MAX_STEPS = 100_000
#: Largest ``|q|``, ``|qd|`` (rad, m, rad/s, m/s) a run starts from or reaches, and largest
#: given torque or wrench value: beyond it a motion is taken as diverged (no arm turns 1e10
#: rad, and products of such values soon overflow float64).
MAX_MAGNITUDE = 1e10
#: Smallest ``rtol`` of the adaptive methods (SciPy's floor is 100 machine epsilons).
MIN_RTOL = 1e-13
#: Fraction of the energy scale the work-energy balance of a run may be off by before
#: :class:`EnergyBalanceWarning` (see :func:`energy_balance`).
ENERGY_TOLERANCE = 0.01
#: ``|dt lambda|`` beyond which a fixed-step method is unstable for an eigenvalue ``lambda``
#: of the motion's linearisation (the ends of the stability regions on the real axis).
_STABILITY = {"rk4": 2.78, "semi-implicit-euler": 2.0}
#: Fixed-step loops (compiled or not) run in this many chunks when progress is reported;
#: each chunk is one call of the loop, so the reports cost nothing per step.
PROGRESS_CHUNKS = 100


class JointLimitWarning(UserWarning):
    """A simulated motion crossed a joint limit of the model (position, velocity, effort)."""


class EnergyBalanceWarning(UserWarning):
    """The work-energy balance of a simulated motion is off by more than
    :data:`ENERGY_TOLERANCE` of its energy scale: the integration is not accurate (a smaller
    ``dt``, tighter ``rtol``/``atol``, or an implicit method)."""


@dataclass
class Simulation:
    """A simulated motion: ``t`` ``(T,)``; ``q``, ``qd``, ``qdd``, ``tau`` ``(T, dof)``; the
    ``kinetic``, ``potential`` and ``total`` energy ``(T,)``; ``info`` (method, steps,
    wall time, real-time factor, the :class:`EnergyBalance` as ``energy_balance``, ...);
    ``solution`` (the dense output of adaptive runs). A batch of ``N`` rollouts
    (:mod:`robodyn.motion.rollouts`) has ``q`` ... ``(N, T, dof)`` and the energies ``(N,
    T)``; :meth:`rollout` gives one."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    info: dict = field(default_factory=dict)
    solution: object = None

    @property
    def total(self) -> np.ndarray:
        """Mechanical energy ``K + U``."""
        return self.kinetic + self.potential

    @property
    def dof(self) -> int:
        return self.q.shape[-1]

    @property
    def rollouts(self) -> int | None:
        """The number ``N`` of rollouts of a batched run (arrays ``(N, T, ...)``), else None."""
        return self.q.shape[0] if self.q.ndim == 3 else None

    def rollout(self, i: int) -> Simulation:
        """Rollout ``i`` of a batched run as a run of its own (views of the arrays; ``info``
        with that rollout's energy balance and limit reports)."""
        n = self.rollouts
        if n is None:
            raise InputError("rollout: this Simulation is a single run, not a batch")
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise InputError(f"rollout: expected an index from 0 to {n - 1}, got {excerpt(i)}")
        i = int(i) % n
        info = {k: v for k, v in self.info.items()
                if k not in ("energy_balance", "limits_crossed", "failed", "rollouts")}
        if isinstance(info.get("steps"), list):  # rollouts run one by one: steps of each
            info["steps"] = info["steps"][i]
        if self.info.get("energy_balance") is not None:
            info["energy_balance"] = self.info["energy_balance"][i]
        if i in self.info.get("limits_crossed", {}):
            info["limits_crossed"] = self.info["limits_crossed"][i]
        if i in self.info.get("failed", {}):
            info["failed"] = self.info["failed"][i]
        return Simulation(self.t, self.q[i], self.qd[i], self.qdd[i], self.tau[i],
                          self.kinetic[i], self.potential[i], info)

    def __repr__(self) -> str:
        method = self.info.get("method", "?")
        many = f", rollouts={self.rollouts}" if self.rollouts is not None else ""
        return (f"Simulation({method}, dof={self.dof}{many}, samples={len(self.t)}, "
                f"t={span(self.t)})")

    def __str__(self) -> str:
        """A few lines: sizes, time span, method and steps, the final state, the peak
        torques and the energy balance (not the arrays); for a batch, its size, the
        rollouts that failed and the worst energy balance."""
        if self.rollouts is not None:
            return self._batch_str()
        info = self.info
        method = info.get("method", "an unknown method")
        how = f"dt = {number(info['dt'])} s" if info.get("dt") else \
            (f"rtol = {number(info['rtol'])}, atol = {number(info['atol'])}"
             if "rtol" in info else "")
        steps = f"{info['steps']:,} steps" if "steps" in info else ""
        grid = (f"every {number(info['sample_dt'])} s (dense output)"
                if info.get("sample_dt") and not info.get("dt") else "")
        if info.get("sample_dt") and info.get("dt"):
            grid = f"every {number(info['sample_dt'])} s"
        lines = [f"Simulation: {self.dof} joints, {len(self.t)} samples {grid}".rstrip()
                 + f" over {span(self.t)}",
                 "  " + ", ".join(x for x in (method, how, steps) if x)
                 + (", compiled loop" if info.get("compiled") else "")
                 + (f"; wall time {info['wall_time']:.3g} s" if "wall_time" in info else "")]
        if len(self.t):
            lines.append(f"  final q = {numbers(self.q[-1])}, qd = {numbers(self.qd[-1])}")
            lines.append(f"  peak |tau| = {numbers(np.abs(self.tau).max(axis=0))}")
            total = self.total
            balance = info.get("energy_balance")
            line = f"  energy K+U: {number(total[0], 6)} -> {number(total[-1], 6)} J"
            if balance is not None:
                line += f" (balance off by {balance.relative:.2g} of the scale)"
            lines.append(line)
        if info.get("limits_crossed"):
            lines.append(f"  joint limits crossed: {len(info['limits_crossed'])}")
        return "\n".join(lines)

    def _batch_str(self) -> str:
        info = self.info
        failed = info.get("failed", {})
        how = f", dt = {number(info['dt'])} s" if info.get("dt") else ""
        lines = [f"Simulation: {self.rollouts} rollouts of {self.dof} joints, {len(self.t)} "
                 f"samples over {span(self.t)}",
                 f"  {info.get('method', 'an unknown method')}{how}"
                 + (", compiled loop" if info.get("compiled") else "")
                 + (f"; wall time {info['wall_time']:.3g} s" if "wall_time" in info else "")]
        balances = [b for b in info.get("energy_balance") or () if b is not None]
        if balances:
            worst = max(range(len(balances)), key=lambda i: balances[i].relative)
            lines.append(f"  worst energy balance off by {balances[worst].relative:.2g} of the "
                         "scale")
        if failed:
            lines.append(f"  failed rollouts: {', '.join(map(str, sorted(failed)))}")
        if info.get("limits_crossed"):
            lines.append(f"  rollouts that crossed joint limits: {len(info['limits_crossed'])}")
        return "\n".join(lines)

    def _repr_png_(self) -> bytes:
        """A small picture for Jupyter: ``q`` and ``tau`` against time, a line per joint
        (of the first rollout of a batch)."""
        if self.rollouts is not None:
            return self.rollout(0)._repr_png_()
        def draw(fig):
            top, bottom = fig.subplots(2, 1, sharex=True)
            for j in range(self.dof):
                top.plot(self.t, self.q[:, j], color=f"C{j % 10}", lw=1.2, label=f"q{j + 1}")
                bottom.plot(self.t, self.tau[:, j], color=f"C{j % 10}", lw=1.2)
            top.set_ylabel("q")
            bottom.set_ylabel("tau")
            bottom.set_xlabel("t [s]")
            top.legend(loc="best", ncol=min(self.dof, 6), fontsize="x-small")
            for ax in (top, bottom):
                ax.grid(True, alpha=0.3)

        return png(draw)

    def columns(self) -> dict[str, np.ndarray]:
        """Every recorded series by name: ``t``, ``q1..``, ``qd1..``, ``qdd1..``, ``tau1..``,
        ``kinetic``, ``potential``, ``total``; for a batch, ``(N, T)`` each."""
        out = {"t": self.t}
        if self.rollouts is not None:
            for name in ("q", "qd", "qdd", "tau"):
                values = getattr(self, name)
                for j in range(self.dof):
                    out[f"{name}{j + 1}"] = values[..., j]
            out.update(kinetic=self.kinetic, potential=self.potential, total=self.total)
            return out
        for name in ("q", "qd", "qdd", "tau"):
            values = getattr(self, name)
            for j in range(self.dof):
                out[f"{name}{j + 1}"] = values[:, j]
        out.update(kinetic=self.kinetic, potential=self.potential, total=self.total)
        return out

    def save(self, path: str | Path) -> Path:
        """Write the run to ``.npz`` (arrays by name) or ``.csv`` (a header, one row per
        sample)."""
        path = Path(path)
        columns = self.columns()
        if path.suffix.lower() == ".npz":
            np.savez(path, **columns)
        elif path.suffix.lower() == ".csv" and self.rollouts is not None:
            raise InputError(f"save: {path.name!r}: a batch of {self.rollouts} rollouts goes to "
                             ".npz (arrays (N, T)); for .csv save one, sim.rollout(i).save(...)")
        elif path.suffix.lower() == ".csv":
            data = np.column_stack(list(columns.values()))
            np.savetxt(path, data, delimiter=",", header=",".join(columns), comments="",
                       fmt="%.17g")
        else:
            raise InputError(f"save: {path.name!r}: use a .npz or .csv file name")
        return path


# -- the energy balance ------------------------------------------------------------------------
@dataclass(frozen=True)
class EnergyBalance:
    """The work-energy theorem along a sampled motion, in J (trapezoidal rule on the samples):
    ``change = E(end) - E(0)`` of ``E = K + U``; ``work`` of the joint torques
    ``∫ tau·qd dt``; ``external``, the work of the wrench on the arm ``-∫ (J^T h_e)·qd dt``;
    ``friction_loss`` ``∫ tau_f·qd dt``; ``error = change - work - external +
    friction_loss`` (0 for an exact motion); ``scale``, the largest of ``max |E|``, the range
    of ``K`` and the energy the torques, the wrench and friction move; ``uncertainty``, the
    quadrature's own error estimate (the trapezoidal rule on every other sample against all,
    Richardson)."""

    change: float
    work: float
    external: float
    friction_loss: float
    error: float
    scale: float
    uncertainty: float

    def __repr__(self) -> str:
        return (f"EnergyBalance(error={number(self.error, 3)} J, relative={self.relative:.2g}, "
                f"scale={number(self.scale)} J)")

    def __str__(self) -> str:
        return (f"energy balance: E(end) - E(0) = {number(self.change, 6)} J, work of tau "
                f"{number(self.work, 6)} J, of the wrench {number(self.external, 6)} J,\n"
                f"  friction loss {number(self.friction_loss, 6)} J; off by "
                f"{number(self.error, 3)} J ({self.relative:.2g} of the scale "
                f"{number(self.scale)} J)")

    @property
    def relative(self) -> float:
        """``|error| / scale``."""
        return abs(self.error) / self.scale

    @property
    def passive(self) -> bool:
        """Nothing added or removed energy: the balance is the drift of ``E``."""
        return self.work == self.external == self.friction_loss == 0

    @property
    def off(self) -> bool:
        """Off by more than :data:`ENERGY_TOLERANCE` of the scale, beyond the quadrature's
        own error."""
        return self.relative > ENERGY_TOLERANCE and abs(self.error) > 3 * self.uncertainty


def _trapezoid(t: np.ndarray, y: np.ndarray) -> float:
    return float(0.5 * np.sum(np.diff(t) * (y[1:] + y[:-1])))


def energy_balance(robot, sim: Simulation, h_e=None) -> EnergyBalance:
    """The :class:`EnergyBalance` of ``sim`` on ``robot``; ``h_e``: the wrench it ran with
    (``None``, 6 values, ``(T, 6)`` per sample, or a dict of them at named frames)."""
    t, qd = sim.t, sim.qd
    with np.errstate(all="ignore"):
        p_tau = np.sum(sim.tau * qd, axis=1)
        p_loss = np.sum(robot.friction_torques(qd) * qd, axis=1)
        p_ext = np.zeros_like(t)
        if isinstance(h_e, Mapping):  # wrenches at named frames: the sum of their powers
            for frame, wrench in h_e.items():
                h = np.broadcast_to(np.asarray(wrench, dtype=float), (len(t), 6))
                p_ext = p_ext - np.einsum("kij,ki,kj->k", robot.jacobian(sim.q, frame=frame),
                                          h, qd)
        elif h_e is not None:
            h = np.broadcast_to(np.asarray(h_e, dtype=float), (len(t), 6))
            p_ext = -np.einsum("kij,ki,kj->k", robot.jacobian(sim.q), h, qd)
    return balance_of_powers(t, sim.kinetic, sim.total, p_tau, p_ext, p_loss)


def balance_of_powers(t, kinetic, total, p_tau, p_ext, p_loss) -> EnergyBalance:
    """The :class:`EnergyBalance` of a motion sampled at ``t`` from its kinetic and total
    energy and the powers of the torques, the wrench and friction (each ``(T,)``)."""
    with np.errstate(all="ignore"):
        rate = p_tau + p_ext - p_loss  # dE/dt
        work, external, loss = (_trapezoid(t, p) for p in (p_tau, p_ext, p_loss))
        change = float(total[-1] - total[0])
        error = change - _trapezoid(t, rate)
        uncertainty = 0.0
        if len(t) >= 3:
            every = np.arange(0, len(t), 2)
            if every[-1] != len(t) - 1:
                every = np.append(every, len(t) - 1)
            uncertainty = abs(_trapezoid(t, rate) - _trapezoid(t[every], rate[every])) / 3
        moved = [_trapezoid(t, np.abs(p)) for p in (p_tau, p_ext)] + [abs(loss)]
        scale = max(float(np.abs(total).max()), float(np.ptp(kinetic)), *moved, 1e-300)
    return EnergyBalance(change, work, external, loss, error, scale, uncertainty)


# -- arguments ---------------------------------------------------------------------------------
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


def time_grid(duration, dt, names: tuple[str, str] = ("duration", "dt")) -> np.ndarray:
    """The sample times of a fixed-step run, :func:`~.trajectory.sample_times` (``0, dt,
    2 dt, ...`` and, when ``duration`` is not a multiple of ``dt``, ``duration`` itself
    after a shorter last step), checked: a ``dt`` longer than ``duration`` or more than
    :data:`MAX_STEPS` steps is an :class:`InputError` naming ``names`` (the arguments, or
    the command's options)."""
    d_name, dt_name = names
    duration = _duration(duration, d_name)
    dt = positive_number(dt, dt_name)
    if dt > duration:
        raise InputError(f"{dt_name}: {dt:g} s is longer than the duration {duration:g} s")
    count = duration / dt
    if count > MAX_STEPS:
        raise InputError(f"{d_name} / {dt_name}: {count:,.0f} steps; at most {MAX_STEPS:,} (a "
                         f"larger {dt_name} or a shorter {d_name})")
    return sample_times(duration, dt)


def _duration(value, name: str) -> float:
    duration = positive_number(value, name)
    if duration > MAX_DURATION:
        raise InputError(f"{name}: {duration:g} s is longer than {MAX_DURATION:g} s, the longest "
                         "motion simulate takes")
    return duration


def shorter_last_step(last: float, dt: float) -> bool:
    """Whether the last step of a :func:`time_grid` is the shorter remainder (at most
    ``(1 - 1e-6) dt`` by construction), not a whole step (``dt`` up to rounding)."""
    return last < dt * (1 - 1e-7)


def _tolerances(rtol, atol) -> tuple[float, float]:
    try:
        r, a = float(rtol), float(atol)
    except (TypeError, ValueError):
        r = a = np.nan
    if not (MIN_RTOL <= r < 1 and 0 < a < np.inf):
        raise InputError(f"rtol, atol: invalid tolerances (rtol = {excerpt(rtol)}, atol = "
                         f"{excerpt(atol)}): rtol must be a number from {MIN_RTOL:g} to below "
                         "1 and atol a positive finite number (e.g. rtol=1e-9, atol=1e-9)")
    return r, a


class TorqueTable:
    """Torques given at times: linear in between, the last value held."""

    def __init__(self, values, times, duration: float, dof: int):
        try:
            values = np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"tau: expected an array (T, {dof}) of numbers or a callable "
                             "tau(t, q, qd)") from None
        if values.ndim == 1 and dof == 1:
            values = values[:, None]
        if values.ndim != 2 or values.shape[1] != dof:
            raise InputError(f"tau: expected an array (T, {dof}) or a callable tau(t, q, qd), "
                             f"got shape {values.shape}")
        if not np.isfinite(values).all():
            raise InputError("tau: every value must be finite")
        check_magnitude(values, "tau")
        if times is None:
            times = np.linspace(0.0, duration, values.shape[0]) if values.shape[0] > 1 \
                else np.zeros(1)
        times = np.asarray(times, dtype=float).reshape(-1)
        if times.shape[0] != values.shape[0]:
            raise InputError(f"tau_times: {times.shape[0]} times for {values.shape[0]} rows of "
                             "tau")
        if not np.isfinite(times).all():
            raise InputError("tau_times: every time must be finite")
        if (np.diff(times) <= 0).any():
            raise InputError("tau_times: must increase strictly")
        self.values, self.times = values, times

    def __call__(self, t, q=None, qd=None) -> np.ndarray:
        t = np.asarray(t, dtype=float)
        out = np.stack([np.interp(t, self.times, self.values[:, j])
                        for j in range(self.values.shape[1])], axis=-1)
        return out


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


# -- the run -----------------------------------------------------------------------------------
def simulate(robot: Robot, q0: ArrayLike, qd0: ArrayLike = 0.0, duration: float = 1.0,
             tau: ArrayLike | Callable[..., ArrayLike] | None = None,
             tau_times: ArrayLike | None = None,
             h_e: ArrayLike | Callable[..., ArrayLike] | None = None,
             dt: float | None = None, method: str | None = None, rtol: float = 1e-9,
             atol: float = 1e-9, max_step: float = np.inf, progress: ProgressOption = None,
             check_limits: bool = True, max_steps: int = DEFAULT_MAX_STEPS,
             sample_dt: float | None = None, values=None) -> Simulation:
    """Integrate the robot's motion from ``q0``, ``qd0`` for ``duration`` seconds (see the
    module docstring for ``tau``, ``h_e``, the methods and the budgets; default method:
    ``"rk45"`` without ``dt``, ``"rk4"`` with it). ``max_steps`` bounds the steps of the
    adaptive methods (at most :data:`MAX_STEPS`); a fixed-step run takes ``duration / dt``
    steps, at most :data:`MAX_STEPS`. ``rtol`` (at least ``1e-13``) and ``atol`` (> 0) are
    the adaptive methods' tolerances. ``progress`` counts simulated seconds
    (:mod:`robodyn.core.progress`: by default a bar on a terminal for a run that lasts,
    ``False`` for none, or a callable ``(done, total, label)``): after every adaptive or
    implicit step, and after each of :data:`PROGRESS_CHUNKS` chunks of a fixed-step run.

    ``sample_dt``: the samples on the uniform grid ``0, sample_dt, 2 sample_dt, ...``
    (:func:`time_grid`, ``duration`` included) instead of at the integrator's own steps.
    An adaptive method evaluates its dense output there (the integration is the same, its
    accuracy that of the steps); with a fixed ``dt`` it must be a whole multiple of ``dt``
    and every ``sample_dt / dt``-th step is kept. ``info["sample_dt"]`` records it.

    Many rollouts at once (:mod:`robodyn.motion.rollouts`): ``q0`` or ``qd0`` ``(N, dof)``,
    ``tau`` ``(N, T, dof)`` or a list of ``N`` controllers, ``h_e`` ``(N, 6)``, or
    ``values={name: N values}`` (per-rollout parameter values) run ``N`` rollouts and return
    a :class:`Simulation` whose arrays have a leading ``N`` axis."""
    check_progress(progress)
    manifold = not robot.chain.single_valued  # quaternion joints (a free base, ball joints)
    if manifold:
        _manifold_options(method, tau, values)
    from . import rollouts  # same layer; it builds on this module

    count = rollouts.batch_size(robot, q0, qd0, tau, h_e, values)
    if count is not None:
        return rollouts.simulate_many(
            robot, count, q0, qd0=qd0, duration=duration, tau=tau, tau_times=tau_times,
            h_e=h_e, dt=dt, method=method, rtol=rtol, atol=atol, max_step=max_step,
            progress=progress, check_limits=check_limits, max_steps=max_steps,
            sample_dt=sample_dt, values=values)
    dof = robot.dof
    if manifold:  # q of nq values with unit quaternions (to rounding), qd of nv
        q0 = _manifold_state(q0, "q0", robot.nq, robot.configuration_layout)
        (q0,) = robot._manifold_inputs("simulate", q=q0)
        q0 = robot.chain.normalized(q0)
        qd0 = _manifold_state(qd0, "qd0", dof, robot.velocity_layout)
    else:
        q0 = state_vector(q0, "q0", dof)
        qd0 = state_vector(qd0, "qd0", dof)
    duration, method, times, keep, rtol, atol, max_steps, max_step = checked_options(
        duration, dt, method, sample_dt, rtol, atol, max_steps, max_step)
    if callable(tau):
        torque = tau
    elif tau is None:
        torque = None
    else:
        torque = TorqueTable(tau, tau_times, duration, dof)
    wrench = checked_wrench(h_e, robot)
    problem = _Problem(robot=robot, q0=q0, qd0=qd0, duration=duration, torque=torque,
                       wrench=wrench, rtol=rtol, atol=atol, max_step=max_step,
                       max_steps=max_steps)
    start = time.perf_counter()
    with tracker(progress, duration, "simulating") as bar:
        if method in ("implicit-euler", "radau"):
            sim = _implicit(problem, method, times, bar)
        elif method in ("rk45", "dop853"):
            sim = _adaptive(problem, method, times, bar)
        else:
            sim = _fixed(robot, q0, qd0, times, torque, wrench, method, dt, bar)
    wall = time.perf_counter() - start
    sim.info.update(method=method, wall_time=wall,
                    realtime_factor=(sim.t[-1] / wall) if wall > 0 else np.inf)
    _check_energy(robot, sim, wrench)
    if check_limits:
        _report_limits(robot, sim)
    if keep is not None:  # after the checks, which use every step
        sim = Simulation(sim.t[keep], sim.q[keep], sim.qd[keep], sim.qdd[keep], sim.tau[keep],
                         sim.kinetic[keep], sim.potential[keep], sim.info, sim.solution)
    if sample_dt is not None:
        sim.info["sample_dt"] = float(sample_dt)
    return sim


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


def _manifold_options(method, tau, values) -> None:
    """What a model with quaternion joints does not take yet: an :class:`InputError` (or
    :class:`RobodynError`) saying so."""
    if method is not None and str(method).lower() in ("implicit-euler", "radau"):
        raise InputError(f"method: {str(method)[:40]!r} does not support quaternion joints "
                         "(a free-flying base, ball joints) yet; use rk45, dop853, rk4 or "
                         "semi-implicit-euler")
    if getattr(tau, "kind", None) in ("pd_gravity", "computed_torque"):
        raise RobodynError("simulate: the controllers of rd.control take one value per joint; "
                           "a model with quaternion joints (a free-flying base, ball joints) "
                           "takes a torque table or tau(t, q, qd)")
    if values is not None:
        raise RobodynError("simulate: values does not support quaternion joints yet (the "
                           "robot has a free-flying base or ball joints)")


def checked_options(duration, dt, method, sample_dt, rtol, atol, max_steps, max_step):
    """:func:`simulate`'s options, checked: ``(duration, method, times, keep, rtol, atol,
    max_steps, max_step)`` with ``times`` the fixed-step grid (or the adaptive methods'
    sample times, or None) and ``keep`` the fixed-step samples kept for ``sample_dt``."""
    duration = _duration(duration, "duration")
    if method is None:
        method = "rk45" if dt is None else "rk4"
    method = str(method).lower()
    if method not in METHODS:
        raise InputError(f"method: {method!r} is not one of {', '.join(METHODS)}")
    if method in ("rk4", "semi-implicit-euler", "implicit-euler") and dt is None:
        raise InputError(f"method {method!r} is a fixed-step method: give dt (e.g. 0.001)")
    times = None if dt is None else time_grid(duration, dt)
    keep = None
    if sample_dt is not None:
        grid = time_grid(duration, sample_dt, ("duration", "sample_dt"))
        if dt is None:
            times = grid
        else:
            keep = _every(float(sample_dt), float(dt), times)
    rtol, atol = _tolerances(rtol, atol)
    max_steps = whole_number(max_steps, "max_steps", 1, MAX_STEPS)
    given = max_step
    try:
        max_step = float(max_step)
    except (TypeError, ValueError):
        max_step = np.nan
    if not max_step > 0:
        raise InputError(f"max_step: expected a positive number of seconds (or inf), got "
                         f"{excerpt(given)}")
    if method in ("rk45", "dop853", "radau") and duration / max_step > max_steps:
        raise InputError(f"max_step: {max_step:g} s takes at least {duration / max_step:,.0f} "
                         f"steps over {duration:g} s, more than max_steps = {max_steps:,}: a "
                         "larger max_step, a shorter duration or a larger max_steps (at most "
                         f"{MAX_STEPS:,})")
    return duration, method, times, keep, rtol, atol, max_steps, max_step


def _every(sample_dt: float, dt: float, times: np.ndarray) -> np.ndarray:
    """The indices of the fixed-step grid ``times`` (step ``dt``) kept for samples every
    ``sample_dt``, a whole multiple of ``dt``: every ``k``-th and the last."""
    k = round(sample_dt / dt)
    if k < 1 or abs(k * dt - sample_dt) > 1e-9 * sample_dt:
        raise InputError(f"sample_dt: {sample_dt:g} s is not a whole multiple of dt = {dt:g} s "
                         f"(the fixed steps); give a multiple such as {max(k, 1) * dt:g}, or "
                         "leave dt out for an adaptive method's dense output")
    keep = np.arange(0, len(times), k)
    if keep[-1] != len(times) - 1:
        keep = np.append(keep, len(times) - 1)
    return keep


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


def _rhs(robot, torque, wrench):
    """``f(t, y) = (dq/dt, FD(q, qd, tau(t, q, qd)))`` of the state ``y = (q, qd)``
    (``dq/dt = qd`` but for quaternions, :meth:`~robodyn.model.chain.Chain.configuration_rate`,
    whose ``q`` is renormalised first)."""
    dof, nq, chain = robot.dof, robot.nq, robot.chain
    manifold = not chain.single_valued

    def rhs(t, y):
        q, qd = y[:nq], y[nq:]
        if manifold:
            q = chain.normalized(q)
        tau = torque_value(torque, t, q, qd, dof)
        rate = chain.configuration_rate(q, qd) if manifold else qd
        return np.concatenate([rate, robot.forward_dynamics(q, qd, tau,
                                                            h_e=wrench_value(wrench, t, q, qd))])

    return rhs


def _bounded(y) -> bool:
    """Finite and within :data:`MAX_MAGNITUDE`."""
    return bool(np.all(np.abs(y) <= MAX_MAGNITUDE))


def _finish(robot, t, q, qd, qdd, tau, info, solution=None) -> Simulation:
    return Simulation(t, q, qd, qdd, tau, robot.kinetic_energy(q, qd), robot.potential_energy(q),
                      info, solution)


def _check_energy(robot, sim: Simulation, wrench) -> None:
    """Store the run's :class:`EnergyBalance` in ``info`` and warn once when it is off."""
    h = wrench
    if callable(wrench):
        h = np.stack([wrench_value(wrench, tk, qk, qdk) for tk, qk, qdk in
                      zip(sim.t, sim.q, sim.qd)])
    balance = energy_balance(robot, sim, h)
    sim.info["energy_balance"] = balance
    warn_energy_balance(balance, sim.info, "arm")


def warn_energy_balance(balance, info, what: str = "arm") -> None:
    """An :class:`EnergyBalanceWarning` when the run's energy balance is off (more than
    :data:`ENERGY_TOLERANCE` of its energy scale), with what to change; ``what`` the
    simulated system in the message (``arm``, ``robot``)."""
    if not balance.off:
        return
    drift = ("E = K + U drifted by" if balance.passive else
             f"E(end) - E(0) differs from the work done on the {what} by")
    warn(EnergyBalanceWarning(
        f"simulate: {drift} {abs(balance.error):.3g} J, {balance.relative:.1%} of the energy "
        f"scale {balance.scale:.3g} J (more than {ENERGY_TOLERANCE:.0%}): the integration "
        f"is not accurate; {energy_advice(info)}"))


def energy_advice(info) -> str:
    if info.get("method") == "implicit-euler":
        return "reduce dt (implicit Euler is first order and damps the motion)"
    if info.get("dt") is not None:
        return "reduce dt, or use method='implicit-euler' or 'radau' for a stiff motion"
    return "tighten rtol and atol"


# -- adaptive steps ----------------------------------------------------------------------------
def _fastest_rate(rhs, t, y) -> float | None:
    """The spectral radius of ``df/dy`` at ``(t, y)`` (central differences): the fastest
    rate, in 1/s, of the motion's linearisation; None where it cannot be evaluated."""
    try:
        with np.errstate(all="ignore"):
            cols = []
            for j in range(len(y)):
                e = np.zeros(len(y))
                e[j] = 1e-6 * max(1.0, abs(y[j]))
                cols.append((rhs(t, y + e) - rhs(t, y - e)) / (2 * e[j]))
            jac = np.stack(cols, axis=1)
            if not np.isfinite(jac).all():
                return None
            return float(np.abs(np.linalg.eigvals(jac)).max())
    except (RobodynError, np.linalg.LinAlgError):
        return None


def _state_words(y, nq: int) -> str:
    return (f"q = {np.array2string(y[:nq], precision=4, separator=', ')}, qd = "
            f"{np.array2string(y[nq:], precision=4, separator=', ')}")


def _attempt(step, rhs, t, y, dof, method, h=None):
    """``step()`` (a solver's constructor, or its step of size about ``h`` from the accepted
    state ``(t, y)``); a robodyn error on the way is the model's where ``rhs`` fails at
    ``(t, y)`` itself, else a trial state that overflowed: a stiff system for an explicit
    method whose trial step is beyond its stability limit, else a diverging motion."""
    try:
        return step()
    except RobodynError:
        rhs(t, y)  # an error at the accepted state is the model's (or tau's): raise it
        explicit = method in ("rk45", "dop853")
        rate = _fastest_rate(rhs, t, y) if explicit and h else None
        if rate is not None and rate * h > 1.0:
            raise RobodynError(
                f"simulate: stiff system (a trial step of {h:.2g} s from t = {t:.3g} s "
                f"overflowed: the motion's fastest rate is {rate:.3g} 1/s, and {method} is "
                f"stable only for steps below about {3 / rate:.2g} s); try method='radau' (or "
                "a fixed step with method='implicit-euler')") from None
        raise RobodynError(
            f"simulate: the motion diverged in the step from t = {t:.6g} s "
            f"({_state_words(y, dof)}): at a trial state the dynamics overflowed float64 or "
            f"the torque passed {MAX_MAGNITUDE:g}; the torques or the wrench drive the arm "
            "without bound, or the model's values are out of range") from None


def _drive(make, rhs, y0, duration, t_eval, max_steps, method, dof, bar, project=None):
    """Step a SciPy ``OdeSolver`` (``make()`` makes it) from ``(0, y0)`` to ``duration``
    within ``max_steps`` steps: ``(t, y (n, T), dense output, steps, solver)``,
    samples at ``t_eval`` or at every step. An
    explicit solver whose step sits at its stability limit while the budget cannot last
    stops early (a stiff system). ``bar`` (a :class:`~robodyn.core.progress.Progress`) is
    told the time reached after every step; ``project(y)``, if given, puts each accepted
    state back on the configuration manifold (unit quaternions) before the next step."""
    from scipy.integrate import OdeSolution  # SciPy only when used

    explicit = method in ("rk45", "dop853")
    solver = _attempt(make, rhs, 0.0, y0, dof, method)
    ts, ys, pieces = [solver.t], [solver.y.copy()], []
    checked = np.inf  # the step size of the last stiffness check
    while solver.status == "running":
        t_old, y_old = solver.t, solver.y.copy()
        message = _attempt(solver.step, rhs, t_old, y_old, dof, method, solver.h_abs)
        if solver.status == "failed":
            raise RobodynError(f"simulate: the integrator failed at t = {solver.t:.6g} s "
                               f"({message}); try method='radau', a smaller max_step or looser "
                               "tolerances")
        if project is not None:
            solver.y[:] = project(solver.y)
        ts.append(solver.t)
        ys.append(solver.y.copy())
        pieces.append(solver.dense_output())
        steps = len(pieces)
        bar.update(solver.t)
        if not _bounded(solver.y):
            raise RobodynError(
                f"simulate: the motion diverged: the state passed {MAX_MAGNITUDE:g} (or stopped "
                f"being finite) at t = {solver.t:.6g} s, from {_state_words(y_old, dof)} at t "
                f"= {t_old:.6g} s; the torques or the wrench drive the arm without bound, or "
                "the model's values are out of range")
        if solver.status != "running":
            break
        if steps >= max_steps:
            raise RobodynError(
                f"simulate: the step budget ran out: max_steps = {max_steps:,} {method} steps "
                f"reached t = {solver.t:.6g} s of {duration:g} s (the last step "
                f"{solver.t - t_old:.3g} s); raise max_steps (at most {MAX_STEPS:,}), loosen "
                "rtol and atol" + (", or try method='radau'" if explicit else ""))
        if explicit and steps >= 20 and steps % 10 == 0:
            h = (ts[-1] - ts[-11]) / 10
            projected = steps + (duration - solver.t) / h
            if projected > max_steps and h < checked / 2:
                checked = h
                rate = _fastest_rate(rhs, solver.t, solver.y)
                if rate is not None and rate * h > 1.0:
                    raise RobodynError(
                        f"simulate: stiff system (step size fell to {h:.2g} s at t = "
                        f"{solver.t:.3g} s, held there by stability: the motion's fastest rate "
                        f"is {rate:.3g} 1/s; {method} would need about {projected:,.0f} steps, "
                        f"over max_steps = {max_steps:,}); try method='radau' (or a fixed "
                        "step with method='implicit-euler')")
    solution = OdeSolution(np.array(ts), pieces)
    if t_eval is None:
        return np.array(ts), np.array(ys).T, solution, len(pieces), solver
    return t_eval, solution(t_eval), solution, len(pieces), solver


@dataclass(frozen=True, kw_only=True)
class _Problem:
    """What :func:`simulate` integrates, checked: the arm, its start ``(q0, qd0)``, the
    duration, what drives it (``torque(t, q, qd)`` or None, the wrench ``h_e``) and the
    adaptive methods' tolerances and step limits."""

    robot: Any
    q0: np.ndarray
    qd0: np.ndarray
    duration: float
    torque: Any
    wrench: Any
    rtol: float
    atol: float
    max_step: float
    max_steps: int


def _adaptive(problem: _Problem, method: str, t_eval, bar) -> Simulation:
    """``"rk45"`` and ``"dop853"`` (SciPy's explicit solvers), sampled at ``t_eval`` (or at
    every step when None)."""
    from scipy.integrate import DOP853, RK45  # SciPy only when used

    robot, q0, qd0, duration = problem.robot, problem.q0, problem.qd0, problem.duration
    torque, wrench, rtol, atol = problem.torque, problem.wrench, problem.rtol, problem.atol
    max_step, max_steps = problem.max_step, problem.max_steps
    dof, nq, chain = robot.dof, robot.nq, robot.chain
    rhs = _rhs(robot, torque, wrench)
    y0 = np.concatenate([q0, qd0])
    kind = RK45 if method == "rk45" else DOP853
    project = None
    if not chain.single_valued:
        def project(y):
            return np.concatenate([chain.normalized(y[:nq]), y[nq:]])

    def make():
        return kind(rhs, 0.0, y0, duration, rtol=rtol, atol=atol, max_step=max_step)

    t, y, solution, steps, solver = _drive(make, rhs, y0, duration, t_eval, max_steps, method,
                                           nq, bar, project)
    q, qd = y[:nq].T.copy(), y[nq:].T.copy()
    if project is not None:  # dense output between the steps: back on the manifold
        q = chain.normalized(q)
    tau = np.stack([torque_value(torque, tk, qk, qdk, dof) for tk, qk, qdk in zip(t, q, qd)])
    if wrench is None or not callable(wrench):
        qdd = robot.forward_dynamics(q, qd, tau, h_e=wrench)
    else:
        qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=wrench_value(wrench, tk, qk,
                                                                             qdk))
                        for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    info = {"steps": steps, "evaluations": int(solver.nfev), "rtol": rtol, "atol": atol}
    return _finish(robot, t, q, qd, qdd, tau, info, solution)


def _implicit(problem: _Problem, method: str, times, bar) -> Simulation:
    """``"implicit-euler"`` (on the fixed grid ``times``) and ``"radau"`` (sampled at
    ``times``, or at every step when None), driven by the dynamics' derivatives
    (:mod:`robodyn.motion.implicit`)."""
    from . import implicit

    robot, q0, qd0, duration = problem.robot, problem.q0, problem.qd0, problem.duration
    torque, wrench, rtol, atol = problem.torque, problem.wrench, problem.rtol, problem.atol
    max_step, max_steps = problem.max_step, problem.max_steps
    dof = robot.dof

    def torque_at(t, q, qd):
        return torque_value(torque, t, q, qd, dof)

    def wrench_at(t, q, qd):
        return wrench_value(wrench, t, q, qd)

    torque_at.state_dependent = callable(torque) and not isinstance(torque, TorqueTable)
    if method == "implicit-euler":
        q, qd = implicit.implicit_euler(robot, q0, qd0, times, torque_at, wrench_at,
                                        bound=MAX_MAGNITUDE, on_step=bar.update)
        t = times
        info, solution = {"steps": len(t) - 1, "dt": float(times[1] - times[0])}, None
        if shorter_last_step(t[-1] - t[-2], info["dt"]):
            info["last_step"] = float(t[-1] - t[-2])
    else:
        from scipy.integrate import Radau  # SciPy only when used

        rhs, jac = implicit.radau_functions(robot, torque_at, wrench_at)
        y0 = np.concatenate([q0, qd0])

        def make():
            return Radau(rhs, 0.0, y0, duration, jac=jac, rtol=rtol, atol=atol,
                         max_step=max_step)

        t, y, solution, steps, solver = _drive(make, rhs, y0, duration, times, max_steps,
                                               method, dof, bar)
        q, qd = y[:dof].T.copy(), y[dof:].T.copy()
        info = {"steps": steps, "evaluations": int(solver.nfev), "jacobians": int(solver.njev),
                "rtol": rtol, "atol": atol}
    tau = np.stack([torque_at(tk, qk, qdk) for tk, qk, qdk in zip(t, q, qd)])
    qdd = np.stack([robot.forward_dynamics(qk, qdk, tk_tau, h_e=wrench_at(tk, qk, qdk))
                    for tk, qk, qdk, tk_tau in zip(t, q, qd, tau)])
    return _finish(robot, t, q, qd, qdd, tau, info, solution)


# -- fixed steps -------------------------------------------------------------------------------
def _fixed(robot, q0, qd0, t, torque, wrench, method, dt, bar):
    """Fixed steps over the times ``t`` (:func:`time_grid`): ``dt`` each, the last one maybe
    shorter; in :data:`PROGRESS_CHUNKS` chunks when ``bar`` is active (told the time after each)."""
    dof = robot.dof
    dt = float(dt)
    steps = len(t) - 1
    last = float(t[-1] - t[-2])
    regular = steps - 1 if shorter_last_step(last, dt) else steps
    Q = np.empty((steps + 1, robot.nq))
    QD = np.empty((steps + 1, dof))
    QDD = np.empty((steps + 1, dof))
    TAU = np.empty((steps + 1, dof))
    Q[0], QD[0] = q0, qd0
    compiled = _compiled_loop(robot, torque, wrench, t)
    runner = compiled if compiled is not None else _python_loop(robot, torque, wrench, t)
    chunks = np.linspace(0, regular, (PROGRESS_CHUNKS if bar.active else 1) + 1).astype(int)
    segments = [(a, b, dt) for a, b in zip(chunks[:-1], chunks[1:]) if b > a]
    if regular < steps:
        segments.append((regular, steps, last))
    code = SEMI_IMPLICIT_EULER if method == "semi-implicit-euler" else RK4
    for a, b, h in segments:
        failed = runner(a, b, code, h, Q, QD, QDD, TAU)
        if failed >= 0:
            h_failed = dt if failed < regular else last
            raise_diverged(robot, torque, wrench, method, t[failed], h_failed, Q[failed],
                      QD[failed])
        bar.update(t[b])
    # torque and acceleration at the last sample
    q_end, qd_end = Q[-1], QD[-1]
    TAU[-1] = torque_value(torque, t[-1], q_end, qd_end, dof)
    QDD[-1] = robot.forward_dynamics(q_end, qd_end, TAU[-1],
                                     h_e=wrench_value(wrench, t[-1], q_end, qd_end))
    info = {"steps": steps, "dt": dt, "compiled": compiled is not None}
    if regular < steps:
        info["last_step"] = last
    return _finish(robot, t, Q, QD, QDD, TAU, info)


def raise_diverged(robot, torque, wrench, method, t, h, q, qd):
    """Raise the error of a fixed step of size ``h`` from ``(t, q, qd)`` whose result stopped
    being finite or passed :data:`MAX_MAGNITUDE`: the model's own error where the dynamics
    fail at ``(q, qd)`` itself (a singular mass matrix), else the likely cause."""
    dof = robot.dof
    rhs = _rhs(robot, torque, wrench)
    y = np.concatenate([q, qd])
    nq = robot.nq
    rhs(t, y)  # raises the model's (or the torque callable's) error at this state, if any
    rate = _fastest_rate(rhs, t, y)
    limit = _STABILITY[method]
    if rate is not None and rate * h > limit:
        tau = torque_value(torque, t, q, qd, dof)
        passive = _fastest_rate(_rhs(robot, lambda *_: tau, wrench), t, y)
        controller = callable(torque) and not isinstance(torque, TorqueTable)
        if controller and passive is not None and passive * h <= limit:
            who = "the controller's gains are too high for dt"
        else:
            who = "the motion is too fast for dt (stiff friction, light links or a high speed)"
        cause = (f"{who}: the motion's fastest rate is {rate:.3g} 1/s, and {method} is stable "
                 f"only for dt below about {limit / rate:.2g} s; reduce dt, or use "
                 "method='implicit-euler' or 'radau'")
    else:
        cause = ("the torques or the wrench drive the arm without bound, or dt is too large "
                 "for the motion; check tau and the model's values, or reduce dt")
    raise RobodynError(f"simulate: the motion diverged on the step from t = {t:.6g} s to "
                       f"{t + h:.6g} s: the state stopped being finite or passed "
                       f"{MAX_MAGNITUDE:g} (from {_state_words(y, nq)}); {cause}")


def _python_loop(robot, torque, wrench, times):
    """The fixed-step loop in Python: any callable torque or wrench, one call of each per
    stage, in :func:`robodyn.motion.steps.run` (the code the compiled loop runs). ``run``
    returns -1, or the step whose result stopped being finite or passed
    :data:`MAX_MAGNITUDE` (its state is not recorded), as the compiled loop does."""
    dof = robot.dof
    stage_times = stage_grid(times)
    errors = np.geterr()

    def stage(data, s, q, qd, tau, acc):
        t, q, qd = stage_times[s], q[0].copy(), qd[0].copy()
        try:
            with np.errstate(**errors):  # the caller's, for tau and h_e (the loop: none)
                tau_t = torque_value(torque, t, q, qd, dof)
                acc[0] = robot.forward_dynamics(q, qd, tau_t, h_e=wrench_value(wrench, t, q, qd))
                tau[0] = tau_t
        except RobodynError:
            return 0
        return -1

    loop = bind(stage)
    table = joint_table(robot.chain)

    def run(k0, k1, method, dt, Q, QD, QDD, TAU):  # one motion: a block of one
        with np.errstate(all="ignore"):
            return loop(None, table, method, dt, MAX_MAGNITUDE, k0, k1, Q[None], QD[None],
                        QDD[None], TAU[None])

    return run


def stage_grid(times):
    """The stage times of the fixed-step loops: ``t_k`` at ``2k``, ``t_k + h/2`` at
    ``2k + 1``."""
    stage_times = np.empty(2 * len(times) - 1)
    stage_times[0::2] = times
    stage_times[1::2] = (times[:-1] + times[1:]) / 2
    return stage_times


def _compiled_loop(robot, torque, wrench, times):
    """The compiled fixed-step loop when everything it needs is compiled: a torque table or
    a built-in controller, a constant (or no) wrench, the Numba backend. Else None."""
    if callable(wrench) or isinstance(wrench, Mapping):  # per-frame wrenches: the Python loop
        return None
    kind = "table"
    if torque is not None and not isinstance(torque, TorqueTable):
        kind = getattr(torque, "kind", None)
        if kind not in ("pd_gravity", "computed_torque"):
            return None
    contact = wrench is not None
    fd = robot.runner.kernel("forward_dynamics_contact" if contact else "forward_dynamics")
    if fd.backend != "numba":
        return None
    dof = robot.dof
    stage_times = stage_grid(times)
    empty = np.zeros((1, dof))
    tab, qr, qdr, qddr = empty, empty, empty, empty
    kp = kd = np.zeros(dof)
    pc = np.zeros(0)
    controller_module = None
    if isinstance(torque, TorqueTable):
        tab = np.ascontiguousarray(torque(stage_times))
    elif kind != "table":
        model = torque.model
        if model.dof != dof:
            raise InputError(f"controller model has {model.dof} joints, the robot {dof}")
        ck = model.runner.kernel("gravity_torques" if kind == "pd_gravity" else "inverse_dynamics")
        if ck.backend != "numba":
            return None
        controller_module = ck.fn.py_func.__module__
        pc = model.parameter_values
        kp, kd = torque.kp, torque.kd
        refs = torque.references(stage_times)
        qr, qdr, qddr = (np.ascontiguousarray(np.atleast_2d(r)) for r in refs)
    source = loop_source(fd.fn.py_func.__module__, kind, controller_module, contact)
    run = generated_function(source, "run")
    p = robot.parameter_values
    h = np.ascontiguousarray(np.reshape(wrench if contact else np.zeros(6), (1, 6)))
    # the loop's data for one motion: each table with a leading axis of one
    data = (p, pc, h, tab[None], qr[None], qdr[None], qddr[None], kp[None], kd[None],
            np.empty((1, dof)))
    table = joint_table(robot.chain)

    def runner(k0, k1, method, dt, Q, QD, QDD, TAU):
        return run(data, table, method, dt, MAX_MAGNITUDE, k0, k1, Q[None], QD[None],
                   QDD[None], TAU[None])

    return runner


def _report_limits(robot, sim: Simulation) -> None:
    crossed = crossed_limits(robot, sim)
    if crossed:
        sim.info["limits_crossed"] = crossed
        shown = "; ".join(crossed[:8]) + (f"; and {len(crossed) - 8} more" if len(crossed) > 8
                                          else "")
        warn(JointLimitWarning(f"simulate: joint limits crossed (not enforced): {shown}"))


def crossed_limits(robot, sim: Simulation) -> list[str]:
    """The joint limits of ``robot`` that the (single) run ``sim`` crosses, each as
    ``"<joint> <position|velocity|effort> limit <bound> first crossed at t = ... s"``."""
    crossed = []
    chain = robot.numeric_chain
    for j, (link, kq, kv) in enumerate(zip(chain.links, chain.q_offsets(), chain.v_offsets(),
                                           strict=True)):
        limits = link.joint.limits
        if not limits or not link.joint.model.single:
            continue
        lower, upper, velocity, effort = limits
        name = link.joint.name or f"joint {j + 1}"
        checks = [("position", (sim.q[:, kq] < lower) | (sim.q[:, kq] > upper),
                   f"[{lower:g}, {upper:g}]")]
        if lower == upper == 0:
            checks = []  # URDF's default when a file gives no position limits
        checks.append(("velocity", np.abs(sim.qd[:, kv]) > velocity, f"{velocity:g}"))
        checks.append(("effort", np.abs(sim.tau[:, kv]) > effort, f"{effort:g}"))
        for what, mask, bound in checks:
            if mask.any():
                crossed.append(f"{name} {what} limit {bound} first crossed at t = "
                               f"{sim.t[int(np.argmax(mask))]:.4g} s")
    return crossed
