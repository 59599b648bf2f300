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
    #: Every joint is elastic (one spring per motor).
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
    def stiffness(self) -> np.ndarray:
        """``K_m``, one per motor (N m/rad at the motor)."""
        return np.array(self.transmission.stiffness, dtype=float)

    @property
    def damping(self) -> np.ndarray:
        """``D_m``, one per motor."""
        return np.array(self.transmission.spring_damping, dtype=float)

    @property
    def motor_inertia(self) -> np.ndarray:
        """``J_m``, one per motor (the motor side's inertia, not reflected)."""
        return np.array(self.transmission.motor_inertia, dtype=float)

    @property
    def dof(self) -> int:
        """The number of springs (motors), ``n``."""
        return len(self.transmission.stiffness)

    def indices(self, n: int) -> np.ndarray:
        """Every joint: each motor's spring acts on the links through ``N``."""
        return np.arange(n)

    def deflection(self, q, theta) -> np.ndarray:
        """The springs' deflection ``theta_m - N q``, ``(..., n)``."""
        return np.asarray(theta, dtype=float) - drives.motor_angles(self.transmission, q)

    def spring_torques(self, q, theta, qd, thetad) -> np.ndarray:
        """``K_m (theta_m - N q) + D_m (theta_m' - N q')``: the springs' torques at the
        motors, ``(..., n)``."""
        return self.stiffness * self.deflection(q, theta) + self.damping * self.deflection(
            qd, thetad)

    def link_torques(self, spring, tau) -> np.ndarray:
        """``N^T spring``: the springs' torques on the links (``tau`` drives the motors)."""
        return drives.joint_torques(self.transmission, spring)

    def motor_accelerations(self, spring, tau, thetad) -> np.ndarray:
        """``theta_m'' = J_m^-1 (N^-T tau - B_m theta_m' - F_m sign(theta_m') - spring)``."""
        tr = self.transmission
        thetad = np.asarray(thetad, dtype=float)
        friction = (np.asarray(tr.motor_viscous) * thetad
                    + np.asarray(tr.motor_coulomb) * np.sign(thetad))
        return (drives.motor_torques(tr, tau) - friction - spring) / self.motor_inertia

    def held(self, q, gravity) -> np.ndarray:
        """The motor angles that hold the links at rest at ``q`` under their weight's torques
        ``gravity`` (``g(q)``): ``N^T K_m (theta_m - N q) = g``, so ``theta_m = N q + K_m^-1
        N^-T g(q)``."""
        return (drives.motor_angles(self.transmission, q)
                + drives.motor_torques(self.transmission, gravity) / self.stiffness)

    def spring_energy(self, q, theta) -> np.ndarray:
        """``1/2 (theta_m - N q)^T K_m (theta_m - N q)``, ``(...)``."""
        d = self.deflection(q, theta)
        return 0.5 * np.sum(self.stiffness * d * d, axis=-1)

    def motor_energy(self, thetad) -> np.ndarray:
        """The rotors' kinetic energy ``1/2 theta_m'^T J_m theta_m'``, ``(...)``."""
        thetad = np.asarray(thetad, dtype=float)
        return 0.5 * np.sum(self.motor_inertia * thetad * thetad, axis=-1)

    def motor_power(self, q, qd, thetad, tau) -> np.ndarray:
        """The inputs' power ``tau_m^T theta_m'`` (``tau_m = N^-T tau``), ``(...)``."""
        return np.sum(drives.motor_torques(self.transmission, tau) * np.asarray(thetad),
                      axis=-1)

    def dissipation(self, q, qd, thetad) -> np.ndarray:
        """The power the springs' damping and the motors' friction take,
        ``d'^T D_m d' + B_m theta_m'^2 + F_m |theta_m'|`` (``d' = theta_m' - N q'``)."""
        tr, thetad = self.transmission, np.asarray(thetad, dtype=float)
        rate = self.deflection(qd, thetad)
        return np.sum(self.damping * rate * rate + np.asarray(tr.motor_viscous) * thetad**2
                      + np.asarray(tr.motor_coulomb) * np.abs(thetad), axis=-1)
