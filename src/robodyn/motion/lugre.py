"""LuGre friction (Canudas de Wit, Olsson, Astrom & Lischinsky, "A new model for control of
systems with friction", IEEE TAC 40(3), 1995): per joint a bristle deflection ``z``::

    dz/dt = v - sigma0 |v| z / g(v),     g(v) = F_c + (F_s - F_c) exp(-(v / v_s)^2)
    F     = sigma0 z + sigma1 dz/dt + sigma2 v

At constant ``v`` the state settles at ``z = sign(v) g(v) / sigma0`` and ``F`` is the
Stribeck curve ``g(v) sign(v) + sigma2 v`` (:func:`steady_friction`); at rest a torque below
``F_s`` deflects the bristles like a spring, ``z = F / sigma0`` (presliding). The arm::

    M(q) qdd + C qd + g(q) + tau_f(qd) = tau - F(qd, z)

on the state ``(q, qd, z)`` (``3 n`` values), ``tau_f`` the model's own friction (give the
LuGre joints none, or both act). The ``z`` equation is stiff (``sigma0 |v| / g`` is 1e4 -
1e6 1/s for ``sigma0`` 1e4 - 1e6 N m/rad, and ``sqrt(sigma0 / I)`` the bristles' ringing
frequency): an explicit method would need steps below ``g / (sigma0 |v|)``, so the run uses
SciPy's ``Radau`` (implicit Runge-Kutta of order 5, L-stable, error-controlled), with a
budget on the right-hand side's evaluations.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError, ModelError

__all__ = ["LuGre", "LuGreSimulation", "simulate_lugre", "steady_friction", "lugre_rates"]

#: The parameters, in order: bristle stiffness, bristle damping, viscous, Coulomb level,
#: static level, Stribeck velocity.
LUGRE_FIELDS = ("sigma0", "sigma1", "sigma2", "Fc", "Fs", "vs")
#: Most right-hand-side evaluations of one run (each is one forward dynamics).
MAX_EVALUATIONS = 2_000_000


@dataclass(frozen=True)
class LuGre:
    """LuGre parameters, one value per joint each (module docstring); build with
    :meth:`of` (checked)."""

    sigma0: np.ndarray
    sigma1: np.ndarray
    sigma2: np.ndarray
    Fc: np.ndarray  # noqa: N815 (the paper's names)
    Fs: np.ndarray  # noqa: N815
    vs: np.ndarray

    @classmethod
    def of(cls, params: Mapping, dof: int, field: str = "lugre") -> LuGre:
        """Checked parameters from ``{sigma0, sigma1, sigma2, Fc, Fs, vs}`` (each a number
        for every joint or a list of ``dof``): ``sigma0 > 0``, ``vs > 0``, ``sigma1, sigma2,
        Fc >= 0``, ``Fs >= Fc``. A :class:`ModelError` naming the field otherwise."""
        if not isinstance(params, Mapping):
            raise ModelError(f"{field}: expected a mapping of {', '.join(LUGRE_FIELDS)}")
        unknown = sorted(str(k) for k in params if k not in LUGRE_FIELDS)
        missing = [k for k in LUGRE_FIELDS if k not in params]
        if unknown or missing:
            raise ModelError(f"{field}: unknown {unknown} / missing {missing}; give exactly "
                             f"{', '.join(LUGRE_FIELDS)}")
        out = {}
        for key in LUGRE_FIELDS:
            try:
                value = np.broadcast_to(np.asarray(params[key], dtype=float), (dof,)).copy()
            except (TypeError, ValueError):
                raise ModelError(f"{field}.{key}: expected a number or {dof} numbers") from None
            positive = key in ("sigma0", "vs")
            bad = ~np.isfinite(value) | ((value <= 0) if positive else (value < 0))
            if bad.any():
                j = int(np.argmax(bad))
                raise ModelError(f"{field}.{key}[{j}]: {value[j]:g} must be finite and "
                                 f"{'> 0' if positive else '>= 0'}")
            out[key] = value
        low = out["Fs"] < out["Fc"]
        if low.any():
            j = int(np.argmax(low))
            raise ModelError(f"{field}.Fs[{j}]: the static level {out['Fs'][j]:g} is below the "
                             f"Coulomb level Fc = {out['Fc'][j]:g}; give Fs >= Fc")
        return cls(**out)

    def g(self, v) -> np.ndarray:
        """``g(v) = F_c + (F_s - F_c) exp(-(v / v_s)^2)``, the Stribeck curve's level."""
        return self.Fc + (self.Fs - self.Fc) * np.exp(-(np.asarray(v) / self.vs) ** 2)


