"""The physically consistent fit of :func:`robodyn.identify` (``physical=True``; the method
is in :mod:`robodyn.identification.estimate`'s docstring): every link's pseudo-inertia
positive definite, friction and armature ``>= 0``, by a log-barrier interior-point method
(:func:`physical_fit`); and what makes standard parameters not those of a physical robot
(:func:`consistency_problems`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..core.progress import tracker
from ..dynamics.regressor import PER_LINK

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["consistency_problems", "physical_fit", "PhysicalFit", "PHYSICAL_MAX_STEPS",
           "PHYSICAL_PULL"]

#: Most Newton steps of the physical fit's interior-point method.
PHYSICAL_MAX_STEPS = 1000
#: Weight of the pull toward the model's parameters on what the data cannot see,
#: relative to the largest singular value of the (normalised) data term.
PHYSICAL_PULL = 1e-3


def _pseudo_inertia(m, h, io) -> np.ndarray:
    sigma = 0.5 * np.trace(io) * np.eye(3) - io
    return np.block([[sigma, h[:, None]], [h[None, :], np.array([[m]])]])


def _link_from_pseudo(J):
    """The 10 standard parameters of a link from its pseudo-inertia (linear in ``J``)."""
    sigma, h, m = J[:3, :3], J[:3, 3], J[3, 3]
    io = np.trace(sigma) * np.eye(3) - sigma
    return [m, *h, io[0, 0], io[0, 1], io[0, 2], io[1, 1], io[1, 2], io[2, 2]]


def _link_pseudo(pi10) -> np.ndarray:
    m, hx, hy, hz, xx, xy, xz, yy, yz, zz = pi10
    io = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    return _pseudo_inertia(m, np.array([hx, hy, hz]), io)


def consistency_problems(robot: Robot, pi: ArrayLike) -> list[str]:
    """What makes the standard parameters ``pi`` not those of a physical robot: a mass
    ``<= 0``, a pseudo-inertia that is not positive definite, negative friction or
    armature (empty when consistent)."""
    names = robot.inertial_parameters().names
    pi = np.asarray(pi, dtype=float)
    out = []
    for k in range(robot.chain.dof):  # links
        seg = pi[PER_LINK * k:PER_LINK * (k + 1)]
        if not seg[0] > 0:
            out.append(f"link {k + 1}: mass {seg[0]:.4g} is not positive")
        eig = np.linalg.eigvalsh(_link_pseudo(seg))
        if not eig[0] > 0:
            out.append(f"link {k + 1}: pseudo-inertia not positive definite (smallest "
                       f"eigenvalue {eig[0]:.3g})")
    friction = PER_LINK * robot.chain.dof  # friction and armature, after every link's ten
    for name, value in zip(names[friction:], pi[friction:], strict=True):
        if value < 0 and name[:2] not in ("Fd", "Fo"):  # these two may be negative
            out.append(f"{name} = {value:.4g} is negative")
    return out


#: ``J = sum_a pi10[a] _PSEUDO[a]``: a link's pseudo-inertia is linear in its parameters.
_PSEUDO = np.array([_link_pseudo(np.eye(PER_LINK)[a]) for a in range(PER_LINK)])


def _start(robot) -> tuple[np.ndarray, int]:
    """A strictly feasible start: the model's standard parameters, each link's
    pseudo-inertia shifted to positive definite where it is not, friction and armature
    raised to at least ``1e-3`` of the largest parameter; and where friction starts."""
    _, pi = robot.inertial_parameters()
    n = robot.chain.dof  # links
    pi = pi.copy()
    for k in range(n):
        J = _link_pseudo(pi[PER_LINK * k:PER_LINK * (k + 1)])
        scale = max(1e-3, float(np.abs(J).max()))
        eig = np.linalg.eigvalsh(J)
        if eig[0] < 1e-6 * scale:
            J = J + (1e-6 * scale - min(eig[0], 0.0) + 1e-3 * scale) * np.eye(4)
            pi[PER_LINK * k:PER_LINK * (k + 1)] = _link_from_pseudo(J)
    split = PER_LINK * n
    floor = 1e-3 * max(1e-12, float(np.abs(pi[:split]).max()))
    pi[split:] = np.maximum(pi[split:], floor)
    return pi, split


@dataclass(frozen=True)
class PhysicalFit:
    """What :func:`physical_fit` found: the standard parameters ``x``, the Newton ``steps``
    it took, whether it ``converged``, and its last duality ``gap``."""

    x: np.ndarray  # the standard parameters
    steps: int
    converged: bool
    gap: float

    def why_stopped(self) -> str:
        """Why a fit that did not converge stopped, in words: its budget of
        :data:`PHYSICAL_MAX_STEPS` Newton steps spent, or rounding stopped its progress."""
        return (f"at its budget of {PHYSICAL_MAX_STEPS} Newton steps"
                if self.steps >= PHYSICAL_MAX_STEPS else
                f"after {self.steps} Newton steps, where rounding stopped its progress")


class _Barrier:
    """``-sum_k log det J_k(pi) - sum_i log pi_i`` (links ``k``, friction and armature
    ``i``): finite exactly where ``pi`` is physically consistent, strictly."""

    def __init__(self, links: int, size: int):
        self.links, self.split, self.size = links, PER_LINK * links, size
        self.count = 4 * links + size - self.split  # its "m" (the duality gap is m / t)

    def pseudo(self, pi):
        return np.einsum("ka,aij->kij", pi[:self.split].reshape(self.links, PER_LINK), _PSEUDO)

    def value(self, pi) -> float:
        """The barrier at ``pi``, ``inf`` where ``pi`` is not strictly consistent."""
        rest = pi[self.split:]
        if not np.all(rest > 0):
            return math.inf
        try:
            L = np.linalg.cholesky(self.pseudo(pi))
        except np.linalg.LinAlgError:
            return math.inf
        diag = np.diagonal(L, axis1=1, axis2=2)
        if not np.all(diag > 0):
            return math.inf
        return float(-2.0 * np.log(diag).sum() - np.log(rest).sum())

    def derivatives(self, pi):
        """Gradient and Hessian: ``-tr(J^-1 G_a)`` and ``tr(J^-1 G_a J^-1 G_b)`` per link,
        ``-1/x`` and ``1/x^2`` per bounded parameter."""
        g = np.zeros(self.size)
        H = np.zeros((self.size, self.size))
        P = np.einsum("kij,ajl->kail", np.linalg.inv(self.pseudo(pi)), _PSEUDO)
        g[:self.split] = -np.einsum("kaii->ka", P).ravel()
        blocks = np.einsum("kaij,kbji->kab", P, P)
        for k in range(self.links):
            block = slice(PER_LINK * k, PER_LINK * (k + 1))
            H[block, block] = blocks[k]
        rest = pi[self.split:]
        g[self.split:] = -1.0 / rest
        H[self.split:, self.split:] += np.diag(1.0 / rest ** 2)
        return g, H


def _newton_direction(H, g) -> np.ndarray | None:
    """``-H^-1 g`` (Jacobi-scaled Cholesky; least squares if ``H`` is numerically not
    positive definite); ``None`` where rounding left no finite direction."""
    import scipy.linalg  # SciPy only when used
    d = np.sqrt(np.maximum(np.diag(H), 1e-300))
    with np.errstate(all="ignore"):
        Hs, gs = H / np.outer(d, d), g / d
    if not (np.isfinite(Hs).all() and np.isfinite(gs).all()):
        return None
    try:
        x = scipy.linalg.cho_solve(scipy.linalg.cho_factor(Hs), gs)
    except (np.linalg.LinAlgError, ValueError):
        try:
            x = np.linalg.lstsq(Hs, gs, rcond=None)[0]
        except np.linalg.LinAlgError:
            return None
    x = -x / d
    return x if np.isfinite(x).all() else None


def physical_fit(robot, base, R, est, progress=None) -> PhysicalFit:
    """The physically consistent standard parameters nearest (in the weighted torques)
    to the least-squares estimate ``est`` (:mod:`robodyn.identification.estimate`): the
    minimum of

        F(pi) = |A pi - t|^2 / 2 + rho^2 |N^T (pi - pi0)|^2 / 2

    (``A = R K / |W est|``, ``t = R est / |W est|``; ``N`` an orthonormal basis of the
    null space of ``K``, so the pull toward the model's parameters ``pi0`` acts only on
    what the data cannot see and biases nothing they can) over the physically consistent
    ``pi``: a convex problem, solved by a primal log-barrier interior-point method
    (Boyd & Vandenberghe, *Convex Optimization*, ch. 11): Newton steps on
    ``t F + barrier`` (backtracking to stay feasible, a full step in the quadratic region
    ``lambda^2 < 0.1``), ``t`` raised tenfold when centred, until the duality gap
    ``m / t`` is below ``1e-8 F + 1e-20``; at most :data:`PHYSICAL_MAX_STEPS` Newton
    steps. Where rounding stops the progress first, the fit counts as converged if the gap
    is below ``1e-6 F + 1e-14``. ``progress`` (:func:`robodyn.core.progress.tracker`)
    counts the centring stages, as many as the tenfold steps of ``t`` from 1 to the gap's
    goal at the start (one more stage is shown as the last one, if needed)."""
    import scipy.linalg  # SciPy only when used
    signed = [name for name in robot.inertial_parameters().names if name[:2] in ("Fd", "Fo")]
    if signed:
        raise InputError(f"identify(physical=True): {', '.join(signed)} (the Coulomb levels' "
                         "half difference, the friction offset) may be negative, which this "
                         "fit's barrier does not allow; use physical=False, or identify "
                         "robot.without_friction(viscous=False)")
    pi0, split = _start(robot)
    size = pi0.shape[0]
    scale = float(np.linalg.norm(R @ est)) or 1.0  # |W est|: the weighted torques
    A = (R @ base.K) / scale
    target = (R @ est) / scale
    N = scipy.linalg.null_space(base.K)
    rho = PHYSICAL_PULL * float(np.linalg.norm(A, 2))
    barrier = _Barrier(robot.chain.dof, size)
    HF = A.T @ A + rho ** 2 * (N @ N.T)

    def F(pi) -> float:
        r = A @ pi - target
        d = N.T @ (pi - pi0)
        return 0.5 * float(r @ r) + 0.5 * rho ** 2 * float(d @ d)

    def grad(pi):
        return A.T @ (A @ pi - target) + rho ** 2 * (N @ (N.T @ (pi - pi0)))

    stages = max(1, math.ceil(math.log10(barrier.count / (1e-8 * F(pi0) + 1e-20))) + 1)
    with tracker(progress, stages, "physical fit") as bar:
        return _centred(barrier, F, grad, HF, pi0, stages, bar)


def _centred(barrier, F, grad, HF, pi, stages, bar) -> PhysicalFit:
    """The barrier method of :func:`physical_fit` from ``pi``, its stages counted on
    ``bar``."""
    t, steps, stage = 1.0, 0, 0
    while True:
        stalled, slow, last = False, 0, math.inf
        while steps < PHYSICAL_MAX_STEPS:  # centring: Newton on t F + barrier
            gb, Hb = barrier.derivatives(pi)
            g = t * grad(pi) + gb
            dx = _newton_direction(t * HF + Hb, g)
            steps += 1
            if dx is None:
                stalled = True
                break
            lam2 = float(-g @ dx)
            if lam2 <= 2e-9:
                break
            # Newton converges quadratically here; three steps that do not quarter the
            # decrement are the rounding floor of t F + barrier
            slow = slow + 1 if lam2 < 0.1 and lam2 > 0.25 * last else 0
            last = lam2
            if slow >= 3:
                stalled = True
                break
            if lam2 < 0.1 and math.isfinite(barrier.value(pi + dx)):
                pi = pi + dx
                continue
            phi = t * F(pi) + barrier.value(pi)
            s = 1.0
            while s >= 1e-6 and not (t * F(pi + s * dx) + barrier.value(pi + s * dx)
                                     <= phi - 0.25 * s * lam2):
                s *= 0.5
            if s < 1e-6:  # no decrease that rounding lets one see
                stalled = True
                break
            pi = pi + s * dx
        gap = barrier.count / t
        value = F(pi)
        if gap <= 1e-8 * value + 1e-20 or stalled or steps >= PHYSICAL_MAX_STEPS:
            return PhysicalFit(pi, steps, gap <= 1e-6 * value + 1e-14, gap)
        stage += 1
        bar.update(min(stage, stages - 1))
        t *= 10.0
