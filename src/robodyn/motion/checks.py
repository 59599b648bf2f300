"""The checks of a finished run, reported, never enforced: its work-energy balance
(:class:`EnergyBalance`; an :class:`EnergyBalanceWarning` when it is off by more than
:data:`ENERGY_TOLERANCE` of the energy scale) and the joint limits of the model it crossed
(a :class:`JointLimitWarning` names each and when it first was)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..core.display import number
from ..core.errors import warn
from ..model.loops import coupling_basis
from .inputs import wrench_value

if TYPE_CHECKING:
    from .result import Simulation

__all__ = ["time_integral", "EnergyBalance", "EnergyBalanceWarning", "JointLimitWarning",
           "ENERGY_TOLERANCE",
           "energy_balance", "balance_of_powers", "check_energy", "warn_energy_balance",
           "energy_advice", "report_limits", "crossed_limits", "velocity_report"]

#: Fraction of the energy scale the work-energy balance of a run may be off by before
#: :class:`EnergyBalanceWarning` (see :func:`energy_balance`).
ENERGY_TOLERANCE = 0.01


class JointLimitWarning(UserWarning):
    """A simulated motion crossed a joint limit of the model (position, velocity, effort)."""


class EnergyBalanceWarning(UserWarning):
    """The work-energy balance of a simulated motion is off by more than
    :data:`ENERGY_TOLERANCE` of its energy scale: the integration is not accurate (a smaller
    ``dt``, tighter ``rtol``/``atol``, or an implicit method)."""


# -- the energy balance ------------------------------------------------------------------------
@dataclass(frozen=True)
class EnergyBalance:
    """The work-energy theorem along a sampled motion, in J (trapezoidal rule on the samples):
    ``change = E(end) - E(0)`` of ``E = K + U``; ``work`` of the joint torques
    ``∫ tau·qd dt``; ``external``, the work of the wrench on the arm ``-∫ (J^T h_e)·qd dt``;
    ``friction_loss`` ``∫ tau_f·qd dt``; ``error = change - work - external +
    friction_loss`` (0 for an exact motion); ``scale``, the largest of ``max |E|``, the range
    of ``K`` and the energy the torques, the wrench and friction move; ``uncertainty``, the
    quadrature's own error estimate (the trapezoidal rule on every other sample against all,
    Richardson)."""

    change: float
    work: float
    external: float
    friction_loss: float
    error: float
    scale: float
    uncertainty: float

    def __repr__(self) -> str:
        return (f"EnergyBalance(error={number(self.error, 3)} J, relative={self.relative:.2g}, "
                f"scale={number(self.scale)} J)")

    def __str__(self) -> str:
        return (f"energy balance: E(end) - E(0) = {number(self.change, 6)} J, work of tau "
                f"{number(self.work, 6)} J, of the wrench {number(self.external, 6)} J,\n"
                f"  friction loss {number(self.friction_loss, 6)} J; off by "
                f"{number(self.error, 3)} J ({self.relative:.2g} of the scale "
                f"{number(self.scale)} J)")

    @property
    def relative(self) -> float:
        """``|error| / scale``."""
        return abs(self.error) / self.scale

    @property
    def passive(self) -> bool:
        """Nothing added or removed energy: the balance is the drift of ``E``."""
        return self.work == self.external == self.friction_loss == 0

    @property
    def off(self) -> bool:
        """Off by more than :data:`ENERGY_TOLERANCE` of the scale, beyond the quadrature's
        own error."""
        return self.relative > ENERGY_TOLERANCE and abs(self.error) > 3 * self.uncertainty


def time_integral(t: np.ndarray, y: np.ndarray):
    """``int y dt`` over the samples ``t`` by the trapezoidal rule, along the first axis of
    ``y`` (``(T,)``: a float; ``(T, ...)``: an array of the rest)."""
    dt = np.diff(t).reshape((-1,) + (1,) * (np.ndim(y) - 1))
    total = 0.5 * np.sum(dt * (y[1:] + y[:-1]), axis=0)
    return float(total) if np.ndim(total) == 0 else total


def energy_balance(robot, sim: Simulation, h_e=None) -> EnergyBalance:
    """The :class:`EnergyBalance` of ``sim`` on ``robot``; ``h_e``: the wrench it ran with
    (``None``, 6 values, ``(T, 6)`` per sample, or a dict of them at named frames)."""
    t, qd = sim.t, sim.qd
    with np.errstate(all="ignore"):
        p_tau = np.sum(sim.tau * qd, axis=1)
        p_loss = np.sum(robot.friction_torques(qd) * qd, axis=1)
        p_ext = np.zeros_like(t)
        if isinstance(h_e, Mapping):  # wrenches at named frames: the sum of their powers
            for frame, wrench in h_e.items():
                h = np.broadcast_to(np.asarray(wrench, dtype=float), (len(t), 6))
                p_ext = p_ext - np.einsum("kij,ki,kj->k", robot.jacobian(sim.q, frame=frame),
                                          h, qd)
        elif h_e is not None:
            h = np.broadcast_to(np.asarray(h_e, dtype=float), (len(t), 6))
            p_ext = -np.einsum("kij,ki,kj->k", robot.jacobian(sim.q), h, qd)
    return balance_of_powers(t, sim.kinetic, sim.total, p_tau, p_ext, p_loss)


def balance_of_powers(t, kinetic, total, p_tau, p_ext, p_loss) -> EnergyBalance:
    """The :class:`EnergyBalance` of a motion sampled at ``t`` from its kinetic and total
    energy and the powers of the torques, the wrench and friction (each ``(T,)``)."""
    with np.errstate(all="ignore"):
        rate = p_tau + p_ext - p_loss  # dE/dt
        work, external, loss = (time_integral(t, p) for p in (p_tau, p_ext, p_loss))
        change = float(total[-1] - total[0])
        error = change - time_integral(t, rate)
        uncertainty = 0.0
        if len(t) >= 3:
            every = np.arange(0, len(t), 2)
            if every[-1] != len(t) - 1:
                every = np.append(every, len(t) - 1)
            uncertainty = abs(time_integral(t, rate) - time_integral(t[every], rate[every])) / 3
        moved = [time_integral(t, np.abs(p)) for p in (p_tau, p_ext)] + [abs(loss)]
        scale = max(float(np.abs(total).max()), float(np.ptp(kinetic)), *moved, 1e-300)
    return EnergyBalance(change, work, external, loss, error, scale, uncertainty)


def check_energy(robot, sim: Simulation, wrench) -> None:
    """Store the run's :class:`EnergyBalance` in ``info`` and warn once when it is off."""
    h = wrench
    if callable(wrench):
        h = np.stack([wrench_value(wrench, tk, qk, qdk) for tk, qk, qdk in
                      zip(sim.t, sim.q, sim.qd)])
    balance = energy_balance(robot, sim, h)
    sim.info["energy_balance"] = balance
    warn_energy_balance(balance, sim.info, "arm")


