"""The public robot object: a model, its parameter values, and its dynamics.

A :class:`Robot` is immutable: the symbolic chain (numbers are SymPy expressions of the
parameters) and default parameter values (:meth:`Robot.with_values` returns a new robot).
Numeric functions run through :attr:`~Robot.runner` (:mod:`robodyn.codegen.runner`; the
kernel tiers: docs/tiers.md) over whole batches: arrays ``(..., dof)`` with broadcast
leading axes, ``(dof,)`` one state, a number the same for every joint. Parameters are
named by strings, :attr:`Robot.symbols` the keys of :attr:`Robot.values`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .codegen.coupled import Runner, make_runner
from .codegen.wrenches import stacked_wrenches
from .core.lazy import sp
from .dynamics.inverse_dynamics import TorqueParts
from .dynamics.kinematics import frame_names, unknown_frame
from .dynamics.registry import TORQUE_PARTS
from .model import configuration
from .model.chain import Chain
from .model.names import check_text
from .model.source import ModelSource, ParameterValues, Provenance, bound_values

_empty = np.empty


@dataclass(frozen=True, eq=False)
class Robot:
    """A serial manipulator or a kinematic tree (``chain.parents``; docs/trees.md):
    ``name``, symbolic ``chain`` and default parameter values.

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
    _configurations: tuple[tuple[str, tuple[float, ...]], ...] = ()
    _runner: Runner = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        # the name reaches generated code, markup and file headers: one line of text,
        # however the robot was built (rd.load checks the model file's names already)
        check_text(self.name, "name", "a model name")
        self._attach_runner()

    def _attach_runner(self) -> None:
        # the compiled kernels and caches, made with the robot (never written later)
        object.__setattr__(self, "_runner", make_runner(self.chain, self._values, self.name))

    @classmethod
    def from_dh(cls, rows, joints: str | Sequence[str] | None = None, *, masses,
                com=None, inertia=None, friction=None, motor=None, limits=None,
                gravity=(0, 0, "-g"), values: Mapping[str, float] | None = None,
                convention: str = "standard", name: str = "robot", tool=None,
                planar: bool = False, link_names: Sequence[str] | None = None,
                configurations: Mapping[str, Sequence] | None = None,
                description: str = "", parents: Sequence | None = None) -> Robot:
        """A robot from a DH table in Python, without a model file: the model the YAML
        reader builds from the same fields (:mod:`robodyn.model.yaml_file`), with the
        same checks and errors (which name the fields as the file does: ``links[1].mass``
        is ``masses[1]``).

        ``rows``: one ``(a, alpha, d, theta)`` per joint, base to tip, in the DH
        ``convention`` ``"standard"`` or ``"modified"``; ``joints``: ``"RRP"`` (default all
        revolute); per link ``masses``, ``com``, ``inertia``, ``friction``, ``motor``,
        ``limits``; every field, and the expressions numbers may be, as
        :func:`robodyn.model.load.dh_source` documents them."""
        from .model.load import dh_source

        return from_source(dh_source(
            rows, joints, masses=masses, com=com, inertia=inertia, friction=friction,
            motor=motor, limits=limits, gravity=gravity, values=values, convention=convention,
            name=name, tool=tool, planar=planar, link_names=link_names,
            configurations=configurations, description=description, parents=parents))

    # -- description ---------------------------------------------------------------
    @property
    def dof(self) -> int:
        """The degrees of freedom, ``nv``: one per revolute or prismatic joint, three per ball
        joint, six for a free-flying base (its free joint); coupled joints not counted."""
        return self._runner.nv

    @property
    def floating(self) -> bool:
        """The first link hangs from the world by a free joint (a free-flying base)."""
        return self.chain.floating

    @property
    def nq(self) -> int:
        """Values of a configuration ``q``: one per revolute or prismatic joint, four per ball
        joint (a quaternion), seven per free joint (``[x, y, z, qx, qy, qz, qw]``)."""
        return self._runner.nq

    @property
    def nv(self) -> int:
        """Values of a velocity, acceleration or generalised force: :attr:`dof`."""
        return self._runner.nv

    def _run(self, kind: str, *, h_e=None, **arrays):
        """The facade's one way to a kernel: registry entry ``kind`` on ``arrays`` (in the
        entry's input order), checked against ``nq``, ``nv`` and unit quaternions when the
        model has a free or ball joint, and the wrench array ``h_e`` (a dict of wrenches at
        frames picks the per-frame variant of ``kind``'s ``_contact`` entry)."""
        runner = self._runner
        values = (configuration.checked_arrays(self.chain, kind.partition("@")[0], arrays)
                  if runner.quaternions else list(arrays.values()))
        if h_e is not None:
            kind, h_e = stacked_wrenches(self.name, f"{kind}_contact", h_e, self.frames,
                                         self.frame_index)
            values.append(h_e)
        return runner.run(kind, *values)

    @property
    def values(self) -> ParameterValues:
        """Default numbers of the parameters: ``{name: value}`` (a copy; the keys are the
        names of :attr:`symbols`, and a SymPy symbol looks its name up too)."""
        return ParameterValues(self._values)

    @property
    def symbols(self) -> tuple[str, ...]:
        """The names of the model's parameters, sorted: the keys of :attr:`values` (strings;
        the SymPy symbols are :attr:`parameter_symbols`)."""
        return tuple(sorted(self.chain.parameter_names()))

    @property
    def parameter_symbols(self) -> tuple[sp.Symbol, ...]:
        """The model's parameters as SymPy symbols, sorted by name (the symbols of
        :attr:`chain` and :meth:`equations`)."""
        return tuple(sorted(self.chain.free_symbols(), key=str))

    @property
    def configurations(self) -> dict[str, np.ndarray]:
        """Named joint configurations, ``{name: q}`` (a copy; the model file's
        ``configurations:``), e.g. the PUMA 560's ``qz``, ``qr``, ``qs``, ``qn`` as in
        the Robotics Toolbox; empty when the model names none."""
        return {name: np.array(q, dtype=float) for name, q in self._configurations}

    @property
    def model(self) -> ModelSource:
        """The robot's description (name, chain, default values, provenance, named
        configurations) for the modules below this facade, which take it, not the robot."""
        return ModelSource(self.name, self.chain, dict(self._values), self.description,
                           self.provenance, self._configurations, check_names=False)

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
        new = bound_values(self.name, self.symbols, dict(self._values), {**(values or {}), **more})
        return self._derive(_values=tuple(sorted(new.items())))

    def with_chain(self, chain: Chain, values: Mapping[str, float] | None = None,
                   name: str | None = None) -> Robot:
        """A new robot with another chain (a transformed model: symbolic inertias, a
        payload) and the default ``values`` of its parameters (default: this robot's
        values of the symbols the new chain still has)."""
        names = chain.parameter_names()
        if values is None:
            values = {k: v for k, v in self._values if k in names}
        configurations = self._configurations if chain.dof == self.dof else ()
        return self._derive(chain=chain, _values=tuple(sorted(dict(values).items())),
                            name=name or self.name, _configurations=configurations)

    def without_friction(self, viscous: bool = True, coulomb: bool = True) -> Robot:
        """The rigid-body robot: the same model with its viscous (``viscous``) and Coulomb
        (``coulomb``) friction set to zero, as a new robot (the Robotics Toolbox's
        ``nofriction()``, which by default removes only Coulomb friction). Its
        :meth:`inverse_dynamics` is ``M qdd + C qd + g``, Pinocchio's ``rnea`` of the
        same URDF (which reads ``<dynamics damping friction>`` but leaves them out of
        ``rnea``). Motor (armature) inertia ``G^2 J_m`` is inertia, not friction, and
        stays; remove it with ``with_values(Jm1=0, ...)``. Parameters that only friction
        used are dropped from :attr:`values`."""
        return self.with_chain(self.chain.without_friction(viscous, coulomb))

    def _derive(self, **changes) -> Robot:
        kwargs = {f.name: getattr(self, f.name) for f in fields(self) if f.init}
        kwargs.update(changes)
        return Robot(**kwargs)

    def __getstate__(self):  # the runner (compiled kernels, caches) is made afresh on loading
        return {f.name: getattr(self, f.name) for f in fields(self) if f.init}

    def __setstate__(self, state):
        known = {f.name for f in fields(self) if f.init}
        self.__dict__.update({k: v for k, v in state.items() if k in known})
        self._attach_runner()

    def __repr__(self) -> str:
        letters = {"revolute": "R", "prismatic": "P", "spherical": "S", "free": "F"}
        joints = "".join(letters[link.joint.type] for link in self.links)
        floating = ", floating base" if self.chain.floating else ""
        return f"Robot({self.name!r}, dof={self.dof}, joints={joints}{floating})"

    def __str__(self) -> str:
        """The robot as a table (:mod:`robodyn.model.table`): per joint its type, DH row
        (or URDF placement), mass and limits; gravity and the tool frame below."""
        from .model.table import robot_table

        return robot_table(self.model).text()

    def _repr_html_(self) -> str:
        from .model.table import robot_table

        return robot_table(self.model).html()

    # -- numeric model and kernels ----------------------------------------------------
    @property
    def runner(self) -> Runner:
        """What this robot computes with (:class:`~robodyn.codegen.runner.Runner`): its
        compiled kernels (``robot.runner.kernel("forward_dynamics")``) and
        ``robot.runner.run(kind, *arrays)`` for any entry of
        :data:`~robodyn.dynamics.registry.KERNELS`."""
        return self._runner

    def kernel(self, kind: str):
        """A handle on the compiled ``kind`` algorithm (an entry of
        :data:`~robodyn.dynamics.registry.KERNELS`, e.g. ``"inverse_dynamics"``) for inner
        loops: ``robot.kernel("inverse_dynamics")(q, qd, qdd, out=buffer)``, float64
        C-contiguous arrays ``(dof,)`` or ``(N, dof)``, no conversion
        (:class:`~robodyn.codegen.runner.KernelHandle`)."""
        return self._runner.handle(kind)

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
        (Siciliano et al., Robotics, eq. 7.83), or a dict ``{frame name: wrench}`` of
        wrenches at named frames (:attr:`frames`; each about its frame's origin):
        ``tau += sum_f J_f^T h_f``. Shapes ``(..., dof)`` -> ``(..., dof)``.

        A free-flying base or ball joints (:mod:`robodyn.model.joints`): ``q`` ``(..., nq)``,
        ``qd`` and ``qdd`` ``(..., nv)`` -> ``(..., nv)``: a free base's wrench (base frame,
        force then moment), a ball joint's three moments (its link frame), one torque per
        other joint; ``h_e`` in world axes, ``J`` that of :meth:`jacobian`.
        """
        hot = self._runner.hot_inverse_dynamics  # an attribute, not a dict look-up: 75 ns
        if hot is not None and h_e is None:
            # one state, hot: Runner.run's first step inline (a controller's call costs no
            # more than Pinocchio's rnea; Numba checks the types, the kernel the values)
            one, p, width, _ = hot
            out = _empty(width)
            try:
                if one(q, qd, qdd, p, out) == -1:
                    return out
            except TypeError:
                pass
        return self._run("inverse_dynamics", q=q, qd=qd, qdd=qdd, h_e=h_e)

    def mass_matrix(self, q: ArrayLike) -> np.ndarray:
        """Joint-space inertia matrix ``M(q)`` (composite-rigid-body algorithm),
        ``(..., dof)`` -> ``(..., dof, dof)``, symmetric positive definite (a floating
        base: ``(..., nq)`` -> ``(..., nv, nv)``, the base's rows and columns first)."""
        return self._run("mass_matrix", q=q)

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form
        (``dM/dt - 2C`` skew-symmetric), ``(..., dof, dof)``. A floating base:
        ``(..., nq), (..., nv)`` -> ``(..., nv, nv)``, the base's rows and columns first,
        with ``C v`` the bias less gravity (Pinocchio's ``computeCoriolisMatrix``)."""
        return self._run("coriolis_matrix", q=q, qd=qd)

    def gravity_torques(self, q: ArrayLike) -> np.ndarray:
        """Gravity torques ``g(q) = dU/dq``, ``(..., dof)`` (a floating base: the base wrench
        and joint torques that hold it at rest, ``(..., nq)`` -> ``(..., nv)``)."""
        return self._run("gravity_torques", q=q)

    def friction_torques(self, qd: ArrayLike) -> np.ndarray:
        """Friction ``F_v qd + F_s sign(qd)`` and the other terms of :mod:`robodyn.model.friction`,
        ``(..., dof)`` (a floating base: ``(..., nv)``, zero on the base)."""
        return self._run("friction_torques", qd=qd)

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike,
                         h_e: ArrayLike | None = None) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - J^T h_e - C qd - F_v qd - F_s sign(qd) - g)``,
        solved with the Cholesky factor of ``M`` (no inverse; a tree: the sparse
        ``L^T D L`` factor, :mod:`robodyn.dynamics.forward_dynamics`), ``(..., dof)``.
        ``h_e`` as in :meth:`inverse_dynamics` (a dict: wrenches at named frames).

        A joint that moves no mass (a singular ``M``) is a :class:`ModelError` naming it.
        A floating base: ``q`` ``(..., nq)``, ``qd`` and ``tau`` (the base wrench, base
        frame, then the joint torques) ``(..., nv)`` -> ``a = dv/dt`` ``(..., nv)``."""
        hot = self._runner.hot_forward_dynamics
        if hot is not None and h_e is None:  # as inverse_dynamics
            one, p, width, _ = hot
            out = _empty(width)
            try:
                if one(q, qd, tau, p, out) == -1:
                    return out
            except TypeError:
                pass
        return self._run("forward_dynamics", q=q, qd=qd, tau=tau, h_e=h_e)

    def torque_parts(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                     h_e: ArrayLike | None = None) -> TorqueParts:
        """The torques of :meth:`inverse_dynamics` split into the terms of the equation of
        motion: ``inertial`` (``M qdd``), ``coriolis`` (``C qd``), ``gravity`` (``g``),
        ``friction`` (``F_v qd + F_s sign(qd)``), ``external`` (``J^T h_e``, zero without
        ``h_e``) and ``total`` (their sum), each ``(..., dof)``. A floating base: each
        ``(..., nv)``, ``coriolis`` the bias ``b(q, v) - g(q)``."""
        parts = self._run("torque_parts", q=q, qd=qd, qdd=qdd, h_e=h_e)
        contiguous = np.ascontiguousarray if isinstance(parts, np.ndarray) else (lambda a: a)
        return TorqueParts(**{name: contiguous(parts[..., k, :])
                              for k, name in enumerate(TORQUE_PARTS)})

    # -- energy ---------------------------------------------------------------------
    def kinetic_energy(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """Kinetic energy ``T = sum_i 1/2 m_i v_ci^T v_ci + 1/2 w_i^T I_i w_i``
        (``= 1/2 qd^T M qd``), from each link's velocity; ``(..., dof)`` -> ``(...)``."""
        return self._run("kinetic_energy", q=q, qd=qd)

    def potential_energy(self, q: ArrayLike) -> np.ndarray:
        """Gravitational potential energy ``U = -sum_i m_i g0^T p_ci`` (zero at the base
        origin; ``g(q) = dU/dq``), ``(..., dof)`` -> ``(...)``."""
        return self._run("potential_energy", q=q)

    # -- momentum and the configuration manifold --------------------------------------------
    def centroidal_momentum(self, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
        """The centroidal momentum ``h_G = A_G(q) v``: linear momentum, then angular momentum
        about the centre of mass, world axes (Pinocchio's ``ccrba``; of the moving links on
        a fixed base), ``(..., nq), (..., nv)`` -> ``(..., 6)``."""
        return self._run("centroidal_momentum", q=q, qd=qd)

    def centroidal_matrix(self, q: ArrayLike) -> np.ndarray:
        """The centroidal momentum matrix ``A_G(q)``, ``(..., nq)`` -> ``(..., 6, nv)``
        (:meth:`centroidal_momentum` ``= A_G v``)."""
        return self._run("centroidal_matrix", q=q)

    def integrate(self, q: ArrayLike, qd: ArrayLike, dt: float = 1.0) -> np.ndarray:
        """The configuration reached from ``q`` moving at the constant velocity ``qd`` for
        ``dt``: ``q ⊕ qd dt`` (Pinocchio's ``integrate``), joint by joint
        (:meth:`Chain.integrate <robodyn.model.chain.Chain.integrate>`): a free joint by the
        SE(3) exponential of its body twist, a ball joint by the exponential of its rotation
        (its quaternion stays unit), the others by ``q + qd dt``. Shapes ``(..., nq)``,
        ``(..., nv)`` -> ``(..., nq)``."""
        return configuration.integrate_configuration(self.chain, q, qd, dt)

    def difference(self, q0: ArrayLike, q1: ArrayLike) -> np.ndarray:
        """``q1 ⊖ q0``: the velocity ``v`` with ``integrate(q0, v) == q1`` (Pinocchio's
        ``difference``; ``q1 - q0`` for one-value joints), ``(..., nq)`` -> ``(..., nv)``."""
        return configuration.difference_configuration(self.chain, q0, q1)

    def neutral(self) -> np.ndarray:
        """The zero configuration ``(nq,)`` (quaternions the identity; Pinocchio's ``neutral``)."""
        return self._runner.neutral()

    # -- closed forms ---------------------------------------------------------------
    def equations(self, method: str = "lagrange", **options: Any):
        """The equations of motion in closed form (SymPy), by ``method`` ``"lagrange"``
        (Lagrange–Euler; Boltzmann–Hamel for the body twists of free and ball joints) or
        ``"newton-euler"``; see :mod:`robodyn.symbolic`."""
        from .symbolic import equations

        return equations(self.model, method=method, **options)

    def closed_chain(self):
        """The closed mechanism of ``chain.closures``: assembly, K, dynamics (closed-chains.md)."""
        from .dynamics.constrained import CALLS, ClosedChain  # mechanisms with loops only
        return ClosedChain(self.chain, self.joints, *map(self.__getattribute__, CALLS))

    # -- kinematics ---------------------------------------------------------------
    @property
    def joints(self) -> tuple[str, ...]:
        """The joint names, in the order of ``q`` (one per link; a joint without a name
        is its link's name)."""
        return self._runner.joints

    @property
    def frames(self) -> tuple[str, ...]:
        """The names :meth:`forward_kinematics`, :meth:`jacobian` and a dict ``h_e`` take
        as ``frame``: ``"base"`` (the base frame, unless a link or frame has that name),
        every link frame, then every named frame fixed to a link (``chain.frames``: a
        tool, a hand, a URDF link on a fixed joint)."""
        return self._runner.cached(("frames",), lambda: frame_names(self.chain))

    def frame_index(self, frame: str) -> int:
        """The position of ``frame`` in :attr:`frames`; a :class:`ModelError` naming the
        closest names for one the robot does not have."""
        names = self.frames
        lookup = self._runner.cached(("frame_index",),
                                     lambda: {name: k for k, name in enumerate(names)})
        if isinstance(frame, str) and frame in lookup:
            return lookup[frame]
        raise unknown_frame(self.name, frame, names)

    def _frame_kind(self, kind: str, frame: str | None) -> str:
        return kind if frame is None else f"{kind}@{self.frame_index(frame)}"

    def forward_kinematics(self, q: ArrayLike, frame: str | None = None) -> np.ndarray:
        """Pose of the end-effector frame (or of the named ``frame``, one of
        :attr:`frames`) in the base frame, ``(..., 4, 4)``. A floating base: in the world
        frame, ``q`` ``(..., nq)`` (``T_wb`` of the base's position and quaternion times the
        frame's pose on the base; ``frame="base"`` is ``T_wb``)."""
        top = self._run(self._frame_kind("forward_kinematics", frame), q=q)
        bottom = np.broadcast_to(np.array([0.0, 0.0, 0.0, 1.0]), top.shape[:-2] + (1, 4))
        return np.concatenate([top, bottom], axis=-2)

    def jacobian(self, q: ArrayLike, frame: str | None = None) -> np.ndarray:
        """Geometric Jacobian at the end-effector origin (or at the origin of the named
        ``frame``, one of :attr:`frames`) in the base frame, rows
        ``(v_x, v_y, v_z, w_x, w_y, w_z)``, ``(..., 6, dof)``. In a tree, the columns of
        the joints that do not move the frame (not its link's ancestors) are zero.

        A floating base: ``(..., nq)`` -> ``(..., 6, nv)``, world axes at the frame's origin
        (Pinocchio's ``LOCAL_WORLD_ALIGNED``): ``(v_f, w_f) = J v`` with ``v`` the base's
        body twist then the joint rates; the first six columns move the frame with the
        base."""
        return self._run(self._frame_kind("jacobian", frame), q=q)

    # -- export ---------------------------------------------------------------------
    def to_urdf(self, path: str | Path | None = None, force: bool = False,
                unlimited: str = "continuous") -> str:
        """The robot as URDF text, every parameter value bound (joints with origin, axis,
        limits and ``<dynamics>`` friction; links with ``<inertial>``; the tip as a ``tool``
        link): :mod:`robodyn.model.urdf_export` says how offsets, unlimited revolute joints
        (``unlimited="continuous"`` or ``"revolute"``), bodies other tools would refuse and
        the motor inertia URDF lacks are written. Written to ``path`` when given (an existing
        file only if robodyn wrote it, or with ``force``; never through a symbolic link)."""
        from .codegen.export.files import write_file
        from .model.urdf_export import chain_to_urdf

        text = chain_to_urdf(self.numeric_chain, self.name, comment=self._file_comment(),
                             unlimited=unlimited)
        if path is not None:
            write_file(path, text, force=force, option="path")
        return text

    def _file_comment(self) -> str:
        origin = f" from {self.source}" if self.source and self.source != self.name else ""
        return f"robodyn model {self.name!r}{origin}, values bound"

    def to_mjcf(self, path: str | Path | None = None, force: bool = False) -> str:
        """The robot as MuJoCo MJCF text, every parameter value bound (bodies nested as the
        tree, hinge/slide/ball/free joints with ``range``, ``damping``, ``frictionloss`` and
        ``armature``, ``<inertial>``, frames as sites, gravity); see
        :mod:`robodyn.model.mjcf_export`. Written to ``path`` as :meth:`to_urdf` writes."""
        from .codegen.export.files import write_file
        from .model.mjcf_export import chain_to_mjcf

        text = chain_to_mjcf(self.numeric_chain, self.name, comment=self._file_comment())
        if path is not None:
            write_file(path, text, force=force, option="path")
        return text

    def to_code(self, lang: str, functions=None, parameters: str = "baked",
                name: str | None = None) -> dict[str, str]:
        """``{file name: text}``: robodyn's compiled kernels (the traced straight-line
        programs, every registry entry or those named in ``functions``) as standalone
        ``lang`` source: ``c``, ``cpp``, ``python``, ``java``, ``julia`` or ``matlab``
        (:mod:`robodyn.codegen.export.traced`). ``parameters="argument"``: every function
        takes the parameter vector ``p`` first (order :attr:`runner.parameter_names
        <robodyn.codegen.runner.Runner.parameter_names>`); ``name``: the prefix / module
        name (default: the model name made an identifier). The closed forms, for reading,
        are ``robot.equations().to_code(...)``."""
        from .codegen.export.traced import to_code

        return to_code(self._runner, lang, functions, parameters, name, self.provenance)

    def compile(self, kinds: Sequence[str] | None = None) -> dict[str, float]:
        """Compile ``kinds`` (default ID, M, FD, g, J) now, not in the background: seconds each."""
        return self._runner.compile(kinds)

    def compile_c(self, functions=None, parameters: str = "baked",
                  compiler: str | None = None, flags=("-O2",)):
        """The C kernels of :meth:`to_code` compiled with the C compiler on PATH and loaded
        (ctypes): ``k = robot.compile_c(); k.inverse_dynamics(q, qd, qdd)``, batched over
        leading axes (:mod:`robodyn.codegen.export.compile_c`)."""
        from .codegen.export.compile_c import compile_c

        return compile_c(self._runner, functions, parameters, compiler, flags,
                         provenance=self.provenance)

    # -- derivatives ------------------------------------------------------------------
    def inverse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                                     h_e: ArrayLike | None = None) -> tuple[np.ndarray, ...]:
        """``(dtau/dq, dtau/dqd, dtau/dqdd)`` of :meth:`inverse_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dtau_i/dx_j``; ``dtau/dqdd = M(q)``: the
        analytical recursion of Carpentier & Mansard (RSS 2018,
        :mod:`robodyn.dynamics.rnea_derivatives`; with ``h_e``, forward-mode AD including
        ``d(J^T h_e)/dq``). Viscous friction adds ``F_v`` to ``dtau/dqd``; Coulomb friction
        counts as 0 (exact away from ``qd = 0``). A free or ball joint's columns of
        ``dtau/dq`` are along its velocity coordinates (Pinocchio's tangent space)."""
        out = self._run("inverse_dynamics_derivatives", q=q, qd=qd, qdd=qdd, h_e=h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def forward_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike,
                                     h_e: ArrayLike | None = None) -> tuple[np.ndarray, ...]:
        """``(dqdd/dq, dqdd/dqd, dqdd/dtau)`` of :meth:`forward_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dqdd_i/dx_j``; ``dqdd/dtau = M(q)^{-1}``:
        ``dqdd/dx = -M^{-1} dtau/dx`` at ``qdd = FD(q, qd, tau)`` (Carpentier & Mansard
        2018), Cholesky solves; Coulomb friction counts as 0."""
        out = self._run("forward_dynamics_derivatives", q=q, qd=qd, tau=tau, h_e=h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def mass_matrix_derivatives(self, q: ArrayLike) -> np.ndarray:
        """``dM/dq``, ``(..., dof)`` -> ``(..., dof, dof, dof)`` with
        ``[..., i, j, k] = dM_ij/dq_k`` (symmetric in ``i, j``; ``k`` along the velocity
        coordinates)."""
        return self._run("mass_matrix_derivatives", q=q)

    def jacobian_derivative(self, q: ArrayLike, qd: ArrayLike,
                            frame: str | None = None) -> np.ndarray:
        """``Jdot = dJ/dt = sum_k (dJ/dq_k) qd_k`` of the geometric Jacobian
        (:meth:`jacobian`; of the named ``frame`` when given), ``(..., 6, dof)``; the end
        effector's acceleration is ``J qdd + Jdot qd``."""
        return self._run(self._frame_kind("jacobian_derivative", frame), q=q, qd=qd)

    def operational_space(self, q: ArrayLike, qd: ArrayLike, frame: str | None = None,
                          jacobian: str = "geometric", **options: Any):
        """Khatib's task-space ``Lambda``, ``mu``, ``p``, ``J_bar`` of ``frame`` (``angles``,
        ``rows``, ``damping``): :func:`robodyn.dynamics.operational_space.operational_space`."""
        parts, pose = self.torque_parts(q, qd, 0.0), self.forward_kinematics(q, frame)
        J, Jdot = self.jacobian(q, frame), self.jacobian_derivative(q, qd, frame)
        from .dynamics.operational_space import operational_space  # task space only
        return operational_space(self.mass_matrix(q), J, Jdot, parts.coriolis, parts.gravity,
                                 qd, pose, jacobian=jacobian, **options)

    # -- the compiled programs for automatic differentiation (codegen/export) -----------
    def to_jax(self, functions=None, parameters: str = "baked", dtype: str = "float64"):
        """The numeric functions as functions of JAX arrays that ``jax.jit``, ``jax.vmap``
        and ``jax.grad``/``jax.jacrev`` apply to (``fns.inverse_dynamics(q, qd, qdd)``):
        the traced programs robodyn runs, walked with ``jax.numpy``; see
        :mod:`robodyn.codegen.export.jax_export` (float64 needs
        ``jax.config.update("jax_enable_x64", True)``; ``pip install 'robodyn[jax]'``)."""
        from .codegen.export.jax_export import to_jax

        return to_jax(self._runner, functions, parameters, dtype)

    def to_casadi(self, functions=None, parameters: str = "baked", name: str | None = None):
        """The numeric functions as ``casadi.Function`` SX graphs with named inputs and
        outputs (``fns.inverse_dynamics``), for optimal control and MPC; see
        :mod:`robodyn.codegen.export.casadi_export` (``pip install 'robodyn[casadi]'``)."""
        from .codegen.export.casadi_export import to_casadi

        return to_casadi(self._runner, functions, parameters, name)

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

        return inertial_parameters(self._runner)

    def with_inertial_parameters(self, pi: ArrayLike) -> Robot:
        """This robot with the standard parameters ``pi`` (the order of
        :meth:`inertial_parameters`): masses, centres of mass ``c = h / m`` and inertias
        about them ``I_c = I_o - m (|c|^2 1 - c c^T)`` (parallel-axis theorem), friction
        and armature (as ``J_m`` behind a gear of ratio 1). A :class:`ModelError` if a mass
        is zero but its first moments are not, or the result is not physical."""
        from .symbolic.base_parameters import with_inertial_parameters

        new = self.with_chain(with_inertial_parameters(self._runner, pi))
        new.numeric_chain  # noqa: B018 - fail now on a non-physical model, naming the field
        return new

    def regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """The regressor ``Y(q, qd, qdd)``, ``(..., dof)`` -> ``(..., dof, p)``, with
        ``Y @ pi == inverse_dynamics(q, qd, qdd)`` (friction and armature included) for
        ``pi`` the values of :meth:`inertial_parameters`; the algorithm is in
        :mod:`robodyn.dynamics.regressor`."""
        from .dynamics.regressor import standard_columns

        return standard_columns(self.chain, self._run("regressor", q=q, qd=qd, qdd=qdd))

    def base_parameters(self, tol: float | None = None, samples: int | None = None,
                        seed: int = 0):
        """The identifiable combinations of the standard parameters (Gautier's numerical
        QR of the regressor stacked over random states), see
        :func:`robodyn.symbolic.base_parameters.base_parameters`."""
        from .symbolic.base_parameters import base_parameters

        return self._runner.cached(
            ("base_parameters", tol, samples, seed),
            lambda: base_parameters(self.model, self._runner, tol=tol, samples=samples,
                                    seed=seed))

    def regressor_base(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
        """The base regressor ``Y_b`` (the columns of :meth:`regressor` of the base
        parameters), ``(..., dof, b)`` of full column rank: ``Y pi = Y_b pi_b``."""
        return np.ascontiguousarray(self.regressor(q, qd, qdd)[..., self.base_parameters()
                                                                .independent])


def load(source: str | os.PathLike[str], *, base: str | None = None, tip: str | None = None,
         allow_massless: bool = False, snap_angles: float | None = None,
         floating: bool = False, mimic: str = "coupled", asset_root: str | None = None) -> Robot:
    """Load a robot: a built-in model's name (``rd.models.names()``), a ``.yaml``/``.yml``
    model file, the movable tree (or one chain) of a ``.urdf`` file, or the body tree of a
    MuJoCo ``.xml`` (MJCF) file (:func:`robodyn.model.mjcf.load_mjcf`).

    URDF options (an error for the other sources), each in detail in
    :func:`robodyn.model.load.read_source`: ``base``, the link fixed to the world (default:
    the root link); ``tip``, the end-effector link (default: the end of the movable joints,
    or the whole tree where they branch; joints off the chosen chain are locked at zero, in
    ``robot.locked``); ``allow_massless``, moving links without ``<inertial>`` as massless;
    ``snap_angles``, a tolerance for ``<origin rpy>`` angles to snap to multiples of pi/2;
    ``floating``, the root body as a free-flying base (a model file: ``floating: true``);
    ``mimic``, ``"coupled"`` (default) or ``"independent"`` (also MJCF); MJCF: ``asset_root``.

    A URDF's ``<dynamics damping friction>`` become the joints' viscous and Coulomb
    friction, so :meth:`Robot.inverse_dynamics` is Pinocchio's ``rnea`` of the same file
    plus :meth:`Robot.friction_torques` (``damping qd + friction sign(qd)``);
    :meth:`Robot.without_friction` is the rigid-body robot, equal to ``rnea``. Its
    ``<limit>`` become the joint limits; meshes are never read. Example, with the UR5 of the
    ``example-robot-data`` package (any URDF file path works the same)::

        import robodyn as rd
        ur5 = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
        robot = rd.load(ur5, tip="tool0", snap_angles=1e-3)
        robot.dof, robot.provenance.notes[0]  # 6, 'snapped 4 angle(s) to multiples of pi/2 ...'

    Raises :class:`~robodyn.ModelError` for an unknown name (with a "did you mean"), a
    missing file or a model at fault (naming the field, link or joint), and ``TypeError``
    for URDF options given to another kind of model.
    """
    from .model.load import read_source

    return from_source(read_source(source, base=base, tip=tip, allow_massless=allow_massless,
                                   snap_angles=snap_angles, floating=floating, mimic=mimic,
                                   asset_root=asset_root),
                       source=str(source))


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
        _configurations=parsed.configurations,
    )
    # fail at load time on a non-physical model, when every symbol has a value
    if set(robot.symbols) <= set(parsed.values):
        robot.numeric_chain  # noqa: B018 - evaluated for its checks
    return robot
