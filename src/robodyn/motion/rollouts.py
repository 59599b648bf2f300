"""Many rollouts in one call: :func:`robodyn.rollout`, or :func:`robodyn.simulate` on a batch
of ``N`` motions (it runs them here).

A batch is any of: ``q0`` or ``qd0`` of shape ``(N, dof)``, a torque table ``tau`` of
shape ``(N, T, dof)``, a list of ``N`` controllers (or torque callables) as ``tau``, a
wrench ``h_e`` of shape ``(N, 6)``, or ``values={name: N values}`` (per-rollout parameter
values: Monte-Carlo over masses and friction). What is not batched is shared by every
rollout. The result is one :class:`~robodyn.motion.simulation.Simulation` whose arrays
have a leading ``N`` axis (``sim.q`` ``(N, T, dof)``, ``sim.kinetic`` ``(N, T)``, ``sim.t``
``(T,)``); ``sim.rollout(i)`` is rollout ``i`` on its own. :func:`rollout` takes the
arguments of :func:`~robodyn.simulate` and always returns a batch (of one when nothing is
batched); :func:`~robodyn.simulate` returns a batch when an argument is batched.

* ``"rk4"`` and ``"semi-implicit-euler"`` with torque tables or the built-in controllers
  and a constant wrench run in the compiled loop (:func:`robodyn.motion.loops.rollouts_source`),
  the rollouts split over robodyn's threads (``ROBODYN_NUM_THREADS``, default: every
  core). Rollouts that share the parameter values step in lockstep, 16 at a time through
  the blocked kernels (one SIMD lane each, :mod:`robodyn.motion.loops`), others one by
  one; either way each rollout's numbers are the single run's, bit for bit.
* a closed mechanism (``loops:``) with ``"rk4"``: projected RK4, the runs vectorised over
  ``N`` with NumPy (:mod:`robodyn.motion.closed_batch`).
* ``"implicit-euler"``, the adaptive methods (``"rk45"``, ``"dop853"``, ``"radau"``),
  Python callables and the NumPy backend run rollout after rollout, each a single run;
  an adaptive batch needs ``sample_dt`` (one time grid for all).

Every rollout gets its own energy balance (``info["energy_balance"]``, a list) and limit
report (``info["limits_crossed"]``, by rollout); one warning of each kind sums them up.
A rollout that fails (its motion diverges, a NaN torque) stops there while the others
run on: the run then raises :class:`RolloutError`, whose ``simulation`` holds every
rollout (the failed ones NaN from their failure on) and ``failed`` the reasons by
rollout. A batch keeps ``N * T * dof`` at most :data:`MAX_BATCH_VALUES` per array.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..codegen import kernel as kernel_module
from ..codegen.cache import generated_function
from ..codegen.threads import run_in_threads, thread_count
from ..codegen.tiers import loops_compile
from ..core.errors import InputError, ModelError, RobodynError, excerpt, warn
from ..core.progress import ProgressOption, check_progress, tracker
from ..model.configuration import checked_arrays
from .checks import (
    ENERGY_TOLERANCE,
    EnergyBalanceWarning,
    JointLimitWarning,
    balance_of_powers,
    crossed_limits,
    energy_advice,
)
from .closed import check_closed_options, closed, run_closed_many
from .elastic import refuse_springs
from .fixed import (
    PROGRESS_CHUNKS,
    loop_kernels_ready,
    python_loop_seconds,
    raise_diverged,
    stage_grid,
)
from .inputs import (
    MAX_MAGNITUDE,
    TorqueTable,
    check_magnitude,
    checked_wrench,
    manifold_options,
    start_state,
    state_vector,
    torque_value,
    wrench_value,
)
from .loops import rollouts_source
from .options import DEFAULT_MAX_STEPS, SimulationOptions, shorter_last_step
from .result import Simulation
from .single import simulate_one
from .steps import RK4, SEMI_IMPLICIT_EULER, joint_table

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["rollout", "RolloutError", "MAX_BATCH_VALUES", "MAX_ROLLOUTS", "batch_size",
           "start_states", "simulate_many"]

#: Most values ``N * T * dof`` one recorded array of a batch holds (``q``, ``qd``, ``qdd``
#: and ``tau`` each: 4 arrays of 8 bytes a value, 3.2 GB at the limit); a per-rollout torque
#: table, sampled at the stage times, counts twice.
MAX_BATCH_VALUES = 100_000_000
#: Most rollouts of one batch.
MAX_ROLLOUTS = 1_000_000


class RolloutError(RobodynError):
    """Some rollouts of a batch failed (diverged, or met a torque that is not finite).
    ``failed``: ``{rollout: reason}``; ``simulation``: the whole batch, the failed rollouts
    NaN from the failed step on, the others complete."""

    def __init__(self, message: str, simulation: Simulation, failed: dict[int, str]):
        super().__init__(message)
        self.simulation = simulation
        self.failed = failed


def rollout(robot: Robot, q0: ArrayLike, qd0: ArrayLike = 0.0, duration: float = 1.0,
            tau: ArrayLike | Callable[..., ArrayLike] | None = None,
            tau_times: ArrayLike | None = None,
            h_e: ArrayLike | Callable[..., ArrayLike] | None = None,
            dt: float | None = None, method: str | None = None, rtol: float = 1e-9,
            atol: float = 1e-9, max_step: float = np.inf, progress: ProgressOption = None,
            check_limits: bool = True, max_steps: int = DEFAULT_MAX_STEPS,
            sample_dt: float | None = None, values=None,
            voltage: ArrayLike | Callable[..., ArrayLike] | None = None,
            voltage_times: ArrayLike | None = None, motors=None) -> Simulation:
    """``N`` rollouts of ``robot`` in one call, as MuJoCo's ``rollout``: the arguments of
    :func:`~robodyn.simulate` (the same names, defaults and checks), of which any may have
    a leading rollout axis (module docstring): ``q0`` or ``qd0`` ``(N, nq)``, ``(N, nv)``;
    ``tau`` ``(N, T, dof)`` or a list of ``N`` controllers; ``h_e`` ``(N, 6)``; ``values``
    ``{name: N values}``. What is not batched is shared; with nothing batched, a batch of
    one. The result is a batch whatever ``N``: :class:`Simulation` with ``q`` ``(N, T,
    nq)``, ``qd``, ``qdd``, ``tau`` ``(N, T, nv)``, the energies ``(N, T)``, ``t`` ``(T,)``;
    ``sim.rollout(i)`` is one rollout. A batch needs one time grid: ``dt`` (a fixed-step
    method) or ``sample_dt``. Rollouts that fail raise :class:`RolloutError`, which holds
    the others. Voltage-driven rollouts (``voltage``, ``motors``):
    :mod:`~robodyn.motion.voltage_batch`."""
    check_progress(progress)
    refuse_springs(robot, "rd.rollout")
    if voltage is not None or motors is not None or voltage_times is not None:
        from .voltage_batch import simulate_voltage_many  # (it imports no rollouts)

        sim, failed = simulate_voltage_many(
            robot, motors, q0, qd0, batch_size(robot, q0, qd0, tau, h_e, None), duration,
            voltage=voltage, voltage_times=voltage_times, tau=tau, tau_times=tau_times,
            h_e=h_e, values=values, dt=dt, method=method, rtol=rtol, atol=atol,
            max_step=max_step, max_steps=max_steps, sample_dt=sample_dt, progress=progress,
            check_limits=check_limits)
        if failed:
            raise RolloutError(f"simulate: {len(failed)} voltage-driven rollouts failed ("
                               f"{', '.join(map(str, sorted(failed)[:20]))}); rollout "
                               f"{min(failed)}: {failed[min(failed)]}", sim, failed)
        return sim
    if not robot.chain.single_valued:  # quaternion joints (a free base, ball joints)
        manifold_options(method, tau, values)
    count = batch_size(robot, q0, qd0, tau, h_e, values) or 1
    q0, qd0 = start_states(robot, count, q0, qd0)
    options = SimulationOptions.checked(duration=duration, dt=dt, method=method, rtol=rtol,
                                        atol=atol, max_step=max_step, max_steps=max_steps,
                                        sample_dt=sample_dt, progress=progress,
                                        check_limits=check_limits)
    if closed(robot):
        check_closed_options(options, values)
    return simulate_many(robot, q0, qd0, tau, tau_times, h_e, values, options)


def _controllers(tau) -> bool:
    return isinstance(tau, (list, tuple)) and len(tau) > 0 and all(callable(x) for x in tau)


def batch_size(robot, q0, qd0, tau, h_e, values) -> int | None:
    """The number of rollouts the arguments of :func:`~robodyn.simulate` ask for, or None for
    a single run; batched arguments of different sizes are an :class:`InputError` naming
    them."""
    sizes = {}
    for name, value, ndim in (("q0", q0, 2), ("qd0", qd0, 2), ("h_e", h_e, 2)):
        if value is not None and not callable(value) and not _controllers(value) \
                and np.ndim(value) == ndim:
            sizes[name] = np.shape(value)[0]
    if _controllers(tau):
        sizes["tau"] = len(tau)
    elif tau is not None and not callable(tau) and np.ndim(tau) == 3:
        sizes["tau"] = np.shape(tau)[0]
    if isinstance(h_e, (list, tuple)) and _controllers(h_e):
        sizes["h_e"] = len(h_e)
    if values is not None:
        if not isinstance(values, dict) or not values:
            raise InputError("values: expected a dict {parameter name: N values} (one value "
                             f"per rollout), got {excerpt(values)}")
        for name, column in values.items():
            if np.ndim(column) != 1:
                raise InputError(f"values[{str(name)[:40]!r}]: expected N values (one per "
                                 f"rollout), got shape {np.shape(column)}")
            sizes[f"values[{str(name)[:40]!r}]"] = len(column)
    if not sizes:
        return None
    if len(set(sizes.values())) > 1:
        detail = ", ".join(f"{name} {n}" for name, n in sizes.items())
        raise InputError(f"rollouts: the batched arguments disagree on the number of rollouts "
                         f"({detail}); give each N rows, or one unbatched value for all (q0 of "
                         "dof values, a torque table (T, dof))")
    n = next(iter(sizes.values()))
    if not 1 <= n <= MAX_ROLLOUTS:
        raise InputError(f"rollouts: {next(iter(sizes))} has {n} rollouts; a batch has 1 to "
                         f"{MAX_ROLLOUTS:,}")
    return n


def _states(value, name: str, n: int, dof: int) -> np.ndarray:
    """``value`` as ``(n, dof)`` start states: one for all or one row per rollout, finite and
    within :data:`MAX_MAGNITUDE`."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected ({n}, {dof}) real numbers (a row per rollout) or "
                         f"{dof} for all") from None
    if arr.ndim < 2:
        return np.tile(state_vector(arr, name, dof), (n, 1))
    if arr.shape != (n, dof):
        raise InputError(f"{name}: expected shape ({n}, {dof}) (a row of {dof} joint values "
                         f"per rollout), got {arr.shape}")
    bad = ~np.isfinite(arr).all(axis=1)
    if bad.any():
        r = int(np.argmax(bad))
        raise InputError(f"{name}[{r}]: {arr[r].tolist()} is not finite")
    check_magnitude(arr, name)
    return np.ascontiguousarray(arr)


