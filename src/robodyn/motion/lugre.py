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

from ..core.errors import InputError
from ..model.lugre import LuGre
from .adaptive import drive
from .inputs import state_vector, torque_value, wrench_value
from .result import Simulation, finished

__all__ = ["LuGre", "LuGreSimulation", "simulate_lugre", "run_lugre", "steady_friction",
           "lugre_rates", "lugre_torque_parts"]

#: Most right-hand-side evaluations of one run (each is one forward dynamics).
MAX_EVALUATIONS = 2_000_000


def steady_friction(lugre: LuGre, v) -> np.ndarray:
    """The friction at constant velocity ``v``: ``g(v) sign(v) + sigma2 v``."""
    v = np.asarray(v, dtype=float)
    return lugre.g(v) * np.sign(v) + lugre.array("sigma2") * v


def lugre_rates(lugre: LuGre, v, z) -> tuple[np.ndarray, np.ndarray]:
    """``(dz/dt, F)`` at joint velocity ``v`` and bristle state ``z``."""
    v, z = np.asarray(v, dtype=float), np.asarray(z, dtype=float)
    g = lugre.g(v)
    if np.any(g <= 0):  # Fs = Fc = 0: no dry friction, the bristles follow nothing
        g = np.where(g > 0, g, np.inf)
    sigma0 = lugre.array("sigma0")
    dz = v - sigma0 * np.abs(v) * z / g
    return dz, sigma0 * z + lugre.array("sigma1") * dz + lugre.array("sigma2") * v


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


def lugre_torque_parts(robot, q, qd, qdd, z, h_e=None, lugre: LuGre | Mapping | None = None):
    """``robot.torque_parts(q, qd, qdd, h_e)`` with LuGre's ``F(qd, z)`` (the model's
    ``lugre:``, or ``lugre``) at the bristle deflections ``z`` added to ``friction`` and
    ``total``, each ``(..., dof)``: ``total`` is ``tau`` of ``M qdd + C qd + g + tau_f +
    F(qd, z) + J^T h_e = tau``."""
    from ..dynamics.inverse_dynamics import TorqueParts

    lugre = _parameters(robot, lugre, "lugre_torque_parts")
    parts = robot.torque_parts(q, qd, qdd, h_e).as_dict()
    try:
        zs = np.asarray(z, dtype=float)
    except (TypeError, ValueError):
        zs = np.full(1, np.nan)
    if zs.shape[-1:] != (robot.dof,) or not np.isfinite(zs).all():
        raise InputError(f"lugre_torque_parts: z: expected {robot.dof} finite bristle "
                         f"deflections per sample, got shape {zs.shape}")
    force = lugre_rates(lugre, np.asarray(qd, dtype=float), zs)[1]
    parts["friction"] = parts["friction"] + force
    parts["total"] = parts["total"] + force
    return TorqueParts(**parts)


def _parameters(robot, lugre, where: str) -> LuGre:
    """``lugre`` checked, or the model's own (``None``), or an :class:`InputError`."""
    if lugre is None:
        lugre = robot.chain.lugre
        if lugre is None:
            raise InputError(f"{where}: {robot.name} has no lugre parameters; give them "
                             "(lugre={sigma0, sigma1, sigma2, Fc, Fs, vs}) or add a lugre: "
                             "key to its model file")
    return lugre if isinstance(lugre, LuGre) else LuGre.of(lugre, robot.dof)


def _arm(robot, lugre: LuGre, applied: Callable, wrench=None):
    """The right-hand side ``(qd, qdd, dz/dt)`` of the state ``(q, qd, z)`` under the
    torque ``applied(t, q, qd)`` and the end-effector wrench ``wrench`` (None, 6 values,
    ``{frame: 6 values}`` or ``h_e(t, q, qd)``; module docstring)."""
    n = robot.dof

    def rhs(t, x):
        q, qd, z = x[:n], x[n:2 * n], x[2 * n:]
        dz, friction = lugre_rates(lugre, qd, z)
        qdd = robot.forward_dynamics(q, qd, applied(t, q, qd) - friction,
                                     h_e=wrench_value(wrench, t, q, qd))
        return np.concatenate([qd, qdd, dz])

    return rhs