def warn_energy_balance(balance, info, what: str = "arm") -> None:
    """An :class:`EnergyBalanceWarning` when the run's energy balance is off (more than
    :data:`ENERGY_TOLERANCE` of its energy scale), with what to change; ``what`` the
    simulated system in the message (``arm``, ``robot``)."""
    if not balance.off:
        return
    drift = ("E = K + U drifted by" if balance.passive else
             f"E(end) - E(0) differs from the work done on the {what} by")
    warn(EnergyBalanceWarning(
        f"simulate: {drift} {abs(balance.error):.3g} J, {balance.relative:.1%} of the energy "
        f"scale {balance.scale:.3g} J (more than {ENERGY_TOLERANCE:.0%}): the integration "
        f"is not accurate; {energy_advice(info)}"))


def energy_advice(info) -> str:
    """What to change when a run's energy balance is off, from its ``info`` (method, dt)."""
    if info.get("method") == "implicit-euler":
        return "reduce dt (implicit Euler is first order and damps the motion)"
    if info.get("dt") is not None:
        return "reduce dt, or use method='implicit-euler' or 'radau' for a stiff motion"
    return "tighten rtol and atol"


# -- the joint limits --------------------------------------------------------------------------
def report_limits(robot, sim: Simulation) -> None:
    """Store the joint limits the (single) run ``sim`` crossed in ``info`` and warn once
    naming them (:func:`crossed_limits`); ``info["velocity_limit"]`` the joints' speeds
    against their velocity limits (:func:`velocity_report`) where the model has any."""
    crossed = crossed_limits(robot, sim)
    speeds = velocity_report(robot, sim)
    if speeds is not None:
        sim.info["velocity_limit"] = speeds
    if crossed:
        sim.info["limits_crossed"] = crossed
        shown = "; ".join(crossed[:8]) + (f"; and {len(crossed) - 8} more" if len(crossed) > 8
                                          else "")
        warn(JointLimitWarning(f"simulate: joint limits crossed (not enforced): {shown}"))