def start_states(robot, n: int, q0, qd0) -> tuple[np.ndarray, np.ndarray]:
    """The start states of ``n`` rollouts, checked: ``(n, nq)`` and ``(n, nv)`` (a row per
    rollout, or one state for all), finite and within
    :data:`~robodyn.motion.inputs.MAX_MAGNITUDE`; the quaternions of a model with quaternion
    joints unit to rounding and then normalised."""
    q0 = _states(q0, "q0", n, robot.nq)
    qd0 = _states(qd0, "qd0", n, robot.dof)
    if not robot.chain.single_valued:  # unit quaternions, to rounding
        (q0,) = checked_arrays(robot.chain, "simulate", {"q": q0})
        q0 = np.ascontiguousarray(robot.chain.normalized(q0))
    return q0, qd0


class _Models:
    """The rollouts' models: their parameter values ``P`` (``(N, p)`` in kernel order, or
    ``(1, p)`` when shared) and :meth:`robot` for one rollout. ``values`` are checked: known
    names, finite numbers, and physics (:meth:`~robodyn.Robot.with_values`) for every
    rollout of a small batch, else for the rollouts at each column's least and greatest
    value (a model is checked in some ten milliseconds; a mass, a length or an inertia out
    of range shows at an extreme)."""

    #: Batches up to this size have every rollout's model checked for physics.
    CHECK_ALL = 16

    def __init__(self, robot, n: int, values):
        self.base = robot
        self.columns = {}
        self.P = robot.parameter_values[None]
        if values is None:
            return
        names = list(robot.runner.parameter_names)
        P = np.tile(robot.parameter_values, (n, 1))
        for name, column in values.items():
            label = f"values[{str(name)[:40]!r}]"
            try:
                column = np.asarray(column, dtype=float)
            except (TypeError, ValueError):
                raise InputError(f"{label}: expected {n} real numbers") from None
            bad = ~np.isfinite(column)
            if bad.any():
                r = int(np.argmax(bad))
                raise InputError(f"{label}[{r}] = {column[r]} is not finite")
            robot.with_values({name: float(column[0])})  # an unknown name: its ModelError
            P[:, names.index(str(name))] = column
            self.columns[str(name)] = column
        self.P = P
        check = set(range(n)) if n <= self.CHECK_ALL else \
            {int(f(c)) for c in self.columns.values() for f in (np.argmin, np.argmax)}
        for r in sorted(check):
            try:
                self.robot(r).parameter_values  # noqa: B018 - checks the model for physics
            except ModelError as exc:
                raise ModelError(f"values, rollout {r}: {exc}") from None

    @property
    def shared(self) -> bool:
        return self.P.shape[0] == 1

    def p(self, r: int) -> np.ndarray:
        """Rollout ``r``'s parameter values (kernel order)."""
        return self.P[0 if self.shared else r]

    def robot(self, r: int):
        """Rollout ``r``'s robot (``with_values`` of its values: for the slow paths only)."""
        if not self.columns:
            return self.base
        return self.base.with_values({k: float(c[r]) for k, c in self.columns.items()})

    def run(self, kind: str, r: int, *arrays) -> np.ndarray:
        """Registry entry ``kind`` on rollout ``r``'s model: ``(T, width)`` arrays in, ``(T,
        m)`` out."""
        kernel = self.base.runner.kernel(kind)
        if len(arrays[0]) == 0:
            return np.empty((0, kernel.width))
        return kernel(self.p(r), *(np.ascontiguousarray(a).reshape(len(a), -1)
                                   for a in arrays))


