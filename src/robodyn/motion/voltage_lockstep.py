"""Fixed-step voltage-driven rollouts stepped together: ``rd.rollout(robot, q0s, ...,
voltage=, motors=, dt=, method="rk4" | "semi-implicit-euler")`` of a tree (a closed
mechanism's batch runs one after another, :mod:`robodyn.motion.voltage_batch`).

The ``N`` rollouts' states ``Y`` ``(N, size)`` (each ``y = (q, qd, i_L, E, Q)`` of
:class:`~robodyn.motion.voltage.Rates`) advance in lockstep on the shared time grid by the
single run's own steps (:data:`~robodyn.motion.voltage_fixed.STEPS`, the same functions on
the rows), every stage calling the robot's batched forward dynamics once for all the
rollouts still going. The motors are shared; what differs by rollout is evaluated rollout
by rollout: a voltage of the state (a callable ``V(t, q, qd)``) or a rollout's own table,
a load ``tau``, a wrench callable. A voltage shared by all that does not depend on the
state (a constant, one table), a load table shared by all, and no load at all are
evaluated once a stage.

Each rollout's numbers are its single run's, bit for bit: the batched kernels compute each
row with the program the single sample runs, and the motors' equations are elementwise (a
coupled transmission's products ``N qd`` written out as sums, which round the same in a
batch). A stage that raises (a callable's bad value) or a step that
leaves the finite range is done again rollout by rollout with the single run's step
(:func:`~robodyn.motion.voltage_fixed.advance`), which names the error; that rollout stops
there (``failed``) and the others go on. rk4's stability check at the start
(:func:`~robodyn.motion.voltage_fixed.stiff_circuit`) is each rollout's own.
"""

from __future__ import annotations

import time

import numpy as np

from ..core.errors import RobodynError
from .inputs import (
    MAX_MAGNITUDE,
    Problem,
    TorqueTable,
    checked_wrench,
    start_state,
    torque_input,
    torque_value,
    wrench_value,
)
from .single import finish_run
from .voltage import Rates, voltage_result
from .voltage_fixed import STEPS, advance, grid_info, stiff_circuit

__all__ = ["step_together", "problems_of", "BatchRates"]


