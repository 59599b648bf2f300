"""Pictures of what robodyn computes: motions, torques, energy, the arm itself (Matplotlib).

* :func:`motion` — ``q``, ``qd``, ``qdd`` against time, one line per joint;
* :func:`torques` — the terms of ``tau = M qdd + C qd + g + F_v qd + F_s sign(qd) + J^T h_e``
  (:meth:`~robodyn.Robot.torque_parts`) stacked per joint, the total on top;
* :func:`energy` — kinetic ``K``, potential ``U``, mechanical ``E = K + U``, what friction
  dissipated and the balance ``E + loss - W_tau - E(0)`` (zero up to integration error);
* :func:`tracking` — a controlled run against its reference, per joint, and the tracking
  error;
* :func:`energy_comparison` — motions between the same end points overlaid: ``q``, ``qd``,
  power and cumulative positive work;
* :func:`arm` — a stick figure through the link frames, 2D for planar arms, 3D otherwise;
* :func:`animate` — that stick figure along a simulation, written as a GIF (Pillow) or MP4
  (ffmpeg).

Every function builds a :class:`matplotlib.figure.Figure` on its own Agg canvas (no
``pyplot``, nothing global changes, works headless), labels each axis with its unit,
returns the figure and, given ``path=``, saves it there. ``import robodyn`` does not import
Matplotlib; ``rd.plot`` does, on first use.

>>> import robodyn as rd
>>> fig = rd.plot.arm(rd.load("planar-2r"), [0.5, 0.2])  # add path="arm.png" to save it
>>> fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
('x [m]', 'y [m]')
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt, positive_number
from ..core.progress import ProgressOption, check_progress, tracker
from ..dynamics.kinematics import link_poses, tip_pose
from ..model.checks import PARALLEL_TOL, parallel
from ..motion.trajectory import Trajectory, whole_steps

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..motion.control import ComputedTorque, PDGravity
    from ..motion.simulation import Simulation
    from ..motion.trajectory import Motion
    from ..robot import Robot

__all__ = ["motion", "torques", "energy", "tracking", "energy_comparison", "arm", "animate",
           "animation_writer", "MAX_FRAMES", "TRAJECTORY_SAMPLES"]

#: Samples a :class:`~robodyn.motion.trajectory.Trajectory` is drawn with (``dt = duration / 500``).
TRAJECTORY_SAMPLES = 501
#: Default bound on the frames of :func:`animate`.
MAX_FRAMES = 300

#: NumPy functions as the ``ops`` of the scalar kinematics (works on floats and arrays).
_OPS = SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, name="numpy")
_PART_COLORS = {"inertial": "tab:blue", "coriolis": "tab:orange", "gravity": "tab:green",
                "friction": "tab:red", "external": "tab:purple"}
_AXIS_COLORS = ("#d62728", "#2ca02c", "#1f77b4")  # frame axes x, y, z: red, green, blue
_COORDS = "xyz"


# -- figures and files -----------------------------------------------------------------------
def _figure(figsize) -> Figure:
    fig = Figure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _save(fig: Figure, path, dpi: float = 110) -> None:
    if path is None:
        return
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    supported = fig.canvas.get_supported_filetypes()
    if suffix not in supported:
        raise InputError(f"path: {excerpt(path.name)} has no picture suffix; use .png (or "
                         f"one of {', '.join('.' + s for s in sorted(supported))})")
    fig.savefig(path, dpi=dpi)


# -- inputs ------------------------------------------------------------------------------------
def _array(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected real numbers, got {excerpt(value)}") from None
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: every value must be finite")
    return arr


def _sampled(motion, dt=None, need=("q", "qd", "qdd")) -> SimpleNamespace:
    """``t`` and the arrays ``need`` of a Simulation or Motion, or of a Trajectory sampled at
    ``dt`` (default: :data:`TRAJECTORY_SAMPLES` samples), checked for shape."""
    if isinstance(motion, Trajectory):
        motion = motion.sample(dt if dt is not None
                               else motion.duration / (TRAJECTORY_SAMPLES - 1))
    if getattr(motion, "t", None) is None or getattr(motion, "q", None) is None:
        raise InputError(f"motion: expected a Simulation, a Motion or a Trajectory (with t, "
                         f"q, qd, qdd), got {type(motion).__name__}")
    t = _array(motion.t, "motion.t")
    if t.ndim != 1 or t.shape[0] < 1:
        raise InputError(f"motion.t: expected sample times of shape (T,), got {t.shape}")
    if (np.diff(t) <= 0).any():
        raise InputError("motion.t: the sample times must increase")
    out = SimpleNamespace(t=t)
    dof = None
    for name in need:
        value = getattr(motion, name, None)
        if value is None:
            raise InputError(f"motion.{name}: missing; give a Simulation, Motion or Trajectory")
        arr = _array(value, f"motion.{name}")
        if arr.ndim != 2 or arr.shape[0] != t.shape[0] or (dof is not None
                                                            and arr.shape[1] != dof):
            raise InputError(f"motion.{name}: expected shape ({t.shape[0]}, dof) to match "
                             f"motion.t, got {arr.shape}")
        dof = arr.shape[1]
        setattr(out, name, arr)
    out.dof = dof
    return out


def _check_dof(robot, dof: int) -> None:
    if robot is not None and robot.dof != dof:
        raise InputError(f"motion: has {dof} joints, the robot {robot.name!r} {robot.dof}")


def _units(robot, dof: int) -> list[str] | None:
    """``"rad"`` or ``"m"`` per joint (revolute or prismatic), None without a robot."""
    if robot is None:
        return None
    _check_dof(robot, dof)
    return [link.joint.unit for link in robot.links]


def _unit_label(units: list[str] | None, suffix: str = "") -> str:
    """``rad/s`` for one kind of joint, ``rad/s, m/s`` for both, ``rad/s or m/s`` unknown."""
    if units is None:
        return f"rad{suffix} or m{suffix}"
    return ", ".join(f"{u}{suffix}" for u in dict.fromkeys(units))


def _cumulative(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``∫_0^t y dt`` at every sample (trapezoidal rule), starting at 0."""
    return np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * np.diff(t))])