def _torques(tau, tau_times, duration: float, n: int, dof: int) -> list:
    """One torque per rollout: None, a :class:`~robodyn.motion.inputs.TorqueTable` or a
    callable."""
    if tau is None:
        return [None] * n
    if callable(tau):
        return [tau] * n
    if _controllers(tau):
        return list(tau)
    try:
        arr = np.asarray(tau, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"tau: expected an array (T, {dof}) or ({n}, T, {dof}) of numbers, a "
                         f"callable or a list of {n} controllers") from None
    if arr.ndim != 3:
        return [TorqueTable(arr, tau_times, duration, dof)] * n
    if arr.shape[2] != dof:
        raise InputError(f"tau: expected shape ({n}, T, {dof}), got {arr.shape}")
    # a value that is not finite fails its own rollout at its step (the others run on)
    tables = []
    for r in range(n):
        finite = np.where(np.isfinite(arr[r]), arr[r], 0.0)
        table = TorqueTable(finite, tau_times, duration, dof)
        table.values = arr[r]
        tables.append(table)
    return tables


def _wrenches(h_e, n: int) -> list:
    if h_e is None or callable(h_e):
        return [h_e] * n
    if _controllers(h_e):
        return list(h_e)
    if isinstance(h_e, dict):
        raise InputError("h_e: wrenches at named frames (a dict) drive one simulation at a "
                         "time; simulate each start state on its own, or give one wrench at "
                         "the end effector (6 values or (N, 6)) for a batch")
    arr = np.asarray(h_e, dtype=float) if not isinstance(h_e, str) else h_e
    if isinstance(arr, np.ndarray) and arr.ndim == 2:
        if arr.shape != (n, 6):
            raise InputError(f"h_e: expected shape ({n}, 6) (a wrench per rollout), got "
                             f"{arr.shape}")
        return [checked_wrench(row) for row in arr]
    return [checked_wrench(h_e)] * n


