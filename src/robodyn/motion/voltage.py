"""A simulation driven by the motors' voltages: ``rd.simulate(robot, q0, ..., voltage=...,
motors=...)``.

Each joint ``j`` has a permanent-magnet DC motor (:class:`~robodyn.motion.electrics.DCMotor`:
armature resistance ``R``, inductance ``L``, torque constant ``k_t``, back-EMF constant
``k_b``) behind the gear of the model's :class:`~robodyn.model.chain.Motor` (ratio ``G``,
efficiencies ``eta`` when the motor drives and ``eta_b`` when it is driven; the rotor's
reflected inertia ``G^2 J_m`` is already in ``M(q)``). The armature circuit (Siciliano,
Sciavicco, Villani & Oriolo, *Robotics*, Springer 2009, §5.4.1, eq. 5.1-5.3)::

    L di/dt = V - R i - k_b G qd                 (L > 0: the current is a state)
    i = (V - k_b G qd) / R                       (L = 0: the current follows the voltage)

and the joint torque through the gear, ``tau_d = G k_t i e(i, qd)``, with the efficiency
factor ``e = eta`` while the motor drives (``k_t i G qd > 0``: power flows to the joint) and
``e = 1 / eta_b`` while the load drives it (the gear's loss then adds to the motor's
braking torque: the motor receives ``eta_b tau qd``). The arm::

    M(q) qdd + C(q, qd) qd + F(qd) + g(q) = tau_d + tau_L - J^T h_e

on the state ``(q, qd, i_L)`` (``i_L`` the currents of the motors with ``L > 0``), with
``tau_L`` a load torque the caller adds at the joints (``tau=``: a disturbance, a brake;
a table or ``tau(t, q, qd)``, none by default).

Behind a coupled transmission ``theta = N q`` (:mod:`robodyn.model.transmission`; Spong,
Hutchinson & Vidyasagar, *Robot Modeling and Control*, §6.4) motor ``j`` turns at ``w_m =
(N qd)_j``, its back-EMF is ``k_b w_m`` and the joints receive ``tau_d = N^T (k_t i e)``
(``e`` motor by motor, of its own ``sign(i) w_m``; the links' ``efficiency`` fields, 1 by
default); ``M`` and the friction already hold the rotors' ``N^T J_m N`` and ``N^T B_m N``.
With ``N = diag(G)`` it is the per-joint gear above.

The efficiency switch is discontinuous where ``qd`` changes sign under a current. The run
takes the motor as driving while ``s = sign(i) G qd >= 0`` (at rest too: the stall torque
is ``G eta k_t V / R``) and reaches the back-driven efficiency smoothly over the motor speed
``w_e`` (``efficiency_speed``, rad/s at the rotor)::

    e = c eta + (1 - c) / eta_b,      c = 1 - tanh(max(-s, 0) / w_e)

so the right-hand side is continuous (``tau`` is 0 where ``sign(i)`` jumps; ``c`` is 1 at
``s = 0`` from both sides) and a joint held against a load that back-drives it creeps at
a speed of order ``w_e / G`` instead of chattering between the two efficiencies; beyond a
few ``w_e`` it is the hard rule. With ``eta = eta_b = 1`` (the default) ``e = 1`` exactly.
The efficiency is applied to the whole electromagnetic torque ``k_t i`` (the rotor's own
inertial torque ``G^2 J_m qdd`` passes the gear with it);
:func:`~robodyn.motion.electrics.electrics` (the inverse problem) keeps the rotor's inertia
on the motor side, so the two agree exactly where ``eta = eta_b = 1`` or ``J_m = 0``.

Steady state under a constant voltage ``V`` with no load: ``i = 0`` and the no-load speed
``qd = V / (k_b G)`` (the back-EMF cancels ``V``), the drive's natural speed limit; at rest
the stall current ``V / R`` and stall torque ``G eta k_t V / R``.

The run uses the adaptive methods of :func:`robodyn.simulate` (``"rk45"``, ``"dop853"``, or
``"radau"`` for a small ``L / R``: the electrical time constant makes the system stiff) and
their budgets (``max_steps``), or with ``dt`` the fixed steps ``"rk4"`` and
``"semi-implicit-euler"`` (:mod:`robodyn.motion.voltage_fixed`: rk4 refused where ``dt``
passes its stability limit, semi-implicit Euler stable for any ``L / R``); progress and
checks (the energy balance of the arm under the joint torques, the joint limits) as every
run. ``sim.tau`` is the joint torque, the motors' and the load's; ``sim.info`` adds
``drive_torque`` (the motors' alone), ``current``, ``voltage``, ``electric_power`` (``V
i``, ``(T, n)``), ``electric_energy`` (``∫ V i dt`` per joint over the run) and
``copper_loss`` (``∫ R i^2 dt`` per joint), both integrated with the motion as states of
the solver (to its tolerance, whatever the samples; ``sim.solution`` is the dense output of
the whole state ``(q, qd, i_L, ∫ V i, ∫ R i^2)``). A batch of runs:
:mod:`robodyn.motion.voltage_batch`.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError, excerpt
from .adaptive import drive
from .closed import check_closed_options, closed
from .electrics import DCMotor, dc_motors, motors_of
from .inputs import TorqueTable, check_magnitude, start_state, torque_value, wrench_value
from .options import SimulationOptions
from .result import Simulation, finished
from .single import simulate_one

__all__ = ["Drives", "Rates", "simulate_voltage", "voltage_drives", "voltage_settings",
           "run_voltage", "voltage_result", "VOLTAGE_METHODS", "VOLTAGE_FIXED"]

#: The fixed-step methods a voltage-driven run takes (with ``dt``).
VOLTAGE_FIXED = ("rk4", "semi-implicit-euler")
#: The methods a voltage-driven run takes.
VOLTAGE_METHODS = ("rk45", "dop853", "radau", *VOLTAGE_FIXED)


@dataclass(frozen=True, kw_only=True)
class Drives:
    """The checked motors and voltage of a run: per joint ``R``, ``L``, ``k_t``, ``k_b``
    (the motors), ``G``, ``eta``, ``eta_b`` (the model's gears); ``voltage(t, q, qd, i)``
    the joints' voltages; ``efficiency_speed`` ``w_e`` (module docstring); ``N``, the
    matrix of a coupled transmission (``theta = N q``), or None for one gear a joint."""

    R: np.ndarray
    L: np.ndarray
    kt: np.ndarray
    kb: np.ndarray
    G: np.ndarray
    eta: np.ndarray
    eta_b: np.ndarray
    voltage: Callable
    efficiency_speed: float
    N: np.ndarray | None = None

    @property
    def inductive(self) -> np.ndarray:
        """The joints whose current is a state (``L > 0``)."""
        return self.L > 0

    def speed(self, qd) -> np.ndarray:
        """The motors' speeds: ``G qd`` (a gear a joint), ``N qd`` (a coupled
        transmission; the sums written out, so a batch's rows round as one run does,
        where ``@`` may not)."""
        return self.G * qd if self.N is None else np.sum(qd[..., None, :] * self.N, axis=-1)

    def currents(self, V, qd, i_state) -> np.ndarray:
        """Every motor's current: the state's where ``L > 0``, else ``(V - k_b w_m) / R``."""
        with np.errstate(divide="ignore", invalid="ignore"):
            i = (V - self.kb * self.speed(qd)) / self.R
        i = np.where(self.inductive, 0.0, i)
        if self.inductive.any():
            i[..., self.inductive] = i_state
        return i

    def torque(self, i, qd) -> np.ndarray:
        """The joint torque of the currents ``i``: ``G k_t i e(i, qd)``, or ``N^T (k_t i
        e)`` behind a coupled transmission (``e`` per motor, of its speed ``(N qd)_j``)."""
        back = 1.0 / self.eta_b
        s = np.sign(i) * self.speed(qd)
        c = 1.0 - np.tanh(np.maximum(-s, 0.0) / self.efficiency_speed)
        if self.N is None:
            return self.G * self.kt * i * (back + c * (self.eta - back))
        return np.sum((self.kt * i * (back + c * (self.eta - back)))[..., :, None] * self.N,
                      axis=-2)

    def run(self, problem, options, bar) -> Simulation:
        """The run of ``problem`` these drives drive: :func:`run_voltage`."""
        return run_voltage(problem, options, bar)

    def current_rate(self, V, i, qd) -> np.ndarray:
        """``di/dt = (V - R i - k_b w_m) / L`` of the inductive motors."""
        k = self.inductive
        return (V[..., k] - self.R[k] * i[..., k] - self.kb[k] * self.speed(qd)[..., k]) / \
            self.L[k]


def _motors(motors, n: int, chain) -> list[DCMotor]:
    """``motors`` checked (:func:`~robodyn.motion.electrics.dc_motors`; ``None``: the model
    file's), each with a resistance or an inductance."""
    out = dc_motors(motors, chain, n, missing=(
        "motors: a voltage-driven run needs the joints' DC motors; give "
        "motors=DCMotor(resistance=..., torque_constant=...) (one for all) or "
        f"a list of {n}, or put them in the model file (motor: resistance, "
        "torque_constant, ...)"))
    for j, m in enumerate(out):
        if m.resistance == 0 and m.inductance == 0:
            raise InputError(f"motors[{j}]: resistance and inductance both 0: the voltage "
                             "would fix the speed; give resistance > 0 or inductance > 0")
    return list(out)


def _constant(values: np.ndarray):
    def voltage(t, q, qd, i=None):
        return values

    voltage.state_free = True  # a batch evaluates it once for all its rollouts
    return voltage


def _checked_call(fn, n: int, with_current: bool, per: str = "joint"):
    def voltage(t, q, qd, i=None):
        raw = fn(t, q, qd, i) if with_current else fn(t, q, qd)
        try:
            V = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            V = np.full(1, np.nan)
        if V.ndim == 0:
            V = np.full(n, float(V))
        if V.shape != (n,) or not np.isfinite(V).all():
            raise InputError(f"voltage(t, q, qd): returned {excerpt(raw)} at t = {t:.6g} s; "
                             f"expected {n} finite numbers (volts, one per {per})")
        check_magnitude(V, "voltage(t, q, qd)")
        return V

    return voltage


def _takes_current(fn) -> bool:
    """Whether the callable ``fn`` wants the currents: it cannot be called with three
    arguments but can with four, or its fourth positional parameter is named ``i`` or
    ``current`` (``V(t, q, qd, i=None)``). ``V(t, q, qd, gain=2)`` and ``V(*args)`` get
    three."""
    try:
        signature = inspect.signature(fn)
    except (TypeError, ValueError):  # no signature (a builtin): called with three
        return False
    positional = [p for p in signature.parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    if len(positional) >= 4 and positional[3].name in ("i", "current"):
        return True
    try:
        signature.bind(0.0, None, None)
        return False
    except TypeError:
        pass
    try:
        signature.bind(0.0, None, None, None)
    except TypeError:  # neither: said here, not as Python's TypeError from inside the run
        raise InputError(f"voltage: the callable {excerpt(fn)} takes neither (t, q, qd) nor "
                         "(t, q, qd, i); give V(t, q, qd) (volts, one per joint) or V(t, q, "
                         "qd, i) with the currents") from None
    return True


def _voltage(voltage, voltage_times, duration: float, n: int, inductive,
             per: str = "joint") -> Callable:
    if callable(voltage):
        if voltage_times is not None:
            raise InputError("voltage_times: given with a callable voltage; times go with a "
                             "table of voltages (T, dof)")
        with_current = _takes_current(voltage)
        if with_current and not inductive.all():
            raise InputError("voltage(t, q, qd, i): a voltage that feeds back the current needs "
                             "the current as a state: give every motor an inductance > 0 (or "
                             "a voltage(t, q, qd))")
        return _checked_call(voltage, n, with_current, per)
    try:
        if isinstance(voltage, str | bytes) or np.asarray(voltage).dtype == bool:
            raise TypeError  # True is not 1 V
        arr = np.asarray(voltage, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"voltage: expected volts (one number, {n} per {per}, a table (T, "
                         f"{n}) or a callable V(t, q, qd)), got {excerpt(voltage)}") from None
    if voltage_times is None and arr.ndim <= 1:  # constant per joint
        if arr.ndim == 0:
            arr = np.full(n, float(arr))
        if arr.shape != (n,):
            raise InputError(f"voltage: expected one number or {n} (one per {per}), got "
                             f"shape {arr.shape}; a table of voltages is (T, {n})")
        if not np.isfinite(arr).all():
            raise InputError(f"voltage: {excerpt(arr.tolist())} is not finite")
        check_magnitude(arr, "voltage")
        return _constant(arr)
    table = TorqueTable(arr, voltage_times, duration, n, name="voltage")

    def voltage(t, q, qd, i=None):
        return table(t)

    voltage.state_free = True
    return voltage


def voltage_drives(robot, motors, voltage, voltage_times, duration: float,
                   efficiency_speed: float = 1.0, joints=None) -> Drives:
    """The checked :class:`Drives` of ``robot`` (its gears) with ``motors`` (one
    :class:`DCMotor` per joint or one for all) and ``voltage`` (one number, one per joint, a
    table ``(T, dof)`` at ``voltage_times``, or a callable ``V(t, q, qd)`` or ``V(t, q, qd,
    i)``); :class:`InputError` naming the argument otherwise. ``joints``: the indices of
    the joints that have motors (a closed mechanism's actuated joints), or None for all."""
    if not robot.chain.single_valued:
        raise InputError("voltage: DC motors drive revolute or prismatic joints; this robot "
                         "has free or ball joints")
    joints = list(range(robot.dof)) if joints is None else [int(j) for j in joints]
    n = len(joints)
    if motors is None and n < robot.dof:  # the model file's, at the motorised joints
        motors = motors_of(robot.numeric_chain)
        motors = None if motors is None else [motors[j] for j in joints]
    motors = _motors(motors, n, robot.numeric_chain)
    if not (isinstance(efficiency_speed, int | float) and np.isfinite(efficiency_speed)
            and efficiency_speed > 0):
        raise InputError(f"efficiency_speed: {excerpt(efficiency_speed)}; give a motor speed "
                         "> 0 (rad/s) over which the gear's efficiency switches")
    links = [robot.numeric_chain.links[j] for j in joints]
    G = np.array([float(link.motor.gear_ratio) for link in links])
    tr = getattr(robot.chain, "transmission", None)  # coupled: N (checked non-singular)
    if tr is None and (G == 0).any():
        raise InputError(f"voltage: joint {int(np.argmin(np.abs(G))) + 1} has gear_ratio 0; "
                         "a motor drives its joint through a ratio != 0")
    R, L, kt, kb = (np.array(v, dtype=float) for v in zip(
        *[(m.resistance, m.inductance, m.torque_constant, m.k_b) for m in motors], strict=True))
    return Drives(R=R, L=L, kt=kt, kb=kb, G=G,
                  eta=np.array([float(link.motor.efficiency) for link in links]),
                  eta_b=np.array([float(link.motor.back) for link in links]),
                  voltage=_voltage(voltage, voltage_times, duration, n, L > 0,
                                   "joint" if n == robot.dof else "actuated joint"),
                  efficiency_speed=float(efficiency_speed), N=None if tr is None else tr.N)


class Rates:
    """The state ``y = (q, qd, i_L, E, Q)`` of a run and its rate: ``E`` and ``Q`` the
    energy drawn, ``∫ V i dt``, and the copper loss, ``∫ R i^2 dt``, per joint (integrated
    with the motion, to its tolerance); ``torque`` the load beside the motors (None, a
    table or ``tau(t, q, qd)``), ``wrench`` the wrench ``h_e``."""

    def __init__(self, robot, drives: Drives, torque, wrench):
        self.robot, self.drives, self.torque, self.wrench = robot, drives, torque, wrench
        self.n, self.k = robot.dof, int(drives.inductive.sum())

    def split(self, y):
        """``(q, qd, i_L)`` of the state ``y`` ``(..., size)`` (one run, or a batch's rows)."""
        n, k = self.n, self.k
        return y[..., :n], y[..., n:2 * n], y[..., 2 * n:2 * n + k]

    def parts(self, t, y):
        """``(V, i, tau, qdd)`` at ``(t, y)``: the voltages, every motor's current, the
        joint torque (the motors' and the load's) and the acceleration."""
        q, qd, i_state = self.split(y)
        drives = self.drives
        V = drives.voltage(t, q, qd, i_state if drives.inductive.all() else None)
        i = drives.currents(V, qd, i_state)
        tau = drives.torque(i, qd) + torque_value(self.torque, t, q, qd, self.n)
        qdd = self.robot.forward_dynamics(q, qd, tau, h_e=wrench_value(self.wrench, t, q, qd))
        return V, i, tau, qdd

    def __call__(self, t, y):
        V, i, _, qdd = self.parts(t, y)
        qd = y[..., self.n:2 * self.n]
        return np.concatenate([qd, qdd, self.drives.current_rate(V, i, qd), V * i,
                               self.drives.R * i * i], axis=-1)


def run_voltage(problem, options, bar) -> Simulation:
    """One voltage-driven run (module docstring) of ``problem`` (its ``drives``, from
    :func:`voltage_drives`; its ``torque``, a load beside the motors), the currents of the
    inductive motors starting at 0: adaptive (SciPy's solvers) or fixed steps
    (:mod:`robodyn.motion.voltage_fixed`)."""
    from scipy.integrate import DOP853, RK45, Radau  # SciPy only when used

    robot, drives, n = problem.robot, problem.drives, problem.robot.dof
    if closed(robot):  # the actuated joints' motors, L = 0: a torque of the state
        from .voltage_closed import run_voltage_closed

        return run_voltage_closed(problem, options, bar)
    rates = Rates(robot, drives, problem.torque, problem.wrench)
    k = rates.k
    y0 = np.concatenate([problem.q0, problem.qd0, np.zeros(k + 2 * n)])
    if options.method in VOLTAGE_FIXED:
        from .voltage_fixed import integrate_fixed

        t, y, info = integrate_fixed(rates, y0, options, bar)
        solution = None
    else:
        kind = {"rk45": RK45, "dop853": DOP853, "radau": Radau}[options.method]

        def make():
            return kind(rates, 0.0, y0, options.duration, rtol=options.rtol,
                        atol=options.atol, max_step=options.max_step)

        t, y, solution, steps, solver = drive(make, rates, y0, options.duration, options.times,
                                              options.max_steps, options.method, n, bar)
        info = {"steps": steps, "evaluations": int(solver.nfev), "rtol": options.rtol,
                "atol": options.atol}
    samples = [rates.parts(tk, yk) for tk, yk in zip(t, y.T, strict=True)]
    return voltage_result(rates, t, y, [np.stack(x) for x in zip(*samples, strict=True)],
                          info, solution)


def voltage_result(rates: Rates, t, y, samples, info: dict, solution=None) -> Simulation:
    """The :class:`Simulation` of one run of ``rates`` from its states ``y`` ``(size, T)``
    at ``t`` and ``samples``, its :meth:`Rates.parts` ``(V, i, tau, qdd)`` at each sample,
    stacked ``(T, ...)``; ``info`` (the integrator's) gets the motors' series and totals."""
    n, k = rates.n, rates.k
    q, qd = y[:n].T.copy(), y[n:2 * n].T.copy()
    V, i, tau, qdd = samples
    info.update(current=i, voltage=V, electric_power=V * i,
                drive_torque=rates.drives.torque(i, qd),
                electric_energy=y[2 * n + k:3 * n + k, -1].copy(),
                copper_loss=y[3 * n + k:, -1].copy())
    return finished(rates.robot, t, q, qd, qdd, tau, info, solution)


def voltage_settings(robot, voltage, values, duration, options):
    """The checked options of a voltage-driven run (``options``: those of
    :func:`robodyn.simulate`) and its motorised joints (a closed mechanism's actuated ones,
    else None for all): ``(settings, joints)``; an :class:`InputError` naming what a run
    does not take."""
    if voltage is None:
        raise InputError("voltage: motors given without a voltage; give voltage= (volts per "
                         "joint, a table (T, dof) or a callable V(t, q, qd))")
    if values is not None:
        raise InputError("values: a voltage-driven run takes the model's own values (one "
                         "model for every rollout); give voltage= and motors=, or tau")
    method = options.get("method")
    if method is not None and str(method).lower() not in VOLTAGE_METHODS:
        raise InputError(f"method: {excerpt(method)}; a voltage-driven run takes "
                         f"{', '.join(map(repr, VOLTAGE_METHODS))} (the last two with dt)")
    settings = SimulationOptions.checked(duration=duration, **options)
    if not closed(robot):
        return settings, None
    check_closed_options(settings, None)  # the actuated joints' motors: voltage_closed
    return settings, robot.closed_chain().actuated


def simulate_voltage(robot, motors, q0, qd0=0.0, duration: float = 1.0, *, voltage,
                     voltage_times=None, efficiency_speed: float = 1.0, tau=None,
                     tau_times=None, h_e=None, values=None, **options) -> Simulation:
    """One run of ``robot`` from ``(q0, qd0)`` driven by its ``motors``' ``voltage``
    (module docstring; :func:`robodyn.simulate` with ``voltage=`` and ``motors=`` calls
    this): ``voltage`` one number, one per joint, a table ``(T, dof)`` at
    ``voltage_times``, or a callable ``V(t, q, qd)`` (``V(t, q, qd, i)``: the currents too,
    for motors that all have an inductance); ``efficiency_speed`` ``w_e``, the motor speed
    (rad/s) over which the gear's efficiency switches; ``tau`` (at ``tau_times``), a load
    torque added at the joints to the motors' (a disturbance, a brake: a table or ``tau(t,
    q, qd)``), and ``h_e`` as :func:`robodyn.simulate` takes them; ``options``: those of
    :func:`robodyn.simulate` (``dt`` and ``method``: the adaptive methods, or ``"rk4"``
    and ``"semi-implicit-euler"`` with ``dt``, :mod:`robodyn.motion.voltage_fixed`;
    ``rtol``, ``atol``, ``max_step``, ``max_steps``, ``sample_dt``, ``progress``,
    ``check_limits``). A batch: :mod:`robodyn.motion.voltage_batch`."""
    settings, joints = voltage_settings(robot, voltage, values, duration, options)
    drives = voltage_drives(robot, motors, voltage, voltage_times, settings.duration,
                            efficiency_speed, joints)
    q0, qd0 = start_state(robot, q0, qd0)
    return simulate_one(robot, q0, qd0, tau, tau_times, h_e, settings, drives=drives)