# -- time plots ------------------------------------------------------------------------------
def motion(sim_or_traj: Simulation | Motion | Trajectory, robot: Robot | None = None, *,
           dt: float | None = None, path: str | os.PathLike[str] | None = None,
           title: str | None = None) -> Figure:
    """Joint positions, velocities and accelerations over time: three stacked axes (``q``,
    ``qd``, ``qdd``), one line per joint (labelled ``q1..qn``, ``qd1..``, ``qdd1..``).

    ``sim_or_traj``: a :class:`~robodyn.Simulation`, a :class:`~robodyn.motion.trajectory.Motion`
    or a :class:`~robodyn.motion.trajectory.Trajectory` (sampled at ``dt``, default
    ``duration / 500``). With ``robot`` the units follow the joint types (rad for revolute,
    m for prismatic joints). Saves to ``path`` when given; returns the figure.
    """
    s = _sampled(sim_or_traj, dt)
    units = _units(robot, s.dof)
    fig = _figure((7.5, 7.0))
    axes = fig.subplots(3, 1, sharex=True)
    rows = (("q", s.q, ""), ("qd", s.qd, "/s"), ("qdd", s.qdd, "/s²"))
    for ax, (symbol, data, suffix) in zip(axes, rows):
        for j in range(s.dof):
            ax.plot(s.t, data[:, j], color=f"C{j % 10}", lw=1.5, label=f"{symbol}{j + 1}")
        ax.set_ylabel(f"{symbol} [{_unit_label(units, suffix)}]")
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc="best", ncol=min(s.dof, 6), fontsize="small")
    axes[-1].set_xlabel("t [s]")
    fig.suptitle(title or f"Joint motion{_of(robot)}")
    _save(fig, path)
    return fig


def _of(robot) -> str:
    return f" of {robot.name}" if robot is not None else ""


def torques(robot: Robot, motion: Simulation | Motion | Trajectory,
            h_e: ArrayLike | None = None, *, dt: float | None = None,
            path: str | os.PathLike[str] | None = None, title: str | None = None) -> Figure:
    """The joint torques along ``motion`` split into the terms of the equation of motion,
    ``tau = M qdd + C qd + g + (F_v qd + F_s sign(qd)) + J^T h_e``
    (:meth:`~robodyn.Robot.torque_parts`), one axes per joint.

    The parts are signed, so they are stacked apart: the positive parts on top of each
    other upward from zero, the negative ones downward; at each instant the upper edge of
    the positive stack minus the lower edge of the negative one is the spread, and their
    sum is the ``total`` (= :meth:`~robodyn.Robot.inverse_dynamics`), drawn on top as a
    thick black line. Parts that are zero everywhere (no friction in the model, no
    ``h_e``) are left out. Units: N m for revolute, N for prismatic joints.

    ``motion``: a Simulation, a Motion or a Trajectory (sampled at ``dt``, default
    ``duration / 500``). Saves to ``path`` when given; returns the figure.
    """
    s = _sampled(motion, dt)
    _check_dof(robot, s.dof)
    parts = robot.torque_parts(s.q, s.qd, s.qdd, h_e=h_e)
    shown = [name for name in parts.NAMES if np.any(getattr(parts, name) != 0)]
    dof = s.dof
    ncols = 1 if dof <= 3 else 2
    nrows = math.ceil(dof / ncols)
    fig = _figure((7.5 if ncols == 1 else 11.0, 1.2 + 2.3 * nrows))
    grid = fig.subplots(nrows, ncols, sharex=True, squeeze=False)
    axes = list(grid.ravel())
    for ax in axes[dof:]:
        fig.delaxes(ax)
    for j, ax in enumerate(axes[:dof]):
        up, down = np.zeros_like(s.t), np.zeros_like(s.t)
        for name in shown:
            value = getattr(parts, name)[:, j]
            color = _PART_COLORS[name]
            positive, negative = np.maximum(value, 0.0), np.minimum(value, 0.0)
            ax.fill_between(s.t, up, up + positive, color=color, alpha=0.6, lw=0, label=name)
            ax.fill_between(s.t, down, down + negative, color=color, alpha=0.6, lw=0)
            up, down = up + positive, down + negative
        ax.axhline(0.0, color="0.4", lw=0.6)
        ax.plot(s.t, parts.total[:, j], color="black", lw=2.2, label="total")
        joint = robot.links[j].joint
        ax.set_ylabel(f"tau{j + 1} [{joint.torque_unit}]")
        named = joint.name and joint.name.replace(" ", "") != f"joint{j + 1}"
        ax.set_title(f"joint {j + 1} ({joint.type}{', ' + joint.name if named else ''})",
                     fontsize="medium")
        ax.grid(True, alpha=0.3)
        if j + ncols >= dof:  # lowest axes of its column
            ax.set_xlabel("t [s]")
            ax.xaxis.set_tick_params(labelbottom=True)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))
    fig.suptitle(title or f"Joint torques{_of(robot)} by term")
    _save(fig, path)
    return fig


