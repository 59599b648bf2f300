"""The equations of motion with a coupled transmission as traced algorithms, for the
exported code (:mod:`robodyn.codegen.export`) of a model with ``chain.transmission``.

The same terms :mod:`robodyn.dynamics.transmission` adds on arrays (Spong, Hutchinson &
Vidyasagar, *Robot Modeling and Control*, §6.4 and §7.5), written per scalar so the
tracer turns them into straight-line code::

    M_d = M(q) + R,    R = N^T J_m N  (constant)
    tau_mf = N^T (B_m N qd + F_m sign(N qd))
    tau_d = tau(q, qd, qdd) + R qdd + tau_mf
    qdd = M_d^-1 (tau - tau_d(q, qd, 0))   (Cholesky)
    T_d = T(q, qd) + 1/2 qd^T R qd

The torque parts put ``R qdd`` in the inertial part and ``tau_mf`` in the friction part (as
:class:`robodyn.codegen.driven.DrivenRunner` does for the robot's own method). The
derivatives are the links' plus the drives' constant ones::

    dtau_d/dq = dtau/dq,   dtau_d/dqd = dtau/dqd + N^T B_m N,   dtau_d/dqdd = M_d

(the Coulomb term ``F_m sign(N qd)`` counts as 0, exact away from ``N qd = 0``, as the
core's :mod:`robodyn.dynamics.derivatives` does for the joints' own), and for the forward
dynamics ``dqdd/dx = -M_d^-1 dtau_d/dx`` (``x = q, qd``), ``dqdd/dtau = M_d^-1``
(Carpentier & Mansard 2018). The regressor is the links' (:func:`regressor_full`) with,
after its columns, the motors' ``Jm_k, Bm_k, Fm_k`` (``n_k`` row ``k`` of ``N``)::

    Y_Jm_k = n_k^T (n_k . qdd),   Y_Bm_k = n_k^T (n_k . qd),   Y_Fm_k = n_k^T sign(n_k . qd)

as :func:`robodyn.dynamics.regressor.transmission_columns`. Every ``h_e`` variant is the
links' with the wrench plus the same drives' terms. The Coriolis matrix, gravity,
kinematics and the potential energy are the links' (``R`` is constant); :data:`DRIVEN`
lists the entries these replace.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from .crba import mass_matrix
from .derivatives import fd_from_id_derivatives, inverse_dynamics_derivatives
from .energy import kinetic_energy
from .forward_dynamics import cholesky_solve
from .friction import friction_torques
from .inverse_dynamics import inverse_dynamics, torque_parts
from .registry import KERNELS, KernelSpec
from .regressor import TRANSMISSION_PARAMETERS, regressor_full, regressor_width

__all__ = ["DRIVEN", "driven_spec", "has_driven_form"]


def _constants(tr) -> tuple[list[list[float]], list[list[float]]]:
    """``N`` and ``R = N^T J_m N`` as lists of floats (the tracer's constants)."""
    N = tr.N
    R = N.T @ (np.asarray(tr.motor_inertia, dtype=float)[:, None] * N)
    return N.tolist(), R.tolist()


def _rate(row, x):
    """``n_k . x`` for a row ``n_k`` of ``N`` (its zeros skipped)."""
    rate = 0
    for a, b in zip(row, x, strict=True):
        if a != 0:
            rate = rate + a * b
    return rate


def _motor_friction(tr, qd, ops) -> list:
    """``N^T (B_m N qd + F_m sign(N qd))``, the motors' friction at the joints."""
    N, _ = _constants(tr)
    n = len(qd)
    out = [0] * n
    for k, row in enumerate(N):
        rate = _rate(row, qd)
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


def _plus(a, b) -> list:
    return [x + y for x, y in zip(a, b, strict=True)]


def driven_inverse_dynamics(chain, q, qd, qdd, ops, tr, h_e=None, frames=None) -> list:
    """``tau_d`` (module docstring); ``h_e``, ``frames`` as
    :func:`~robodyn.dynamics.inverse_dynamics.inverse_dynamics`."""
    _, R = _constants(tr)
    tau = inverse_dynamics(chain, q, qd, qdd, ops, h_e=h_e, frames=frames)
    return _plus(_plus(tau, _times(R, qdd)), _motor_friction(tr, qd, ops))


def driven_mass_matrix(chain, q, ops, tr) -> list[list]:
    """``M_d = M(q) + N^T J_m N``."""
    _, R = _constants(tr)
    return [[m + r for m, r in zip(mrow, rrow, strict=True)]
            for mrow, rrow in zip(mass_matrix(chain, q, ops), R, strict=True)]


def driven_forward_dynamics(chain, q, qd, tau, ops, tr, h_e=None, frames=None) -> list:
    """``qdd`` of the drives' equation (module docstring), by the Cholesky factor of
    ``M_d`` (not a tree's ``L^T D L``: ``R`` may couple joints of different branches)."""
    bias = driven_inverse_dynamics(chain, q, qd, [0] * len(qd), ops, tr, h_e, frames)
    return cholesky_solve(driven_mass_matrix(chain, q, ops, tr),
                          [t - b for t, b in zip(tau, bias, strict=True)], ops)


def driven_torque_parts(chain, q, qd, qdd, ops, tr, h_e=None, frames=None) -> list[list]:
    """The links' :func:`~robodyn.dynamics.inverse_dynamics.torque_parts` with ``R qdd``
    added to the inertial part, the motors' friction to the friction part and both to the
    total (module docstring)."""
    _, R = _constants(tr)
    inertial, coriolis, gravity, friction, external, total = torque_parts(
        chain, q, qd, qdd, ops, h_e=h_e, frames=frames)
    rotors, motors = _times(R, qdd), _motor_friction(tr, qd, ops)
    return [_plus(inertial, rotors), coriolis, gravity, _plus(friction, motors), external,
            _plus(_plus(total, rotors), motors)]


def driven_inverse_dynamics_derivatives(chain, q, qd, qdd, ops, tr, h_e=None,
                                        frames=None) -> list:
    """``[dtau_d/dq, dtau_d/dqd, dtau_d/dqdd]``: the links' derivatives
    (:func:`~robodyn.dynamics.derivatives.inverse_dynamics_derivatives`) plus the drives'
    constants ``N^T B_m N`` (the Coulomb term's derivative counted as 0) and ``R``."""
    N, R = _constants(tr)
    n = len(N)
    BR = [[sum(N[k][i] * tr.motor_viscous[k] * N[k][j] for k in range(n)) for j in range(n)]
          for i in range(n)]
    d_q, d_qd, d_qdd = inverse_dynamics_derivatives(chain, q, qd, qdd, ops, h_e, frames)
    return [d_q, [_plus(a, b) for a, b in zip(d_qd, BR, strict=True)],
            [_plus(a, b) for a, b in zip(d_qdd, R, strict=True)]]


def driven_forward_dynamics_derivatives(chain, q, qd, tau, ops, tr, h_e=None,
                                        frames=None) -> list:
    """``[dqdd/dq, dqdd/dqd, dqdd/dtau]`` of :func:`driven_forward_dynamics`:
    ``-M_d^-1 dtau_d/dx`` at its ``qdd`` and ``M_d^-1`` (module docstring)."""
    qdd = driven_forward_dynamics(chain, q, qd, tau, ops, tr, h_e, frames)
    d_q, d_qd, _ = driven_inverse_dynamics_derivatives(chain, q, qd, qdd, ops, tr, h_e, frames)
    m = driven_mass_matrix(chain, q, ops, tr)  # the tape shares it with the solve above
    return fd_from_id_derivatives(d_q, d_qd, lambda rhs: cholesky_solve(m, rhs, ops))


def driven_regressor(chain, q, qd, qdd, ops, tr) -> list[list]:
    """The links' :func:`~robodyn.dynamics.regressor.regressor_full`, then per motor
    ``k`` the columns ``Jm_k``, then ``Bm_k``, then ``Fm_k`` (module docstring)."""
    N, _ = _constants(tr)
    rows = regressor_full(chain, q, qd, qdd, ops)
    rates = [_rate(row, qdd) for row in N]
    speeds = [_rate(row, qd) for row in N]
    blocks = (rates, speeds, [ops.sign(s) for s in speeds])
    for i, row in enumerate(rows):
        row += [N[k][i] * x[k] if N[k][i] != 0 else 0 for x in blocks for k in range(len(N))]
    return rows


def driven_friction_torques(chain, qd, ops, tr) -> list:
    """The joints' friction and the motors', ``F_v qd + F_s sign(qd) + N^T (...)``."""
    return [a + b for a, b in zip(friction_torques(chain, qd, ops),
                                  _motor_friction(tr, qd, ops), strict=True)]


def driven_kinetic_energy(chain, q, qd, ops, tr):
    """``T + 1/2 qd^T R qd``, the rotors' kinetic energy included."""
    _, R = _constants(tr)
    rotors = sum((x * y for x, y in zip(qd, _times(R, qd), strict=True)), 0)
    return kinetic_energy(chain, q, qd, ops) + rotors / 2


#: The registry entries a coupled transmission changes, and their traced algorithms (the
#: ``h_e`` variants too: the same algorithm given the wrench).
DRIVEN = {"inverse_dynamics": driven_inverse_dynamics,
          "mass_matrix": driven_mass_matrix,
          "forward_dynamics": driven_forward_dynamics,
          "friction_torques": driven_friction_torques,
          "kinetic_energy": driven_kinetic_energy,
          "torque_parts": driven_torque_parts,
          "inverse_dynamics_derivatives": driven_inverse_dynamics_derivatives,
          "forward_dynamics_derivatives": driven_forward_dynamics_derivatives,
          "regressor": driven_regressor}


def _width(chain) -> tuple[int, int]:
    """The regressor's shape with the motors' columns (after the links')."""
    return chain.nv, regressor_width(chain) + len(TRANSMISSION_PARAMETERS) * chain.dof


def driven_spec(kind: str, chain) -> KernelSpec:
    """The registry entry ``kind`` of a model with the coupled transmission
    ``chain.transmission``: the drives' algorithm for :data:`DRIVEN` (and their ``h_e``
    variants), the links' for the entries the drives leave as they are."""
    spec = KERNELS[kind]
    base = kind.removesuffix("_contact")
    if base not in DRIVEN:
        return spec
    extra = {"chain_shape": _width} if base == "regressor" else {}
    return replace(spec, algorithm=partial(DRIVEN[base], tr=chain.transmission),
                   doc=f"{spec.doc}, with the coupled transmission's motors", **extra)


def has_driven_form(kind: str) -> bool:
    """Whether the exported code of a model with a coupled transmission has ``kind``:
    every registry entry now (the drives' or the links' form)."""
    return kind in KERNELS
