"""A batch of voltage-driven runs: ``rd.rollout(robot, q0s, ..., voltage=..., motors=...)``
(or :func:`robodyn.simulate` with a batched argument and ``voltage=``).

Batched, as :mod:`robodyn.motion.rollouts` takes them: ``q0`` ``(N, dof)``, ``qd0`` ``(N,
dof)``, a load torque ``tau`` ``(N, T, dof)`` or a list of ``N`` callables, ``h_e`` ``(N,
6)``; and the voltages per rollout: an array ``(N, T, dof)`` (a table per rollout at the
shared ``voltage_times``; ``T = 1``: constant volts) or a list of ``N`` callables ``V(t, q,
qd)``. Any other ``voltage`` (a number, one per joint, one table, one callable) is shared.
The motors (``motors``, or the model file's) are shared.

The rollouts run one after the other, each exactly the single run
:func:`~robodyn.motion.voltage.simulate_voltage` makes (the same drives, options and
integrator: equal to the bit), on one time grid: ``dt`` (``"rk4"``,
``"semi-implicit-euler"``) or ``sample_dt`` (the adaptive methods). The result is a batch
:class:`~robodyn.motion.result.Simulation`; ``info`` has the motors' ``current``,
``voltage``, ``electric_power`` and ``drive_torque`` ``(N, T, dof)`` and the
``electric_energy`` and ``copper_loss`` ``(N, dof)``; each rollout's energy balance and
limit report; a rollout that fails is NaN and the batch raises
:class:`~robodyn.motion.rollouts.RolloutError` holding the others, as a torque-driven batch.
"""

from __future__ import annotations

import time
import warnings

import numpy as np

from ..core.errors import InputError, RobodynError
from ..core.progress import tracker
from .checks import EnergyBalanceWarning
from .inputs import TorqueTable, start_state
from .result import Simulation
from .rollouts import (
    RolloutError,
    _check_energy,
    _finish,
    _Models,
    _report_limits,
    _torques,
    _wrenches,
    batch_size,
    start_states,
)
from .single import simulate_one
from .voltage import voltage_drives

__all__ = ["simulate_voltage_many", "voltage_batch"]

#: The motors' series a batch records per sample, ``(N, T, dof)`` each.
SERIES = ("current", "voltage", "electric_power", "drive_torque")
#: The motors' totals a batch records per rollout, ``(N, dof)`` each.
TOTALS = ("electric_energy", "copper_loss")


def _per_rollout(voltage) -> int | None:
    """The ``N`` of per-rollout voltages (a list of ``N`` callables, or ``(N, T, dof)``),
    else None."""
    if isinstance(voltage, (list, tuple)) and voltage and all(callable(v) for v in voltage):
        return len(voltage)
    if callable(voltage) or isinstance(voltage, (str, bytes)):
        return None
    try:
        return np.shape(voltage)[0] if np.ndim(voltage) == 3 else None
    except ValueError:  # a ragged list: the single run's check names it
        return None


def voltage_batch(robot, q0, qd0, tau, h_e, voltage) -> int | None:
    """The number of rollouts the arguments ask for (module docstring), or None for one
    run; an :class:`InputError` where the batched arguments disagree."""
    count = batch_size(robot, q0, qd0, tau, h_e, None)
    mine = _per_rollout(voltage)
    if count is not None and mine is not None and count != mine:
        raise InputError(f"voltage: {mine} rollouts of voltages for a batch of {count} (q0, "
                         "qd0, tau or h_e); give one voltage per rollout, or one for all")
    return count if mine is None else mine


def _voltages(voltage, n: int) -> list:
    """One voltage per rollout (the shared one repeated: the same object)."""
    if _per_rollout(voltage) is None:
        return [voltage] * n
    if isinstance(voltage, (list, tuple)):
        return list(voltage)
    arr = np.asarray(voltage, dtype=float)
    return [arr[r] for r in range(n)]


