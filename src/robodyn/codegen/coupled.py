"""The kernels of a model with linear joint couplings, on its independent coordinates.

A coupling ``q_m = multiplier q_s + offset`` (URDF ``<mimic>``, MJCF ``<equality joint>``;
:mod:`robodyn.model.loops`) is an exact reduction of the tree's coordinates,

    q = G y + b,   qd = G yd,   qdd = G ydd          (G, b constant: coupling_basis)

so the Lagrangian of the coupled mechanism is the tree's evaluated on ``q(y)``, and by
the principle of virtual work (Featherstone, "Rigid Body Dynamics Algorithms", §8.1, with
``G`` constant, so ``Gdot = 0``)

    M_y = G^T M(q) G,   C_y = G^T C(q, qd) G,   g_y = G^T g(q),   tau_y = G^T tau(q, qd, qdd),
    J_y = J(q) G,       ydd = M_y^{-1} (tau_y - G^T h(q, qd)),    h = tau(q, qd, 0).

These equal Pinocchio's ``buildModelFromUrdf(path, mimic=True)`` (``JointModelMimic``).
:class:`CoupledRunner` is a :class:`~robodyn.codegen.runner.Runner` whose :meth:`run` takes
and returns arrays of the independent coordinates and calls the tree's kernels between.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError, ModelError
from ..dynamics.registry import kernel_spec
from .runner import Runner

__all__ = ["CoupledRunner", "make_runner"]

#: Kinds whose result is a generalised force (last axis ``nv``): ``G^T`` on the left.
_FORCES = ("inverse_dynamics", "gravity_torques", "friction_torques", "torque_parts")
#: Kinds whose result has ``nv`` columns (a Jacobian-like map of the velocity): ``@ G``.
_COLUMNS = ("jacobian", "jacobian_derivative", "centroidal_matrix")
#: Kinds whose result is a scalar or a pose: unchanged.
_SAME = ("kinetic_energy", "potential_energy", "forward_kinematics", "centroidal_momentum")


def make_runner(chain, values, name: str) -> Runner:
    """A :class:`CoupledRunner` for a chain with couplings, a
    :class:`~robodyn.codegen.driven.DrivenRunner` for one with a coupled transmission,
    else a plain :class:`Runner`."""
    closures = chain.closures
    coupled = closures is not None and closures.couplings
    if getattr(chain, "transmission", None) is not None:
        if coupled:
            raise ModelError(f"{name}: a coupled transmission and joint couplings together "
                             "are not supported yet; drop one of them")
        from .driven import DrivenRunner  # a coupled transmission's models only

        return DrivenRunner(chain, values, name)
    if coupled:
        return CoupledRunner(chain, values, name)
    return Runner(chain, values, name)


class CoupledRunner(Runner):
    """A runner on the independent coordinates ``y`` of a chain with couplings."""

    def __init__(self, chain, values, name: str):
        from ..model.loops import coupling_basis  # coupled models only (import robodyn)

        super().__init__(chain, values, name)
        self.G, self.b, self.independent = coupling_basis(chain)
        self.GT = np.ascontiguousarray(self.G.T)

    # the robot's one-state shortcuts call the tree's kernels: never for this runner
    hot_inverse_dynamics = property(lambda self: None, lambda self, value: None)
    hot_forward_dynamics = property(lambda self: None, lambda self, value: None)

    @property
    def nv(self) -> int:
        return self.G.shape[1]

    nq = nv

    @property
    def joints(self) -> tuple[str, ...]:
        from ..model.loops import joint_names

        names = joint_names(self.chain)
        return tuple(names[i] for i in self.independent)

    def neutral(self) -> np.ndarray:
        return np.zeros(self.nv)

    def run(self, kind: str, *arrays):
        """Registry entry ``kind`` on arrays of the independent coordinates (see the module
        docstring for each kind's reduction)."""
        head, at, rest = kind.partition("@")
        contact = head.endswith("_contact")
        base = head.removesuffix("_contact")
        spec = kernel_spec(kind, self.chain)
        if len(arrays) != len(spec.inputs):
            raise InputError(f"{kind}: takes {len(spec.inputs)} arrays "
                             f"({', '.join(spec.inputs)}), got {len(arrays)}")
        full = [self._lifted(name, a, kind) for name, a in zip(spec.inputs, arrays)]
        tree = super().run
        if base == "forward_dynamics":
            q, qd, tau = full[0], full[1], np.asarray(arrays[2], dtype=float)
            h = tree("inverse_dynamics" + "_contact" * contact + at + rest, q, qd,
                     np.zeros_like(qd), *full[3:])
            m = self.GT @ tree("mass_matrix", q) @ self.G
            rhs = tau - h @ self.G
            return np.linalg.solve(m, rhs[..., None])[..., 0]
        out = tree(kind, *full)
        if base in _SAME:
            return out
        if base in _FORCES:
            return out @ self.G
        if base in _COLUMNS:
            return out @ self.G
        if base in ("mass_matrix", "coriolis_matrix"):
            return self.GT @ out @ self.G
        if base == "regressor":
            return self.GT @ out
        if base == "inverse_dynamics_derivatives":
            return self.GT @ out @ self.G
        if base == "mass_matrix_derivatives":
            # dM_y/dy_k = G^T (sum_j dM/dq_j G_jk) G, the last axis the derivative's
            return np.einsum("ia,...ijl,lk,jb->...abk", self.G, out, self.G, self.G)
        raise ModelError(f"{self.name}: {base} of a model with coupled joints is not "
                         "computed yet; load it with mimic='independent' for the tree's")

    def handle(self, kind: str):
        """Refused: a kernel handle runs the tree's kernel on the tree's coordinates."""
        raise ModelError(f"{self.name}: robot.kernel({kind!r}) of a model with coupled joints "
                         "is not available yet (it would run the tree's kernel); call the "
                         "robot's methods, or load with mimic='independent'")

    def _lifted(self, name: str, value, kind: str):
        """An input of the independent coordinates as the tree's: ``q = G y + b``,
        velocity-like ``G y``; wrenches unchanged."""
        if name == "h_e":
            return value
        arr = np.asarray(value, dtype=float)
        if arr.ndim == 0 or arr.shape[-1] != self.nv:
            raise InputError(f"{kind}: {name} has {arr.shape[-1] if arr.ndim else 'no'} "
                             f"values per sample; this model has {self.nv} independent "
                             f"coordinates ({', '.join(self.joints)[:200]})")
        if name == "tau":
            return arr @ self.GT  # unused by forward_dynamics, which reduces instead
        lifted = arr @ self.GT
        return lifted + self.b if name == "q" else lifted