def _joint_motion(chain, sim: Simulation):
    """``(q, qd, efforts)`` of every joint of ``chain`` along ``sim``: the run's own, or for
    coupled loops ``q = G y + b`` (``efforts`` maps the independent joints to ``sim.tau``'s
    columns; None: every joint has its column)."""
    if chain.closures is not None and chain.closures.couplings:
        G, b, independent = coupling_basis(chain)
        return sim.q @ G.T + b, sim.qd @ G.T, dict(zip(independent, range(len(b))))
    return sim.q, sim.qd, None


def _limited_joints(chain):
    """``(j, name, limits, kq, kv)`` of each single-valued joint of ``chain`` with limits."""
    for j, (link, kq, kv) in enumerate(zip(chain.links, chain.q_offsets(), chain.v_offsets(),
                                           strict=True)):
        limits = link.joint.limits
        if limits and link.joint.model.single:
            yield j, link.joint.name or f"joint {j + 1}", limits, kq, kv


def velocity_report(robot, sim: Simulation) -> dict | None:
    """Each joint's speed along the (single) run ``sim`` against its velocity limit (URDF
    ``<limit velocity>``, a model file's ``limits: {velocity}``); None where the model gives
    no finite one. Per joint of the chain: ``limit`` (``inf``: none), ``peak`` (``max |qd|``),
    ``ratio`` (``peak / limit``, 0 without a limit); ``exceeded``, the joints (0-based) whose
    ``|qd|`` passed the limit, with ``first_time`` ``{joint: t}`` and their ``names``."""
    chain = robot.numeric_chain
    _, qd, _ = _joint_motion(chain, sim)
    n = len(chain.links)
    limit, peak = np.full(n, np.inf), np.zeros(n)
    exceeded, first, names = [], {}, {}
    for j, name, limits, _, kv in _limited_joints(chain):
        limit[j] = np.inf if limits[2] is None else float(limits[2])
        speed = np.abs(qd[:, kv])
        peak[j] = float(speed.max()) if speed.size else 0.0
        over = speed > limit[j]
        if over.any():
            exceeded.append(j)
            first[j], names[j] = float(sim.t[int(np.argmax(over))]), name
    if not np.isfinite(limit).any():
        return None
    ratio = np.where(np.isfinite(limit), peak / limit, 0.0)
    return {"limit": limit, "peak": peak, "ratio": ratio, "exceeded": exceeded,
            "first_time": first, "names": names}


def crossed_limits(robot, sim: Simulation) -> list[str]:
    """The joint limits of ``robot`` that the (single) run ``sim`` crosses, each as
    ``"<joint> <position|velocity|effort> limit <bound> first crossed at t = ... s"`` (a
    velocity limit with the peak ``|qd|`` as a multiple of it)."""
    crossed = []
    chain = robot.numeric_chain
    q, qd, efforts = _joint_motion(chain, sim)
    for j, name, limits, kq, kv in _limited_joints(chain):
        lower, upper, velocity, effort = limits
        checks = [("position", (q[:, kq] < lower) | (q[:, kq] > upper),
                   f"[{lower:g}, {upper:g}]")]
        if lower == upper == 0:
            checks = []  # URDF's default when a file gives no position limits
        speed = np.abs(qd[:, kv])
        checks.append(("velocity", speed > velocity, f"{velocity:g}"))
        if efforts is None or j in efforts:  # a coupled joint's torque is not in sim.tau
            k = kv if efforts is None else efforts[j]
            checks.append(("effort", np.abs(sim.tau[:, k]) > effort, f"{effort:g}"))
        for what, mask, bound in checks:
            if mask.any():
                peak = (f" (peak |qd| {speed.max() / velocity:.3g} times the limit)"
                        if what == "velocity" else "")
                crossed.append(f"{name} {what} limit {bound} first crossed at t = "
                               f"{sim.t[int(np.argmax(mask))]:.4g} s{peak}")
    return crossed
