"""The registry of compiled algorithms: one line per kernel.

Each :class:`KernelSpec` names the scalar algorithm, its per-sample inputs (in
call order) and the shape of its result for a chain of ``dof`` joints. The
tracer (:mod:`robodyn.codegen.kernel`) records ``algorithm(chain, ops=tape,
**inputs)`` into a compiled kernel, and :class:`~robodyn.Robot` checks and
batches the arrays it is given from the same entry, so a new numeric function
is one module in :mod:`robodyn.dynamics` plus one line here (and a documented
method of ``Robot`` that calls ``self._run(name, ...)``).

Inputs are named as the user passes them: ``q``, ``qd``, ``qdd``, ``tau`` (one
value per joint) and ``h_e`` (a wrench, 6 values).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .coriolis import coriolis_matrix
from .crba import mass_matrix
from .derivatives import (
    forward_dynamics_derivatives,
    inverse_dynamics_derivatives,
    jacobian_derivative,
    mass_matrix_derivatives,
)
from .energy import kinetic_energy, potential_energy
from .forward_dynamics import forward_dynamics
from .friction import friction_torques
from .inverse_dynamics import gravity_torques, inverse_dynamics, torque_parts
from .kinematics import forward_kinematics, jacobian
from .regressor import regressor_full


@dataclass(frozen=True)
class KernelSpec:
    """A compiled algorithm: ``algorithm(chain, ops=..., **inputs)`` returns a scalar or
    nested lists of scalars, flattened row-major into ``shape(dof)``."""

    algorithm: Callable
    inputs: tuple[str, ...]
    shape: Callable[[int], tuple[int, ...]]


def input_width(name: str, dof: int) -> int:
    """Values per sample of an input: a wrench has 6, the joint quantities ``dof``."""
    return 6 if name == "h_e" else dof


def _vector(n):
    return (n,)


def _square(n):
    return (n, n)


def _scalar(n):
    return ()


KERNELS: dict[str, KernelSpec] = {
    "inverse_dynamics": KernelSpec(inverse_dynamics, ("q", "qd", "qdd"), _vector),
    "inverse_dynamics_contact": KernelSpec(inverse_dynamics, ("q", "qd", "qdd", "h_e"), _vector),
    "forward_dynamics": KernelSpec(forward_dynamics, ("q", "qd", "tau"), _vector),
    "forward_dynamics_contact": KernelSpec(forward_dynamics, ("q", "qd", "tau", "h_e"), _vector),
    "mass_matrix": KernelSpec(mass_matrix, ("q",), _square),
    "coriolis_matrix": KernelSpec(coriolis_matrix, ("q", "qd"), _square),
    "gravity_torques": KernelSpec(gravity_torques, ("q",), _vector),
    "friction_torques": KernelSpec(friction_torques, ("qd",), _vector),
    "forward_kinematics": KernelSpec(forward_kinematics, ("q",), lambda n: (3, 4)),
    "jacobian": KernelSpec(jacobian, ("q",), lambda n: (6, n)),
    "torque_parts": KernelSpec(torque_parts, ("q", "qd", "qdd"), lambda n: (6, n)),
    "torque_parts_contact": KernelSpec(torque_parts, ("q", "qd", "qdd", "h_e"), lambda n: (6, n)),
    "kinetic_energy": KernelSpec(kinetic_energy, ("q", "qd"), _scalar),
    "potential_energy": KernelSpec(potential_energy, ("q",), _scalar),
    "regressor": KernelSpec(regressor_full, ("q", "qd", "qdd"), lambda n: (n, 13 * n)),
    # derivatives (forward-mode over the traced program, dynamics/derivatives.py)
    "inverse_dynamics_derivatives": KernelSpec(inverse_dynamics_derivatives, ("q", "qd", "qdd"),
                                               lambda n: (3, n, n)),
    "inverse_dynamics_derivatives_contact": KernelSpec(
        inverse_dynamics_derivatives, ("q", "qd", "qdd", "h_e"), lambda n: (3, n, n)),
    "forward_dynamics_derivatives": KernelSpec(forward_dynamics_derivatives, ("q", "qd", "tau"),
                                               lambda n: (3, n, n)),
    "forward_dynamics_derivatives_contact": KernelSpec(
        forward_dynamics_derivatives, ("q", "qd", "tau", "h_e"), lambda n: (3, n, n)),
    "mass_matrix_derivatives": KernelSpec(mass_matrix_derivatives, ("q",), lambda n: (n, n, n)),
    "jacobian_derivative": KernelSpec(jacobian_derivative, ("q", "qd"), lambda n: (6, n)),
}