def energy(sim: Simulation, robot: Robot | None = None, *,
           path: str | os.PathLike[str] | None = None, title: str | None = None) -> Figure:
    """Energy along a motion: kinetic ``K``, potential ``U``, mechanical ``E = K + U``, the
    friction loss ``L(t) = ∫ tau_f · qd dt`` (``tau_f`` = :meth:`~robodyn.Robot.friction_torques`)
    and the work of the applied torques ``W(t) = ∫ tau · qd dt``; below, the balance
    ``E + L - W - E(0)``, zero for an exact motion (the work-energy theorem), so what it
    shows is the integration error (with ``tau = 0`` and no friction: the drift of ``E``).

    ``sim``: a Simulation (its ``kinetic``, ``potential`` and ``tau`` are used), or any
    motion with ``t``, ``q``, ``qd`` plus ``robot`` for the energies. The loss needs
    ``robot`` unless ``sim`` has a ``friction_loss`` series ``(T,)``. External wrenches are
    not in the balance. Integrals: trapezoidal rule on the samples. Units: J.
    """
    s = _sampled(sim, need=("q", "qd"))
    _check_dof(robot, s.dof)
    t = s.t

    def series(name, compute):
        value = getattr(sim, name, None)
        if value is None:
            if robot is None:
                raise InputError(f"energy: {type(sim).__name__} has no {name!r}; pass robot= "
                                 "to compute it")
            value = compute()
        value = _array(value, f"sim.{name}")
        if value.shape != t.shape:
            raise InputError(f"sim.{name}: expected shape {t.shape}, got {value.shape}")
        return value

    kinetic = series("kinetic", lambda: robot.kinetic_energy(s.q, s.qd))
    potential = series("potential", lambda: robot.potential_energy(s.q))
    total = kinetic + potential
    loss = getattr(sim, "friction_loss", None)
    if loss is not None and np.ndim(loss) == 1:
        loss = _array(loss, "sim.friction_loss")
    elif robot is not None:
        loss = _cumulative(t, np.sum(robot.friction_torques(s.qd) * s.qd, axis=1))
    else:
        loss = None
    tau = getattr(sim, "tau", None)
    work = None
    if tau is not None:
        tau = _array(tau, "sim.tau")
        if tau.shape != s.q.shape:
            raise InputError(f"sim.tau: expected shape {s.q.shape}, got {tau.shape}")
        if np.any(tau != 0):
            work = _cumulative(t, np.sum(tau * s.qd, axis=1))

    fig = _figure((7.5, 6.0))
    top, bottom = fig.subplots(2, 1, sharex=True, height_ratios=(2.2, 1))
    top.plot(t, kinetic, color="C0", lw=1.5, label="kinetic K")
    top.plot(t, potential, color="C1", lw=1.5, label="potential U")
    top.plot(t, total, color="black", lw=2.2, label="total E = K + U")
    balance, terms = total.copy(), "E"
    if loss is not None:
        top.plot(t, loss, color="C3", lw=1.5, label="friction loss L")
        if np.any(loss != 0):
            top.plot(t, total + loss, color="0.45", lw=1.5, ls="--", label="E + L")
        balance, terms = balance + loss, terms + " + L"
    if work is not None:
        top.plot(t, work, color="C2", lw=1.5, label="work of tau W")
        balance, terms = balance - work, terms + " - W"
    top.set_ylabel("energy [J]")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    top.grid(True, alpha=0.3)
    bottom.plot(t, balance - balance[0], color="C4", lw=1.2, label=f"{terms} - E(0)")
    bottom.set_ylabel("balance [J]")
    bottom.set_title(f"energy balance {terms} - E(0) (0 when exact)", fontsize="medium")
    bottom.set_xlabel("t [s]")
    bottom.grid(True, alpha=0.3)
    fig.suptitle(title or f"Energy{_of(robot)}")
    _save(fig, path)
    return fig