def run_lugre(problem, options, bar) -> Simulation:
    """``rd.simulate(robot, ..., method="lugre")``: the model's own LuGre parameters (a
    model file's ``lugre:``), the bristles starting relaxed (``z = 0``), ``Radau`` steps
    within ``options.max_steps`` (:func:`robodyn.motion.adaptive.drive`). ``sim.tau`` is the
    applied torque less the LuGre friction (what acts on the arm besides its model
    friction, so the energy balance holds); ``info``: ``applied_torque``,
    ``lugre_friction`` and ``lugre_z`` ``(T, n)``. An end-effector wrench ``h_e`` acts as in
    the other methods (``J^T h_e`` against the torques)."""
    from scipy.integrate import Radau  # SciPy only when used

    robot = problem.robot
    lugre, n = robot.chain.lugre, robot.dof
    if lugre is None:
        raise InputError(f"method 'lugre': {robot.name} has no lugre parameters; add a lugre: "
                         "key to its model file, or call rd.simulate_lugre with them")
    def applied(t, q, qd):
        return torque_value(problem.torque, t, q, qd, n)

    wrench = problem.wrench
    rhs = _arm(robot, lugre, applied, wrench)
    y0 = np.concatenate([problem.q0, problem.qd0, np.zeros(n)])

    def make():
        return Radau(rhs, 0.0, y0, options.duration, rtol=options.rtol, atol=options.atol,
                     max_step=options.max_step)

    t, y, solution, steps, solver = drive(make, rhs, y0, options.duration, options.times,
                                          options.max_steps, "radau", n, bar)
    q, qd, z = y[:n].T, y[n:2 * n].T, y[2 * n:].T
    friction = lugre_rates(lugre, qd, z)[1]
    tau = np.stack([applied(tk, qk, qdk) for tk, qk, qdk in zip(t, q, qd, strict=True)])
    net = tau - friction
    info = {"steps": steps, "evaluations": int(solver.nfev), "rtol": options.rtol,
            "atol": options.atol, "applied_torque": tau, "lugre_friction": friction,
            "lugre_z": z}
    if wrench is None or not callable(wrench):
        qdd = robot.forward_dynamics(q, qd, net, h_e=wrench)
    else:
        qdd = np.stack([robot.forward_dynamics(qk, qdk, uk, h_e=wrench_value(wrench, tk, qk, qdk))
                        for tk, qk, qdk, uk in zip(t, q, qd, net, strict=True)])
    return finished(robot, t, q, qd, qdd, net, info, solution)


def simulate_lugre(robot, lugre: LuGre | Mapping | None, q0, qd0=0.0, duration: float = 1.0,
                   tau: Callable | object | None = None, z0=0.0, rtol: float = 1e-8,
                   atol: float = 1e-10,
                   sample_dt: float = 1e-3,
                   max_evaluations: int = 200_000) -> LuGreSimulation:
    """Integrate the arm with LuGre friction from ``q0, qd0`` and bristle state ``z0`` (one
    number for all joints or one each) for ``duration`` s under ``tau(t, q, qd)`` (or
    constant torques; ``None``: no torque) with ``Radau`` (module docstring for why),
    sampled every ``sample_dt``. ``lugre``: the parameters (a
    :class:`~robodyn.model.lugre.LuGre` or a mapping), or ``None`` for the model's own
    (a model file's ``lugre:``). ``max_evaluations`` (at most
    :data:`MAX_EVALUATIONS`) bounds the right-hand side's evaluations: past it an
    :class:`InputError` says so (loosen ``rtol`` or shorten the run)."""
    from scipy.integrate import solve_ivp

    n = robot.dof
    lugre = _parameters(robot, lugre, "simulate_lugre")
    real = (int, float, np.integer, np.floating)
    if not (isinstance(duration, real) and np.isfinite(duration) and duration > 0):
        raise InputError(f"simulate_lugre: duration {duration!r:.40} must be finite and > 0")
    if not (isinstance(max_evaluations, real) and 0 < max_evaluations <= MAX_EVALUATIONS):
        raise InputError(f"simulate_lugre: max_evaluations must be in (0, {MAX_EVALUATIONS}]")
    if not (isinstance(sample_dt, real) and 0 < sample_dt <= duration):
        raise InputError("simulate_lugre: sample_dt must be in (0, duration]")
    # one number for all joints or one each, finite and bounded: the start state went to
    # SciPy unchecked (its "initial state y0 must be finite", a broadcast error)
    x0 = np.concatenate([state_vector(a, name, n)
                         for a, name in ((q0, "q0"), (qd0, "qd0"), (z0, "z0"))])
    if tau is not None and not callable(tau):  # constant torques, as rd.simulate takes them
        constant = state_vector(tau, "tau", n)
        tau = lambda t, q, qd: constant  # noqa: E731
    count = [0]

    arm = _arm(robot, lugre, lambda t, q, qd: torque_value(tau, t, q, qd, n))

    def rhs(t, x):
        count[0] += 1
        if count[0] > max_evaluations:
            raise InputError(f"simulate_lugre: more than {max_evaluations} evaluations before "
                             f"t = {t:.6g} s; raise max_evaluations or loosen rtol")
        return arm(t, x)

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
