"""Elastic joints behind a coupled transmission: a spring per motor, on the motor side of
the gear, between the motor's angle ``theta_m`` and the angle ``N q`` the rigid coupling
would give it (:mod:`robodyn.model.transmission`, ``theta = N q`` when rigid).

The coordinates are the links' ``q`` and the motors' ``theta_m`` (``n`` each; the angle at
the motor, before the gear). With the motors' inertias ``J_m``, their friction ``B_m
theta_m' + F_m sign(theta_m')``, the springs' stiffnesses ``K_m`` and dampings ``D_m``
(all diagonal, one per motor), the energies and the dissipation are::

    T = 1/2 q'^T M(q) q' + 1/2 theta_m'^T J_m theta_m'
    U = U_g(q) + 1/2 (theta_m - N q)^T K_m (theta_m - N q)
    R = 1/2 (theta_m' - N q')^T D_m (theta_m' - N q')     (Rayleigh's function)

and Lagrange's equations (``d/dt dT/dq' - dT/dq + dU/dq + dR/dq' = `` the other forces;
``dU/dq = g(q) - N^T K_m (theta_m - N q)``, ``dR/dq' = -N^T D_m (theta_m' - N q')``) give::

    link side:   M(q) q'' + C q' + F(q') + g(q) = N^T [K_m (theta_m - N q) + D_m (theta_m' - N q')]
    motor side:  J_m theta_m'' + B_m theta_m' + F_m sign(theta_m')
                 + K_m (theta_m - N q) + D_m (theta_m' - N q') = tau_m

Spong's elastic-joint model (M. W. Spong, "Modeling and control of elastic joint robots",
ASME J. Dyn. Sys., Meas., Control 109(4), 1987, with his assumption that a rotor's kinetic
energy is that of its own spin) with the joints' springs moved behind the coupling (A. De
Luca and W. Book, "Robots with flexible elements", Springer Handbook of Robotics, ch. 11:
the reduced model, with the transmission's kinematics ``theta = N q`` of Spong,
Hutchinson and Vidyasagar, *Robot Modeling and Control* §6.4).

``tau_m`` are the motors' torques; the functions take the **joint torques** ``tau = N^T
tau_m`` (``tau_m = N^-T tau``), what the rigid coupled model's ``inverse_dynamics`` gives,
so the same ``tau`` drives both models. As ``K_m -> inf``, ``theta_m -> N q``; ``N^T``
times the motor side added to the link side is the rigid coupled model ``(M + N^T J_m N)
q'' + C q' + F + N^T (B_m N q' + F_m sign(N q')) + g = tau``, within ``O(1/K_m)``.

**Some motors rigid** (``stiffness: [K_m1, null]``): with ``E`` the motors with a spring
(``m`` of them, ``N_E`` their rows of ``N``) and ``R`` the rigid others, a rigid motor's
angle is ``n_k . q`` (row ``k`` of ``N``), so its energy ``1/2 J_k (n_k . q')^2`` puts
``n_k^T J_k n_k`` in ``M``, its friction acts through ``n_k^T`` and its torque ``tau_mk`` does
the work ``tau_mk n_k . q'`` on the links::

    link side:   (M + N_R^T J_R N_R) q'' + C q' + F + N_R^T (B_R N_R q' + F_R sign(N_R q'))
                 + g = N_E^T [K_E (theta_E - N_E q) + D_E (theta_E' - N_E q')] + N_R^T tau_mR
    motor side:  J_E theta_E'' + B_E theta_E' + F_E sign(theta_E')
                 + K_E (theta_E - N_E q) + D_E (theta_E' - N_E q') = tau_mE

``theta`` has the ``m`` elastic motors' angles; ``tau_m = N^-T tau`` as before. The link
side is the rigid coupled model of the rigid motors alone (the elastic ones' ``J``, ``B``,
``F`` zero: :meth:`CoupledSprings.link_drives`); ``K_E -> inf`` is the rigid coupled model.

**Independent gears** (``N = diag(G)``): with ``theta = theta_m / G`` (the motor's angle
seen at the joint) the two sides are Spong's per joint (:mod:`robodyn.motion.elastic`)
with ``K = G^2 K_m``, ``D = G^2 D_m``, ``B = G^2 J_m`` and ``tau = G tau_m``: the link
side's ``G K_m (theta_m - G q) = G^2 K_m (theta - q)``, the motor side times ``G``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.errors import InputError
from ..dynamics import transmission as drives
from ..model.transmission import Transmission

__all__ = ["CoupledSprings"]


@dataclass(frozen=True)
class CoupledSprings:
    """The springs of elastic drives behind a coupled transmission ``transmission`` (its
    ``stiffness`` ``K_m`` and ``spring_damping`` ``D_m``, one per motor; module
    docstring). The same methods as :class:`~robodyn.motion.elastic.ElasticJoints`, so
    :func:`~robodyn.motion.elastic.simulate_elastic` and the controllers take either; the
    motor coordinates are the motors' own angles ``theta_m``."""

    transmission: Transmission
    #: Every joint is elastic (one spring per motor); the motors: :attr:`motors`.
    joints = None

    def __post_init__(self):
        if not isinstance(self.transmission, Transmission) or self.transmission.stiffness is None:
            raise InputError("springs: CoupledSprings needs a transmission with stiffness "
                             "(robodyn.model.transmission.transmission_of({matrix: ..., "
                             "motor_inertia: ..., stiffness: [...]}, dof))")

    @property
    def N(self) -> np.ndarray:  # noqa: N802 (the books' letter)
        """The coupling ``N`` (``theta_m = N q`` in the rigid limit), ``(n, n)``."""
        return self.transmission.N

    @property
    def motors(self) -> tuple[int, ...] | None:
        """The motors with a spring, ``E`` (0-based), one per entry of ``theta``; ``None``:
        every motor."""
        springs = self.transmission.springs
        return None if len(springs) == len(self.transmission.stiffness) else springs

    @property
    def rows(self) -> np.ndarray:
        """``N_E``, the rows of ``N`` of the motors with a spring, ``(m, n)``."""
        return self.N[list(self.transmission.springs)]

    def _elastic(self, values) -> np.ndarray:
        return np.array(values, dtype=float)[list(self.transmission.springs)]

    @property
    def stiffness(self) -> np.ndarray:
        """``K_m``, one per spring (N m/rad at the motor)."""
        return self._elastic([0.0 if k is None else k for k in self.transmission.stiffness])

    @property
    def damping(self) -> np.ndarray:
        """``D_m``, one per spring."""
        return self._elastic(self.transmission.spring_damping)

    @property
    def motor_inertia(self) -> np.ndarray:
        """``J_m``, one per spring (the motor side's inertia, not reflected)."""
        return self._elastic(self.transmission.motor_inertia)

    @property
    def dof(self) -> int:
        """The number of springs ``m`` (``n`` when every motor has one)."""
        return len(self.transmission.springs)

    def indices(self, n: int) -> np.ndarray:
        """Every joint: each motor's spring acts on the links through ``N``."""
        return np.arange(n)

    def link_drives(self) -> Transmission | None:
        """The drives on the link side: the rigid motors (the elastic ones' ``J``, ``B``,
        ``F`` zero, no springs), ``None`` when every motor has a spring."""
        return None if self.motors is None else self.transmission.rigid_motors()

    def deflection(self, q, theta) -> np.ndarray:
        """The springs' deflection ``theta_m - N_E q``, ``(..., m)``."""
        return np.asarray(theta, dtype=float) - np.asarray(q, dtype=float) @ self.rows.T

    def spring_torques(self, q, theta, qd, thetad) -> np.ndarray:
        """``K_m (theta_m - N_E q) + D_m (theta_m' - N_E q')``: the springs' torques at the
        motors, ``(..., m)``."""
        return self.stiffness * self.deflection(q, theta) + self.damping * self.deflection(
            qd, thetad)

    def _motor_torques(self, tau) -> np.ndarray:
        return drives.motor_torques(self.transmission, np.asarray(tau, dtype=float))

    def link_torques(self, spring, tau) -> np.ndarray:
        """``N_E^T spring + N_R^T tau_mR``: the springs' torques on the links, and the rigid
        motors' (``tau_m = N^-T tau``); ``tau`` drives the elastic motors (unused when every
        motor has a spring, then ``None`` may be given)."""
        if self.motors is None:
            return drives.joint_torques(self.transmission, spring)
        tau_m = self._motor_torques(tau)
        tau_m[..., list(self.transmission.springs)] = 0.0
        return np.asarray(spring) @ self.rows + tau_m @ self.N

    def motor_accelerations(self, spring, tau, thetad) -> np.ndarray:
        """``theta_m'' = J_m^-1 ((N^-T tau)_E - B_m theta_m' - F_m sign(theta_m') - spring)``."""
        tr = self.transmission
        thetad = np.asarray(thetad, dtype=float)
        friction = (self._elastic(tr.motor_viscous) * thetad
                    + self._elastic(tr.motor_coulomb) * np.sign(thetad))
        tau_m = self._motor_torques(tau)[..., list(tr.springs)]
        return (tau_m - friction - spring) / self.motor_inertia

    def held(self, q, gravity) -> np.ndarray:
        """The motor angles that hold the links at rest at ``q`` under their weight's torques
        ``gravity`` (``g(q)``): with ``tau = g`` (``tau_m = N^-T g``) each spring carries
        its motor's torque, ``theta_m = N_E q + K_m^-1 (N^-T g(q))_E``."""
        tau_m = self._motor_torques(gravity)[..., list(self.transmission.springs)]
        return np.asarray(q, dtype=float) @ self.rows.T + tau_m / self.stiffness

    def spring_energy(self, q, theta) -> np.ndarray:
        """``1/2 (theta_m - N_E q)^T K_m (theta_m - N_E q)``, ``(...)``."""
        d = self.deflection(q, theta)
        return 0.5 * np.sum(self.stiffness * d * d, axis=-1)

    def motor_energy(self, thetad) -> np.ndarray:
        """The elastic motors' rotors' kinetic energy ``1/2 theta_m'^T J_m theta_m'``
        (a rigid motor's is the link side's, ``N_R^T J_R N_R`` in ``M``), ``(...)``."""
        thetad = np.asarray(thetad, dtype=float)
        return 0.5 * np.sum(self.motor_inertia * thetad * thetad, axis=-1)

    def motor_power(self, q, qd, thetad, tau) -> np.ndarray:
        """The inputs' power ``tau_m^T theta_m'`` (``tau_m = N^-T tau``; a rigid motor's
        ``theta_m' = n_k . q'``), ``(...)``."""
        rates = np.asarray(qd, dtype=float) @ self.N.T
        rates[..., list(self.transmission.springs)] = np.asarray(thetad, dtype=float)
        return np.sum(self._motor_torques(tau) * rates, axis=-1)

    def dissipation(self, q, qd, thetad) -> np.ndarray:
        """The power the springs' damping and the elastic motors' friction take,
        ``d'^T D_m d' + B_m theta_m'^2 + F_m |theta_m'|`` (``d' = theta_m' - N_E q'``; a
        rigid motor's friction is the link side's)."""
        tr, thetad = self.transmission, np.asarray(thetad, dtype=float)
        rate = self.deflection(qd, thetad)
        return np.sum(self.damping * rate * rate + self._elastic(tr.motor_viscous) * thetad**2
                      + self._elastic(tr.motor_coulomb) * np.abs(thetad), axis=-1)
