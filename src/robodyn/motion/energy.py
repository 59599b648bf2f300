"""The energy a motion costs, and a cheaper motion between the same end points.

Lecture notes name the joint torques' third use: the ENERGY a motion costs. For a
sampled motion (a :class:`~robodyn.motion.trajectory.Motion` or a simulation) the
mechanical power of joint ``i`` is ``P_i = tau_i qd_i`` and

* ``positive_work = sum_i ∫ max(P_i, 0) dt`` — what motors that cannot recover
  energy (no regeneration) must supply;
* ``net_work = ∫ sum_i P_i dt`` — equals the change of mechanical energy
  ``K + U`` plus what friction dissipated (the work–energy theorem);
* ``effort = ∫ sum_i tau_i^2 dt`` — the usual "energy-optimal" criterion
  (proportional to the copper losses of DC motors);
* ``motor_energy = ∫ sum_i P_m,i dt`` with the gear's losses: the motor side's power
  ``P_m = P / eta`` while the motor drives the joint (``P > 0``) and ``P_m = eta_b P``
  while the joint drives the motor (``P < 0``, energy recovered through the gear),
  ``eta``, ``eta_b`` the joint's ``motor.efficiency`` and ``efficiency_back`` (1 by
  default: ``motor_energy = net_work``); ``gear_loss = motor_energy - net_work >= 0``
  (a gear with a forward and a backward efficiency, as gear makers rate them).

Every integral is the trapezoidal rule on the given samples, so its accuracy
is that of the sampling (second order in the step).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import number, numbers, span
from ..core.errors import InputError, excerpt, whole_number
from .inputs import MAX_MAGNITUDE, check_magnitude
from .trajectory import Motion, Trajectory, geodesic, quintic, rest_spline

if TYPE_CHECKING:
    from ..robot import Robot
    from .result import Simulation

__all__ = ["EnergyReport", "consumed", "optimize", "check_motion", "OBJECTIVES",
           "MAX_VIA_POINTS", "MAX_SAMPLES", "MAX_EVALUATIONS"]

#: The criteria :func:`optimize` can minimise.
OBJECTIVES = ("positive_work", "effort")
#: Most via points :func:`optimize` moves (``robodyn energy --via-points`` too): each adds
#: ``dof`` variables, and a finite-difference gradient costs one evaluation per variable.
MAX_VIA_POINTS = 20
#: Most instants a motion is evaluated at (``optimize``'s ``samples``; the ``torques`` and
#: ``energy`` commands' ``--samples``).
MAX_SAMPLES = 1_000_000
#: Evaluations of the objective (one inverse dynamics along the motion each, finite
#: differences included) :func:`optimize` spends unless ``max_evaluations`` says otherwise.
MAX_EVALUATIONS = 5_000


class _OutOfEvaluations(Exception):
    """The optimiser used its evaluation budget (caught inside :func:`optimize`)."""


def check_motion(traj: Trajectory, t: np.ndarray, names=("q0", "q1", "duration")) -> None:
    """:class:`InputError` when the end points of ``traj`` or its speeds or accelerations at
    ``t`` exceed :data:`~robodyn.motion.inputs.MAX_MAGNITUDE` (they overflow the dynamics,
    which would blame the model's values): naming the end point, else the duration (too
    short for the motion)."""
    with np.errstate(all="ignore"):  # an overflow is said below
        q0, q1 = traj.q0, traj.q1
        _, qd, qdd = traj(t)
    check_magnitude(q0, names[0])
    check_magnitude(q1, names[1])
    big = float(np.max(np.abs(np.concatenate([qd.ravel(), qdd.ravel()]))))  # NaN stays
    if not big <= MAX_MAGNITUDE:
        reach = f"reach {big:.3g}, beyond {MAX_MAGNITUDE:g}" if np.isfinite(big) \
            else "overflow float64"
        raise InputError(f"{names[2]}: {traj.duration:g} s is too short for this motion: its "
                         f"speeds or accelerations {reach}; give a longer duration")


@dataclass(frozen=True)
class EnergyReport:
    """What a motion cost: totals and ``(dof,)`` per-joint values (see the module).

    ``power`` is ``(T, dof)``, ``tau`` the torques used, ``friction_loss`` the energy
    friction dissipated (``∫ tau_f · qd dt >= 0``)."""

    positive_work: float
    net_work: float
    effort: float
    positive_work_per_joint: np.ndarray
    net_work_per_joint: np.ndarray
    effort_per_joint: np.ndarray
    friction_loss: float
    power: np.ndarray
    tau: np.ndarray
    t: np.ndarray
    motor_energy: float = 0.0
    gear_loss: float = 0.0
    motor_power: np.ndarray | None = None

    def __repr__(self) -> str:
        return (f"EnergyReport(positive_work={number(self.positive_work, 6)} J, net_work="
                f"{number(self.net_work, 6)} J, effort={number(self.effort, 6)}, "
                f"samples={len(self.t)})")

    def __str__(self) -> str:
        """The totals and their share per joint, over the time span."""
        gears = ([f"  drawn by the motors {number(self.motor_energy, 6)} J, of which gear "
                  f"loss {number(self.gear_loss, 6)} J"] if self.gear_loss else [])
        return "\n".join([
            f"Energy of a motion of {len(self.positive_work_per_joint)} joints over "
            f"{span(self.t)} ({len(self.t)} samples, trapezoidal rule)",
            f"  positive work {number(self.positive_work, 6)} J, per joint "
            f"{numbers(self.positive_work_per_joint)}",
            f"  net work {number(self.net_work, 6)} J, per joint "
            f"{numbers(self.net_work_per_joint)}",
            f"  effort {number(self.effort, 6)} (sum of tau^2 dt), per joint "
            f"{numbers(self.effort_per_joint)}",
            f"  friction loss {number(self.friction_loss, 6)} J", *gears])

    def value(self, objective: str) -> float:
        """The total of ``objective`` (``"positive_work"``, ``"net_work"``, ``"effort"``)."""
        if objective not in ("positive_work", "net_work", "effort"):
            raise InputError(f"objective: {objective!r} is not one of positive_work, net_work, "
                             "effort")
        return float(getattr(self, objective))


def _integrate(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Trapezoidal rule along axis 0."""
    dt = np.diff(t)
    return 0.5 * np.tensordot(dt, y[1:] + y[:-1], axes=(0, 0))