# -- tracking and comparisons --------------------------------------------------------------------
def _reference(reference, t: np.ndarray, dof: int) -> np.ndarray:
    """The reference positions ``(T, dof)`` at the simulation's times ``t``: from a Trajectory
    (evaluated at ``t``), a controller with ``references(times)`` (a set point is held), a
    Motion or Simulation (its ``q``, interpolated linearly onto ``t`` when its grid differs,
    within its span), or an array ``(T, dof)`` on ``t`` (a ``(dof,)`` set point is held)."""
    if isinstance(reference, Trajectory):
        if reference.dof != dof:
            raise InputError(f"reference: has {reference.dof} joints, the simulation {dof}")
        return reference(t)[0]
    if callable(getattr(reference, "references", None)):
        q_ref = np.atleast_2d(_array(reference.references(t)[0], "reference.references(t)"))
        if q_ref.shape[-1] != dof:
            _wrong_dof(q_ref.shape[-1], dof)
        return np.broadcast_to(q_ref, (t.shape[0], dof)).copy()
    if getattr(reference, "t", None) is not None and getattr(reference, "q", None) is not None:
        r = _sampled(reference, need=("q",))
        if r.dof != dof:
            _wrong_dof(r.dof, dof)
        if r.t.shape == t.shape and np.array_equal(r.t, t):
            return r.q
        if t[0] < r.t[0] - 1e-12 or t[-1] > r.t[-1] + 1e-12:
            raise InputError(f"reference.t: spans {r.t[0]:g} .. {r.t[-1]:g} s, the simulation "
                             f"{t[0]:g} .. {t[-1]:g} s; give a reference over the whole run")
        return np.stack([np.interp(t, r.t, r.q[:, j]) for j in range(dof)], axis=-1)
    arr = _array(reference, "reference")
    if arr.shape == (dof,):
        return np.broadcast_to(arr, (t.shape[0], dof)).copy()
    if arr.shape != (t.shape[0], dof):
        raise InputError(f"reference: expected a Trajectory, a Motion, a controller or an array "
                         f"({t.shape[0]}, {dof}) on the simulation's time grid, got shape "
                         f"{arr.shape}")
    return arr


def _wrong_dof(got: int, dof: int):
    raise InputError(f"reference: has {got} joints, the simulation {dof}")


def _joint_grid(fig, dof: int, extra: str):
    """Axes per joint (one or two columns) above a wide axes ``extra``: ``(joint axes, it)``."""
    ncols = 1 if dof <= 3 else 2
    nrows = math.ceil(dof / ncols)
    mosaic = [[f"j{r * ncols + c}" if r * ncols + c < dof else "." for c in range(ncols)]
              for r in range(nrows)]
    mosaic.append([extra] * ncols)
    axes = fig.subplot_mosaic(mosaic, sharex=True,
                              height_ratios=[1.0] * nrows + [1.3])
    return [axes[f"j{j}"] for j in range(dof)], axes[extra]