def steady_friction(lugre: LuGre, v) -> np.ndarray:
    """The friction at constant velocity ``v``: ``g(v) sign(v) + sigma2 v``."""
    v = np.asarray(v, dtype=float)
    return lugre.g(v) * np.sign(v) + lugre.sigma2 * v


def lugre_rates(lugre: LuGre, v, z) -> tuple[np.ndarray, np.ndarray]:
    """``(dz/dt, F)`` at joint velocity ``v`` and bristle state ``z``."""
    v, z = np.asarray(v, dtype=float), np.asarray(z, dtype=float)
    g = lugre.g(v)
    if np.any(g <= 0):  # Fs = Fc = 0: no dry friction, the bristles follow nothing
        g = np.where(g > 0, g, np.inf)
    dz = v - lugre.sigma0 * np.abs(v) * z / g
    return dz, lugre.sigma0 * z + lugre.sigma1 * dz + lugre.sigma2 * v


@dataclass
class LuGreSimulation:
    """Samples ``t`` ``(T,)``, ``q``, ``qd``, the bristle states ``z`` and the LuGre
    friction torques ``friction`` ``(T, n)``; ``info``: the solver's counts."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    z: np.ndarray
    friction: np.ndarray
    info: dict


def simulate_lugre(robot, lugre: LuGre | Mapping, q0, qd0=0.0, duration: float = 1.0,
                   tau: Callable | None = None, z0=0.0, rtol: float = 1e-8, atol: float = 1e-10,
                   sample_dt: float = 1e-3,
                   max_evaluations: int = 200_000) -> LuGreSimulation:
    """Integrate the arm with LuGre friction from ``q0, qd0`` and bristle state ``z0`` for
    ``duration`` s under ``tau(t, q, qd)`` (``None``: no torque) with ``Radau`` (module
    docstring for why), sampled every ``sample_dt``. ``max_evaluations`` (at most
    :data:`MAX_EVALUATIONS`) bounds the right-hand side's evaluations: past it an
    :class:`InputError` says so (loosen ``rtol`` or shorten the run)."""
    from scipy.integrate import solve_ivp

    n = robot.dof
    if not isinstance(lugre, LuGre):
        lugre = LuGre.of(lugre, n)
    if not (np.isfinite(duration) and duration > 0):
        raise InputError(f"simulate_lugre: duration {duration!r} must be finite and > 0")
    if not 0 < max_evaluations <= MAX_EVALUATIONS:
        raise InputError(f"simulate_lugre: max_evaluations must be in (0, {MAX_EVALUATIONS}]")
    if not 0 < sample_dt <= duration:
        raise InputError("simulate_lugre: sample_dt must be in (0, duration]")
    x0 = np.concatenate([np.broadcast_to(np.asarray(a, dtype=float), (n,))
                         for a in (q0, qd0, z0)])
    count = [0]

    def rhs(t, x):
        count[0] += 1
        if count[0] > max_evaluations:
            raise InputError(f"simulate_lugre: more than {max_evaluations} evaluations before "
                             f"t = {t:.6g} s; raise max_evaluations or loosen rtol")
        q, qd, z = x[:n], x[n:2 * n], x[2 * n:]
        dz, friction = lugre_rates(lugre, qd, z)
        torque = np.zeros(n) if tau is None else np.asarray(tau(t, q, qd), dtype=float)
        qdd = robot.forward_dynamics(q, qd, torque - friction)
        return np.concatenate([qd, qdd, dz])

    steps = int(np.floor(duration / sample_dt + 1e-9))
    t_eval = np.minimum(np.arange(steps + 1) * sample_dt, duration)
    sol = solve_ivp(rhs, (0.0, duration), x0, method="Radau", t_eval=t_eval, rtol=rtol,
                    atol=atol)
    if not sol.success:
        raise InputError(f"simulate_lugre: the integrator stopped: {sol.message}")
    x = sol.y.T
    q, qd, z = x[:, :n], x[:, n:2 * n], x[:, 2 * n:]
    return LuGreSimulation(sol.t, q, qd, z, lugre_rates(lugre, qd, z)[1],
                           {"method": "Radau", "evaluations": count[0], "steps": len(sol.t),
                            "nfev": sol.nfev, "njev": sol.njev})