class BatchRates(Rates):
    """The :class:`~robodyn.motion.voltage.Rates` of the rollouts ``rows`` (set before each
    call) of a batch: ``problems`` one per rollout (its start, load ``torque`` and
    ``wrench``, checked; its ``drives``, the shared motors with its voltage); the states
    ``y`` ``(len(rows), size)``."""

    def __init__(self, robot, problems: list[Problem]):
        super().__init__(robot, problems[0].drives, None, None)
        self.problems = problems
        self.single = {}
        self._rows = self._plan = None
        self.rows = np.arange(len(problems))

    def one(self, r: int) -> Rates:
        """The single run's rates of rollout ``r``."""
        if r not in self.single:
            p = self.problems[r]
            self.single[r] = Rates(self.robot, p.drives, p.torque, p.wrench)
        return self.single[r]

    @property
    def rows(self) -> np.ndarray:
        """The rollouts the next calls evaluate (their positions in ``problems``)."""
        return self._rows

    @rows.setter
    def rows(self, rows) -> None:
        if rows is not self._rows:  # what is shared among them, worked out once
            self._rows, self._plan = rows, self._planned(rows)

    def _planned(self, rows):
        """``(voltages, load, wrench, plain, pushed)`` for ``rows``: the voltages' groups
        ``(drives, positions, state_free)``; the load shared by all when it is none or one
        table (else None: row by row); the wrench shared by all (not a callable) or
        ``(plain, pushed)``, the positions without and with one."""
        groups = {}
        for p, r in enumerate(rows):
            groups.setdefault(id(self.problems[r].drives), []).append(p)
        voltages = []
        for where in groups.values():
            drives = self.problems[rows[where[0]]].drives
            voltages.append((drives, where, getattr(drives.voltage, "state_free", False)))
        loads = [self.problems[r].torque for r in rows]
        load = loads[0] if all(x is loads[0] for x in loads) and (
            loads[0] is None or isinstance(loads[0], TorqueTable)) else None
        wrenches = [self.problems[r].wrench for r in rows]
        shared = all(w is wrenches[0] for w in wrenches) and not callable(wrenches[0])
        return (voltages, (load,) if load is not None or loads[0] is None and all(
            x is None for x in loads) else None, (wrenches[0],) if shared else None,
            [p for p, w in enumerate(wrenches) if w is None],
            [p for p, w in enumerate(wrenches) if w is not None])

    def _voltages(self, t, q, qd, i_state):
        V = np.empty((len(self.rows), len(self.drives.R)))
        for drives, where, state_free in self._plan[0]:
            if state_free:  # a constant or one table: once for all its rollouts
                V[where] = drives.voltage(t, None, None, None)
                continue
            for p in where:
                V[p] = drives.voltage(t, q[p], qd[p],
                                      i_state[p] if drives.inductive.all() else None)
        return V

    def _loads(self, t, q, qd):
        shared = self._plan[1]
        if shared is not None:  # none, or one table: once
            return torque_value(shared[0], t, None, None, self.n)
        return np.stack([torque_value(self.problems[r].torque, t, q[p], qd[p], self.n)
                         for p, r in enumerate(self.rows)])

    def _accelerations(self, t, q, qd, tau):
        _, _, shared, plain, pushed = self._plan
        if shared is not None:  # none, or one for all
            return self.robot.forward_dynamics(q, qd, tau, h_e=shared[0])
        qdd = np.empty(np.shape(qd))
        if plain:
            qdd[plain] = self.robot.forward_dynamics(q[plain], qd[plain], tau[plain])
        if pushed:
            h = np.stack([wrench_value(self.problems[self.rows[p]].wrench, t, q[p], qd[p])
                          for p in pushed])
            qdd[pushed] = self.robot.forward_dynamics(q[pushed], qd[pushed], tau[pushed],
                                                      h_e=h)
        return qdd

    def parts(self, t, y):
        """``(V, i, tau, qdd)`` of the rows ``y`` (as :meth:`Rates.parts`, row by row)."""
        q, qd, i_state = (np.ascontiguousarray(x) for x in self.split(y))  # the kernels' fast
        V = self._voltages(t, q, qd, i_state)
        i = self.drives.currents(V, qd, i_state)
        tau = self.drives.torque(i, qd) + self._loads(t, q, qd)
        return V, i, tau, self._accelerations(t, q, qd, tau)


def _rowwise(rates: BatchRates, batched, single, rows, failed: dict, size: int,
             bounded: bool):
    """``(rows, batched(rows))``, ``(len(rows), size)``; where it raises, or (``bounded``:
    states) gives a row past :data:`~robodyn.motion.inputs.MAX_MAGNITUDE`, the rows again by
    ``single(r)``, the single run's own: a row whose single run raises is dropped, its error
    in ``failed``."""
    rates.rows = rows
    try:
        with np.errstate(all="ignore"):
            out = batched(rows)
        redo = np.flatnonzero(~np.all(np.abs(out[:, :2 * rates.n + rates.k]) <= MAX_MAGNITUDE,
                                      axis=1)) if bounded else []
    except RobodynError:
        out, redo = np.empty((len(rows), size)), range(len(rows))
    keep = np.ones(len(rows), dtype=bool)
    for p in redo:
        try:
            out[p] = single(int(rows[p]))
        except RobodynError as exc:
            failed[int(rows[p])] = str(exc).removeprefix("simulate: ")
            keep[p] = False
    return (rows, out) if keep.all() else (rows[keep], out[keep])  # the same rows: planned