def tracking(sim: Simulation | Motion,
             reference: Trajectory | Motion | PDGravity | ComputedTorque | ArrayLike,
             robot: Robot | None = None, *, path: str | os.PathLike[str] | None = None,
             title: str | None = None) -> Figure:
    """How a controlled run followed its reference: for each joint the reference ``q_ref``
    (dashed) and the actual ``q`` (solid), and below, the tracking error
    ``e = q_ref - q`` of every joint.

    ``sim``: a Simulation (or Motion). ``reference``: a
    :class:`~robodyn.motion.trajectory.Trajectory` (the computed-torque controller's,
    evaluated at ``sim.t``), a controller of :mod:`robodyn.motion.control` (its
    ``references``; PD-gravity's set point is held), a Motion (interpolated onto ``sim.t``)
    or an array ``(T, dof)`` on ``sim.t`` (``(dof,)``: a set point). With ``robot`` the
    units follow the joint types. Saves to ``path`` when given; returns the figure.
    """
    s = _sampled(sim, need=("q",))
    units = _units(robot, s.dof)
    q_ref = _reference(reference, s.t, s.dof)
    error = q_ref - s.q
    dof = s.dof
    ncols = 1 if dof <= 3 else 2
    fig = _figure((7.5 if ncols == 1 else 11.0, 1.8 + 2.0 * (math.ceil(dof / ncols) + 1.3)))
    joint_axes, bottom = _joint_grid(fig, dof, "error")
    for j, ax in enumerate(joint_axes):
        color = f"C{j % 10}"
        ax.plot(s.t, q_ref[:, j], color="black", lw=1.3, ls="--", label="reference")
        ax.plot(s.t, s.q[:, j], color=color, lw=1.8, alpha=0.85, label="actual")
        unit = units[j] if units else "rad or m"
        ax.set_ylabel(f"q{j + 1} [{unit}]")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="x-small")
    for j in range(dof):
        bottom.plot(s.t, error[:, j], color=f"C{j % 10}", lw=1.3, label=f"e{j + 1}")
    bottom.axhline(0.0, color="0.4", lw=0.6)
    peak = float(np.abs(error).max()) if error.size else 0.0
    bottom.set_title(f"tracking error q_ref - q (peak {peak:.3g})", fontsize="medium")
    bottom.set_ylabel(f"error [{_unit_label(units)}]")
    bottom.set_xlabel("t [s]")
    bottom.grid(True, alpha=0.3)
    bottom.legend(loc="best", ncol=min(dof, 6), fontsize="x-small")
    fig.suptitle(title or f"Tracking{_of(robot)}")
    _save(fig, path)
    return fig


def energy_comparison(robot: Robot, motions: dict[str, Trajectory | Motion | Simulation], *,
                      path: str | os.PathLike[str] | None = None,
                      title: str | None = None) -> Figure:
    """Motions between the same end points compared by what they cost: overlaid, four axes
    of ``q``, ``qd`` (a colour per joint, a line style per motion), the mechanical power
    ``P = sum_i tau_i qd_i`` and the cumulative positive work ``sum_i ∫ max(tau_i qd_i, 0)
    dt`` (what motors that cannot recover energy supply; its end value is
    :func:`robodyn.motion.energy.consumed`'s ``positive_work``).

    ``motions``: ``{label: motion}`` (a Trajectory, Motion or Simulation each; the torques
    are :meth:`~robodyn.Robot.inverse_dynamics` unless the motion has ``tau``), e.g.
    ``{"quintic": best.info["baseline"], "optimised": best}`` for the result of
    :func:`robodyn.motion.energy.optimize`. Saves to ``path`` when given; returns the figure.
    """
    if not isinstance(motions, dict) or not motions:
        raise InputError("motions: expected a dict {label: motion} of at least one motion")
    styles = ("--", "-", ":", "-.")
    fig = _figure((8.0, 8.0))
    axes = fig.subplots(4, 1, sharex=True)
    units = None
    for k, (label, m) in enumerate(motions.items()):
        s = _sampled(m)
        units = _units(robot, s.dof)
        tau = getattr(m, "tau", None)
        tau = robot.inverse_dynamics(s.q, s.qd, s.qdd) if tau is None else _array(tau, "tau")
        power = tau * s.qd
        positive = _cumulative(s.t, np.maximum(power, 0.0).sum(axis=1))
        ls = styles[k % len(styles)]
        for j in range(s.dof):
            color = f"C{j % 10}"
            axes[0].plot(s.t, s.q[:, j], color=color, ls=ls, lw=1.5,
                         label=f"q{j + 1} {label}")
            axes[1].plot(s.t, s.qd[:, j], color=color, ls=ls, lw=1.5)
        axes[2].plot(s.t, power.sum(axis=1), color="black", ls=ls, lw=1.6, label=label)
        axes[3].plot(s.t, positive, color="black", ls=ls, lw=1.6,
                     label=f"{label}: {positive[-1]:.4g} J")
    axes[0].set_ylabel(f"q [{_unit_label(units)}]")
    axes[1].set_ylabel(f"qd [{_unit_label(units, '/s')}]")
    axes[2].set_ylabel("power [W]")
    axes[2].axhline(0.0, color="0.4", lw=0.6)
    axes[3].set_ylabel("positive work [J]")
    axes[3].set_xlabel("t [s]")
    axes[0].legend(loc="best", ncol=2, fontsize="x-small")
    for ax in axes[2:]:
        ax.legend(loc="best", fontsize="small")
    for ax in axes:
        ax.grid(True, alpha=0.3)
    fig.suptitle(title or f"Energy: {' vs '.join(map(str, motions))} ({robot.name})")
    _save(fig, path)
    return fig


