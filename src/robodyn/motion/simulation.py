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
* stick-slip (``dt`` given): ``"stick-slip"``, semi-implicit Euler with Karnopp's
  stiction for dry (Coulomb, Stribeck) friction: a joint held by static friction stays
  exactly at rest, and friction does not chatter about zero velocity
  (:mod:`robodyn.motion.stick_slip`);
* LuGre friction: ``"lugre"``, the model's LuGre parameters (``lugre:`` in its file) with
  a bristle state per joint, SciPy's Radau on ``(q, qd, z)`` (:mod:`robodyn.motion.lugre`;
  a closed mechanism's on its actuated coordinates, :mod:`robodyn.motion.lugre_closed`);
* fixed step (``dt`` given): classic ``"rk4"`` or ``"semi-implicit-euler"``
  (symplectic: velocity first, then position with the new velocity), as a
  control loop at ``1/dt`` Hz would run. With Numba, torque tables and the
  built-in controllers (:mod:`robodyn.motion.control`) run in a compiled loop
  (:mod:`robodyn.motion.loops`); Python callables still work, one call per
  stage.

Torques ``tau``: ``None`` (zero), an array ``(T, dof)`` at ``tau_times``
(default: ``T`` instants spread evenly over the duration; the first at 0 or before,
a table starting later refused; linear in between, the last value held), or a callable
``tau(t, q, qd)``. ``h_e``: ``None``, a
constant wrench (6 values), a callable ``h_e(t, q, qd)``, or (a tree's hands, feet) a dict
of constant wrenches at named frames ``{frame: 6 values}`` (``robot.frames``; see
:meth:`~robodyn.Robot.inverse_dynamics`).

Joint limits the model knows (URDF ``<limit>``) are reported, not enforced: a
:class:`JointLimitWarning` names each limit crossed and when it first was, and
``info["velocity_limit"]`` has each joint's peak speed against its velocity limit.

Voltages (``voltage=``, ``motors=``) drive the joints through their DC motors instead of
torques (:mod:`robodyn.motion.voltage`).

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

The pieces, one module each: the options, checked once (:mod:`robodyn.motion.options`,
:class:`~robodyn.motion.options.SimulationOptions`), the inputs
(:mod:`robodyn.motion.inputs`), the drivers (:mod:`robodyn.motion.fixed`,
:mod:`robodyn.motion.adaptive`, :mod:`robodyn.motion.implicit`) of one run
(:mod:`robodyn.motion.single`), the checks of a finished run
(:mod:`robodyn.motion.checks`), the result (:mod:`robodyn.motion.result`) and batches of
rollouts (:mod:`robodyn.motion.rollouts`, :func:`robodyn.rollout`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.progress import ProgressOption, check_progress
from .checks import (
    ENERGY_TOLERANCE,
    EnergyBalance,
    EnergyBalanceWarning,
    JointLimitWarning,
    energy_balance,
)
from .closed import check_closed_options, closed
from .elastic import refuse_springs
from .inputs import MAX_MAGNITUDE, check_magnitude, manifold_options, start_state, state_vector
from .options import (
    DEFAULT_MAX_STEPS,
    MAX_DURATION,
    MAX_STEPS,
    METHODS,
    SimulationOptions,
    time_grid,
)
from .result import Simulation
from .rollouts import batch_size, rollout, simulate_many, start_states
from .single import simulate_one

if TYPE_CHECKING:
    from ..robot import Robot

# ``simulate`` is defined here; the other names are those of the modules that define them,
# kept importable from here (the command line and the API pages read them here).
__all__ = ["simulate", "Simulation", "JointLimitWarning", "EnergyBalanceWarning",
           "EnergyBalance", "energy_balance", "time_grid", "METHODS", "MAX_DURATION", "MAX_STEPS",
           "DEFAULT_MAX_STEPS", "MAX_MAGNITUDE", "ENERGY_TOLERANCE", "check_magnitude",
           "state_vector"]


def simulate(robot: Robot, q0: ArrayLike, qd0: ArrayLike = 0.0, duration: float = 1.0,
             tau: ArrayLike | Callable[..., ArrayLike] | None = None,
             tau_times: ArrayLike | None = None,
             h_e: ArrayLike | Callable[..., ArrayLike] | None = None,
             dt: float | None = None, method: str | None = None, rtol: float = 1e-9,
             atol: float = 1e-9, max_step: float = np.inf, progress: ProgressOption = None,
             check_limits: bool = True, max_steps: int = DEFAULT_MAX_STEPS,
             sample_dt: float | None = None, values=None,
             voltage: ArrayLike | Callable[..., ArrayLike] | None = None,
             voltage_times: ArrayLike | None = None, motors=None) -> Simulation:
    """Integrate the robot's motion from ``q0``, ``qd0`` for ``duration`` seconds (see the
    module docstring for ``tau``, ``h_e``, the methods and the budgets; default method:
    ``"rk45"`` without ``dt``, ``"rk4"`` with it). ``max_steps`` bounds the steps of the
    adaptive methods (at most :data:`MAX_STEPS`); a fixed-step run takes ``duration / dt``
    steps, at most :data:`MAX_STEPS`. ``rtol`` (at least ``1e-13``) and ``atol`` (> 0) are
    the adaptive methods' tolerances. ``progress`` counts simulated seconds
    (:mod:`robodyn.core.progress`: by default a bar on a terminal for a run that lasts,
    ``False`` for none, or a callable ``(done, total, label)``): after every adaptive or
    implicit step, and after each of :data:`~robodyn.motion.fixed.PROGRESS_CHUNKS` chunks
    of a fixed-step run.

    ``sample_dt``: the samples on the uniform grid ``0, sample_dt, 2 sample_dt, ...``
    (:func:`time_grid`, ``duration`` included) instead of at the integrator's own steps.
    An adaptive method evaluates its dense output there (the integration is the same, its
    accuracy that of the steps); with a fixed ``dt`` it must be a whole multiple of ``dt``
    and every ``sample_dt / dt``-th step is kept. ``info["sample_dt"]`` records it.

    Many rollouts at once (:mod:`robodyn.motion.rollouts`): ``q0`` or ``qd0`` ``(N, dof)``,
    ``tau`` ``(N, T, dof)`` or a list of ``N`` controllers, ``h_e`` ``(N, 6)``, or
    ``values={name: N values}`` (per-rollout parameter values) run ``N`` rollouts and return
    a :class:`Simulation` whose arrays have a leading ``N`` axis, as
    :func:`~robodyn.rollout` (the explicit entry for batches) does.

    Driven by the motors' voltages (:mod:`robodyn.motion.voltage`): ``voltage`` (volts: one
    number, one per joint, a table ``(T, dof)`` at ``voltage_times``, or a callable
    ``V(t, q, qd)`` or ``V(t, q, qd, i)``) and ``motors`` (one
    :class:`~robodyn.motion.electrics.DCMotor` per joint, or one for all; default: the
    model file's, :func:`~robodyn.motion.electrics.motors_of`) in place of
    ``tau`` (``tau`` then is a load added at the joints); the adaptive methods or, with
    ``dt``, ``"rk4"`` and ``"semi-implicit-euler"``; a batch as above; ``sim.tau`` the joint
    torques, ``sim.info`` the ``current``, ``voltage``, ``electric_power`` and the motors'
    ``drive_torque``."""
    check_progress(progress)
    refuse_springs(robot, "rd.simulate")
    if voltage is not None or motors is not None:  # motors=None: the model file's
        if robot.chain.lugre is not None:
            _lugre_left_out(robot, "driven by voltages")
        from .voltage import simulate_voltage
        from .voltage_batch import per_rollout

        if batch_size(robot, q0, qd0, tau, h_e, None) or per_rollout(voltage):  # a batch
            return rollout(robot, q0, qd0, duration, tau, tau_times, h_e, dt=dt, method=method,
                           rtol=rtol, atol=atol, max_step=max_step, progress=progress,
                           check_limits=check_limits, max_steps=max_steps,
                           sample_dt=sample_dt, values=values, voltage=voltage,
                           voltage_times=voltage_times, motors=motors)
        return simulate_voltage(robot, motors, q0, qd0, duration, voltage=voltage,
                                voltage_times=voltage_times, tau=tau, tau_times=tau_times,
                                h_e=h_e, values=values, dt=dt, method=method,
                                rtol=rtol, atol=atol, max_step=max_step, max_steps=max_steps,
                                sample_dt=sample_dt, progress=progress,
                                check_limits=check_limits)
    if not robot.chain.single_valued:  # quaternion joints (a free base, ball joints)
        manifold_options(method, tau, values)
    count = batch_size(robot, q0, qd0, tau, h_e, values)
    if robot.chain.lugre is not None and method != "lugre":
        method = _lugre_default(robot, method, dt, count)
    if count is None:
        q0, qd0 = start_state(robot, q0, qd0)
    else:
        q0, qd0 = start_states(robot, count, q0, qd0)
    options = SimulationOptions.checked(duration=duration, dt=dt, method=method, rtol=rtol,
                                        atol=atol, max_step=max_step, max_steps=max_steps,
                                        sample_dt=sample_dt, progress=progress,
                                        check_limits=check_limits)
    if closed(robot):
        check_closed_options(options, values)
    if count is None:
        return simulate_one(robot, q0, qd0, tau, tau_times, h_e, options)
    return simulate_many(robot, q0, qd0, tau, tau_times, h_e, values, options)


def _lugre_default(robot, method, dt, count):
    """A model with LuGre friction (``lugre:``) runs with its bristle states (``"lugre"``)
    (a closed mechanism's too) unless a method, a fixed step or a batch asks otherwise: then
    its LuGre friction is left out, with a warning that says so."""
    if method is None and dt is None and count is None:
        return "lugre"
    _lugre_left_out(robot, f"method={method!r}" if method is not None else "dt" if dt
                    is not None else "a batch")
    return method


def _lugre_left_out(robot, why: str) -> None:
    from ..core.errors import warn

    warn(UserWarning(f"rd.simulate: {robot.name}'s LuGre friction (lugre:) is left out of this "
                     f"run ({why}); method='lugre' (robodyn simulate --method lugre) runs "
                     "it with its bristle states"))
