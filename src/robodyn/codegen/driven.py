"""The kernels of a model with a coupled transmission (``theta = N q``,
:mod:`robodyn.model.transmission`): the links' compiled kernels, then the drives' constant
terms on the arrays (:mod:`robodyn.dynamics.transmission`)::

    M_d = M(q) + R,   tau_d = tau(q, qd, qdd) + R qdd + tau_mf(qd),   R = N^T J_m N,
    tau_mf = N^T (B_m N qd + F_m sign(N qd)),   qdd = M_d^{-1} (tau - tau(q, qd, 0) - tau_mf),
    T_d = T + 1/2 qd^T R qd,   dtau_d/dqd = dtau/dqd + N^T B_m N,   dtau_d/dqdd = M_d,

and ``dqdd/dx = -M_d^{-1} dtau_d/dx``, ``dqdd/dtau = M_d^{-1}`` (Carpentier & Mansard 2018).
``R`` is constant, so the Coriolis matrix, gravity, kinematics and ``dM/dq`` are the
links'. :class:`DrivenRunner` answers the robot's methods this way; the compiled
simulation loops and raw kernel handles, which would run the links' kernels alone, are
not offered for the kinds the drives change (the Python loop runs instead).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from ..dynamics import transmission as drives
from ..dynamics.inverse_dynamics import TORQUE_PARTS
from .runner import Runner

#: Kinds whose value the drives change.
CHANGED = ("inverse_dynamics", "forward_dynamics", "mass_matrix", "friction_torques",
           "torque_parts", "kinetic_energy", "inverse_dynamics_derivatives",
           "forward_dynamics_derivatives", "regressor")


def _base(kind: str) -> str:
    return kind.partition("@")[0].removesuffix("_contact")


class DrivenRunner(Runner):
    """A runner whose robot has the coupled transmission ``chain.transmission``."""

    def __init__(self, chain, values, name: str):
        super().__init__(chain, values, name)
        self.tr = chain.transmission
        self.R = drives.reflected_inertia(self.tr)
        N = self.tr.N
        self.BR = N.T @ (np.asarray(self.tr.motor_viscous)[:, None] * N)

    # the robot's one-state shortcuts call the links' kernels: never for this runner
    hot_inverse_dynamics = property(lambda self: None, lambda self, value: None)
    hot_forward_dynamics = property(lambda self: None, lambda self, value: None)

    def compiled_ready(self, kind: str) -> bool:
        return False if _base(kind) in CHANGED else super().compiled_ready(kind)

    def handle(self, kind: str):
        self._refuse(kind, "robot.kernel")
        return super().handle(kind)

    def kernel(self, kind: str, traced: tuple | None = None):
        self._refuse(kind, "a compiled kernel")
        return super().kernel(kind, traced)

    def _refuse(self, kind: str, what: str) -> None:
        if _base(kind) in CHANGED:
            raise ModelError(f"{self.name}: {what} of {kind!r} would leave out the coupled "
                             "transmission (it runs the links' kernel); call the robot's "
                             "methods, or drop transmission from the model")

    def run(self, kind: str, *arrays):
        """Registry entry ``kind`` with the drives' terms (module docstring)."""
        base = _base(kind)
        tree = super().run
        if base not in CHANGED:
            return tree(kind, *arrays)
        if base == "regressor":  # the tree's columns, then the drives' (Jm, Bm, Fm)
            from ..dynamics.regressor import transmission_columns

            full = np.asarray(tree(kind, *arrays), dtype=float)
            qd, qdd = (np.asarray(a, dtype=float) for a in arrays[1:3])
            extra = transmission_columns(self.tr, qd, qdd)
            extra = np.broadcast_to(extra, (*full.shape[:-1], extra.shape[-1]))
            return np.concatenate([full, extra], axis=-1)
        if base in ("forward_dynamics", "forward_dynamics_derivatives"):
            q, qd, tau, *rest = (np.asarray(a, dtype=float) for a in arrays)
            fd_kind = kind.replace(base, "inverse_dynamics")
            bias = tree(fd_kind, q, qd, np.zeros(np.broadcast_shapes(qd.shape, tau.shape)),
                        *rest)
            m = tree("mass_matrix", q)
            qdd = drives.forward_dynamics(self.tr, m, bias, qd, tau)
            if base == "forward_dynamics":
                return qdd
            d = self.run(kind.replace(base, "inverse_dynamics_derivatives"), q, qd, qdd, *rest)
            minv = np.linalg.inv(drives.mass_matrix(self.tr, m))
            return np.stack([-minv @ d[..., 0, :, :], -minv @ d[..., 1, :, :],
                             np.broadcast_to(minv, d[..., 2, :, :].shape)], axis=-3)
        out = np.array(tree(kind, *arrays), dtype=float)
        if base == "mass_matrix":
            return out + self.R
        if base == "friction_torques":
            return out + drives.motor_friction(self.tr, arrays[0])
        q, qd = (np.asarray(a, dtype=float) for a in arrays[:2])
        if base == "kinetic_energy":
            return out + 0.5 * np.einsum("...i,ij,...j->...", qd, self.R, qd)
        qdd = np.asarray(arrays[2], dtype=float)
        inertial, friction = qdd @ self.R.T, drives.motor_friction(self.tr, qd)
        if base == "inverse_dynamics":
            return out + inertial + friction
        if base == "torque_parts":
            parts = {name: k for k, name in enumerate(TORQUE_PARTS)}
            out[..., parts["inertial"], :] += inertial
            out[..., parts["friction"], :] += friction
            out[..., parts["total"], :] += inertial + friction
            return out
        out[..., 1, :, :] += self.BR  # inverse_dynamics_derivatives; Coulomb counts as 0
        out[..., 2, :, :] += self.R
        return out
