"""Fixed-step runs of a closed mechanism, one or many at once: the projected RK4 of
:mod:`robodyn.motion.closed` (:meth:`ClosedChain.rk4_step
<robodyn.dynamics.constrained.ClosedChain.rk4_step>`) vectorised over ``N`` runs.

``N`` start states ``(q0, qd0)`` step in lockstep on the time grid: at every RK4 stage the
robot's batched kernels (``M``, ``h``, ``K``, ``Kdot qd``, the frames' poses) are called once
for all the runs still going, the ``N`` reduced systems ``(S^T M S) ydd = S^T (tau - h - M
s)`` are solved together, and each run's passive joints are assembled by its own Newton
iteration (a run that has converged is left alone, so each run's numbers are those it
has on its own). A single run (:func:`robodyn.simulate` without a batch) is the batch of
one: one definition of the step.

Checked per run, with the run named: the start ``q0[r]`` assembles from its actuated
values (its passive ones the guess), the start velocity satisfies ``|K qd0[r]| <=``
:data:`~robodyn.motion.closed.VELOCITY_TOLERANCE`. A run whose loops cannot be closed later
(a singular configuration it cannot pass) or whose torque is not finite stops there, NaN
from then on, while the others run on (``failed``: the reasons by run, which
:func:`robodyn.rollout` raises as a :class:`~robodyn.motion.rollouts.RolloutError`).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError, ModelError, RobodynError
from ..dynamics.constrained import STEP_TOLERANCE, AssemblyError
from .inputs import TorqueTable, torque_value, wrench_value

__all__ = ["run_closed_batch", "start_on_loops", "wrench_torques", "VELOCITY_TOLERANCE"]

#: ``|K qd0|`` (m/s, rad/s) above which a start velocity breaks the loops.
VELOCITY_TOLERANCE = 1e-8


class RowsFailed(RobodynError):
    """Some runs of a batch failed at a stage: ``rows`` their positions in the stage's
    batch, ``errors`` the error of each."""

    def __init__(self, rows, errors):
        super().__init__(str(errors[0]))
        self.rows, self.errors = list(rows), list(errors)


def start_on_loops(chain, q0: np.ndarray, qd0: np.ndarray, single: bool) -> np.ndarray:
    """The start states ``q0`` ``(N, n)`` assembled from their actuated values (the passive
    ones the guess) and ``qd0`` ``(N, n)`` checked to keep the loops closed; an error names
    the run (``q0[r]``, ``qd0[r]``; ``q0``, ``qd0`` for a single run)."""
    def name(field, r):
        return field if single else f"{field}[{r}]"

    try:
        q = chain.assemble(q0[:, chain.actuated], q0, tol=STEP_TOLERANCE).q
    except AssemblyError as exc:
        more = f" ({len(exc.rows)} runs fail)" if len(exc.rows) > 1 else ""
        raise ModelError(f"{name('q0', exc.rows[0])}: its loops do not close from its actuated "
                         f"values{more}: {exc.reasons[0]}") from None
    broken = np.abs(np.einsum("nij,nj->ni", chain.constraint_jacobian(q), qd0)).max(axis=1)
    bad = np.flatnonzero(broken > VELOCITY_TOLERANCE)
    if len(bad):
        r = int(bad[0])
        more = f" ({len(bad)} runs break them)" if len(bad) > 1 else ""
        raise InputError(f"{name('qd0', r)}: the start velocity breaks the loops (|K qd0| = "
                         f"{broken[r]:.3g}){more}; give the actuated velocities and the passive "
                         "ones that follow, qd0 = S yd with S = "
                         "robot.closed_chain().velocity_map(q0)")
    return q


def _torques_at(torques, extra, dof: int):
    """``at(t, q, qd, rows) -> (tau, tau + extra)``: the tree's torques of the runs ``rows``
    at ``(q, qd)`` ``(R, n)``: one table or none shared by all evaluated once, else run by
    run; ``extra(t, q, qd, rows)`` (or None) adds the torques of the external wrenches. A
    run whose torque is not finite raises :class:`RowsFailed`."""
    def at(t, q, qd, rows):
        first = torques[rows[0]]
        if all(torques[r] is first for r in rows) and (first is None or
                                                        isinstance(first, TorqueTable)):
            tau = np.zeros(q.shape) if first is None else \
                np.tile(np.asarray(first(t), dtype=float), (len(rows), 1))
            bad = np.flatnonzero(~np.isfinite(tau).all(axis=1))
            if len(bad):
                raise RowsFailed(bad, [InputError(f"its torque table is not finite at t = "
                                                  f"{t:.6g} s")] * len(bad))
        else:
            tau, bad, errors = np.empty(q.shape), [], []
            for i, r in enumerate(rows):
                try:
                    tau[i] = torque_value(torques[r], t, q[i], qd[i], dof)
                except RobodynError as exc:
                    bad.append(i)
                    errors.append(exc)
            if bad:
                raise RowsFailed(bad, errors)
        return tau, (tau if extra is None else tau + extra(t, q, qd, rows))

    return at


def wrench_torques(chain, wrenches: list):
    """``extra(t, q, qd, rows)``: the tree's torques ``-J^T h_e`` (:meth:`ClosedChain.
    wrench_torques <robodyn.dynamics.constrained.ClosedChain.wrench_torques>`) of the runs
    ``rows``' wrenches (one per run: None, 6 values, ``{frame: 6 values}`` or a callable
    ``h_e(t, q, qd)``) at ``(q, qd)`` ``(R, n)``; None when no run has one. One wrench
    shared by all is applied at once; a callable's value that is not 6 finite numbers
    fails its run (:class:`RowsFailed`)."""
    if all(w is None for w in wrenches):
        return None

    def extra(t, q, qd, rows):
        first = wrenches[rows[0]]
        if all(wrenches[r] is first for r in rows) and not callable(first):
            return chain.wrench_torques(q, first)
        out, bad, errors = np.zeros(q.shape), [], []
        for i, r in enumerate(rows):
            try:
                h = wrench_value(wrenches[r], t, q[i], qd[i])
            except RobodynError as exc:
                bad.append(i)
                errors.append(exc)
                continue
            if h is not None:
                out[i] = chain.wrench_torques(q[i], h)
        if bad:
            raise RowsFailed(bad, errors)
        return out

    return extra


def _attempt(fn, rows: np.ndarray, failed: dict, where: str):
    """``(rows, fn(rows))`` for the runs still going; a run that fails in it
    (:class:`AssemblyError`, :class:`RowsFailed`) is dropped, its error kept in ``failed``
    with ``where`` (the step and time), and ``fn`` run again on the others: at most once
    per run."""
    while len(rows):
        try:
            return rows, fn(rows)
        except AssemblyError as exc:
            errors = [ModelError(why) for why in exc.reasons]
            positions = exc.rows
        except RowsFailed as exc:
            errors, positions = exc.errors, exc.rows
        if not positions:  # pragma: no cover - a failure names its runs
            raise RobodynError(f"{where}: a step failed without naming its runs")
        for i, error in zip(positions, errors):
            kind = type(error) if type(error) in (InputError, ModelError) else RobodynError
            failed[int(rows[i])] = kind(f"{where}: {str(error).removeprefix('simulate: ')}")
        rows = np.delete(rows, positions)
    return rows, None


def run_closed_batch(chain, q0: np.ndarray, qd0: np.ndarray, torques: list, times, bar,
                     extra=None, single: bool = False):
    """The projected RK4 runs of ``chain`` (a :class:`~robodyn.dynamics.constrained.
    ClosedChain`) from ``q0``, ``qd0`` ``(N, n)`` on the time grid ``times`` (module
    docstring), driven by ``torques`` (one per run: None, a
    :class:`~robodyn.motion.inputs.TorqueTable` or a callable ``tau(t, q, qd)``) and
    ``extra(t, q, qd, rows)``, the torques of external wrenches (or None). ``bar`` is told
    the time after every step.

    Returns ``(Q, QD, QDD, TAU, closure, failed)``: ``(N, T, n)`` arrays (``TAU`` the given
    torques, not the wrenches'), ``closure`` ``(N, T)`` the largest ``|phi|`` of each
    sample, ``failed`` ``{run: error}`` (its samples NaN after its failure)."""
    n_runs, dof = qd0.shape
    q = start_on_loops(chain, q0, qd0, single)
    yd = qd0[:, chain.actuated].copy()
    count = len(times)
    Q, QD, QDD, TAU = (np.full((n_runs, count, dof), np.nan) for _ in range(4))
    closure = np.full((n_runs, count), np.nan)
    torque = _torques_at(torques, extra, dof)
    rows, failed = np.arange(n_runs), {}
    for k, t in enumerate(times):
        t = float(t)

        def sample(rows, t=t):
            S, s = chain.velocity_terms(q[rows], yd[rows])
            qd = np.einsum("nia,na->ni", S, yd[rows])
            tau, total = torque(t, q[rows], qd, rows)
            ydd = chain.reduced_acceleration(q[rows], yd[rows], total)
            return qd, tau, np.einsum("nia,na->ni", S, ydd) + s

        rows, got = _attempt(sample, rows, failed, f"step {k} (t = {t:.6g} s)")
        if got is None:
            break
        Q[rows, k], (QD[rows, k], TAU[rows, k], QDD[rows, k]) = q[rows], got
        closure[rows, k] = np.abs(chain.residual(q[rows])).max(axis=-1)
        if k + 1 == count:
            break
        h = float(times[k + 1]) - t

        def step(rows, t=t, h=h):
            return chain.rk4_step(q[rows], yd[rows], t, h,
                                  lambda ts, qs, qds: torque(ts, qs, qds, rows)[1])

        rows, got = _attempt(step, rows, failed, f"step {k} (t = {t:.6g} s)")
        if got is None:
            break
        q[rows], yd[rows] = got
        bar.update(times[k + 1])
    return Q, QD, QDD, TAU, closure, failed
