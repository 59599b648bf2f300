"""The equations of motion with a coupled transmission as traced algorithms, for the
exported code (:mod:`robodyn.codegen.export`) of a model with ``chain.transmission``.

The same terms :mod:`robodyn.dynamics.transmission` adds on arrays (Spong, Hutchinson &
Vidyasagar, *Robot Modeling and Control*, §6.4 and §7.5), written per scalar so the
tracer turns them into straight-line code::

    M_d = M(q) + R,    R = N^T J_m N  (constant)
    tau_d = tau(q, qd, qdd) + R qdd + N^T (B_m N qd + F_m sign(N qd))
    qdd = M_d^-1 (tau - tau(q, qd, 0) - N^T (B_m N qd + F_m sign(N qd)))   (Cholesky)
    T_d = T(q, qd) + 1/2 qd^T R qd

The Coriolis matrix, gravity, kinematics and the potential energy are the links' (``R``
is constant); :data:`DRIVEN` lists the entries these replace.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from ..core.errors import InputError
from .crba import mass_matrix
from .energy import kinetic_energy
from .forward_dynamics import cholesky_solve
from .friction import friction_torques
from .inverse_dynamics import inverse_dynamics
from .registry import KERNELS, KernelSpec

__all__ = ["DRIVEN", "NOT_YET", "driven_spec", "has_driven_form"]


def _constants(tr) -> tuple[list[list[float]], list[list[float]]]:
    """``N`` and ``R = N^T J_m N`` as lists of floats (the tracer's constants)."""
    N = tr.N
    R = N.T @ (np.asarray(tr.motor_inertia, dtype=float)[:, None] * N)
    return N.tolist(), R.tolist()


def _motor_friction(tr, qd, ops) -> list:
    """``N^T (B_m N qd + F_m sign(N qd))``, the motors' friction at the joints."""
    N, _ = _constants(tr)
    n = len(qd)
    out = [0] * n
    for k, row in enumerate(N):
        rate = 0
        for j in range(n):
            if row[j] != 0:
                rate = rate + row[j] * qd[j]
        torque = 0
        if tr.motor_viscous[k] != 0:
            torque = torque + tr.motor_viscous[k] * rate
        if tr.motor_coulomb[k] != 0:
            torque = torque + tr.motor_coulomb[k] * ops.sign(rate)
        for j in range(n):
            if row[j] != 0:
                out[j] = out[j] + row[j] * torque
    return out


def _times(R, x) -> list:
    return [sum((r * v for r, v in zip(row, x, strict=True) if r != 0), 0) for row in R]


def driven_inverse_dynamics(chain, q, qd, qdd, ops, tr) -> list:
    """``tau_d`` (module docstring)."""
    _, R = _constants(tr)
    tau = inverse_dynamics(chain, q, qd, qdd, ops)
    return [t + a + f for t, a, f in zip(tau, _times(R, qdd), _motor_friction(tr, qd, ops),
                                         strict=True)]


def driven_mass_matrix(chain, q, ops, tr) -> list[list]:
    """``M_d = M(q) + N^T J_m N``."""
    _, R = _constants(tr)
    return [[m + r for m, r in zip(mrow, rrow, strict=True)]
            for mrow, rrow in zip(mass_matrix(chain, q, ops), R, strict=True)]


def driven_forward_dynamics(chain, q, qd, tau, ops, tr) -> list:
    """``qdd`` of the drives' equation (module docstring), by the Cholesky factor of
    ``M_d``."""
    bias = driven_inverse_dynamics(chain, q, qd, [0] * len(qd), ops, tr)
    return cholesky_solve(driven_mass_matrix(chain, q, ops, tr),
                          [t - b for t, b in zip(tau, bias, strict=True)], ops)


def driven_friction_torques(chain, qd, ops, tr) -> list:
    """The joints' friction and the motors', ``F_v qd + F_s sign(qd) + N^T (...)``."""
    return [a + b for a, b in zip(friction_torques(chain, qd, ops),
                                  _motor_friction(tr, qd, ops), strict=True)]


def driven_kinetic_energy(chain, q, qd, ops, tr):
    """``T + 1/2 qd^T R qd``, the rotors' kinetic energy included."""
    _, R = _constants(tr)
    rotors = sum((x * y for x, y in zip(qd, _times(R, qd), strict=True)), 0)
    return kinetic_energy(chain, q, qd, ops) + rotors / 2


#: The registry entries a coupled transmission changes, and their traced algorithms.
DRIVEN = {"inverse_dynamics": driven_inverse_dynamics,
          "mass_matrix": driven_mass_matrix,
          "forward_dynamics": driven_forward_dynamics,
          "friction_torques": driven_friction_torques,
          "kinetic_energy": driven_kinetic_energy}
#: Entries the drives change that have no traced form yet.
NOT_YET = ("torque_parts", "inverse_dynamics_derivatives", "forward_dynamics_derivatives",
           "regressor")


def driven_spec(kind: str, chain) -> KernelSpec:
    """The registry entry ``kind`` of a model with the coupled transmission
    ``chain.transmission``: the drives' algorithm for :data:`DRIVEN`, the links' for the
    entries the drives leave as they are; an :class:`InputError` for the others."""
    spec = KERNELS[kind]
    base = kind.removesuffix("_contact")
    if base in DRIVEN and kind == base:
        return replace(spec, algorithm=partial(DRIVEN[base], tr=chain.transmission),
                       doc=f"{spec.doc}, with the coupled transmission's motors")
    if base in DRIVEN or base in NOT_YET:
        raise InputError(f"functions: {kind} of a model with a coupled transmission is not "
                         f"exported yet; export {', '.join(DRIVEN)} (which include the "
                         "motors) or the entries the drives leave unchanged")
    return spec


def has_driven_form(kind: str) -> bool:
    """Whether the exported code of a model with a coupled transmission has ``kind``."""
    base = kind.removesuffix("_contact")
    return not (base in NOT_YET or (base in DRIVEN and kind != base))