def simulate_many(robot, q0: np.ndarray, qd0: np.ndarray, tau, tau_times, h_e, values,
                  options: SimulationOptions) -> Simulation:
    """The rollouts from the start states ``q0`` ``(N, nq)``, ``qd0`` ``(N, nv)`` (checked:
    :func:`start_states`) driven by ``tau``, ``h_e`` and ``values`` as :func:`rollout` takes
    them (checked here), integrated as ``options`` say (module docstring)."""
    n, dof = qd0.shape
    duration, method = options.duration, options.method
    times, keep = options.times, options.keep
    if times is None:
        raise InputError(f"method {method!r} without dt or sample_dt: a batch of rollouts needs "
                         "one time grid; give sample_dt (e.g. 0.01) or a fixed-step method "
                         "with dt")
    samples = len(times)
    per_rollout_table = not callable(tau) and not _controllers(tau) and np.ndim(tau) == 3
    count = n * samples * robot.nq * (3 if per_rollout_table else 1)
    if count > MAX_BATCH_VALUES:
        raise InputError(f"rollouts: {n:,} rollouts x {samples:,} samples x {dof} joints"
                         f"{' (x3 with per-rollout torque tables)' if per_rollout_table else ''}"
                         f" = {count:,} values per array, more than {MAX_BATCH_VALUES:,} "
                         f"(rollouts.MAX_BATCH_VALUES, {4 * 8 * MAX_BATCH_VALUES / 1e9:.1f} GB "
                         "for q, qd, qdd and tau); run fewer rollouts at a time, a shorter "
                         "duration or a larger dt")
    models = _Models(robot, n, values)
    torques = _torques(tau, tau_times, duration, n, dof)
    wrenches = _wrenches(h_e, n)
    start = time.perf_counter()
    compiled, loops = None, closed(robot) and method == "rk4"
    if method in ("rk4", "semi-implicit-euler") and not loops:
        compiled = _compiled(models, torques, wrenches, times)
    with tracker(options.progress, duration if compiled or loops else n,
                 f"simulating {n} rollouts") as bar:
        if loops:  # projected RK4, the runs vectorised (motion/closed_batch.py)
            arrays, failed = run_closed_many(robot, q0, qd0, torques, wrenches, options,
                                             bar)
            sim = _finish(models, *arrays)
        elif compiled is not None:
            sim, failed = _fixed_many(models, q0, qd0, torques, wrenches, options, compiled,
                                      bar)
        else:
            sim, failed = _one_by_one(models, q0, qd0, torques, tau_times, wrenches, options,
                                      bar)
    wall = time.perf_counter() - start
    sim.info.update(method=method, wall_time=wall, rollouts=n, failed=failed,
                    realtime_factor=(n * sim.t[-1] / wall) if wall > 0 else np.inf)
    _check_energy(models, sim, wrenches, failed)
    if options.check_limits:
        _report_limits(robot, sim)
    if keep is not None:
        sim = Simulation(sim.t[keep], sim.q[:, keep], sim.qd[:, keep], sim.qdd[:, keep],
                         sim.tau[:, keep], sim.kinetic[:, keep], sim.potential[:, keep],
                         sim.info)
    if options.sample_dt is not None:
        sim.info["sample_dt"] = options.sample_dt
    if failed:
        shown = "; ".join(f"rollout {r}: {failed[r]}" for r in sorted(failed)[:3])
        more = f"; and {len(failed) - 3} more" if len(failed) > 3 else ""
        raise RolloutError(f"simulate: {len(failed)} of {n} rollouts failed "
                           f"({', '.join(map(str, sorted(failed)[:20]))}"
                           f"{', ...' if len(failed) > 20 else ''}); the others finished and "
                           f"are in the error's .simulation. {shown}{more}", sim, failed)
    return sim


