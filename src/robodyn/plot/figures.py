"""Pictures of a motion over time (Matplotlib).

* :func:`motion` — ``q``, ``qd``, ``qdd`` against time, one line per joint;
* :func:`torques` — the terms of ``tau = M qdd + C qd + g + F_v qd + F_s sign(qd) + J^T h_e``
  (:meth:`~robodyn.Robot.torque_parts`) stacked per joint, the total on top;
* :func:`energy` — kinetic ``K``, potential ``U``, mechanical ``E = K + U``, what friction
  dissipated and the balance ``E + loss - W_tau - E(0)`` (zero up to integration error);
* :func:`tracking` — a controlled run against its reference, per joint, and the tracking
  error;
* :func:`energy_comparison` — motions between the same end points overlaid: ``q``, ``qd``,
  power and cumulative positive work.

Each builds a figure on its own canvas (:func:`robodyn.plot.common.new_figure`), labels
each axis with its unit, returns the figure and, given ``path=``, saves it there. The arm
itself is drawn by :mod:`robodyn.plot.arm_figure`.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..motion.trajectory import Trajectory
from .common import check_dof, finite_array, new_figure, sampled, save_figure

if TYPE_CHECKING:
    from ..motion.control import ComputedTorque, PDGravity
    from ..motion.simulation import Simulation
    from ..motion.trajectory import Motion
    from ..robot import Robot

__all__ = ["motion", "torques", "energy", "tracking", "energy_comparison"]

_PART_COLORS = {"inertial": "tab:blue", "coriolis": "tab:orange", "gravity": "tab:green",
                "friction": "tab:red", "external": "tab:purple"}


def _units(robot, dof: int) -> list[str] | None:
    """``"rad"`` or ``"m"`` per joint (revolute or prismatic), None without a robot."""
    if robot is None:
        return None
    check_dof(robot, dof)
    return [unit for link in robot.links for unit in link.joint.units]


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
    s = sampled(sim_or_traj, dt)
    units = _units(robot, s.dof)
    fig = new_figure((7.5, 7.0))
    axes = fig.subplots(3, 1, sharex=True)
    rows = (("q", s.q, ""), ("qd", s.qd, "/s"), ("qdd", s.qdd, "/s²"))
    for ax, (symbol, data, suffix) in zip(axes, rows):
        for j in range(data.shape[1]):  # q: nq values with quaternion joints
            ax.plot(s.t, data[:, j], color=f"C{j % 10}", lw=1.5, label=f"{symbol}{j + 1}")
        ax.set_ylabel(f"{symbol} [{_unit_label(units, suffix)}]")
        ax.grid(True, alpha=0.3)
    axes[0].legend(loc="best", ncol=min(s.dof, 6), fontsize="small")
    axes[-1].set_xlabel("t [s]")
    fig.suptitle(title or f"Joint motion{_of(robot)}")
    save_figure(fig, path)
    return fig


def _coordinate_titles(chain) -> list[str]:
    """``joint 2 (revolute, elbow)``; a ball or free joint's coordinates each by name."""
    out = []
    for j, link in enumerate(chain.links):
        joint = link.joint
        named = joint.name and joint.name.replace(" ", "") != f"joint{j + 1}"
        title = f"joint {j + 1} ({joint.type}{', ' + joint.name if named else ''})"
        out += [title] if joint.model.single else \
            [f"{title} {c}" for c in joint.model.coordinates]
    return out


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
    s = sampled(motion, dt)
    check_dof(robot, s.dof)
    parts = robot.torque_parts(s.q, s.qd, s.qdd, h_e=h_e)
    shown = [name for name in parts.NAMES if np.any(getattr(parts, name) != 0)]
    dof = s.dof
    units = robot.chain.torque_units()
    titles = _coordinate_titles(robot.chain)
    ncols = 1 if dof <= 3 else 2
    nrows = math.ceil(dof / ncols)
    fig = new_figure((7.5 if ncols == 1 else 11.0, 1.2 + 2.3 * nrows))
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
        ax.set_ylabel(f"tau{j + 1} [{units[j]}]")
        ax.set_title(titles[j], fontsize="medium")
        ax.grid(True, alpha=0.3)
        if j + ncols >= dof:  # lowest axes of its column
            ax.set_xlabel("t [s]")
            ax.xaxis.set_tick_params(labelbottom=True)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels))
    fig.suptitle(title or f"Joint torques{_of(robot)} by term")
    save_figure(fig, path)
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
    s = sampled(sim, need=("q", "qd"))
    check_dof(robot, s.dof)
    t = s.t

    def series(name, compute):
        value = getattr(sim, name, None)
        if value is None:
            if robot is None:
                raise InputError(f"energy: {type(sim).__name__} has no {name!r}; pass robot= "
                                 "to compute it")
            value = compute()
        value = finite_array(value, f"sim.{name}")
        if value.shape != t.shape:
            raise InputError(f"sim.{name}: expected shape {t.shape}, got {value.shape}")
        return value

    kinetic = series("kinetic", lambda: robot.kinetic_energy(s.q, s.qd))
    potential = series("potential", lambda: robot.potential_energy(s.q))
    total = kinetic + potential
    loss = getattr(sim, "friction_loss", None)
    if loss is not None and np.ndim(loss) == 1:
        loss = finite_array(loss, "sim.friction_loss")
    elif robot is not None:
        loss = _cumulative(t, np.sum(robot.friction_torques(s.qd) * s.qd, axis=1))
    else:
        loss = None
    tau = getattr(sim, "tau", None)
    work = None
    if tau is not None:
        tau = finite_array(tau, "sim.tau")
        if tau.shape != s.qd.shape:
            raise InputError(f"sim.tau: expected shape {s.qd.shape}, got {tau.shape}")
        if np.any(tau != 0):
            work = _cumulative(t, np.sum(tau * s.qd, axis=1))

    fig = new_figure((7.5, 6.0))
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
    save_figure(fig, path)
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
        q_ref = np.atleast_2d(finite_array(reference.references(t)[0],
                                           "reference.references(t)"))
        if q_ref.shape[-1] != dof:
            _wrong_dof(q_ref.shape[-1], dof)
        return np.broadcast_to(q_ref, (t.shape[0], dof)).copy()
    if getattr(reference, "t", None) is not None and getattr(reference, "q", None) is not None:
        r = sampled(reference, need=("q",))
        if r.dof != dof:
            _wrong_dof(r.dof, dof)
        if r.t.shape == t.shape and np.array_equal(r.t, t):
            return r.q
        if t[0] < r.t[0] - 1e-12 or t[-1] > r.t[-1] + 1e-12:
            raise InputError(f"reference.t: spans {r.t[0]:g} .. {r.t[-1]:g} s, the simulation "
                             f"{t[0]:g} .. {t[-1]:g} s; give a reference over the whole run")
        return np.stack([np.interp(t, r.t, r.q[:, j]) for j in range(dof)], axis=-1)
    arr = finite_array(reference, "reference")
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
    or an array ``(T, dof)`` on ``sim.t`` (``(dof,)``: a set point); an
    :class:`~robodyn.motion.control.OperationalSpaceControl` draws its task coordinates
    (``x``, ``y``, ``z``, ZYX angles) and the task error ``x_ref - x`` instead. With
    ``robot`` the units follow the joint types. Saves to ``path`` when given; returns the
    figure.
    """
    s = sampled(sim, need=("q",))
    if callable(getattr(reference, "task_coordinates", None)):  # a task-space controller
        actual = reference.task_coordinates(s.q)
        q_ref = reference.trajectory(s.t)[0]
        error = reference.task_error(s.t, s.q)
        names = [("x", "y", "z", "phi", "theta", "psi")[r] for r in reference.rows]
        units = ["m" if r < 3 else "rad" for r in reference.rows]
        what = "x_ref - x"
        labels = [f"e_{n}" for n in names]
    else:
        units = _units(robot, s.dof)
        q_ref = _reference(reference, s.t, s.dof)
        actual = s.q
        error = q_ref - s.q
        names = [f"q{j + 1}" for j in range(s.dof)]
        what = "q_ref - q"
        labels = [f"e{j + 1}" for j in range(s.dof)]
    dof = actual.shape[1]
    ncols = 1 if dof <= 3 else 2
    fig = new_figure((7.5 if ncols == 1 else 11.0,
                      1.8 + 2.0 * (math.ceil(dof / ncols) + 1.3)))
    joint_axes, bottom = _joint_grid(fig, dof, "error")
    for j, ax in enumerate(joint_axes):
        color = f"C{j % 10}"
        ax.plot(s.t, q_ref[:, j], color="black", lw=1.3, ls="--", label="reference")
        ax.plot(s.t, actual[:, j], color=color, lw=1.8, alpha=0.85, label="actual")
        unit = units[j] if units else "rad or m"
        ax.set_ylabel(f"{names[j]} [{unit}]")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="x-small")
    for j in range(dof):
        bottom.plot(s.t, error[:, j], color=f"C{j % 10}", lw=1.3, label=labels[j])
    bottom.axhline(0.0, color="0.4", lw=0.6)
    peak = float(np.abs(error).max()) if error.size else 0.0
    bottom.set_title(f"tracking error {what} (peak {peak:.3g})", fontsize="medium")
    bottom.set_ylabel(f"error [{_unit_label(units)}]")
    bottom.set_xlabel("t [s]")
    bottom.grid(True, alpha=0.3)
    bottom.legend(loc="best", ncol=min(dof, 6), fontsize="x-small")
    fig.suptitle(title or f"Tracking{_of(robot)}")
    save_figure(fig, path)
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
    fig = new_figure((8.0, 8.0))
    axes = fig.subplots(4, 1, sharex=True)
    units = None
    for k, (label, m) in enumerate(motions.items()):
        s = sampled(m)
        units = _units(robot, s.dof)
        tau = getattr(m, "tau", None)
        tau = (robot.inverse_dynamics(s.q, s.qd, s.qdd) if tau is None
               else finite_array(tau, "tau"))
        power = tau * s.qd
        positive = _cumulative(s.t, np.maximum(power, 0.0).sum(axis=1))
        ls = styles[k % len(styles)]
        for j in range(s.q.shape[1]):  # q: nq values with quaternion joints
            axes[0].plot(s.t, s.q[:, j], color=f"C{j % 10}", ls=ls, lw=1.5,
                         label=f"q{j + 1} {label}")
        for j in range(s.dof):
            axes[1].plot(s.t, s.qd[:, j], color=f"C{j % 10}", ls=ls, lw=1.5)
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
    save_figure(fig, path)
    return fig
