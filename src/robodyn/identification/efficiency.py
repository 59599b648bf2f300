"""The gears' efficiency from measured motor currents: ``eta`` when the motor drives its
joint and ``eta_b`` when the joint drives the motor, per joint.

The drive model is :mod:`robodyn.motion.electrics`' (after Siciliano et al., *Robotics*,
§5.2, with the gear losses of a power-flow direction): a joint torque ``tau`` (the robot's
inverse dynamics along the motion, whose ``M`` holds the rotor's ``G^2 J_m``) passes the
gear as ``tau_g = tau - G^2 J_m qdd``, and the motor delivers ``tau_m = k_t i``::

    G (k_t i - J_m G qdd) = tau_g / eta       where tau_g qd > 0 (the motor drives)
    G (k_t i - J_m G qdd) = eta_b tau_g       where tau_g qd < 0 (the load drives)

Each side is linear in one unknown (``1/eta``, ``eta_b``) with the regressor ``tau_g``, so
the least-squares estimates are closed forms, ``1/eta = sum(tau_g y) / sum(tau_g^2)`` over
the driving samples, ``y = G (k_t i - J_m G qdd)``, and ``eta_b`` likewise over the driven
ones; their standard errors from the residuals, ``sigma^2 / sum(tau_g^2)`` (for ``eta``
through ``d(1/x) = -dx/x^2``). Samples where ``|tau_g qd|`` is below ``power_floor`` of its
largest value are left out (at rest or with no load the direction of the power flow, and
so the efficiency, is undetermined).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError

__all__ = ["EfficiencyFit", "identify_efficiency", "MIN_SAMPLES"]

#: Fewest samples of one power-flow direction that fit its efficiency.
MIN_SAMPLES = 10


@dataclass(frozen=True)
class EfficiencyFit:
    """Per joint: ``eta`` (the motor drives), ``eta_back`` (the load drives), their standard
    errors ``eta_std``, ``eta_back_std``, the samples each used (``driving``, ``driven``)
    and the RMS of the motor-torque residuals (N m at the motor)."""

    eta: np.ndarray
    eta_back: np.ndarray
    eta_std: np.ndarray
    eta_back_std: np.ndarray
    driving: np.ndarray
    driven: np.ndarray
    residual_rms: np.ndarray

    def __str__(self) -> str:
        rows = [f"joint {j + 1}: eta = {e:.4f} +- {se:.1g} ({d} samples), eta_back = "
                f"{b:.4f} +- {sb:.1g} ({r} samples)"
                for j, (e, se, d, b, sb, r) in enumerate(zip(
                    self.eta, self.eta_std, self.driving, self.eta_back, self.eta_back_std,
                    self.driven, strict=True))]
        return "gear efficiencies from the motor currents\n  " + "\n  ".join(rows)


def _fit(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """``(c, std of c, residual rms)`` of ``y = c x`` by least squares."""
    sxx = float(x @ x)
    c = float(x @ y) / sxx
    residual = y - c * x
    sigma2 = float(residual @ residual) / max(len(x) - 1, 1)
    return c, float(np.sqrt(sigma2 / sxx)), float(np.sqrt(np.mean(residual ** 2)))


def identify_efficiency(robot, motion, current, motors=None,
                        power_floor: float = 0.02) -> EfficiencyFit:
    """``eta`` and ``eta_b`` of each joint's gear (module docstring) from ``motion``
    (anything with ``q``, ``qd``, ``qdd``: a Simulation, a Trajectory; its ``tau`` when it has
    them, else ``robot.inverse_dynamics``) and the measured motor ``current`` ``(T, n)``
    (A). ``motors``: one :class:`~robodyn.motion.electrics.DCMotor` per joint or one for all
    (``None``: the model file's); the gear ratios and rotor inertias are the model's.
    ``power_floor``: the fraction of the largest ``|tau_g qd|`` below which a sample is left
    out. An :class:`InputError` names what is missing: a direction with fewer than
    :data:`MIN_SAMPLES` samples (an excitation that only lifts, say) cannot be fitted."""
    from ..motion.electrics import dc_motors, gear_ratios, motion_samples, sample_table

    n = robot.dof
    motors = dc_motors(motors, robot.numeric_chain, n)
    if not (isinstance(power_floor, int | float) and 0 <= power_floor < 1):
        raise InputError(f"power_floor: {power_floor!r:.40}; give a fraction in [0, 1)")
    q, qd, qdd = motion_samples(motion, n)
    i = sample_table(current, "current", n, qd.shape[0])
    tau = getattr(motion, "tau", None)
    tau = robot.inverse_dynamics(q, qd, qdd) if tau is None else sample_table(
        tau, "motion.tau", n, qd.shape[0])
    chain = robot.numeric_chain
    G = gear_ratios(chain, "identify_efficiency")
    Jm = np.array([float(link.motor.inertia) for link in chain.links])
    kt = np.array([m.torque_constant for m in motors])
    through = tau - G * G * Jm * qdd
    y = G * (kt * i - Jm * G * qdd)   # what the gear passes, seen from the joint
    power = through * qd
    out = {k: np.zeros(n) for k in ("eta", "eta_back", "eta_std", "eta_back_std", "rms")}
    counts = np.zeros((2, n), dtype=int)
    for j in range(n):
        floor = power_floor * float(np.abs(power[:, j]).max())
        for side, keep in enumerate((power[:, j] > floor, power[:, j] < -floor)):
            counts[side, j] = int(keep.sum())
            if counts[side, j] < MIN_SAMPLES:
                what = "drives its joint" if side == 0 else "is driven by its joint"
                raise InputError(f"current: joint {j + 1}'s motor {what} in {counts[side, j]} "
                                 f"samples (at least {MIN_SAMPLES} needed to fit "
                                 f"{'eta' if side == 0 else 'eta_back'}); excite the joint "
                                 "so that it both lifts and lowers, speeds up and brakes")
            c, std, rms = _fit(through[keep, j], y[keep, j])
            if not c > 0:  # eta = 1/c or eta_b = c must be > 0: the data contradict the model
                raise InputError(
                    f"current: joint {j + 1}'s currents fit a gear efficiency "
                    f"{'eta_back' if side else 'eta'} = "
                    f"{c if side else (1 / c if c else float('inf')):.3g}, not in (0, 1]: the "
                    "currents do not drive the joint's torques; check their sign convention "
                    "(k_t i with the torque's sign), the units (A) and the motors' "
                    "torque_constant")
            if side == 0:  # c = 1/eta
                out["eta"][j], out["eta_std"][j] = 1 / c, std / (c * c)
            else:
                out["eta_back"][j], out["eta_back_std"][j] = c, std
            # the residual at the motor: y is at the joint, divided by G
            out["rms"][j] = max(out["rms"][j], rms / abs(G[j]))
    return EfficiencyFit(out["eta"], out["eta_back"], out["eta_std"], out["eta_back_std"],
                         counts[0], counts[1], out["rms"])