# -- the compiled batch --------------------------------------------------------------------
def _stack(rows: list[np.ndarray]) -> np.ndarray:
    """``(N, ...)`` of per-rollout arrays, or ``(1, ...)`` when they are all one object."""
    if all(r is rows[0] for r in rows):
        return np.ascontiguousarray(rows[0][None])
    return np.ascontiguousarray(np.stack(rows))


def _blocked_flavour(kernel, rollouts: int, steps: int) -> bool:
    """Whether a batch of ``rollouts`` over ``steps`` steps runs ``kernel``'s blocked flavour
    (compiled now if it is not yet): a block of rollouts, as many evaluations as a large
    batch (:data:`~robodyn.codegen.kernel.BLOCKED_MIN_BATCH`), and a flavour that compiles."""
    if rollouts < 2 or rollouts * steps < kernel_module.BLOCKED_MIN_BATCH:
        return False
    return kernel._blocked() is not kernel.fn


def _compiled(models, torques, wrenches, times):
    """The data of the compiled batch loop ``(run_many, P, PC, H, TAB, QR, QDR, QDDR, KP,
    KD, JT)``, or None when a rollout needs Python (a callable, the NumPy backend)."""
    if any(callable(w) for w in wrenches):
        return None
    contact = wrenches[0] is not None
    if any((w is not None) != contact for w in wrenches):
        return None
    first = torques[0]
    if first is None or isinstance(first, TorqueTable):
        kind = "table"
        if any(t is not None and not isinstance(t, TorqueTable) for t in torques):
            return None
    else:
        kind = getattr(first, "kind", None)
        if kind not in ("pd_gravity", "computed_torque") or \
                any(getattr(t, "kind", None) != kind for t in torques):
            return None
    robot = models.base
    dof = robot.dof
    fd_kind = "forward_dynamics_contact" if contact else "forward_dynamics"
    if not loops_compile(dof, lambda: loop_kernels_ready(robot.runner, fd_kind, first, kind),
                         lambda: len(torques) * python_loop_seconds(robot, kind,
                                                                    4 * len(times))):
        return None  # a big model, or kernels still compiling: the Python loop
    fd = robot.runner.kernel(fd_kind)
    if fd.backend != "numba":
        return None
    stage_times = stage_grid(times)
    zeros = np.zeros((1, 1, dof))
    tab, qr, qdr, qddr = zeros, zeros, zeros, zeros
    kp = kd = np.zeros((1, dof))
    pc = np.zeros((1, 0))
    controller_module = None
    if kind == "table":
        if first is not None:
            sampled = {}
            rows = []
            for t in torques:
                if id(t) not in sampled:
                    with np.errstate(invalid="ignore"):
                        sampled[id(t)] = np.ascontiguousarray(t(stage_times))
                rows.append(sampled[id(t)])
            tab = _stack(rows)
    else:
        control = [t.model for t in torques]
        if any(m.dof != dof for m in control):
            raise InputError(f"tau: a controller's model has {control[0].dof} joints, the "
                             f"robot {dof}")
        name = "gravity_torques" if kind == "pd_gravity" else "inverse_dynamics"
        ck = control[0].runner.kernel(name)
        if ck.backend != "numba" or any(m.runner.kernel(name) is not ck for m in control):
            return None
        controller_module = ck.fn.py_func.__module__
        pc = _stack([m.parameter_values for m in control])
        kp, kd = _stack([t.kp for t in torques]), _stack([t.kd for t in torques])
        refs, seen = [], {}
        for t in torques:
            key = id(getattr(t, "trajectory", None) or t)
            if key not in seen:
                seen[key] = [np.ascontiguousarray(np.atleast_2d(r))
                             for r in t.references(stage_times)]
            refs.append(seen[key])
        qr, qdr, qddr = (_stack([r[i] for r in refs]) for i in range(3))
    p = np.ascontiguousarray(models.P)
    h = np.zeros((1, 1, 6)) if not contact else _stack([np.reshape(w, (1, 6))
                                                        for w in wrenches])
    steps, rollouts = len(times) - 1, len(torques)
    fd_blocked = _blocked_flavour(fd, rollouts, steps)
    ck_blocked = controller_module is not None and _blocked_flavour(ck, rollouts, steps)
    source = rollouts_source(fd.fn.py_func.__module__, kind, controller_module, contact,
                             fd_blocked, ck_blocked)
    run_many = generated_function(source, "run_many")
    return (run_many, p, pc, h, tab, qr, qdr, qddr, kp, kd, joint_table(robot.chain))


