"""Closed chains: loop assembly, the constraint Jacobian and its drift, constrained dynamics.

A closed mechanism is its spanning tree (coordinates ``q``, ``n`` of them) and the loop
closures of :mod:`robodyn.model.loops`, ``phi(q) = 0`` (``m`` equations). Differentiated,

    K(q) qd = 0,        K(q) qdd + k(q, qd) = 0,        k = Kdot qd   (the drift term)

with ``K`` the difference of the two frames' geometric Jacobians (rows ``v`` for a
``position`` closure, ``v_x, v_y`` for a ``planar`` one, ``v, w`` for a ``pose``). The
equations of motion of the tree with the loop forces ``lambda`` (Featherstone, "Rigid Body
Dynamics Algorithms", §8.1-8.3; Siciliano et al., "Robotics", §7.3.3):

    M qdd + h = B tau_a + K^T lambda,      h = tau_tree(q, qd, 0)  (C qd + g + friction)

``B`` selects the actuated joints (``actuated:``). Forward dynamics solves the KKT system

    [M  K^T] [ qdd   ]   [B tau_a - h]
    [K   0 ] [-lambda] = [    -k     ]

(:meth:`ClosedChain.forward_dynamics`) or, with the passive velocities ``qd_p = -K_p^-1 K_a
yd`` of the actuated ones ``yd``, the reduced model on the actuated coordinates ``y``
(Featherstone §8.2, ``qd = S yd``, ``qdd = S ydd + s``):

    M_y ydd = tau_a - S^T (h + M s),   M_y = S^T M S,   s_p = -K_p^-1 k, s_a = 0

(:meth:`ClosedChain.reduced_forward_dynamics`). Inverse dynamics gives the actuator torques
``tau_a = S^T tau_tree(q, S yd, S ydd + s)`` (``S^T K^T = 0``, ``S^T B = 1``) and the
loop forces from the passive rows, ``K_p^T lambda = tau_tree_p``.

The closed chain works on the robot's own functions (:data:`CALLS`, its kernels), so it
runs unchanged on a model with couplings (its independent coordinates). Where the robot's
runner has the compiled program of the forward dynamics (the Schur complement of ``M``,
:mod:`robodyn.dynamics.closed_forward_dynamics`, compiled by the kernel tiers:
:mod:`robodyn.codegen.closed_kernel`), :meth:`ClosedChain.forward_dynamics` and the
simulation's stages take its answer for every regular state; a singular one, and every
state before the kernel is built, is solved as above.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError, ModelError
from ..model.loops import CLOSURE_ROWS

#: The robot's methods a :class:`ClosedChain` computes with, in its constructor's order, and
#: its runner (its compiled closed forward dynamics, :meth:`~robodyn.codegen.runner.Runner.
#: closed_forward_dynamics`).
CALLS = ("forward_kinematics", "jacobian", "jacobian_derivative", "mass_matrix",
         "inverse_dynamics", "kinetic_energy", "potential_energy", "gravity_torques",
         "coriolis_matrix", "runner")

#: Newton steps of :meth:`ClosedChain.assemble`, at most.
ASSEMBLY_ITERATIONS = 50
#: Halvings of a Newton step that does not lower the residual, at most.
BACKTRACKS = 12
#: The closure residual (m, rad) an assembly must reach.
ASSEMBLY_TOLERANCE = 1e-12
#: The closure residual (m, rad) of :meth:`ClosedChain.rk4_step`'s assemblies: near a
#: singular configuration a residual ``r`` moves the passive joints by ``r / sigma_min``
#: and their velocities by about ``r / sigma_min^2``, so the steps close the loops to
#: rounding (1e-12 left an energy error of 1e-6 of the energy through a flat parallelogram).
STEP_TOLERANCE = 1e-15
#: The smallest singular value of ``K_p`` relative to its largest below which the
#: configuration is singular (the passive joints cannot follow the actuated ones).
SINGULAR = 1e-9


def _rows(kind: str) -> slice | list:
    """The rows of a frame's ``(v, w)`` Jacobian that a closure of ``kind`` constrains."""
    return {"position": slice(0, 3), "planar": slice(0, 2), "pose": slice(0, 6)}[kind]