def consumed(robot: Robot, motion: Motion | Trajectory | Simulation,
             h_e: ArrayLike | None = None) -> EnergyReport:
    """The energy ``motion`` costs on ``robot`` (module docstring).

    ``motion``: anything with ``t`` ``(T,)``, ``q`` ``(T, nq)``, ``qd`` ``(T, dof)`` (with
    ball or free joints ``nq > dof``: quaternions in ``q``, ``P = tau · v`` per velocity
    coordinate, a free joint's ``tau`` the body wrench and ``v`` the body twist) and either
    ``qdd`` (the torques come from :meth:`~robodyn.Robot.inverse_dynamics`, with
    ``h_e`` if given) or ``tau`` (a simulation's applied torques, used as they are).
    """
    t = np.asarray(getattr(motion, "t", None), dtype=float)
    if t.ndim != 1 or t.shape[0] < 2:
        raise InputError("motion.t: expected at least two sample times, shape (T,)")
    if not np.isfinite(t).all() or (np.diff(t) <= 0).any():
        raise InputError("motion.t: the sample times must be finite and increase")
    if getattr(motion, "q", None) is None or getattr(motion, "qd", None) is None:
        raise InputError("motion: expected q and qd (and qdd or tau): a Simulation, "
                         "trajectory.sample(dt) or robodyn.motion.trajectory.Motion")
    q, qd = np.asarray(motion.q, dtype=float), np.asarray(motion.qd, dtype=float)
    if q.shape != (t.shape[0], robot.nq) or qd.shape != (t.shape[0], robot.dof):
        shapes = (f"({t.shape[0]}, {robot.dof})" if robot.nq == robot.dof else
                  f"({t.shape[0]}, {robot.nq}) and ({t.shape[0]}, {robot.dof})")
        raise InputError(f"motion: expected q and qd of shape {shapes}, got {q.shape} and "
                         f"{qd.shape}")
    tau = getattr(motion, "tau", None)
    if tau is None:
        if getattr(motion, "qdd", None) is None:  # was Python's AttributeError
            raise InputError("motion: has neither qdd nor tau; give the accelerations (the "
                             "torques are then the inverse dynamics) or the applied torques")
        tau = robot.inverse_dynamics(q, qd, motion.qdd, h_e=h_e)
    tau = np.asarray(tau, dtype=float)
    if tau.shape != qd.shape:  # was a NumPy broadcast error, or a silent broadcast
        raise InputError(f"motion.tau: expected shape {qd.shape} (as qd), got {tau.shape}")
    power = tau * qd
    positive = _integrate(t, np.maximum(power, 0.0))
    net = _integrate(t, power)
    effort = _integrate(t, tau * tau)
    loss = float(np.sum(_integrate(t, robot.friction_torques(qd) * qd)))
    motors = [link.motor for link in robot.numeric_chain.links]
    eta = np.array([m.efficiency for m in motors], float)
    eta_back = np.array([m.back for m in motors], float)
    if len(eta) != power.shape[1]:  # a ball or free joint: several values, no gear
        eta = eta_back = np.ones(power.shape[1])
    motor_power = np.where(power > 0, power / eta, power * eta_back)
    drawn = float(np.sum(_integrate(t, motor_power)))
    return EnergyReport(float(positive.sum()), float(net.sum()), float(effort.sum()), positive,
                        net, effort, loss, power, tau, t, drawn, drawn - float(net.sum()),
                        motor_power)