def _fixed_many(models, q0, qd0, torques, wrenches, options, compiled, bar):
    """The compiled batch over the fixed-step grid ``options.times`` (as the single run's
    :func:`~robodyn.motion.fixed.run_fixed`): every rollout's ``run`` in chunks of steps,
    rollouts split over the threads."""
    times, method, dt = options.times, options.method, options.dt
    run_many, *data = compiled
    n, dof = qd0.shape
    steps = len(times) - 1
    last = float(times[-1] - times[-2])
    regular = steps - 1 if shorter_last_step(last, dt) else steps
    shape = (n, steps + 1, dof)
    Q = np.empty((n, steps + 1, q0.shape[1]))
    QD, QDD, TAU = (np.empty(shape) for _ in range(3))
    failed_at = np.full(n, -1, dtype=np.int64)
    workers = max(1, min(thread_count(), n))
    bounds = np.linspace(0, n, workers + 1).astype(int)
    if workers > 1:  # fault the pages in here: threads faulting pages of one array contend
        for array in (Q, QD, QDD, TAU):
            array.fill(0.0)
    Q[:, 0], QD[:, 0] = q0, qd0
    chunks = np.linspace(0, regular, (PROGRESS_CHUNKS if bar.active else 1) + 1)
    segments = [(a, b, dt) for a, b in zip(chunks[:-1].astype(int), chunks[1:].astype(int))
                if b > a]
    if regular < steps:
        segments.append((regular, steps, last))
    code = SEMI_IMPLICIT_EULER if method == "semi-implicit-euler" else RK4
    for a, b, h in segments:
        args = (*data, code, h, MAX_MAGNITUDE, int(a), int(b), Q, QD, QDD, TAU, failed_at)
        run_in_threads(run_many, [(*args, int(r0), int(r1))
                                  for r0, r1 in zip(bounds[:-1], bounds[1:])])
        bar.update(times[b])
    failed = {}
    for r in np.flatnonzero(failed_at >= 0):
        k = int(failed_at[r])
        failed[int(r)] = _reason(models.robot(r), torques[r], wrenches[r], method, times, k,
                                 dt if k < regular else last, Q[r, k], QD[r, k])
        Q[r, k + 1:] = QD[r, k + 1:] = np.nan
        QDD[r, k:] = TAU[r, k:] = np.nan
    for r in range(n):
        if r not in failed:
            q_end, qd_end = Q[r, -1], QD[r, -1]
            TAU[r, -1] = torque_value(torques[r], times[-1], q_end, qd_end, dof)
            ends = (q_end, qd_end, TAU[r, -1]) + (() if wrenches[r] is None else (wrenches[r],))
            QDD[r, -1] = models.run("forward_dynamics" if wrenches[r] is None
                                    else "forward_dynamics_contact", r, *(x[None] for x in ends))[0]
    info = {"steps": steps, "dt": dt, "compiled": True}
    if regular < steps:
        info["last_step"] = last
    return _finish(models, times, Q, QD, QDD, TAU, info), failed