def simulate_voltage_many(robot, motors, q0, qd0, n: int, *, voltage, voltage_times, tau,
                          tau_times, h_e, options, efficiency_speed: float = 1.0,
                          joints=None) -> Simulation:
    """``n`` voltage-driven rollouts (module docstring), integrated as ``options`` (checked
    :class:`~robodyn.motion.options.SimulationOptions`) say."""
    if options.times is None:
        raise InputError(f"method {options.method!r} without dt or sample_dt: a batch of "
                         "voltage-driven runs needs one time grid; give sample_dt (e.g. 0.01) "
                         "or a fixed-step method with dt")
    q0, qd0 = start_states(robot, n, q0, qd0)
    dof = robot.dof
    built = {}  # a shared voltage's drives built once
    drives = []
    for v in _voltages(voltage, n):
        if id(v) not in built:
            built[id(v)] = voltage_drives(robot, motors, v, voltage_times, options.duration,
                                          efficiency_speed, joints)
        drives.append(built[id(v)])
    models = _Models(robot, n, None)
    torques, wrenches = _torques(tau, tau_times, options.duration, n, dof), _wrenches(h_e, n)
    alone = options.one_rollout()
    runs, failed = [], {}
    start = time.perf_counter()
    with tracker(options.progress, n, f"simulating {n} voltage-driven rollouts") as bar:
        for r in range(n):
            load = torques[r]
            try:
                if isinstance(load, TorqueTable) and not np.isfinite(load.values).all():
                    raise RobodynError("its load torque table is not finite")
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", EnergyBalanceWarning)
                    runs.append(simulate_one(
                        robot, *start_state(robot, q0[r], qd0[r]),
                        load.values if isinstance(load, TorqueTable) else load,
                        load.times if isinstance(load, TorqueTable) else tau_times,
                        wrenches[r], alone, drives=drives[r]))
            except RobodynError as exc:
                failed[r] = str(exc).removeprefix("simulate: ")
                runs.append(None)
            bar.update(r + 1)
    return _batch(models, runs, failed, wrenches, options, time.perf_counter() - start)


def _batch(models, runs, failed, wrenches, options, wall) -> Simulation:
    """The runs as one batch :class:`Simulation`, NaN where a rollout failed; its checks;
    the samples ``options.keep`` of a fixed-step grid."""
    n = len(runs)
    done = [s for s in runs if s is not None]
    if not done:
        raise RolloutError(f"simulate: every one of the {n} voltage-driven rollouts failed; "
                           f"rollout 0: {failed[0]}", None, failed)
    first = done[0]

    def stacked(get):  # (N, ...) of get(run), NaN for a failed rollout
        like = get(first)
        return np.stack([np.full(like.shape, np.nan) if s is None else get(s) for s in runs])

    info = {k: v for k, v in first.info.items() if k in ("dt", "last_step", "rtol", "atol")}
    info["steps"] = [s.info.get("steps") if s is not None else None for s in runs]
    for name in SERIES + TOTALS:
        info[name] = stacked(lambda s, name=name: s.info[name])
    sim = _finish(models, first.t, *(stacked(lambda s, k=k: getattr(s, k))
                                     for k in ("q", "qd", "qdd", "tau")), info)
    sim.info.update(method=options.method, wall_time=wall, rollouts=n, failed=failed,
                    realtime_factor=(n * sim.t[-1] / wall) if wall > 0 else np.inf)
    _check_energy(models, sim, wrenches, failed)
    if options.check_limits:
        _report_limits(models.base, sim)
    keep = options.keep
    if keep is not None:
        for name in SERIES:
            sim.info[name] = sim.info[name][:, keep]
        sim = Simulation(sim.t[keep], sim.q[:, keep], sim.qd[:, keep], sim.qdd[:, keep],
                         sim.tau[:, keep], sim.kinetic[:, keep], sim.potential[:, keep],
                         sim.info)
    if options.sample_dt is not None:
        sim.info["sample_dt"] = options.sample_dt
    if failed:
        raise RolloutError(f"simulate: {len(failed)} of {n} voltage-driven rollouts failed "
                           f"({', '.join(map(str, sorted(failed)[:20]))}); the others finished "
                           "and are in the error's .simulation; rollout "
                           f"{min(failed)}: {failed[min(failed)]}", sim, failed)
    return sim
