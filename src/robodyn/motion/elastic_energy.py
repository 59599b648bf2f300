"""The energy of a robot with elastic joints along a run of
:func:`~robodyn.motion.elastic.simulate_elastic`, the springs' included::

    E = T + U,   T = 1/2 q'^T M(q) q' + 1/2 theta'^T B theta'
                 U = U_g(q) + 1/2 (theta - S q)^T K (theta - S q)

(the link side's ``M`` without the rotors, which are the motor side's ``B``; behind a
coupled transmission ``J_m``, ``theta_m`` and ``theta_m - N q``,
:mod:`robodyn.motion.elastic_coupled`). Its balance is ``E(t) - E(0) = W(t) - L(t)``:
``W`` the inputs' work (``tau^T theta'`` on the motors, ``tau^T q'`` on rigid joints), ``L``
what the springs' damping and the friction (the links', and the motors' behind a coupled
transmission) take (Spong 1987, the Lyapunov function of the elastic-joint robot; De Luca
and Book, Springer Handbook of Robotics, ch. 11). Without inputs, damping and friction
``E`` is constant: its drift measures the integrator. ``W`` and ``L`` are the run's own
when it integrated them with the state (``simulate_elastic(..., balance=True)``, to the
integrator's tolerance), else the trapezoidal rule on its samples (as good as the samples
are dense).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ElasticEnergy", "elastic_energy"]


@dataclass(frozen=True)
class ElasticEnergy:
    """``E = T + U`` along a run (``(T,)`` arrays): ``kinetic`` (links and rotors),
    ``gravity`` ``U_g``, ``spring`` ``1/2 d^T K d``, ``work`` ``W`` and ``loss`` ``L`` (both
    cumulative from 0), ``passive`` when nothing adds or takes energy (no input, no damping
    or friction along the run); ``integrated`` when ``W`` and ``L`` came with the run (else
    the trapezoidal rule on its samples)."""

    t: np.ndarray
    kinetic: np.ndarray
    gravity: np.ndarray
    spring: np.ndarray
    work: np.ndarray
    loss: np.ndarray
    passive: bool
    integrated: bool = False

    @property
    def total(self) -> np.ndarray:
        """``E = T + U_g + 1/2 d^T K d``."""
        return self.kinetic + self.gravity + self.spring

    @property
    def error(self) -> float:
        """The balance's largest miss ``max |E(t) - E(0) - W(t) + L(t)|`` (the drift of
        ``E`` when passive)."""
        total = self.total
        return float(np.max(np.abs(total - total[0] - self.work + self.loss)))

    @property
    def scale(self) -> float:
        """The energy that moves along the run, ``max (T + 1/2 d^T K d) + (max U_g - min
        U_g)``, at least 1e-300: what :attr:`relative` divides by."""
        moving = np.max(self.kinetic + self.spring) + np.ptp(self.gravity)
        return float(max(moving, 1e-300))

    @property
    def relative(self) -> float:
        """:attr:`error` over :attr:`scale`."""
        return self.error / self.scale


def _cumulative(t, power) -> np.ndarray:
    """``int_0^t power`` by the trapezoidal rule on the samples."""
    steps = 0.5 * (power[1:] + power[:-1]) * np.diff(t)
    return np.concatenate([[0.0], np.cumsum(steps)])


def elastic_energy(side, springs, run) -> ElasticEnergy:
    """The energy of ``run`` (an :class:`~robodyn.motion.elastic.ElasticSimulation`) with
    ``springs`` (:class:`~robodyn.motion.elastic.ElasticJoints` or
    :class:`~robodyn.motion.elastic_coupled.CoupledSprings`); ``side`` the link side's
    model (:func:`robodyn.motion.elastic.link_side`: the links without the rotors behind
    the springs), whose ``kinetic_energy``, ``potential_energy`` and ``friction_torques``
    it evaluates on the samples; the work and loss integrated with the run when it has
    them (``run.work``, ``run.loss``)."""
    q, qd, theta, thetad = run.q, run.qd, run.theta, run.thetad
    kinetic = np.asarray(side.kinetic_energy(q, qd)) + springs.motor_energy(thetad)
    gravity = np.asarray(side.potential_energy(q), dtype=float)
    spring = springs.spring_energy(q, theta)
    power = springs.motor_power(q, qd, thetad, run.tau)
    lost = springs.dissipation(q, qd, thetad) + np.sum(
        np.asarray(side.friction_torques(qd)) * qd, axis=-1)
    passive = not (np.any(power) or np.any(lost))
    if getattr(run, "work", None) is not None:
        return ElasticEnergy(run.t, kinetic, gravity, spring, run.work, run.loss, passive,
                             True)
    return ElasticEnergy(run.t, kinetic, gravity, spring, _cumulative(run.t, power),
                         _cumulative(run.t, lost), passive)