def _reason(robot, torque, wrench, method, times, k, h, q, qd) -> str:
    """Why rollout's step ``k`` (of size ``h`` from ``(q, qd)``) failed, in words."""
    t = float(times[k])
    if isinstance(torque, TorqueTable):
        stage = np.array([t, t + h / 2, t + h])
        with np.errstate(invalid="ignore"):
            bad = ~np.isfinite(torque(stage)).all(axis=1)
        if bad.any():
            return (f"step {k} (t = {t:.6g} s): its torque table is not finite at t = "
                    f"{stage[int(np.argmax(bad))]:.6g} s")
    try:
        raise_diverged(robot, torque, wrench, method, t, h, q, qd)
    except RobodynError as exc:
        text = str(exc).removeprefix("simulate: ")
        return f"step {k} (t = {t:.6g} s): {text}"
    return f"step {k} (t = {t:.6g} s): the motion diverged"  # pragma: no cover


# -- rollout after rollout -----------------------------------------------------------------
def _one_by_one(models, q0, qd0, torques, tau_times, wrenches, options, bar):
    """Each rollout a single run (:func:`~robodyn.motion.single.simulate_one`, from its
    start state checked as :func:`~robodyn.simulate` checks it; no sampling, limit report or
    energy warning of its own: the batch does them); a rollout that fails is NaN."""
    n, dof = qd0.shape
    alone = options.one_rollout()
    runs, failed = [], {}
    for r in range(n):
        tau = torques[r]
        if isinstance(tau, TorqueTable) and not np.isfinite(tau.values).all():
            row = int(np.argmax(~np.isfinite(tau.values).all(axis=1)))
            failed[r] = f"its torque table is not finite at t = {tau.times[row]:.6g} s"
            runs.append(None)
            continue
        table = tau.values if isinstance(tau, TorqueTable) else tau
        times = tau.times if isinstance(tau, TorqueTable) else tau_times
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", EnergyBalanceWarning)
                robot = models.robot(r)
                if not robot.chain.single_valued:
                    manifold_options(alone.method, table, None)
                start = start_state(robot, q0[r], qd0[r])
                run = simulate_one(robot, *start, table, times, wrenches[r], alone)
        except RobodynError as exc:
            failed[r] = str(exc).removeprefix("simulate: ")
            run = None
        runs.append(run)
        bar.update(r + 1)
    done = [s for s in runs if s is not None]
    if not done:
        raise RolloutError(f"simulate: every one of the {n} rollouts failed; rollout 0: "
                           f"{failed[0]}", None, failed)
    t = done[0].t
    shape = (n, len(t), dof)
    Q = np.full((n, len(t), q0.shape[1]), np.nan)
    QD, QDD, TAU = (np.full(shape, np.nan) for _ in range(3))
    for r, s in enumerate(runs):
        if s is not None:
            Q[r], QD[r], QDD[r], TAU[r] = s.q, s.qd, s.qdd, s.tau
    info = {k: v for k, v in done[0].info.items()
            if k in ("dt", "last_step", "rtol", "atol", "compiled")}
    info["steps"] = [s.info.get("steps") if s is not None else None for s in runs]
    return _finish(models, t, Q, QD, QDD, TAU, info), failed


