"""The public robot object: a model, its parameter values, and its dynamics.

A :class:`Robot` is immutable. It holds the symbolic chain (every number a SymPy
expression of the model's parameters) and default values for the parameters;
:meth:`Robot.with_values` returns a new robot. Numeric functions run through the
robot's :attr:`~Robot.runner` (:mod:`robodyn.codegen.runner`), which evaluates the
chain with the values once, traces each algorithm into a compiled kernel on first
use (:mod:`robodyn.codegen.kernel`) and runs it over the whole batch.

All numeric functions take arrays of shape ``(..., dof)`` and broadcast their
leading (batch) axes; a single state is ``(dof,)``.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import sympy as sp
from numpy.typing import ArrayLike

from .codegen.runner import Runner
from .core.errors import ModelError
from .dynamics.registry import TORQUE_PARTS
from .model.chain import Chain
from .model.expressions import check_parameter_name
from .model.names import check_text
from .model.source import ModelSource, Provenance
from .model.yaml_file import read_model_file


@dataclass(frozen=True, eq=False)
class Robot:
    """A serial manipulator: ``name``, symbolic ``chain`` and default parameter values.

    Build one with :func:`robodyn.load`. ``provenance`` says where the model came from
    (the DH table, the URDF joints locked at zero, ...). The compiled kernels and the
    numeric chain live in the robot's :attr:`runner`, made with the robot and never
    compared, printed or pickled.
    """

    name: str
    chain: Chain
    _values: tuple[tuple[str, float], ...] = ()
    description: str = ""
    provenance: Provenance = field(default_factory=Provenance)
    _runner: Runner = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # the name reaches generated code, markup and file headers: one line of text,
        # however the robot was built (rd.load checks the model file's names already)
        check_text(self.name, "name", "a model name")
        object.__setattr__(self, "_runner", Runner(self.chain, self._values, self.name))

    # -- description ---------------------------------------------------------------
    @property
    def dof(self) -> int:
        """Number of joints (degrees of freedom)."""
        return self.chain.dof

    @property
    def values(self) -> dict[str, float]:
        """Default numbers of the parameters: ``{symbol name: value}`` (a copy)."""
        return dict(self._values)

    @property
    def symbols(self) -> tuple[sp.Symbol, ...]:
        """The model's parameter symbols (SymPy), sorted by name."""
        return tuple(sorted(self.chain.free_symbols(), key=str))

    @property
    def links(self):
        return self.chain.links

    @property
    def source(self) -> str:
        """The file or built-in model name the robot was loaded from."""
        return self.provenance.path

    @property
    def convention(self) -> str | None:
        """``"standard"`` or ``"modified"`` when the geometry came from a DH table."""
        return self.provenance.convention

    @property
    def dh_rows(self) -> tuple:
        """The DH table's rows, when the geometry came from one."""
        return self.provenance.dh_rows

    @property
    def locked(self) -> tuple[str, ...]:
        """URDF joints off the chain, held at ``q = 0`` and merged (a gripper's fingers)."""
        return self.provenance.locked

    def with_values(self, values: Mapping[str, float] | None = None, **more: float) -> Robot:
        """A new robot with these parameter values bound (``robot.with_values(m1=2.0)`` or
        ``robot.with_values({"m1": 2.0})``); the others keep their defaults."""
        updates = dict(values or {})
        updates.update(more)
        known = {str(s) for s in self.symbols}
        new = dict(self._values)
        for key, value in updates.items():
            key = str(key)
            check_parameter_name(key, f"{self.name}.with_values")
            if key not in known:
                raise ModelError(
                    f"{self.name}.with_values: {key!r} is not a parameter of this model; its "
                    f"parameters are {', '.join(sorted(known)) or '(none)'}"
                )
            if isinstance(value, bool) or not isinstance(value, (int, float, np.floating,
                                                                 np.integer)):
                raise ModelError(f"{self.name}.with_values: {key} = {value!r:.80} is not a "
                                 "number")
            if not np.isfinite(value):
                raise ModelError(f"{self.name}.with_values: {key} = {value!r} is not finite")
            new[key] = float(value)
        return self._derive(_values=tuple(sorted(new.items())))

    def with_chain(self, chain: Chain, values: Mapping[str, float] | None = None,
                   name: str | None = None) -> Robot:
        """A new robot with another chain (a transformed model: symbolic inertias, a
        payload) and the default ``values`` of its parameters (default: this robot's
        values of the symbols the new chain still has)."""
        names = {str(s) for s in chain.free_symbols()}
        if values is None:
            values = {k: v for k, v in self._values if k in names}
        return self._derive(chain=chain, _values=tuple(sorted(dict(values).items())),
                            name=name or self.name)

    def _derive(self, **changes) -> Robot:
        kwargs = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        kwargs.update(changes)
        return Robot(**kwargs)

    def __getstate__(self):
        # the runner holds caches (compiled kernels, the numeric chain): made afresh after
        # unpickling, as in __post_init__
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    def __setstate__(self, state):
        # a robot pickled by an older robodyn may carry its caches in the state: dropped
        known = {f.name for f in fields(self) if f.init}
        self.__dict__.update({k: v for k, v in state.items() if k in known})
        object.__setattr__(self, "_runner", Runner(self.chain, self._values, self.name))

    def __repr__(self) -> str:
        joints = "".join("R" if link.joint.type == "revolute" else "P" for link in self.links)
        return f"Robot({self.name!r}, dof={self.dof}, joints={joints})"

    # -- numeric model and kernels ----------------------------------------------------
    @property
    def runner(self) -> Runner:
        """What this robot computes with (:class:`~robodyn.codegen.runner.Runner`): its
        compiled kernels (``robot.runner.kernel("forward_dynamics")``) and
        ``robot.runner.run(kind, *arrays)`` for any entry of
        :data:`~robodyn.dynamics.registry.KERNELS`."""
        return self._runner

    @property
    def numeric_chain(self) -> Chain:
        """The chain with every number a float (parameters substituted), checked for physics."""
        return self._runner.numeric_chain

    @property
    def parameter_values(self) -> np.ndarray:
        """The values of :attr:`symbols`, in that order (checked for physics first)."""
        return self._runner.parameter_values

    # -- dynamics -----------------------------------------------------------------
    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                         h_e: ArrayLike | None = None) -> np.ndarray:
        """Joint torques ``tau = M qdd + C qd + F_v qd + F_s sign(qd) + g + J^T h_e``.

        Recursive Newton–Euler (:mod:`robodyn.dynamics.inverse_dynamics`) plus friction.
        ``h_e``: the wrench ``(f, mu)`` (6 numbers, base frame, moment about the
        end-effector origin) that the end effector exerts on the environment
        (Siciliano et al., Robotics, eq. 7.83). Shapes ``(..., dof)`` -> ``(..., dof)``.
        """
        if h_e is None:
            return self._runner.run("inverse_dynamics", q, qd, qdd)
        return self._runner.run("inverse_dynamics_contact", q, qd, qdd, h_e)

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space inertia matrix ``M(q)`` (composite-rigid-body algorithm),
        ``(..., dof)`` -> ``(..., dof, dof)``, symmetric positive definite."""
        return self._runner.run("mass_matrix", q)

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form
        (``dM/dt - 2C`` skew-symmetric), ``(..., dof, dof)``."""
        return self._runner.run("coriolis_matrix", q, qd)

    def gravity_torques(self, q: ArrayLike) -> np.ndarray:
        """Gravity torques ``g(q) = dU/dq``, ``(..., dof)``."""
        return self._runner.run("gravity_torques", q)

    def friction_torques(self, qd: ArrayLike) -> np.ndarray:
        """Friction ``F_v qd + F_s sign(qd)``, ``(..., dof)``."""
        return self._runner.run("friction_torques", qd)

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike,
                         h_e: ArrayLike | None = None) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - J^T h_e - C qd - F_v qd - F_s sign(qd) - g)``,
        solved with the Cholesky factor of ``M`` (no inverse), ``(..., dof)``.

        A joint that moves no mass (a singular ``M``) is a :class:`ModelError` naming it."""
        if h_e is None:
            return self._runner.run("forward_dynamics", q, qd, tau)
        return self._runner.run("forward_dynamics_contact", q, qd, tau, h_e)

    def torque_parts(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                     h_e: ArrayLike | None = None) -> TorqueParts:
        """The torques of :meth:`inverse_dynamics` split into the terms of the equation of
        motion: ``inertial`` (``M qdd``), ``coriolis`` (``C qd``), ``gravity`` (``g``),
        ``friction`` (``F_v qd + F_s sign(qd)``), ``external`` (``J^T h_e``, zero without
        ``h_e``) and ``total`` (their sum), each ``(..., dof)``."""
        if h_e is None:
            parts = self._runner.run("torque_parts", q, qd, qdd)
        else:
            parts = self._runner.run("torque_parts_contact", q, qd, qdd, h_e)
        contiguous = np.ascontiguousarray if isinstance(parts, np.ndarray) else (lambda a: a)
        return TorqueParts(**{name: contiguous(parts[..., k, :])
                              for k, name in enumerate(TORQUE_PARTS)})

    # -- energy ---------------------------------------------------------------------
    def kinetic_energy(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Kinetic energy ``T = sum_i 1/2 m_i v_ci^T v_ci + 1/2 w_i^T I_i w_i``
        (``= 1/2 qd^T M qd``), from each link's velocity; ``(..., dof)`` -> ``(...)``."""
        return self._runner.run("kinetic_energy", q, qd)

    def potential_energy(self, q: ArrayLike) -> np.ndarray:
        """Gravitational potential energy ``U = -sum_i m_i g0^T p_ci`` (zero at the base
        origin; ``g(q) = dU/dq``), ``(..., dof)`` -> ``(...)``."""
        return self._runner.run("potential_energy", q)

    # -- closed forms ---------------------------------------------------------------
    def equations(self, method: str = "lagrange", **options: Any):
        """The equations of motion in closed form (SymPy), by ``method`` ``"lagrange"``
        (Lagrange–Euler) or ``"newton-euler"``; see :mod:`robodyn.symbolic`."""
        from .symbolic import equations

        return equations(self, method=method, **options)

    # -- kinematics ---------------------------------------------------------------
    def forward_kinematics(self, q: ArrayLike) -> np.ndarray:
        """Pose of the end-effector frame in the base frame, ``(..., 4, 4)``."""
        top = self._runner.run("forward_kinematics", q)
        bottom = np.broadcast_to(np.array([0.0, 0.0, 0.0, 1.0]), top.shape[:-2] + (1, 4))
        return np.concatenate([top, bottom], axis=-2)

    def jacobian(self, q: ArrayLike) -> np.ndarray:
        """Geometric Jacobian at the end-effector origin in the base frame,
        rows ``(v_x, v_y, v_z, w_x, w_y, w_z)``, ``(..., 6, dof)``."""
        return self._runner.run("jacobian", q)

    # -- export ---------------------------------------------------------------------
    def to_urdf(self, path: str | Path | None = None, force: bool = False) -> str:
        """The robot as URDF text, every parameter value bound (joints with origin, axis,
        limits where known and ``<dynamics>`` friction; links with ``<inertial>``; the tip
        frame as a ``tool`` link); see :mod:`robodyn.model.urdf_export`. Joint offsets are
        folded into the origins, so the file's joint values are this robot's ``q``. Motor
        (armature) inertia has no URDF field and is left out, with a ``UrdfWarning``.
        Written to ``path`` when given (an existing file only if robodyn wrote it, or with
        ``force``; never through a symbolic link); the text is returned either way."""
        from .codegen.export.files import write_file
        from .model.urdf_export import chain_to_urdf

        origin = f" from {self.source}" if self.source and self.source != self.name else ""
        text = chain_to_urdf(self.numeric_chain, self.name,
                             comment=f"robodyn model {self.name!r}{origin}, values bound")
        if path is not None:
            write_file(path, text, force=force, option="path")
        return text

    # -- derivatives ------------------------------------------------------------------
    def inverse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                                     h_e: ArrayLike | None = None) -> tuple[np.ndarray, ...]:
        """``(dtau/dq, dtau/dqd, dtau/dqdd)`` of :meth:`inverse_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dtau_i/dx_j``; ``dtau/dqdd = M(q)``.

        Forward-mode automatic differentiation of the traced Newton–Euler program
        (:mod:`robodyn.dynamics.derivatives`), compiled like every kernel. Viscous
        friction contributes ``F_v`` to ``dtau/dqd``; Coulomb friction ``F_s sign(qd)`` is
        differentiated as 0 (exact away from ``qd = 0``, where it has no derivative).
        With ``h_e``, ``dtau/dq`` includes ``d(J^T h_e)/dq``."""
        if h_e is None:
            out = self._runner.run("inverse_dynamics_derivatives", q, qd, qdd)
        else:
            out = self._runner.run("inverse_dynamics_derivatives_contact", q, qd, qdd, h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def forward_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike,
                                     h_e: ArrayLike | None = None) -> tuple[np.ndarray, ...]:
        """``(dqdd/dq, dqdd/dqd, dqdd/dtau)`` of :meth:`forward_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dqdd_i/dx_j``; ``dqdd/dtau = M(q)^{-1}``.

        ``dqdd/dx = -M^{-1} dtau/dx`` with the inverse dynamics' derivatives taken at
        ``qdd = FD(q, qd, tau)`` (Carpentier & Mansard 2018), solved with the Cholesky
        factor of ``M``. Coulomb friction is differentiated as 0 (see
        :meth:`inverse_dynamics_derivatives`)."""
        if h_e is None:
            out = self._runner.run("forward_dynamics_derivatives", q, qd, tau)
        else:
            out = self._runner.run("forward_dynamics_derivatives_contact", q, qd, tau, h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def mass_matrix_derivatives(self, q: ArrayLike) -> np.ndarray:
        """``dM/dq``, ``(..., dof)`` -> ``(..., dof, dof, dof)`` with
        ``[..., i, j, k] = dM_ij/dq_k`` (symmetric in ``i, j``)."""
        return self._runner.run("mass_matrix_derivatives", q)

    def jacobian_derivative(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """``Jdot = dJ/dt = sum_k (dJ/dq_k) qd_k`` of the geometric Jacobian
        (:meth:`jacobian`), ``(..., 6, dof)``; the end effector's acceleration is
        ``J qdd + Jdot qd``."""
        return self._runner.run("jacobian_derivative", q, qd)


    # -- parameters, regressor, base parameters (robodyn.symbolic.base_parameters) -------------
    def inertial_parameters(self):
        """The standard dynamic parameters ``(names, values)``: per link ``[m, m cx, m cy,
        m cz, XX, XY, XZ, YY, YZ, ZZ]`` (first moments ``h = m c`` and the inertia about the
        LINK FRAME ORIGIN, link frame axes: Siciliano eq. 7.82's ordering with Khalil's
        names ``m1, mx1, my1, mz1, XX1, ..., ZZ1``), then per joint viscous and Coulomb
        friction ``Fv_j, Fs_j``, then the armature ``Ia_j = G_j^2 J_mj`` of the joints
        with a motor. The link frame is the chain's (see :mod:`robodyn.dynamics.regressor`:
        for a standard-DH model the frame ``i-1`` turned by joint ``i``, on joint ``i``'s
        axis). ``regressor(q, qd, qdd) @ values == inverse_dynamics(q, qd, qdd)``."""
        from .symbolic.base_parameters import inertial_parameters

        return inertial_parameters(self)

    def with_inertial_parameters(self, pi: ArrayLike) -> Robot:
        """This robot with the standard parameters ``pi`` (the order of
        :meth:`inertial_parameters`): masses, centres of mass ``c = h / m`` and inertias
        about them ``I_c = I_o - m (|c|^2 1 - c c^T)`` (parallel-axis theorem), friction
        and armature (as ``J_m`` behind a gear of ratio 1). A :class:`ModelError` if a mass
        is zero but its first moments are not, or the result is not physical."""
        from .symbolic.base_parameters import with_inertial_parameters

        return with_inertial_parameters(self, pi)

    def regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """The regressor ``Y(q, qd, qdd)``, ``(..., dof)`` -> ``(..., dof, p)``, with
        ``Y @ pi == inverse_dynamics(q, qd, qdd)`` (friction and armature included) for
        ``pi`` the values of :meth:`inertial_parameters`; the algorithm is in
        :mod:`robodyn.dynamics.regressor`."""
        from .dynamics.regressor import parameter_columns

        full = self._runner.run("regressor", q, qd, qdd)
        cols, _ = parameter_columns(self.chain)
        return full if len(cols) == full.shape[-1] else np.ascontiguousarray(full[..., cols])

    def base_parameters(self, tol: float | None = None, samples: int | None = None,
                        seed: int = 0):
        """The identifiable combinations of the standard parameters (Gautier's numerical
        QR of the regressor stacked over random states), see
        :func:`robodyn.symbolic.base_parameters.base_parameters`."""
        from .symbolic.base_parameters import base_parameters

        return self._runner.cached(
            ("base_parameters", tol, samples, seed),
            lambda: base_parameters(self, tol=tol, samples=samples, seed=seed))

    def regressor_base(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """The base regressor ``Y_b`` (the columns of :meth:`regressor` of the base
        parameters), ``(..., dof, b)`` of full column rank: ``Y pi = Y_b pi_b``."""
        return np.ascontiguousarray(self.regressor(q, qd, qdd)[..., self.base_parameters()
                                                                .independent])

@dataclass(frozen=True)
class TorqueParts:
    """The terms of ``tau = M qdd + C qd + g + F_v qd + F_s sign(qd) + J^T h_e``, each
    ``(..., dof)``; ``total`` is their sum (:meth:`Robot.torque_parts`)."""

    inertial: np.ndarray
    coriolis: np.ndarray
    gravity: np.ndarray
    friction: np.ndarray
    external: np.ndarray
    total: np.ndarray

    NAMES = TORQUE_PARTS[:-1]  # the parts, without their total

    def as_dict(self) -> dict[str, np.ndarray]:
        """``{name: array}`` of the five parts and the total, in that order."""
        return {name: getattr(self, name) for name in (*self.NAMES, "total")}


def load(source: str | os.PathLike[str], *, base: str | None = None, tip: str | None = None,
         allow_massless: bool = False, snap_angles: float | None = None) -> Robot:
    """Load a robot: a built-in model's name (``rd.models.names()``), a ``.yaml``/``.yml``
    model file, or the serial chain of a ``.urdf`` file.

    The keyword options are for URDF files only (for a built-in model or a YAML file
    they are an error):

    * ``base``: the link fixed to the world; default: the file's root link.
    * ``tip``: the end-effector link; default: the end of the movable joints when they
      form one chain (links on fixed joints after it are merged bodies, a single path of
      them ends at its leaf). Where the movable joints branch (a gripper's fingers, a
      humanoid's limbs) it is needed, and the error lists the ends to choose from. A link
      behind fixed joints (``tip="tool0"``) puts the end frame of ``forward_kinematics``
      and ``jacobian`` there. Movable joints off the chain are held at zero, merged into
      their parent, and named in ``robot.locked``.
    * ``allow_massless``: accept moving links without ``<inertial>`` as massless
      (otherwise an error names the link).
    * ``snap_angles``: a tolerance in radians; ``<origin rpy>`` angles this close to a
      multiple of pi/2 become that multiple (a file's ``rpy="1.5708"`` then cancels
      exactly, and its derivation stays small), each change listed in
      ``robot.provenance.notes``. Default ``None``: angles as written.

    A URDF's ``<dynamics damping friction>`` become viscous and Coulomb friction, its
    ``<limit>`` the joint limits; meshes are never read. Example, with the UR5 of the
    ``example-robot-data`` package (any URDF file path works the same)::

        import robodyn as rd
        ur5 = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
        robot = rd.load(ur5, tip="tool0", snap_angles=1e-3)
        robot.dof, robot.provenance.notes[0]  # 6, 'snapped 4 angle(s) to multiples of pi/2 ...'

    Raises :class:`~robodyn.ModelError` for an unknown name (with a "did you mean"), a
    missing file or a model at fault (naming the field, link or joint), and ``TypeError``
    for URDF options given to another kind of model.
    """
    from .model import builtin as models

    options = {name: value for name, value, default in (
        ("base", base, None), ("tip", tip, None), ("allow_massless", allow_massless, False),
        ("snap_angles", snap_angles, None)) if value is not default}
    text = str(source)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml"):
        if not path.is_file():
            raise ModelError(f"{text}: no such model file")
        if options:
            raise TypeError(f"load() of a YAML file takes no options, got {sorted(options)}")
        parsed = read_model_file(path)
    elif path.suffix.lower() == ".urdf":
        from .model.urdf import load_urdf  # only URDF users pay the import

        parsed = load_urdf(path, **options)
    elif text in models.names():
        if options:
            raise TypeError(f"load() of a built-in model takes no options, got {sorted(options)}")
        parsed = read_model_file(models.path(text))
    else:
        close = difflib.get_close_matches(text, models.names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ModelError(
            f"cannot load {text!r}: not a built-in model ({', '.join(models.names())}) and not a "
            f".yaml/.yml/.urdf file{hint}"
        )
    return from_source(parsed, source=text)


def from_source(parsed: ModelSource, source: str = "") -> Robot:
    """A robot from what a loader parsed (``source``: how the user named it, e.g. a
    built-in model's name); checks that the defaults give a physical model."""
    provenance = parsed.provenance
    if source:
        provenance = replace(provenance, path=source)
    robot = Robot(
        name=parsed.name,
        chain=parsed.chain,
        _values=tuple(sorted(parsed.values.items())),
        description=parsed.description,
        provenance=provenance,
    )
    # fail at load time on a non-physical model, when every symbol has a value
    if {str(s) for s in robot.symbols} <= set(parsed.values):
        robot.numeric_chain  # noqa: B018 - evaluated for its checks
    return robot