def _rotation_error(ra: np.ndarray, rb: np.ndarray) -> np.ndarray:
    """``vee(Ra Rb^T - Rb Ra^T) / 2`` (base axes): zero when the frames are aligned, its
    rate ``w_a - w_b`` there (the angular rows of the closure). Batched over leading axes."""
    e = ra @ np.swapaxes(rb, -1, -2)
    e = (e - np.swapaxes(e, -1, -2)) / 2
    return np.stack([e[..., 2, 1], e[..., 0, 2], e[..., 1, 0]], axis=-1)


class AssemblyError(ModelError):
    """The mechanism cannot follow its actuated coordinates here: :meth:`ClosedChain.assemble`
    found no assembly, or the reduced inertia ``S^T M S`` is singular (a singular
    configuration, the edge of the workspace). ``rows``: the states of a batch that failed
    (``[0]`` for one state), ``reasons`` the message of each."""

    def __init__(self, message: str, rows, reasons):
        super().__init__(message)
        self.rows, self.reasons = list(rows), list(reasons)


@dataclass(frozen=True)
class Assembly:
    """The result of :meth:`ClosedChain.assemble`: the tree's ``q``, the residual's norm, the
    Newton steps taken."""

    q: np.ndarray
    residual: float
    iterations: int


class ClosedChain:
    """The closed mechanism of a robot's ``chain.closures`` (docs/closed-chains.md).

    Made by :meth:`robodyn.Robot.closed_chain`; ``chain`` the model (its ``closures``: the
    loops and actuated joints), ``joints`` the names of the coordinates, then the robot's
    functions :data:`CALLS` (``runner``: anything with a ``closed_forward_dynamics(q, qd,
    tau)`` giving ``(out, ok)`` or None, else None: the NumPy solves only). One state at a
    time (``q`` ``(n,)``), or batches where a method says so."""

    def __init__(self, chain, joints, forward_kinematics, jacobian, jacobian_derivative,
                 mass_matrix, inverse_dynamics, kinetic_energy, potential_energy,
                 gravity_torques=None, coriolis_matrix=None, runner=None):
        closures = chain.closures
        if closures is None or not closures.loops:
            raise ModelError("closed_chain: the model has no loop closures; list them under "
                             "'loops:' in the model file (docs/closed-chains.md)")
        if not chain.single_valued:  # a free base or a ball joint: q is not one per joint
            link = next(link for link in chain.links if not link.joint.model.single)
            raise ModelError(f"closed_chain: joint {link.joint.name or link.name!r} is a "
                             f"{link.joint.type} joint; closed mechanisms are solved for models "
                             "of revolute and prismatic joints (loops in a model with a "
                             "floating base or ball joints: not yet). The robot's own methods "
                             "give its open tree")
        joints = tuple(joints)
        if not closures.actuated:
            raise ModelError("closed_chain: the model names no actuated joints; list them "
                             "under 'actuated:' in the model file")
        missing = [j for j in closures.actuated if j not in joints]
        if missing:
            raise ModelError(f"closed_chain: actuated joint {missing[0]!r} is not a coordinate "
                             f"of the model ({', '.join(joints)})")
        self.loops = closures.loops
        self.joints = joints
        self.actuated = np.array([joints.index(j) for j in closures.actuated])
        self.passive = np.array([i for i in range(len(joints)) if i not in self.actuated],
                                dtype=int)
        self.rows = sum(CLOSURE_ROWS[loop.kind] for loop in self.loops)
        self._fk, self._jac, self._jdot = forward_kinematics, jacobian, jacobian_derivative
        self._mass, self._id = mass_matrix, inverse_dynamics
        self._kinetic, self._potential = kinetic_energy, potential_energy
        self._gravity, self._coriolis = gravity_torques, coriolis_matrix
        self._compiled = getattr(runner, "closed_forward_dynamics", None)

    def __repr__(self) -> str:
        loops = ", ".join(f"{loop.kind} {loop.frame_a}={loop.frame_b}" for loop in self.loops)
        actuated = ", ".join(self.joints[i] for i in self.actuated)
        return (f"ClosedChain({len(self.joints)} joints, {len(self.loops)} loop(s): {loops}; "
                f"{self.rows} constraint rows; actuated: {actuated})")

    # -- kinematics of the loops ------------------------------------------------------
    def residual(self, q) -> np.ndarray:
        """``phi(q)`` ``(m,)`` (``(N, m)`` for ``q`` ``(N, n)``): per loop, ``p_a - p_b``
        (position; x, y of it for planar), then for a pose the rotation error
        ``vee(Ra Rb^T - Rb Ra^T)/2``; base axes."""
        q = np.asarray(q, dtype=float)
        out = []
        for loop in self.loops:
            ta, tb = self._fk(q, loop.frame_a), self._fk(q, loop.frame_b)
            d = ta[..., :3, 3] - tb[..., :3, 3]
            out.append(d[..., :2] if loop.kind == "planar" else d)
            if loop.kind == "pose":
                out.append(_rotation_error(ta[..., :3, :3], tb[..., :3, :3]))
        return np.concatenate(out, axis=-1)

    def constraint_jacobian(self, q) -> np.ndarray:
        """``K(q)`` ``(m, n)`` (``(N, m, n)`` for ``q`` ``(N, n)``): ``phi``'s rate is
        ``K qd`` (exact for positions; for a pose's rotation rows at the closure)."""
        q = np.asarray(q, dtype=float)
        return np.concatenate([(self._jac(q, loop.frame_a) - self._jac(q, loop.frame_b))
                               [..., _rows(loop.kind), :] for loop in self.loops], axis=-2)

    def drift(self, q, qd) -> np.ndarray:
        """``k(q, qd) = Kdot qd`` ``(m,)`` (batched: ``(N, m)``), so ``K qdd + k = 0`` on
        the constraint."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        return np.concatenate([np.einsum("...ij,...j->...i", self._jdot(q, qd, loop.frame_a)
                                         - self._jdot(q, qd, loop.frame_b), qd)
                               [..., _rows(loop.kind)] for loop in self.loops], axis=-1)

    def assemble(self, y, q_guess, tol: float = ASSEMBLY_TOLERANCE,
                 max_iterations: int = ASSEMBLY_ITERATIONS) -> Assembly:
        """The tree's ``q`` with the actuated joints at ``y`` and the passive ones solving
        ``phi(q) = 0``, by Newton from ``q_guess`` (``dq_p = -K_p^+ phi``, least squares, the
        step halved up to :data:`BACKTRACKS` times until ``|phi|`` falls), at most
        ``max_iterations`` steps. An :class:`AssemblyError` (a :class:`ModelError`) names the
        loop left open when no assembly is reached (the actuated values put it out of reach)
        or when ``K_p`` loses rank (a singular configuration).

        Batched: ``y`` ``(N, n_a)`` and ``q_guess`` ``(N, n)`` assemble ``N`` states at once,
        each with its own Newton steps and halvings (a state that has converged is left
        as it is, so each equals its assembly alone); ``Assembly.q`` ``(N, n)``,
        ``residual`` the largest, and the error names the first state that failed
        (``rows`` all of them)."""
        guess = np.array(q_guess, dtype=float)
        one = guess.ndim == 1
        n = len(self.joints)
        if guess.shape[-1:] != (n,) or guess.ndim > 2:
            raise InputError(f"assemble: q_guess has shape {guess.shape}; expected ({n},) or "
                             f"(N, {n})")
        q = guess[None] if one else guess
        guess = q.copy()
        q[:, self.actuated] = np.asarray(y, dtype=float).reshape(-1, len(self.actuated))
        active = np.arange(len(q))
        iterations = np.zeros(len(q), dtype=int)
        failed, norms = {}, np.zeros(len(q))
        for k in range(max_iterations + 1):
            phi = self.residual(q[active])
            norm = np.abs(phi).max(axis=-1)
            norms[active] = norm
            done = norm <= tol
            iterations[active[done]] = k
            keep = ~done
            if k == max_iterations:
                for r, p in zip(active[keep], phi[keep]):
                    failed[int(r)] = (f"loop {self._worst(p)!r} stays open (residual "
                                      f"{norms[r]:.3g} after {max_iterations} Newton steps): no "
                                      "assembly near q_guess for these actuated values")
                break
            active, phi, norm = active[keep], phi[keep], norm[keep]
            if not len(active):
                break
            kp = self.constraint_jacobian(q[active])[:, :, self.passive]
            U, sv, Vt = np.linalg.svd(kp, full_matrices=False)
            singular = sv[:, -1] <= SINGULAR * np.maximum(sv[:, 0], 1e-300)
            for r, p in zip(active[singular], phi[singular]):
                failed[int(r)] = (f"the passive joints cannot close loop {self._worst(p)!r} "
                                  "here (the constraint Jacobian of the passive joints is "
                                  "singular: a singular configuration); move the actuated "
                                  "joints or start from another q_guess")
            active, phi, norm, U, sv, Vt = (a[~singular] for a in (active, phi, norm, U, sv, Vt))
            # the least-squares step K_p^+ phi = V diag(1/sv) U^T phi (K_p has full rank here)
            step = np.einsum("nji,nj->ni", Vt, np.einsum("nkj,nk->nj", U, phi) / sv)
            pending = np.ones(len(active), dtype=bool)
            moved = q[active]
            for _ in range(BACKTRACKS):  # halve each step until its residual falls
                trial = moved[pending]
                trial[:, self.passive] = q[active[pending]][:, self.passive] - step[pending]
                moved[pending] = trial
                lower = np.abs(self.residual(trial)).max(axis=-1) < norm[pending]
                rows = np.flatnonzero(pending)
                step[rows[~lower]] /= 2
                pending[rows[lower]] = False
                if not pending.any():
                    break
            q[active] = moved
        if failed:
            rows = sorted(failed)
            more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
            where = "" if one else f"state {rows[0]}{more}: "
            raise AssemblyError(f"assemble: {where}{failed[rows[0]]}", rows,
                                [failed[r] for r in rows])
        q = self._near(q, guess, tol)
        if one:
            return Assembly(q[0], float(norms[0]), int(iterations[0]))
        return Assembly(q, float(norms.max()), int(iterations.max()))

    def _near(self, q, q_guess, tol: float) -> np.ndarray:
        """``q`` ``(N, n)`` with each passive joint that turns (a full turn changes no
        closure) moved by whole turns to the value nearest its guess: Newton may land a
        revolute joint turns away (-6.33 rad for 0.3), the same assembly; a simulation's
        next step stays continuous (its guess is the last step)."""
        out = q.copy()
        for j in self.passive:
            turns = np.round((q_guess[:, j] - q[:, j]) / (2 * np.pi))
            rows = np.flatnonzero(turns != 0)
            if not len(rows):
                continue
            trial = out[rows]
            trial[:, j] += 2 * np.pi * turns[rows]
            ok = np.abs(self.residual(trial)).max(axis=-1) <= tol
            out[rows[ok]] = trial[ok]
        return out

    def _worst(self, phi) -> str:
        k, best, worst = 0, -1.0, self.loops[0].name
        for loop in self.loops:
            r = float(np.abs(phi[k:k + loop.rows]).max())
            if r > best:
                best, worst = r, loop.name
            k += loop.rows
        return worst

    def velocity_map(self, q) -> np.ndarray:
        """``S(q)`` ``(n, n_a)`` (``(N, n, n_a)`` for ``q`` ``(N, n)``): ``qd = S yd`` keeps
        ``K qd = 0`` (actuated rows the identity, passive rows ``-K_p^+ K_a``)."""
        K = self.constraint_jacobian(q)
        if K.ndim == 2:
            return self._velocity_map(K[None], np.linalg.pinv(K[None][:, :, self.passive]))[0]
        return self._velocity_map(K, np.linalg.pinv(K[:, :, self.passive]))

    def _velocity_map(self, K, pinv) -> np.ndarray:
        """``S`` ``(N, n, n_a)`` from ``K`` ``(N, m, n)`` and ``K_p^+`` (``pinv``: the
        least-norm least squares, singular values below 1e-15 of the largest cut, the zero
        ``z`` row of a planar mechanism's position closure)."""
        S = np.zeros((len(K), len(self.joints), len(self.actuated)))
        S[:, self.actuated] = np.eye(len(self.actuated))
        S[:, self.passive] = -pinv @ K[:, :, self.actuated]
        return S

    def _tau(self, tau_a) -> np.ndarray:
        tau = np.zeros(len(self.joints))
        tau[self.actuated] = tau_a
        return tau

    # -- dynamics -----------------------------------------------------------------------
    def forward_dynamics(self, q, qd, tau_a) -> tuple[np.ndarray, np.ndarray]:
        """``(qdd, lambda)`` of the KKT system (module docstring): the tree's accelerations
        and the loop forces, ``M qdd + h = B tau_a + K^T lambda``, ``K qdd + k = 0``.
        Rows of ``K`` that repeat others (a ``position`` closure of a planar mechanism: its
        z row is zero) are compressed first, ``K = U S V^T`` kept on its rank: ``lambda`` is
        then the least-norm loop force. Batched: ``q``, ``qd`` ``(N, n)`` and ``tau_a``
        ``(N, n_a)`` (or one for all) give ``(N, n)`` and ``(N, m)``, the robot's functions
        called once for the batch and the systems solved together per rank. The compiled
        program answers the states it can where it is built (module docstring)."""
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        n = len(self.joints)
        one = q.ndim == 1 and qd.ndim == 1
        if one:
            q, qd = q[None], qd[None]
        elif q.shape != qd.shape:
            shape = np.broadcast_shapes(q.shape, qd.shape)
            q, qd = (np.broadcast_to(a, shape).reshape(-1, n) for a in (q, qd))
        tau = np.zeros(q.shape)
        tau[:, self.actuated] = tau_a
        qdd, lam, rest = self._fast(q, qd, tau)
        if rest is not None:
            qdd[rest], lam[rest] = self._kkt(q[rest], qd[rest], tau[rest])
        return (qdd[0], lam[0]) if one else (qdd, lam)

    def _fast(self, q, qd, tau) -> tuple:
        """``(qdd, lambda, rest)``: the compiled program's answers (``(N, ...)`` arrays) for
        the states it answers, ``rest`` the others (a boolean ``(N,)``; None: none)."""
        got = None if self._compiled is None else self._compiled(q, qd, tau)
        n, m = len(self.joints), self.rows
        if got is None:
            return np.empty(q.shape), np.empty((len(q), m)), np.ones(len(q), dtype=bool)
        out, ok = got
        if ok.all():
            return out[:, :n], out[:, n:n + m], None
        return out[:, :n].copy(), out[:, n:n + m].copy(), ~ok

    def _kkt(self, q, qd, tau) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`forward_dynamics` by the KKT solve, on ``(N, ...)`` arrays (``tau`` the
        tree's torques)."""
        n = len(self.joints)
        M, K, k = self._mass(q), self.constraint_jacobian(q), self.drift(q, qd)
        h = self._id(q, qd, np.zeros_like(qd))
        U, sv, Vt = np.linalg.svd(K, full_matrices=False)
        ranks = (sv > SINGULAR * np.maximum(sv[:, :1], 1e-300)).sum(axis=1)
        qdd, lam = np.empty(h.shape), np.empty(k.shape)
        for r in np.unique(ranks):
            i = ranks == r
            Kr, Ur = sv[i, :r, None] * Vt[i, :r], U[i, :, :r]
            A = np.zeros((int(i.sum()), n + r, n + r))
            A[:, :n, :n], A[:, :n, n:], A[:, n:, :n] = M[i], Kr.transpose(0, 2, 1), Kr
            rhs = np.concatenate([tau[i] - h[i], -np.einsum("kji,kj->ki", Ur, k[i])], axis=1)
            try:
                x = np.linalg.solve(A, rhs[..., None])[..., 0]
            except np.linalg.LinAlgError:
                raise ModelError("forward_dynamics: the KKT matrix is singular (a joint that "
                                 "moves no mass)") from None
            qdd[i], lam[i] = x[:, :n], -np.einsum("kij,kj->ki", Ur, x[:, n:])
        return qdd, lam

    def reduced_forward_dynamics(self, q, yd, tau_a) -> np.ndarray:
        """``ydd`` of the reduced model on the actuated coordinates (module docstring):
        ``(S^T M S) ydd = tau_a - S^T (h + M s)``."""
        return self.reduced_acceleration(q, yd, self._tau(tau_a))

    def reduced_acceleration(self, q, yd, tau) -> np.ndarray:
        """``ydd`` with torques ``tau`` ``(n,)`` at every joint of the tree, passive ones
        too: ``(S^T M S) ydd = S^T (tau - h - M s)`` (the generalized force on ``y`` is
        ``S^T tau``, by virtual work; ``S^T B tau_a = tau_a``). Batched: ``q`` ``(N, n)``,
        ``yd`` ``(N, n_a)``, ``tau`` ``(N, n)`` give ``(N, n_a)``."""
        q = np.asarray(q, dtype=float)
        one = q.ndim == 1
        lift = (lambda a: np.asarray(a, dtype=float)[None]) if one else \
            (lambda a: np.asarray(a, dtype=float))
        pinv, S, qd = self._velocities(lift(q), lift(yd))
        ydd = self._ydd(lift(q), qd, S, pinv, lift(tau))
        return ydd[0] if one else ydd

    def _velocities(self, q, yd) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(K_p^+, S, qd)`` of states ``q`` ``(N, n)`` with actuated rates ``yd``
        ``(N, n_a)``."""
        K = self.constraint_jacobian(q)
        pinv = np.linalg.pinv(K[:, :, self.passive])  # once for S and s
        S = self._velocity_map(K, pinv)
        return pinv, S, np.einsum("nia,na->ni", S, yd)

    def _drift_terms(self, q, qd, pinv) -> np.ndarray:
        """``s`` ``(N, n)``: ``s_p = -K_p^+ k``, ``s_a = 0``."""
        s = np.zeros(q.shape)
        s[:, self.passive] = -np.einsum("npm,nm->np", pinv, self.drift(q, qd))
        return s

    def _terms(self, q, yd) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(S, s, qd)`` of states ``q`` ``(N, n)`` with actuated rates ``yd`` ``(N, n_a)``:
        one ``K`` for the velocity map and the drift."""
        pinv, S, qd = self._velocities(q, yd)
        return S, self._drift_terms(q, qd, pinv), qd

    def _ydd(self, q, qd, S, pinv, tau) -> np.ndarray:
        """``ydd`` ``(N, n_a)`` at assembled ``q`` with ``qd = S yd`` and the tree's torques
        ``tau``: the actuated rows of the compiled program's ``qdd`` where it answers (on
        the constraint ``qdd = S ydd + s`` with ``S_a = 1``, ``s_a = 0``, so they are the
        reduced model's ``ydd``, Featherstone §8.2), else :meth:`_acceleration`."""
        qdd, _, rest = self._fast(q, qd, tau)
        ydd = qdd[:, self.actuated]
        if rest is not None:
            rows = np.flatnonzero(rest)
            s = self._drift_terms(q[rows], qd[rows], pinv[rows])
            try:
                ydd[rows] = self._acceleration(q[rows], qd[rows], S[rows], s, tau[rows])
            except AssemblyError as exc:  # its rows of the whole batch
                raise AssemblyError(str(exc), rows[exc.rows], exc.reasons) from None
        return ydd

    def _acceleration(self, q, qd, S, s, tau) -> np.ndarray:
        """``ydd`` ``(N, n_a)``: ``(S^T M S) ydd = S^T (tau - h - M s)``, all ``(N, ...)``."""
        M = self._mass(q)
        h = self._id(q, qd, np.zeros_like(qd))
        A = np.einsum("nia,nij,njb->nab", S, M, S)
        b = np.einsum("nia,ni->na", S, tau - h - np.einsum("nij,nj->ni", M, s))
        with np.errstate(all="ignore"):
            finite = np.isfinite(A).all(axis=(1, 2)) & np.isfinite(b).all(axis=1)
            try:
                if finite.all():
                    return np.linalg.solve(A, b[..., None])[..., 0]
            except np.linalg.LinAlgError:
                pass
            bad = []
            for k in range(len(A)):  # which states: each solved alone
                try:
                    if finite[k]:
                        np.linalg.solve(A[k], b[k])
                        continue
                except np.linalg.LinAlgError:
                    pass
                bad.append(k)
        bad = bad or list(range(len(A)))
        why = ("the reduced inertia S^T M S is singular here (the passive joints cannot follow "
               "the actuated ones: a singular configuration, the edge of the workspace)")
        raise AssemblyError(f"reduced_acceleration: {why}", bad, [why] * len(bad))

    def reduced_mass_matrix(self, q) -> np.ndarray:
        """``M_y = S^T M S`` ``(n_a, n_a)`` on the actuated coordinates."""
        S = self.velocity_map(q)
        return S.T @ self._mass(np.asarray(q, dtype=float)) @ S

    def reduced_gravity(self, q) -> np.ndarray:
        """``g_y = S^T g(q)`` ``(n_a,)``: gravity on the actuated coordinates, by virtual
        work (``q`` assembled); the actuators' holding torques."""
        q = np.asarray(q, dtype=float)
        return self.velocity_map(q).T @ self._gravity(q)

    def reduced_coriolis_matrix(self, q, yd) -> np.ndarray:
        """``C_y = S^T (C S + M Sdot)`` ``(n_a, n_a)`` at ``(q, yd)`` (``q`` assembled,
        ``qd = S yd``): with ``C`` the tree's Christoffel matrix, ``C_y yd`` is the reduced
        model's velocity term ``S^T (C qd + M s)`` and ``Mdot_y - 2 C_y`` is skew
        (``Mdot_y = Sdot^T M S + S^T Mdot S + S^T M Sdot``). ``Sdot`` from ``K S = 0``:
        ``K_p Sdot_p = -Kdot S``, ``Sdot_a = 0``."""
        q, yd = np.asarray(q, dtype=float), np.asarray(yd, dtype=float)
        K = self.constraint_jacobian(q)
        pinv = np.linalg.pinv(K[:, self.passive])  # K_p^+, shared by S and Sdot
        S = self._velocity_map(K[None], pinv[None])[0]
        qd = S @ yd
        Kdot = np.concatenate([(self._jdot(q, qd, loop.frame_a) - self._jdot(q, qd, loop.frame_b))
                               [_rows(loop.kind), :] for loop in self.loops])
        Sdot = np.zeros_like(S)
        Sdot[self.passive] = -pinv @ (Kdot @ S)
        return S.T @ (self._coriolis(q, qd) @ S + self._mass(q) @ Sdot)

    def velocity_terms(self, q, yd) -> tuple[np.ndarray, np.ndarray]:
        """``(S, s)``: ``qd = S yd`` and ``qdd = S ydd + s`` on the constraint (batched:
        ``q`` ``(N, n)``, ``yd`` ``(N, n_a)`` give ``(N, n, n_a)`` and ``(N, n)``)."""
        q = np.asarray(q, dtype=float)
        if q.ndim == 1:
            S, s, _ = self._terms(q[None], np.asarray(yd, dtype=float)[None])
            return S[0], s[0]
        return self._terms(q, np.asarray(yd, dtype=float))[:2]

    def inverse_dynamics(self, q, yd, ydd) -> tuple[np.ndarray, np.ndarray]:
        """``(tau_a, lambda)``: the actuator torques that give the actuated coordinates the
        acceleration ``ydd`` at ``(q, yd)`` (``q`` assembled) and the loop forces."""
        q = np.asarray(q, dtype=float)
        S, s = self.velocity_terms(q, yd)
        tau = self._id(q, S @ np.asarray(yd, dtype=float),
                       S @ np.asarray(ydd, dtype=float) + s)
        K = self.constraint_jacobian(q)
        lam = np.linalg.lstsq(K[:, self.passive].T, tau[self.passive], rcond=None)[0]
        return S.T @ tau, lam

    def wrench_torques(self, q, h_e) -> np.ndarray:
        """``-J(q)^T h_e`` ``(n,)`` (``(N, n)`` for ``q`` ``(N, n)``): the tree's joint
        torques of a wrench ``h_e`` (force, moment; base axes, about the frame's origin)
        that the mechanism exerts on its environment at the end effector, 6 values (or
        ``(N, 6)``), or at named frames, ``{frame: 6 values}`` (Siciliano et al.,
        "Robotics", (3.111) and (7.42): ``tau = B qdd + C qd + g + J^T h_e``). They enter
        the closed mechanism's dynamics as any torque: on the actuated coordinates, by
        virtual work, ``S^T (-J^T h_e)``; the loops take the rest."""
        q = np.asarray(q, dtype=float)
        items = h_e.items() if isinstance(h_e, Mapping) else [(None, h_e)]
        out = np.zeros(q.shape)
        for frame, h in items:
            out -= np.einsum("...ij,...i->...j", self._jac(q, frame),
                             np.asarray(h, dtype=float))
        return out

    def energy(self, q, qd) -> float:
        """``T + U`` of the tree at ``(q, qd)``."""
        return float(self._kinetic(q, qd) + self._potential(q))

    def rk4_step(self, q, yd, t: float, dt: float, torque) -> tuple[np.ndarray, np.ndarray]:
        """One classic RK4 step of ``dt`` from time ``t`` in the actuated coordinates ``(y,
        yd)`` (:meth:`reduced_acceleration`), the passive joints assembled at every stage
        (projection onto ``phi(q) = 0``: the loops stay closed to the assembly's tolerance,
        no drift accumulates as it does, damped, with a Baumgarte term). Each stage's
        Newton starts from the second-order prediction ``q + S (y_s - y) + h^2/2 s`` (``h``
        the stage's time offset), so that near a singular configuration, where two
        assemblies meet (a flat parallelogram), it stays on the mechanism's own branch.
        ``torque(t, q, qd)`` the tree's torques ``(n,)``, passive joints' too. ``q``
        assembled; returns the new ``(q, yd)``.

        Batched: ``q`` ``(N, n)``, ``yd`` ``(N, n_a)`` step ``N`` states at once (the robot's
        kernels called once a stage for all, each state's Newton its own), ``torque``
        called with ``(N, n)`` arrays and returning ``(N, n)``; an :class:`AssemblyError`
        names the states (``rows``) whose loops could not be closed."""
        q = np.asarray(q, dtype=float)
        one = q.ndim == 1
        if one:
            q, yd = q[None], np.asarray(yd, dtype=float)[None]
            given = torque

            def torque(t, q, qd):
                return np.asarray(given(t, q[0], qd[0]), dtype=float)[None]
        y, yd = q[:, self.actuated], np.asarray(yd, dtype=float)
        S, s, _ = self._terms(q, yd)

        def predicted(h, dy):
            return q + np.einsum("nia,na->ni", S, dy) + h * h / 2 * s

        def rate(h, ys, yds):
            qq = self.assemble(ys, predicted(h, ys - y), tol=STEP_TOLERANCE).q
            pinv, Sq, qd = self._velocities(qq, yds)
            return yds, self._ydd(qq, qd, Sq, pinv, torque(t + h, qq, qd))

        k1y, k1v = rate(0.0, y, yd)
        k2y, k2v = rate(dt / 2, y + dt / 2 * k1y, yd + dt / 2 * k1v)
        k3y, k3v = rate(dt / 2, y + dt / 2 * k2y, yd + dt / 2 * k2v)
        k4y, k4v = rate(dt, y + dt * k3y, yd + dt * k3v)
        step = dt / 6 * (k1y + 2 * k2y + 2 * k3y + k4y)
        yd = yd + dt / 6 * (k1v + 2 * k2v + 2 * k3v + k4v)
        q = self.assemble(y + step, predicted(dt, step), tol=STEP_TOLERANCE).q
        return (q[0], yd[0]) if one else (q, yd)

    def simulate(self, q0, yd0, duration: float, dt: float, tau_a=None) -> dict:
        """:meth:`rk4_step` after step, ``tau_a`` constant (default zero); ``q0`` assembled
        from its actuated values (its passive ones the guess). Returns ``t``, ``q``, ``qd``
        (the tree's), ``residual`` (``max |phi|`` per step) and ``energy``. For torques that
        vary, friction and a :class:`~robodyn.motion.result.Simulation`, use
        :func:`robodyn.simulate` (the same steps)."""
        steps = int(round(duration / dt))
        if not 0 < steps <= 1_000_000:
            raise InputError(f"simulate: duration / dt = {duration / dt:g} steps; 1 to 1e6")
        tau = self._tau(np.zeros(len(self.actuated)) if tau_a is None else tau_a)
        q = self.assemble(np.asarray(q0, float)[self.actuated], q0).q
        yd = np.asarray(yd0, dtype=float)
        out = {k: [] for k in ("t", "q", "qd", "residual", "energy")}
        for step in range(steps + 1):
            qd = self.velocity_map(q) @ yd
            out["t"].append(step * dt)
            out["q"].append(q.copy())
            out["qd"].append(qd)
            out["residual"].append(float(np.abs(self.residual(q)).max()))
            out["energy"].append(self.energy(q, qd))
            if step < steps:
                q, yd = self.rk4_step(q, yd, step * dt, dt, lambda t, q, qd: tau)
        return {k: np.array(v) for k, v in out.items()}