def optimize(robot: Robot, q0: ArrayLike, q1: ArrayLike, duration: float, via_points: int = 3,
             objective: str = "positive_work", torque_limits: ArrayLike | None = None,
             samples: int = 201,
             maxiter: int = 200, max_evaluations: int = MAX_EVALUATIONS) -> Trajectory:
    """A motion from ``q0`` to ``q1`` in ``duration`` that costs less than the quintic.

    The motion is a quintic spline (:func:`~robodyn.motion.trajectory.rest_spline`) through
    ``via_points`` positions at equally spaced times that starts and ends at rest with zero
    acceleration, the boundary conditions of the quintic it is compared with (so neither
    motion gains from a jump of the acceleration at an end); the via points start on the
    rest-to-rest quintic (where the spline is that quintic) and are moved by SciPy
    (L-BFGS-B, or SLSQP when ``torque_limits`` (one per joint) bound ``|tau_i|``) to
    minimise ``objective``
    (``"positive_work"`` or ``"effort"``) evaluated on ``samples`` instants. If no
    spline beats the quintic, the quintic itself is returned: never worse.

    With ball or free joints (``q0``, ``q1`` of ``nq`` values) the quintic is the geodesic
    one (:func:`~robodyn.motion.trajectory.geodesic`); the one-value joints move as above
    and each ball or free joint along its geodesic ``q0 ⊕ s_j(t) (q1 ⊖ q0)_j`` with its own
    spline ``s_j`` from 0 to 1 (the via points then hold ``s_j``; the velocities are exact).

    Budgets: ``via_points`` at most :data:`MAX_VIA_POINTS`, ``samples`` at most
    :data:`MAX_SAMPLES`; the optimiser stops after ``maxiter`` iterations or
    ``max_evaluations`` evaluations of the objective (finite differences included), with
    a ``RuntimeWarning`` that says so when a budget stopped it (the motion returned is
    then the best found so far, still never worse than the quintic).

    The returned trajectory's ``info`` holds ``objective``, ``energy`` (its value),
    ``baseline`` (the quintic) and ``baseline_energy``, the optimiser's ``result``,
    ``evaluations`` (of the objective) and ``exhausted`` (a budget stopped it).
    """
    from scipy.optimize import minimize  # SciPy only when used

    if objective not in OBJECTIVES:
        raise InputError(f"objective: {objective!r} is not one of {', '.join(OBJECTIVES)}")
    via_points = whole_number(via_points, "via_points", 1, MAX_VIA_POINTS)
    samples = whole_number(samples, "samples", 2, MAX_SAMPLES)
    maxiter = whole_number(maxiter, "maxiter", 1, 10**6)
    max_evaluations = whole_number(max_evaluations, "max_evaluations", 1, 10**7)
    single = robot.chain.single_valued
    with np.errstate(all="ignore"):  # a duration too short is said below
        baseline = (quintic(q0, q1, duration) if single
                    else geodesic(robot, q0, q1, duration, "quintic"))
    dof = baseline.dof
    if dof != robot.dof:
        raise InputError(f"q0: expected {robot.dof} values (one per joint), got {dof}")
    T = baseline.duration
    t = np.linspace(0.0, T, samples)
    check_motion(baseline, t)
    knots = np.linspace(0.0, T, via_points + 2)
    start = baseline.q0
    directions, end = _directions(robot, start, baseline.q1)
    size = directions.shape[0]
    limits = None
    if torque_limits is not None:
        limits = _torque_limits(torque_limits, dof)

    def configure(u):
        return start + u if single else robot.integrate(start, u)

    def trajectory(x):
        w = rest_spline(knots, np.vstack([np.zeros(size), x.reshape(via_points, size), end]))

        def evaluate(t):
            u, ud, udd = (part @ directions for part in w(t))
            return configure(u), ud, udd

        points = configure(w.info["waypoints"] @ directions)
        return Trajectory(evaluate, T, dof, "rest-spline",
                          {"times": w.info["times"], "waypoints": points}, robot.nq)

    def report(traj):
        return consumed(robot, Motion(t, *traj(t)))

    def cost(x):
        return report(trajectory(x)).value(objective)

    base_report = report(baseline)
    base_value = base_report.value(objective)
    # the quintic's own points: the spline through them is the quintic
    x0 = np.outer(quintic([0.0], [1.0], T)(knots[1:-1])[0], end).reshape(-1)
    # scale: the objective of the quintic is O(1) after dividing by it
    scale = abs(base_value) if base_value != 0 else 1.0
    constraints = ()
    method = "L-BFGS-B"
    if limits is not None:
        method = "SLSQP"

        def margin(x):
            tau = report(trajectory(x)).tau
            return np.concatenate([(limits - tau).ravel(), (limits + tau).ravel()]) / limits.max()

        constraints = ({"type": "ineq", "fun": margin},)
    fun, jac = (lambda x: cost(x) / scale), None
    if objective == "effort" and limits is None:
        # exact gradient from the inverse dynamics' derivatives (the spline is linear in x)
        def tangent(x):
            w = rest_spline(knots, np.vstack([np.zeros(size), x.reshape(via_points, size),
                                              end]))(t)
            return tuple(part @ directions for part in w)

        gradient = EffortGradient(robot, t, tangent, x0.size, configure)

        def fun(x):
            value, grad = gradient(x)
            return value / scale, grad / scale

        jac = True
    counted = _Budget(max_evaluations, x0)
    if constraints:
        constraints = ({"type": "ineq", "fun": counted.wrap(margin)},)
    options = {"maxiter": maxiter}
    if method == "L-BFGS-B":
        options["maxfun"] = max_evaluations
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            result = minimize(counted.wrap(fun), x0, jac=jac, method=method,
                              constraints=constraints, options=options,
                              callback=counted.iterate)
        # status 1 (L-BFGS-B) or 9 (SLSQP): the iteration or evaluation limit was reached
        x, exhausted = result.x, result.status == (1 if method == "L-BFGS-B" else 9)
    except _OutOfEvaluations:
        result, x, exhausted = None, counted.last, True
    best = trajectory(x)
    best_report = report(best)
    feasible = limits is None or bool((np.abs(best_report.tau) <= limits * (1 + 1e-6)).all())
    base_feasible = limits is None or bool((np.abs(base_report.tau) <= limits).all())
    if not feasible or (best_report.value(objective) >= base_value and base_feasible):
        best, best_report = baseline, base_report
    if exhausted:
        warnings.warn(f"robodyn.motion.energy.optimize: the optimiser ran out of its budget before "
                      f"converging (maxiter = {maxiter:,}, max_evaluations = "
                      f"{max_evaluations:,}; {min(counted.count, max_evaluations):,} "
                      "evaluations used); the motion returned is the best found so far (never "
                      "worse than the quintic): raise maxiter or max_evaluations, or use fewer "
                      "via_points", RuntimeWarning, stacklevel=2)
    if limits is not None and not (np.abs(best_report.tau) <= limits * (1 + 1e-6)).all():
        warnings.warn("robodyn.motion.energy.optimize: no motion found within torque_limits; the "
                      "returned motion exceeds them", RuntimeWarning, stacklevel=2)
    info = {"objective": objective, "energy": best_report.value(objective),
            "baseline": baseline, "baseline_energy": base_value, "result": result,
            "exhausted": exhausted, "evaluations": min(counted.count, max_evaluations),
            "report": best_report, "baseline_report": base_report}
    return best.with_info("optimized" if best is not baseline else "quintic", info)


