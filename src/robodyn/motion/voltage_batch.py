"""A batch of voltage-driven runs: ``rd.rollout(robot, q0s, ..., voltage=..., motors=...)``
(or :func:`robodyn.simulate` with a batched argument and ``voltage=``).

Batched, as :mod:`robodyn.motion.rollouts` takes them: ``q0`` ``(N, dof)``, ``qd0`` ``(N,
dof)``, a load torque ``tau`` ``(N, T, dof)`` or a list of ``N`` callables, ``h_e`` ``(N,
6)``; and the voltages per rollout: an array ``(N, T, dof)`` (a table per rollout at the
shared ``voltage_times``; ``T = 1``: constant volts) or a list of ``N`` callables ``V(t, q,
qd)``. Any other ``voltage`` (a number, one per joint, one table, one callable) is shared.
The motors (``motors``, or the model file's) are shared.

Each rollout is exactly the single run :func:`~robodyn.motion.voltage.simulate_voltage`
makes (the same drives, options, checks and integrator: equal to the bit), on one time
grid: ``dt`` (``"rk4"``, ``"semi-implicit-euler"``) or ``sample_dt`` (the adaptive
methods). Fixed steps of a tree (two rollouts or more) step together, the batched kernels
called once a stage for all (:mod:`robodyn.motion.voltage_lockstep`); the adaptive methods
and a closed mechanism's rollouts run one after the other. The result is a batch
:class:`~robodyn.motion.result.Simulation`; ``info`` has the motors' ``current``,
``voltage``, ``electric_power`` and ``drive_torque`` ``(N, T, dof)`` and the
``electric_energy`` and ``copper_loss`` ``(N, dof)``; each rollout's energy balance (a
list) and limit report (by rollout), with one warning of each kind for the batch. A rollout
that fails is NaN and is named in the ``failed`` that :func:`simulate_voltage_many` returns
beside the batch (:func:`robodyn.rollout` raises its
:class:`~robodyn.motion.rollouts.RolloutError`, holding the others, as for torques).
"""

from __future__ import annotations

import time
import warnings
from dataclasses import replace

import numpy as np

from ..core.errors import InputError, RobodynError, warn
from ..core.progress import tracker
from .checks import EnergyBalanceWarning, JointLimitWarning
from .closed import closed
from .inputs import start_state
from .result import Simulation
from .single import simulate_one
from .voltage import VOLTAGE_FIXED, voltage_drives, voltage_settings
from .voltage_lockstep import problems_of, step_together

__all__ = ["simulate_voltage_many", "per_rollout"]

#: The motors' series a batch records per sample, ``(N, T, dof)`` each.
SERIES = ("current", "voltage", "electric_power", "drive_torque")
#: The motors' totals a batch records per rollout, ``(N, dof)`` each.
TOTALS = ("electric_energy", "copper_loss")


def _callables(value) -> bool:
    return isinstance(value, (list, tuple)) and bool(value) and all(callable(v) for v in value)


def _ndim(value) -> int | None:
    """``np.ndim`` of an array-like, None for a callable, a mapping, text or a ragged list."""
    if value is None or callable(value) or isinstance(value, (dict, str, bytes)):
        return None
    try:
        return np.ndim(value)
    except ValueError:  # ragged: the single run's check names it
        return None


def per_rollout(voltage) -> int | None:
    """The ``N`` of per-rollout voltages (a list of ``N`` callables, or ``(N, T, dof)``),
    else None."""
    if _callables(voltage):
        return len(voltage)
    return int(np.shape(voltage)[0]) if _ndim(voltage) == 3 else None


def _each(value, n: int, ndim: int) -> list:
    """``value`` per rollout: a list of ``n`` callables or an array with a leading rollout
    axis (``ndim`` dimensions) split, anything else shared."""
    if _callables(value):
        return list(value)
    if _ndim(value) == ndim:
        return list(np.asarray(value, dtype=float))
    return [value] * n