# -- the arm -----------------------------------------------------------------------------------
class _Geometry:
    """Frames of a robot's links for drawing: origins and rotations at many ``q``, and the
    plane of a planar arm (None for a spatial one)."""

    def __init__(self, robot):
        self.robot = robot
        self.chain = robot.numeric_chain
        self.dof = robot.dof
        tip = self.chain.tip
        self.tip_moves = not (np.allclose(np.array(tip.rotation, dtype=float), np.eye(3))
                              and np.allclose(np.array(tip.translation, dtype=float), 0.0))
        self.plane = _plane(self)
        self.path = _stick_path(self.chain)

    def frames(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Origins ``(N, K, 3)`` and rotations ``(N, K, 3, 3)`` of the base frame, every link
        frame and the end effector (``K = dof + 2``) at joint values ``Q`` ``(N, dof)``."""
        n = Q.shape[0]
        poses = link_poses(self.chain, [Q[:, j] for j in range(self.dof)], _OPS)
        poses = [(((1, 0, 0), (0, 1, 0), (0, 0, 1)), (0, 0, 0)), *poses,
                 tip_pose(self.chain, poses)]

        def full(x):
            return np.broadcast_to(np.asarray(x, dtype=float), (n,))

        origins = np.stack([np.stack([full(c) for c in p], axis=-1) for _, p in poses], axis=1)
        rotations = np.stack([np.stack([np.stack([full(c) for c in row], axis=-1)
                                        for row in r], axis=-2) for r, _ in poses], axis=1)
        return origins, rotations

    def axes(self, Q: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """World directions ``(N, 3)`` of the revolute and of the prismatic joint axes."""
        _, rotations = self.frames(Q)
        revolute, prismatic = [], []
        for j, link in enumerate(self.chain.links):
            axis = np.array(link.joint.axis, dtype=float)
            direction = rotations[:, j + 1] @ axis
            (revolute if link.joint.type == "revolute" else prismatic).append(direction)
        return revolute, prismatic


def _stick_path(chain) -> np.ndarray:
    """Indices into the frames of :meth:`_Geometry.frames` (0 the base, ``i + 1`` link
    ``i``, ``dof + 1`` the end effector) that draw the stick figure as one line, ``-1`` a
    break: base, links, tip in a row for a serial chain; for a tree each link from its
    parent's origin, one segment each."""
    n = chain.dof
    if chain.is_serial:
        return np.arange(n + 2)
    path: list[int] = []
    for i in range(n):
        start = chain.parent(i) + 1
        if path and path[-1] == start:
            path.append(i + 1)
        else:
            path += ([-1] if path else []) + [start, i + 1]
    path += [-1, n, n + 1]  # the end effector on the last link
    return np.array(path)


def _plane(geometry: _Geometry):
    """``(normal, basis (2, 3), axis names)`` when the arm moves in one plane (every revolute
    axis along the normal, every prismatic axis in the plane, every frame origin on it, at
    generic joint values), else None."""
    dof = geometry.dof
    generic = np.array([[0.0] * dof,
                        [0.37 * (j + 1) for j in range(dof)],
                        [-0.61 + 0.23 * j for j in range(dof)]])
    origins, _ = geometry.frames(generic)
    revolute, prismatic = geometry.axes(generic)
    points = origins.reshape(-1, 3)
    scale = max(1.0, float(np.max(np.abs(points))))
    tol = PARALLEL_TOL

    def fits(n):
        return (all(np.all(parallel(a, n)) for a in revolute)
                and all(np.all(np.abs(a @ n) <= tol) for a in prismatic)
                and np.ptp(points @ n) < tol * scale)

    candidates = []
    if revolute:
        candidates.append(revolute[0][0])
    else:
        dirs = [a[0] for a in prismatic]
        crosses = [np.cross(a, b) for a in dirs for b in dirs]
        crosses = [c for c in crosses if np.linalg.norm(c) > 1e-6]
        if crosses:
            candidates.append(crosses[0])
        else:  # one sliding direction: any plane through it
            candidates += [np.cross(dirs[0], e) for e in np.eye(3)]
            candidates = [c for c in candidates if np.linalg.norm(c) > 1e-6]
    for n in candidates:
        n = n / np.linalg.norm(n)
        if fits(n):
            return _plane_basis(n)
    return None


def _plane_basis(n: np.ndarray):
    k = int(np.argmax(np.abs(n)))
    if abs(abs(n[k]) - 1.0) < 1e-9:  # a coordinate plane: keep the coordinates' names
        i, j = {2: (0, 1), 1: (0, 2), 0: (1, 2)}[k]
        return n, np.eye(3)[[i, j]], (_COORDS[i], _COORDS[j])
    e = np.eye(3)[int(np.argmin(np.abs(n)))]
    u = e - (e @ n) * n
    u /= np.linalg.norm(u)
    return n, np.stack([u, np.cross(n, u)]), ("u", "v")


class _ArmDrawing:
    """The artists of a stick figure on ``ax`` (2D or 3D) and their update to a new ``q``."""

    def __init__(self, ax, geometry: _Geometry, frames: bool, frame_length: float):
        self.ax, self.geometry, self.length = ax, geometry, frame_length
        self.planar = geometry.plane is not None
        self.links = self._line("-o", color="0.25", lw=3.0, ms=6, mfc="white", zorder=3,
                                label="links")
        self.tip = self._line("*", color="black", ms=11, zorder=4, label="end effector")
        self.frame_lines = []
        if frames:
            count = geometry.dof + 1 + geometry.tip_moves
            for k in range(count):
                self.frame_lines.append([self._line("-", color=c, lw=1.6, zorder=5,
                                                    label=f"_frame{k}{_COORDS[a]}")
                                         for a, c in enumerate(_AXIS_COLORS)])

    def _line(self, style, **kwargs):
        if self.planar:
            return self.ax.plot([], [], style, **kwargs)[0]
        return self.ax.plot([], [], [], style, **kwargs)[0]

    def _set(self, line, points: np.ndarray) -> None:
        if self.planar:
            xy = points @ self.geometry.plane[1].T
            line.set_data(xy[:, 0], xy[:, 1])
        else:
            line.set_data_3d(points[:, 0], points[:, 1], points[:, 2])

    def update(self, origins: np.ndarray, rotations: np.ndarray) -> None:
        """Draw the figure of one configuration: origins ``(K, 3)``, rotations ``(K, 3, 3)``."""
        path = self.geometry.path
        points = origins[path]
        points[path < 0] = np.nan  # a break between a tree's branches
        self._set(self.links, points)
        self._set(self.tip, origins[-1:])
        # frames at the base, each link and (when it is another frame) the end effector
        keep = list(range(self.geometry.dof + 1))
        if self.geometry.tip_moves:
            keep.append(self.geometry.dof + 1)
        for lines, k in zip(self.frame_lines, keep):
            for a, line in enumerate(lines):
                end = origins[k] + self.length * rotations[k][:, a]
                self._set(line, np.stack([origins[k], end]))


def _frame_length(origins: np.ndarray) -> float:
    """A tenth of the arm's length along its links (at least 1 mm; 0.1 m for a point)."""
    reach = float(np.max(np.sum(np.linalg.norm(np.diff(origins, axis=-2), axis=-1), axis=-1)))
    return 0.1 * reach if reach > 1e-2 else 0.1


def _frame_ends(origins: np.ndarray, rotations: np.ndarray, length: float) -> np.ndarray:
    """The tips of every frame's axes, ``(N, 3 K, 3)``: ``o_k + length R_k e_a``."""
    ends = origins[:, :, None, :] + length * np.swapaxes(rotations, -1, -2)
    return ends.reshape(origins.shape[0], -1, 3)


def _limits(ax, geometry: _Geometry, points: np.ndarray) -> None:
    """Equal scale on every axis, every point of ``points`` ``(..., 3)`` inside."""
    points = points.reshape(-1, 3)
    if geometry.plane is not None:
        xy = points @ geometry.plane[1].T
        low, high = xy.min(axis=0), xy.max(axis=0)
        half = max(float(np.max(high - low)) / 2 * 1.15, 0.05)
        centre = (low + high) / 2
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        ax.set_aspect("equal", adjustable="box")
        names = geometry.plane[2]
        ax.set_xlabel(f"{names[0]} [m]")
        ax.set_ylabel(f"{names[1]} [m]")
        ax.grid(True, alpha=0.3)
    else:
        low, high = points.min(axis=0), points.max(axis=0)
        half = max(float(np.max(high - low)) / 2 * 1.1, 0.05)
        centre = (low + high) / 2
        for k, setter in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
            setter(centre[k] - half, centre[k] + half)
        ax.set_box_aspect((1, 1, 1))
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_zlabel("z [m]")


def _new_axes(geometry: _Geometry, figsize=(6.0, 6.0)):
    fig = _figure(figsize)
    if geometry.plane is not None:
        return fig, fig.add_subplot()
    return fig, fig.add_subplot(projection="3d")


def _joint_vector(q, robot) -> np.ndarray:
    arr = _array(q, "q")
    if arr.shape != (robot.dof,):
        raise InputError(f"q: expected {robot.dof} joint values, got shape {arr.shape}")
    return arr


def arm(robot: Robot, q: ArrayLike, ax: Axes | None = None, frames: bool = True, *,
        path: str | os.PathLike[str] | None = None, title: str | None = None) -> Figure:
    """A stick figure of ``robot`` at joint values ``q`` ``(dof,)``: a line through the base
    origin, every link frame origin ``o_i`` of ``T_0i = T_0,i-1 P_i J_i(q_i)``
    (:func:`~robodyn.dynamics.kinematics.link_poses`) and the end effector (a star), and,
    with ``frames``, each frame's axes (x red, y green, z blue; a tenth of the arm long).

    Planar arms (every revolute axis normal to one plane, every prismatic axis in it, every
    origin on it) are drawn in 2D in that plane's coordinates; others in 3D. Equal scale on
    every axis, in m. ``ax``: draw into this Axes (2D or 3D to match) instead of a new
    figure. Saves to ``path`` when given; returns the figure.
    """
    q = _joint_vector(q, robot)
    geometry = _Geometry(robot)
    if ax is None:
        fig, ax = _new_axes(geometry)
    else:
        fig = ax.figure
        if (ax.name == "3d") == (geometry.plane is not None):
            want = "a 2D Axes" if geometry.plane is not None else "a 3D Axes (projection='3d')"
            raise InputError(f"ax: {robot.name} is drawn on {want}, got a {ax.name!r} Axes")
    origins, rotations = geometry.frames(q[None, :])
    length = _frame_length(origins)
    drawing = _ArmDrawing(ax, geometry, frames, length)
    drawing.update(origins[0], rotations[0])
    _limits(ax, geometry, np.concatenate([origins, _frame_ends(origins, rotations, length)],
                                         axis=1) if frames else origins)
    shown = np.array2string(q, precision=3, separator=", ", suppress_small=True)
    ax.set_title(title or f"{robot.name} at q = {shown}", fontsize="medium")
    _save(fig, path)
    return fig


def animation_writer(path: str | os.PathLike[str], option: str = "path"):
    """The Matplotlib writer class for an animation file ``path`` (``.gif``: Pillow;
    ``.mp4``: ffmpeg, which must be on the PATH), else an :class:`InputError` naming
    ``option``: callers check before the work whose result they animate."""
    from matplotlib import animation  # only animations pay this import

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gif":
        return animation.PillowWriter
    if suffix == ".mp4":
        if not animation.FFMpegWriter.isAvailable():
            raise InputError(f"{option}: {excerpt(path.name)}: writing .mp4 needs ffmpeg on the "
                             "PATH, which was not found; install ffmpeg or write a .gif")
        return animation.FFMpegWriter
    raise InputError(f"{option}: {excerpt(path.name)}: use a .gif or .mp4 file name")


def animate(robot: Robot, sim: Simulation | Motion | Trajectory, path: str | os.PathLike[str],
            fps: float = 30, *, max_frames: int = MAX_FRAMES, frames: bool = True,
            dpi: float = 80, title: str | None = None,
            progress: ProgressOption = None) -> Figure:
    """The stick figure of :func:`arm` moving along ``sim`` (a Simulation, Motion or
    Trajectory), written to ``path``: ``.gif`` (Pillow) or ``.mp4`` (needs ``ffmpeg``).

    Frames are ``1/fps`` apart in simulated time, ``q`` linearly interpolated between the
    samples, and play in real time. A motion longer than ``max_frames / fps`` gets
    ``max_frames`` frames spread evenly (a lower frame rate, still real time). Returns the
    figure (showing the last frame). ``progress`` counts the frames written
    (:mod:`robodyn.core.progress`: a bar on a terminal by default, ``False`` for none, or a
    callable ``(done, total, label)``).
    """
    check_progress(progress)
    path = Path(path)
    writer_class = animation_writer(path)
    fps = positive_number(fps, "fps")
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) \
            or max_frames < 1:
        raise InputError(f"max_frames: expected a positive whole number, got "
                         f"{excerpt(max_frames)}")
    s = _sampled(sim, need=("q",))
    _check_dof(robot, s.dof)
    duration = float(s.t[-1] - s.t[0])
    count = min(whole_steps(duration, 1.0 / fps) + 1, int(max_frames))
    times = np.linspace(s.t[0], s.t[-1], count) if count > 1 else s.t[:1]
    play_fps = (count - 1) / duration if count > 1 else fps
    Q = np.stack([np.interp(times, s.t, s.q[:, j]) for j in range(s.dof)], axis=-1)

    geometry = _Geometry(robot)
    origins, rotations = geometry.frames(Q)
    fig, ax = _new_axes(geometry, (5.0, 5.0))
    length = _frame_length(origins)
    drawing = _ArmDrawing(ax, geometry, frames, length)
    _limits(ax, geometry, np.concatenate([origins, _frame_ends(origins, rotations, length)],
                                         axis=1) if frames else origins)
    ax.set_title(title or robot.name, fontsize="medium")
    if geometry.plane is not None:
        clock = ax.text(0.02, 0.97, "", transform=ax.transAxes, va="top")
    else:
        clock = ax.text2D(0.02, 0.97, "", transform=ax.transAxes, va="top")
    writer = writer_class(fps=play_fps)
    with writer.saving(fig, str(path), dpi), tracker(progress, count, "animating") as bar:
        for k in range(count):
            drawing.update(origins[k], rotations[k])
            clock.set_text(f"t = {times[k]:.2f} s")
            writer.grab_frame()
            bar.advance()
    return fig