def _directions(robot, q0: np.ndarray, q1: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The motions :func:`optimize` searches, ``q(t) = q0 ⊕ w(t) D`` with ``w(0) = 0`` and
    ``w(T) = end``: ``(D, end)``. A one-value joint moves freely (its row of ``D`` a unit
    vector, ``w_j = q_j - q0_j``); a ball or free joint along its geodesic (its row the step
    ``q1 ⊖ q0`` of its velocity block, ``w_j`` from 0 to 1), so ``qd = w' D`` exactly (a
    one-parameter subgroup) and the motion is affine in ``w`` in the tangent space."""
    step = robot.difference(q0, q1)
    rows, end = [], []
    for link, k in zip(robot.chain.links, robot.chain.v_offsets(), strict=True):
        n = link.joint.nv
        if n == 1:
            rows.append(np.eye(robot.dof)[k])
            end.append(step[k])
        elif n > 1 and step[k:k + n].any():
            row = np.zeros(robot.dof)
            row[k:k + n] = step[k:k + n]
            rows.append(row)
            end.append(1.0)
    if not rows:
        return np.zeros((1, robot.dof)), np.zeros(1)
    return np.array(rows), np.array(end)


def _torque_limits(value, dof: int) -> np.ndarray:
    """``torque_limits`` as ``dof`` positive finite numbers (one, or one per joint)."""
    try:
        limits = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"torque_limits: expected one number or {dof} (one per joint), got "
                         f"{excerpt(value)}") from None
    if limits.ndim > 1 or (limits.ndim == 1 and limits.shape[0] not in (1, dof)):
        raise InputError(f"torque_limits: expected one number or {dof} (one per joint), got "
                         f"{limits.size} ({excerpt(limits.tolist())})")
    limits = np.broadcast_to(limits.reshape(-1), (dof,)).copy()
    if not (np.isfinite(limits).all() and (limits > 0).all()):
        raise InputError(f"torque_limits: expected positive finite numbers, got "
                         f"{excerpt(limits.tolist())}")
    return limits


class _Budget:
    """Counts the evaluations of the functions it wraps and stops the optimiser (raises
    :class:`_OutOfEvaluations`) past ``most``; ``last`` is the latest iterate."""

    def __init__(self, most: int, x0: np.ndarray):
        self.most, self.count, self.last = most, 0, x0

    def wrap(self, function):
        def counted(x, *args):
            self.count += 1
            if self.count > self.most:
                raise _OutOfEvaluations
            return function(x, *args)

        return counted

    def iterate(self, xk, *_) -> None:
        self.last = np.array(xk, copy=True)


class EffortGradient:
    """``(effort, d effort/dx)`` of a motion ``(u, qd, qdd) = path(x)`` that is affine in
    ``x`` (a spline through via points ``x``), sampled at ``t``; ``q = configure(u)``
    (``u`` itself by default; with ball or free joints ``q0 ⊕ u`` with each joint's part
    of ``u`` along one fixed axis, so the tangent derivative of ``q`` is that of ``u``).

    ``effort = sum_k w_k |tau_k|^2`` (trapezoid weights ``w``), so
    ``d effort/dx = sum_k 2 w_k tau_k^T (dtau/dq dq_k/dx + dtau/dqd dqd_k/dx + M dqdd_k/dx)``
    with the derivatives of :meth:`~robodyn.Robot.inverse_dynamics_derivatives` and the
    constant ``d(q, qd, qdd)/dx`` of the affine path, taken once from unit ``x``
    (Coulomb friction differentiates to 0 away from ``qd = 0``)."""

    def __init__(self, robot, t, path, size: int, configure=None):
        self.robot = robot
        self.configure = (lambda q: q) if configure is None else configure
        dt = np.diff(t)
        self.weights = np.concatenate([[0.0], dt]) / 2 + np.concatenate([dt, [0.0]]) / 2
        self.path = path
        offset = np.array(path(np.zeros(size)))
        self.basis = np.stack([np.array(path(e)) - offset for e in np.eye(size)])  # (m,3,T,dof)

    def __call__(self, x):
        u, qd, qdd = self.path(x)
        q = self.configure(u)
        tau = self.robot.inverse_dynamics(q, qd, qdd)
        d_q, d_qd, mass = self.robot.inverse_dynamics_derivatives(q, qd, qdd)
        weighted = 2 * self.weights[:, None] * tau  # (T, dof)
        parts = [np.einsum("ki,kij->kj", weighted, d) for d in (d_q, d_qd, mass)]
        grad = sum(np.einsum("kj,mkj->m", g, self.basis[:, n]) for n, g in enumerate(parts))
        return float(np.sum(self.weights[:, None] * tau * tau)), grad
