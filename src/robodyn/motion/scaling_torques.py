"""The torques of a motion as a function of its speed along its path, for time scaling
(:mod:`robodyn.motion.time_scaling`, uniform; :mod:`robodyn.motion.time_optimal`, varying).

A motion run ``k`` times slower (or along its path at speed ``s'``) has its joint torques
split by how they scale: the inertial and velocity torques with ``1/k^2``, viscous friction
with ``1/k``, gravity and Coulomb friction not at all (Siciliano et al., Robotics, §7.7).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from ..core.errors import InputError

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["torque_coefficients"]


def torque_coefficients(robot: Robot, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(a, b, c)`` with ``tau_s = a / k^2 + b / k + c`` the torques of the motion slowed
    ``k`` times (module docstring): ``a = M qdd + C qd``, ``b = F_v qd`` (viscous),
    ``c = g + F_s sign(qd)`` (gravity and Coulomb friction, asymmetric levels and the
    offset too), each ``(..., dof)``. Friction whose shape depends on the speed (Stribeck,
    the smooth sign) does not scale so: an :class:`~robodyn.InputError` names the joint."""
    for i, link in enumerate(robot.numeric_chain.links):
        fr = link.friction
        if fr.static != 0 or fr.smooth_velocity != 0:
            raise InputError(f"time scaling: joint {i + 1} has Stribeck or smooth-sign "
                             f"friction (links[{i}].friction.static, smooth_velocity), which "
                             "is not a * qd + b * sign(qd): the torques of a slowed motion are "
                             "not a / k^2 + b / k + c; compute them with inverse_dynamics")
    parts = robot.torque_parts(q, qd, qdd)
    coulomb = robot.without_friction(viscous=True, coulomb=False).friction_torques(qd)
    return parts.inertial + parts.coriolis, parts.friction - coulomb, parts.gravity + coulomb