def step_together(robot, problems: list[Problem | None], raw_loads: list, options, bar,
                  failed: dict) -> list:
    """The fixed-step runs of ``problems`` (one per rollout; None where its set-up failed,
    already in ``failed``) stepped together (module docstring), each finished as its single
    run (:func:`~robodyn.motion.single.finish_run`; ``raw_loads`` the loads as given):
    a list of :class:`~robodyn.motion.result.Simulation`, None where a rollout failed
    (its reason added to ``failed``). ``bar`` is told the rollouts' share done."""
    live = [p for p in problems if p is not None]
    if not live:
        return [None] * len(problems)
    start = time.perf_counter()
    rates = BatchRates(robot, [p if p is not None else live[0] for p in problems])
    t, method, k_inductive = options.times, options.method, rates.k
    n, count = robot.dof, len(problems)
    size = 2 * n + k_inductive + 2 * n
    Y = np.full((count, len(t), size), np.nan)
    rows = []
    for r, p in enumerate(problems):
        if p is None:
            continue
        Y[r, 0] = np.concatenate([p.q0, p.qd0, np.zeros(k_inductive + 2 * n)])
        if method == "rk4":
            try:
                stiff_circuit(rates.one(r), Y[r, 0], options)
            except RobodynError as exc:
                failed[r] = str(exc).removeprefix("simulate: ")
                continue
        rows.append(r)
    rows = np.array(rows, dtype=int)
    step = STEPS[method]
    every = max(1, (len(t) - 1) // 100)
    for k in range(len(t) - 1):  # budget: at most MAX_STEPS, checked by the time grid
        if not len(rows):
            break
        tk, h = float(t[k]), float(t[k + 1] - t[k])
        rows, Y[rows, k + 1] = _rowwise(
            rates, lambda rs, tk=tk, h=h, k=k: step(rates, tk, Y[rs, k], h),
            lambda r, tk=tk, h=h, k=k: advance(rates.one(r), method, tk, h, Y[r, k]),
            rows, failed, size, bounded=True)
        if (k + 1) % every == 0:
            bar.update(count * (k + 1) / (len(t) - 1))
    return _finished(robot, rates, t, Y, rows, raw_loads, options, failed,
                     time.perf_counter() - start)


def _finished(robot, rates: BatchRates, t, Y, rows, raw_loads, options, failed, wall):
    """The samples of the rollouts ``rows`` (:meth:`BatchRates.parts` at every time, the
    single run's where a row raises) and each rollout's :class:`Simulation`."""
    count, n, nm = len(Y), robot.dof, len(rates.drives.R)
    width = [nm, nm, n, n]  # V, i, tau, qdd
    parts = np.full((count, len(t), sum(width)), np.nan)
    for k, tk in enumerate(t):
        if not len(rows):
            break
        rows, parts[rows, k] = _rowwise(
            rates, lambda rs, tk=float(tk), k=k: np.concatenate(rates.parts(tk, Y[rs, k]),
                                                                 axis=-1),
            lambda r, tk=float(tk), k=k: np.concatenate(rates.one(r).parts(tk, Y[r, k])),
            rows, failed, sum(width), bounded=False)
    runs = [None] * count
    cuts = np.cumsum(width)[:-1]
    for r in rows:
        try:
            sim = voltage_result(rates.one(r), t, Y[r].T, np.split(parts[r], cuts, axis=1),
                                 grid_info(options))
            runs[r] = finish_run(robot, sim, raw_loads[r], rates.problems[r].wrench, options,
                                 wall / count)
        except RobodynError as exc:
            failed[int(r)] = str(exc).removeprefix("simulate: ")
    return runs


def problems_of(robot, drives: list, starts, loads: list, tau_times, wrenches: list, options,
                failed: dict) -> list:
    """One checked :class:`Problem` per rollout of ``starts`` (``(q0, qd0)`` pairs), as
    :func:`~robodyn.motion.single.simulate_one` makes them (a load or wrench shared by all
    checked once), None where its check fails (the reason in ``failed``)."""
    loads_made, wrenches_made, out = {}, {}, []
    for r, ((q0, qd0), tau, h_e) in enumerate(zip(starts, loads, wrenches, strict=True)):
        try:
            if id(tau) not in loads_made:
                loads_made[id(tau)] = torque_input(tau, tau_times, options.duration, robot.dof)
            if id(h_e) not in wrenches_made:
                wrenches_made[id(h_e)] = checked_wrench(h_e, robot)
            q0, qd0 = start_state(robot, q0, qd0)
            out.append(Problem(robot=robot, q0=q0, qd0=qd0, torque=loads_made[id(tau)],
                               wrench=wrenches_made[id(h_e)], drives=drives[r]))
        except RobodynError as exc:
            failed[r] = str(exc).removeprefix("simulate: ")
            out.append(None)
    return out