def simulate_voltage_many(robot, motors, q0, qd0, count: int | None, duration: float = 1.0,
                          *, voltage, voltage_times=None, efficiency_speed: float = 1.0,
                          tau=None, tau_times=None, h_e=None, values=None,
                          **options) -> tuple[Simulation | None, dict]:
    """The voltage-driven rollouts (module docstring) of :func:`robodyn.rollout`'s
    arguments, ``count`` the size of its batched ``q0``, ``qd0``, ``tau``, ``h_e``
    (:func:`~robodyn.motion.rollouts.batch_size`, None when none is batched): ``(batch,
    failed)``, ``failed`` ``{rollout: reason}`` and ``batch`` None when every one failed."""
    settings, joints = voltage_settings(robot, voltage, values, duration, options)
    mine = per_rollout(voltage)
    if count is not None and mine is not None and count != mine:
        raise InputError(f"voltage: {mine} rollouts of voltages for a batch of {count} (q0, "
                         "qd0, tau or h_e); give one voltage per rollout, or one for all")
    n = mine or count or 1
    if settings.times is None:
        raise InputError(f"method {settings.method!r} without dt or sample_dt: a batch of "
                         "voltage-driven runs needs one time grid; give sample_dt (e.g. 0.01) "
                         "or a fixed-step method with dt")
    built, drives = {}, []  # a shared voltage's drives built once
    for v in _each(voltage, n, 3):
        if id(v) not in built:
            built[id(v)] = voltage_drives(robot, motors, v, voltage_times, settings.duration,
                                          efficiency_speed, joints)
        drives.append(built[id(v)])
    starts = zip(_each(q0, n, 2), _each(qd0, n, 2), strict=True)
    loads, wrenches = _each(tau, n, 3), _each(h_e, n, 2)
    alone = replace(settings, progress=False)
    runs, failed = [], {}
    start = time.perf_counter()
    together = settings.method in VOLTAGE_FIXED and not closed(robot) and n > 1
    with tracker(settings.progress, n, f"simulating {n} voltage-driven rollouts") as bar, \
            warnings.catch_warnings():
        if together:  # stepped in lockstep, the batched kernels once a stage for all
            warnings.simplefilter("ignore", EnergyBalanceWarning)  # (warned once, below)
            warnings.simplefilter("ignore", JointLimitWarning)
            problems = problems_of(robot, drives, starts, loads, tau_times, wrenches, alone,
                                   failed)
            runs = step_together(robot, problems, loads, alone, bar, failed)
        for r, (q0_r, qd0_r) in enumerate(() if together else starts):
            try:
                with warnings.catch_warnings():  # the batch warns once for all (below)
                    warnings.simplefilter("ignore", EnergyBalanceWarning)
                    warnings.simplefilter("ignore", JointLimitWarning)
                    runs.append(simulate_one(robot, *start_state(robot, q0_r, qd0_r), loads[r],
                                             tau_times, wrenches[r], alone, drives=drives[r]))
            except RobodynError as exc:
                failed[r] = str(exc).removeprefix("simulate: ")
                runs.append(None)
            bar.update(r + 1)
    done = [s for s in runs if s is not None]
    if not done:
        return None, failed
    sim = _stacked(runs, done[0])
    wall = time.perf_counter() - start
    sim.info.update(method=settings.method, wall_time=wall, rollouts=n, failed=failed,
                    realtime_factor=(n * sim.t[-1] / wall) if wall > 0 else np.inf)
    _warn(sim.info)
    return sim, failed


def _stacked(runs, first) -> Simulation:
    """The runs as one batch :class:`Simulation`, NaN where a rollout failed."""
    def stacked(get):  # (N, ...) of get(run)
        like = get(first)
        return np.stack([np.full(np.shape(like), np.nan) if s is None else get(s)
                         for s in runs])

    info = {k: v for k, v in first.info.items()
            if k in ("dt", "last_step", "rtol", "atol", "sample_dt")}
    info["steps"] = [None if s is None else s.info.get("steps") for s in runs]
    for name in SERIES + TOTALS:
        info[name] = stacked(lambda s, name=name: s.info[name])
    info["energy_balance"] = [None if s is None else s.info.get("energy_balance")
                              for s in runs]
    crossed = {r: s.info["limits_crossed"] for r, s in enumerate(runs)
               if s is not None and s.info.get("limits_crossed")}
    if crossed:
        info["limits_crossed"] = crossed
    return Simulation(first.t, *(stacked(lambda s, k=k: getattr(s, k))
                                 for k in ("q", "qd", "qdd", "tau", "kinetic", "potential")),
                      info)


def _warn(info) -> None:
    """One :class:`EnergyBalanceWarning` and one :class:`JointLimitWarning` for the batch,
    naming its rollouts that each single run would have warned of."""
    off = [r for r, b in enumerate(info["energy_balance"]) if b is not None and b.off]
    if off:
        warn(EnergyBalanceWarning(
            f"simulate: the work-energy balance of {len(off)} of {info['rollouts']} rollouts "
            f"({', '.join(map(str, off[:10]))}) is off by more than the tolerance (worst "
            f"{max(info['energy_balance'][r].relative for r in off):.1%}): the integration "
            "is not accurate; reduce dt or the tolerances"))
    crossed = info.get("limits_crossed")
    if crossed:
        first = min(crossed)
        warn(JointLimitWarning(
            f"simulate: joint limits crossed (not enforced) in {len(crossed)} of "
            f"{info['rollouts']} rollouts; rollout {first}: " + "; ".join(crossed[first][:4])
            + "; sim.info['limits_crossed'] has them all"))