# -- checks ----------------------------------------------------------------------------------
def _finish(models, t, Q, QD, QDD, TAU, info) -> Simulation:
    """The batch's Simulation with the energies of each rollout's own model (NaN where the
    rollout failed)."""
    n = Q.shape[0]
    K = np.full(Q.shape[:2], np.nan)
    U = np.full(Q.shape[:2], np.nan)
    ok = np.isfinite(Q).all(axis=2) & np.isfinite(QD).all(axis=2)
    if models.shared and ok.all():
        K[:] = models.base.kinetic_energy(Q, QD)
        U[:] = models.base.potential_energy(Q)
    else:
        for r in range(n):
            rows = ok[r]
            K[r, rows] = models.run("kinetic_energy", r, Q[r, rows], QD[r, rows])[:, 0]
            U[r, rows] = models.run("potential_energy", r, Q[r, rows])[:, 0]
    return Simulation(t, Q, QD, QDD, TAU, K, U, info)


def _check_energy(models, sim: Simulation, wrenches, failed) -> None:
    """Each finished rollout's :class:`~robodyn.motion.simulation.EnergyBalance` into
    ``info["energy_balance"]`` (None for a failed one); one warning naming the rollouts
    that are off."""
    n, samples, dof = sim.qd.shape
    done = [r for r in range(n) if r not in failed]
    with np.errstate(all="ignore"):
        p_tau = np.sum(sim.tau * sim.qd, axis=2)
        if models.shared and not failed:
            p_loss = np.sum(models.base.friction_torques(sim.qd) * sim.qd, axis=2)
        else:
            p_loss = np.full((n, samples), np.nan)
            for r in done:
                p_loss[r] = np.sum(models.run("friction_torques", r, sim.qd[r]) * sim.qd[r], 1)
    balances, off = [None] * n, []
    total = sim.total  # (N, T), once
    for r in done:
        p_ext = np.zeros(samples)
        h = wrenches[r]
        if callable(h):
            h = np.stack([wrench_value(h, tk, qk, qdk)
                          for tk, qk, qdk in zip(sim.t, sim.q[r], sim.qd[r])])
        if h is not None:
            jac = models.run("jacobian", r, sim.q[r]).reshape(samples, 6, dof)
            h = np.broadcast_to(np.asarray(h, dtype=float), (samples, 6))
            with np.errstate(all="ignore"):
                p_ext = -np.einsum("kij,ki,kj->k", jac, h, sim.qd[r])
        balance = balance_of_powers(sim.t, sim.kinetic[r], total[r], p_tau[r], p_ext,
                                    p_loss[r])
        balances[r] = balance
        if balance.off:
            off.append(r)
    sim.info["energy_balance"] = balances
    if off:
        worst = max(off, key=lambda r: balances[r].relative)
        warn(EnergyBalanceWarning(
            f"simulate: the work-energy balance of {len(off)} of {sim.rollouts} rollouts "
            f"({', '.join(map(str, off[:10]))}{', ...' if len(off) > 10 else ''}) is off by "
            f"more than {ENERGY_TOLERANCE:.0%} of the energy scale (worst: rollout "
            f"{worst}, {balances[worst].relative:.1%}): the integration is not accurate; "
            f"{energy_advice(sim.info)}"))


def _report_limits(robot, sim: Simulation) -> None:
    crossed = {}
    for r in range(sim.rollouts):
        found = crossed_limits(robot, sim.rollout(r))
        if found:
            crossed[r] = found
    if crossed:
        sim.info["limits_crossed"] = crossed
        first = min(crossed)
        warn(JointLimitWarning(
            f"simulate: joint limits crossed (not enforced) in {len(crossed)} of "
            f"{sim.rollouts} rollouts ({', '.join(map(str, list(crossed)[:10]))}"
            f"{', ...' if len(crossed) > 10 else ''}); rollout {first}: "
            + "; ".join(crossed[first][:4])
            + ("; ..." if len(crossed[first]) > 4 else "")
            + "; sim.info['limits_crossed'] has them all"))
