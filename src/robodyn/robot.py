"""The public robot object: a model, its parameter values, and its dynamics.

A :class:`Robot` is immutable. It holds the symbolic chain (every number a SymPy
expression of the model's parameters) and default values for the parameters;
:meth:`Robot.with_values` returns a new robot. Numeric functions evaluate the
chain with the values once, trace each algorithm into a compiled kernel on
first use (:mod:`robodyn.codegen.kernel`) and run it over the whole batch.

All numeric functions take arrays of shape ``(..., dof)`` and broadcast their
leading (batch) axes; a single state is ``(dof,)``.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path

import numpy as np
import sympy as sp

from .codegen.kernel import Kernel, NonFiniteResult, backend
from .core.errors import InputError, ModelError, RobodynError
from .dynamics.registry import KERNELS, TORQUE_PARTS, input_width
from .model.chain import Chain
from .model.expressions import check_parameter_name
from .model.names import check_text
from .model.source import ModelSource, Provenance
from .model.yaml_file import read_model_file


@dataclass(frozen=True, eq=False)
class Robot:
    """A serial manipulator: ``name``, symbolic ``chain`` and default parameter values.

    Build one with :func:`robodyn.load`. ``provenance`` says where the model came from
    (the DH table, the URDF joints locked at zero, ...).
    """

    name: str
    chain: Chain
    _values: tuple[tuple[str, float], ...] = ()
    description: str = ""
    provenance: Provenance = field(default_factory=Provenance)

    def __post_init__(self):
        # the name reaches generated code, markup and file headers: one line of text,
        # however the robot was built (rd.load checks the model file's names already)
        check_text(self.name, "name", "a model name")

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
        kwargs = {f: getattr(self, f) for f in self.__dataclass_fields__}
        kwargs.update(changes)
        return Robot(**kwargs)

    def __getstate__(self):
        # compiled kernels and the numeric chain are caches: rebuilt after unpickling
        caches = ("_kernels", "_runners", "numeric_chain", "parameter_values", "_base")
        return {k: v for k, v in self.__dict__.items() if k not in caches}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self) -> str:
        joints = "".join("R" if link.joint.type == "revolute" else "P" for link in self.links)
        return f"Robot({self.name!r}, dof={self.dof}, joints={joints})"

    # -- numeric model and kernels ----------------------------------------------------
    @cached_property
    def numeric_chain(self) -> Chain:
        """The chain with every number a float (parameters substituted), checked for physics."""
        return self.chain.evaluate(dict(self._values), source=self.name)

    @cached_property
    def parameter_values(self) -> np.ndarray:
        """The values of :attr:`symbols`, in that order (checked for physics first)."""
        self.numeric_chain  # noqa: B018 - raises on a missing value or a non-physical model
        return np.array([dict(self._values)[str(s)] for s in self.symbols], dtype=float)

    def _kernel(self, kind: str) -> Kernel:
        """The compiled ``kind`` algorithm of this model (an entry of
        :data:`~robodyn.dynamics.registry.KERNELS`). Parameters are kernel inputs, so
        every robot with an equal chain (any ``with_values``) shares one kernel."""
        kernels = self.__dict__.setdefault("_kernels", {})
        kernel = kernels.get(kind)
        if kernel is None:
            self.parameter_values  # noqa: B018 - fail on bad values before compiling
            shared = _SHARED_KERNELS.setdefault(self.chain, {})
            key = (kind, backend())  # ROBODYN_BACKEND read when a robot first needs a kernel
            kernel = shared.get(key)
            if kernel is None:
                names = tuple(str(s) for s in self.symbols)
                kernel = shared[key] = Kernel(self.chain, kind, names)
            kernels[kind] = kernel
        return kernel

    def _runner(self, kind: str) -> tuple:
        """``(kernel, parameter values, input names, widths, output shape)`` of registry
        entry ``kind``, looked up once per robot (simulation loops call ``_run`` often)."""
        runners = self.__dict__.setdefault("_runners", {})
        runner = runners.get(kind)
        if runner is None:
            spec = KERNELS[kind]
            widths = tuple(input_width(name, self.dof) for name in spec.inputs)
            runner = runners[kind] = (self._kernel(kind), self.parameter_values, spec.inputs,
                                      widths, spec.shape(self.dof))
        return runner

    def _run(self, kind: str, *arrays):
        """Run registry entry ``kind`` on ``arrays`` (one per input of the entry, shape
        ``(..., width)``, broadcast together): ``batch + shape(dof)``."""
        runner = self.__dict__.get("_runners", {}).get(kind) or self._runner(kind)
        kernel, p, names, widths, out_shape = runner
        # fast path for one state (simulation loops): (width,) float64 arrays as (1, width)
        one = []
        for a, w in zip(arrays, widths):
            if type(a) is np.ndarray and a.shape == (w,) and a.dtype == _F64 \
                    and a.flags.c_contiguous:
                one.append(a.reshape(1, w))
            else:
                one = None
                break
        if one is None and any(type(a).__module__.startswith("dask") for a in arrays):
            from .codegen.dask import run_lazy  # Dask only for Dask inputs

            return run_lazy(self, kind, names, widths, out_shape, arrays)
        try:
            if one is not None:
                return kernel.single(p, *one).reshape(out_shape)
            inputs, batch = _batch(list(zip(names, arrays, widths, strict=True)))
            out = kernel(p, *inputs, batch_shape=batch)
        except NonFiniteResult as exc:
            flat = one if one is not None else inputs
            raise self._explain_non_finite(kind, {name: a[exc.row]
                                                  for name, a in zip(names, flat)}) from None
        return out.reshape(batch + out_shape)

    def _explain_non_finite(self, kind: str, sample: dict) -> RobodynError:
        """Why a result is not finite although its inputs are: a singular mass matrix
        (a joint that moves no mass) or parameter values too large for float64."""
        state = ", ".join(f"{k}={np.array2string(v, precision=4, separator=', ')}"
                          for k, v in sample.items())
        if "q" in sample and kind.startswith("forward_dynamics"):
            pivots = _cholesky_pivots(self.mass_matrix(sample["q"]))
            scale = max(1.0, float(np.max(np.abs(pivots))))
            for j, pivot in enumerate(pivots):
                if not pivot > 1e-13 * scale:
                    link = self.numeric_chain.links[j]
                    return ModelError(
                        f"{self.name}: {kind} at {state}: the mass matrix is singular (Cholesky "
                        f"pivot {pivot:.3g} at joint {j + 1}, {link.joint.name or link.name!r}): "
                        "that joint moves no mass or inertia at this q, so its acceleration is "
                        "undefined; give the links it moves a mass and inertia")
        big = max(self._values, key=lambda kv: abs(kv[1]), default=None)
        # blame what overflowed: the largest input, when it is larger than every parameter
        name, index, value = max(((k, int(np.argmax(np.abs(v))), float(np.max(np.abs(v))))
                                  for k, v in sample.items() if np.size(v)),
                                 key=lambda t: t[2], default=(None, 0, 0.0))
        if name is not None and (big is None or value >= abs(big[1])):
            return InputError(
                f"{self.name}: {kind}: {name}[{index}] = {sample[name].flat[index]:.3g} makes "
                "the result overflow float64 (the dynamics are quadratic in qd); use values "
                "in a physical range")
        hint = f" (the largest is {big[0]} = {big[1]:g})" if big else ""
        return ModelError(
            f"{self.name}: {kind} at {state}: the result is not finite although the inputs "
            f"are; the parameter values overflow float64{hint}: use values in a physical range")

    # -- dynamics -----------------------------------------------------------------
    def inverse_dynamics(self, q, qd, qdd, h_e=None) -> np.ndarray:
        """Joint torques ``tau = M qdd + C qd + F_v qd + F_s sign(qd) + g + J^T h_e``.

        Recursive Newton–Euler (:mod:`robodyn.dynamics.inverse_dynamics`) plus friction.
        ``h_e``: the wrench ``(f, mu)`` (6 numbers, base frame, moment about the
        end-effector origin) that the end effector exerts on the environment
        (Siciliano eq. 7.83, seed 002). Shapes ``(..., dof)`` -> ``(..., dof)``.
        """
        if h_e is None:
            return self._run("inverse_dynamics", q, qd, qdd)
        return self._run("inverse_dynamics_contact", q, qd, qdd, h_e)

    def mass_matrix(self, q) -> np.ndarray:
        """Joint-space inertia matrix ``M(q)`` (composite-rigid-body algorithm),
        ``(..., dof)`` -> ``(..., dof, dof)``, symmetric positive definite."""
        return self._run("mass_matrix", q)

    def coriolis_matrix(self, q, qd) -> np.ndarray:
        """Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form
        (``dM/dt - 2C`` skew-symmetric), ``(..., dof, dof)``."""
        return self._run("coriolis_matrix", q, qd)

    def gravity_torques(self, q) -> np.ndarray:
        """Gravity torques ``g(q) = dU/dq``, ``(..., dof)``."""
        return self._run("gravity_torques", q)

    def friction_torques(self, qd) -> np.ndarray:
        """Friction ``F_v qd + F_s sign(qd)``, ``(..., dof)``."""
        return self._run("friction_torques", qd)

    def forward_dynamics(self, q, qd, tau, h_e=None) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - J^T h_e - C qd - F_v qd - F_s sign(qd) - g)``,
        solved with the Cholesky factor of ``M`` (no inverse), ``(..., dof)``.

        A joint that moves no mass (a singular ``M``) is a :class:`ModelError` naming it."""
        if h_e is None:
            return self._run("forward_dynamics", q, qd, tau)
        return self._run("forward_dynamics_contact", q, qd, tau, h_e)

    def torque_parts(self, q, qd, qdd, h_e=None) -> TorqueParts:
        """The torques of :meth:`inverse_dynamics` split into the terms of the equation of
        motion: ``inertial`` (``M qdd``), ``coriolis`` (``C qd``), ``gravity`` (``g``),
        ``friction`` (``F_v qd + F_s sign(qd)``), ``external`` (``J^T h_e``, zero without
        ``h_e``) and ``total`` (their sum), each ``(..., dof)``."""
        if h_e is None:
            parts = self._run("torque_parts", q, qd, qdd)
        else:
            parts = self._run("torque_parts_contact", q, qd, qdd, h_e)
        contiguous = np.ascontiguousarray if isinstance(parts, np.ndarray) else (lambda a: a)
        return TorqueParts(**{name: contiguous(parts[..., k, :])
                              for k, name in enumerate(TORQUE_PARTS)})

    # -- energy ---------------------------------------------------------------------
    def kinetic_energy(self, q, qd) -> np.ndarray:
        """Kinetic energy ``T = sum_i 1/2 m_i v_ci^T v_ci + 1/2 w_i^T I_i w_i``
        (``= 1/2 qd^T M qd``), from each link's velocity; ``(..., dof)`` -> ``(...)``."""
        return self._run("kinetic_energy", q, qd)

    def potential_energy(self, q) -> np.ndarray:
        """Gravitational potential energy ``U = -sum_i m_i g0^T p_ci`` (zero at the base
        origin; ``g(q) = dU/dq``), ``(..., dof)`` -> ``(...)``."""
        return self._run("potential_energy", q)

    # -- closed forms ---------------------------------------------------------------
    def equations(self, method: str = "lagrange", **options):
        """The equations of motion in closed form (SymPy), by ``method`` ``"lagrange"``
        (Lagrange–Euler) or ``"newton-euler"``; see :mod:`robodyn.symbolic`."""
        from .symbolic import equations

        return equations(self, method=method, **options)

    # -- kinematics ---------------------------------------------------------------
    def forward_kinematics(self, q) -> np.ndarray:
        """Pose of the end-effector frame in the base frame, ``(..., 4, 4)``."""
        top = self._run("forward_kinematics", q)
        bottom = np.broadcast_to(np.array([0.0, 0.0, 0.0, 1.0]), top.shape[:-2] + (1, 4))
        return np.concatenate([top, bottom], axis=-2)

    def jacobian(self, q) -> np.ndarray:
        """Geometric Jacobian at the end-effector origin in the base frame,
        rows ``(v_x, v_y, v_z, w_x, w_y, w_z)``, ``(..., 6, dof)``."""
        return self._run("jacobian", q)

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
    def inverse_dynamics_derivatives(self, q, qd, qdd, h_e=None) -> tuple[np.ndarray, ...]:
        """``(dtau/dq, dtau/dqd, dtau/dqdd)`` of :meth:`inverse_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dtau_i/dx_j``; ``dtau/dqdd = M(q)``.

        Forward-mode automatic differentiation of the traced Newton–Euler program
        (:mod:`robodyn.dynamics.derivatives`), compiled like every kernel. Viscous
        friction contributes ``F_v`` to ``dtau/dqd``; Coulomb friction ``F_s sign(qd)`` is
        differentiated as 0 (exact away from ``qd = 0``, where it has no derivative).
        With ``h_e``, ``dtau/dq`` includes ``d(J^T h_e)/dq``."""
        if h_e is None:
            out = self._run("inverse_dynamics_derivatives", q, qd, qdd)
        else:
            out = self._run("inverse_dynamics_derivatives_contact", q, qd, qdd, h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def forward_dynamics_derivatives(self, q, qd, tau, h_e=None) -> tuple[np.ndarray, ...]:
        """``(dqdd/dq, dqdd/dqd, dqdd/dtau)`` of :meth:`forward_dynamics`, each
        ``(..., dof, dof)`` with ``[..., i, j] = dqdd_i/dx_j``; ``dqdd/dtau = M(q)^{-1}``.

        ``dqdd/dx = -M^{-1} dtau/dx`` with the inverse dynamics' derivatives taken at
        ``qdd = FD(q, qd, tau)`` (Carpentier & Mansard 2018), solved with the Cholesky
        factor of ``M``. Coulomb friction is differentiated as 0 (see
        :meth:`inverse_dynamics_derivatives`)."""
        if h_e is None:
            out = self._run("forward_dynamics_derivatives", q, qd, tau)
        else:
            out = self._run("forward_dynamics_derivatives_contact", q, qd, tau, h_e)
        return out[..., 0, :, :], out[..., 1, :, :], out[..., 2, :, :]

    def mass_matrix_derivatives(self, q) -> np.ndarray:
        """``dM/dq``, ``(..., dof)`` -> ``(..., dof, dof, dof)`` with
        ``[..., i, j, k] = dM_ij/dq_k`` (symmetric in ``i, j``)."""
        return self._run("mass_matrix_derivatives", q)

    def jacobian_derivative(self, q, qd) -> np.ndarray:
        """``Jdot = dJ/dt = sum_k (dJ/dq_k) qd_k`` of the geometric Jacobian
        (:meth:`jacobian`), ``(..., 6, dof)``; the end effector's acceleration is
        ``J qdd + Jdot qd``."""
        return self._run("jacobian_derivative", q, qd)


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

    def with_inertial_parameters(self, pi) -> Robot:
        """This robot with the standard parameters ``pi`` (the order of
        :meth:`inertial_parameters`): masses, centres of mass ``c = h / m`` and inertias
        about them ``I_c = I_o - m (|c|^2 1 - c c^T)`` (parallel-axis theorem), friction
        and armature (as ``J_m`` behind a gear of ratio 1). A :class:`ModelError` if a mass
        is zero but its first moments are not, or the result is not physical."""
        from .symbolic.base_parameters import with_inertial_parameters

        return with_inertial_parameters(self, pi)

    def regressor(self, q, qd, qdd) -> np.ndarray:
        """The regressor ``Y(q, qd, qdd)``, ``(..., dof)`` -> ``(..., dof, p)``, with
        ``Y @ pi == inverse_dynamics(q, qd, qdd)`` (friction and armature included) for
        ``pi`` the values of :meth:`inertial_parameters`; the algorithm is in
        :mod:`robodyn.dynamics.regressor`."""
        from .dynamics.regressor import parameter_columns

        full = self._run("regressor", q, qd, qdd)
        cols, _ = parameter_columns(self.chain)
        return full if len(cols) == full.shape[-1] else np.ascontiguousarray(full[..., cols])

    def base_parameters(self, tol: float | None = None, samples: int | None = None,
                        seed: int = 0):
        """The identifiable combinations of the standard parameters (Gautier's numerical
        QR of the regressor stacked over random states), see
        :func:`robodyn.symbolic.base_parameters.base_parameters`."""
        from .symbolic.base_parameters import base_parameters

        cache = self.__dict__.setdefault("_base", {})
        key = (tol, samples, seed)
        if key not in cache:
            cache[key] = base_parameters(self, tol=tol, samples=samples, seed=seed)
        return cache[key]

    def regressor_base(self, q, qd, qdd) -> np.ndarray:
        """The base regressor ``Y_b`` (the columns of :meth:`regressor` of the base
        parameters), ``(..., dof, b)`` of full column rank: ``Y pi = Y_b pi_b``."""
        return np.ascontiguousarray(self.regressor(q, qd, qdd)[..., self.base_parameters()
                                                                .independent])

_F64 = np.dtype(np.float64)


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

#: Compiled kernels per chain (weakly held): robots that differ only in values share them.
_SHARED_KERNELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _as_array(name: str, value) -> np.ndarray:
    """``value`` as a float64 array; real numbers only (no bool, complex, text, dates)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: expected an array of real numbers ({exc})") from None
    kind = arr.dtype.kind
    if kind in "iuf":
        return arr.astype(np.float64, copy=False)
    what = {"b": "booleans", "c": "complex numbers", "U": "text", "S": "bytes",
            "M": "dates", "m": "time spans", "O": "Python objects"}.get(kind, str(arr.dtype))
    raise InputError(f"{name}: expected real numbers, got an array of {what} "
                     f"(dtype {arr.dtype}, shape {arr.shape}); pass floats, e.g. "
                     f"np.asarray({name}, dtype=float) if the values are real")


def _batch(named) -> tuple[list[np.ndarray], tuple]:
    """Check and broadcast ``(name, array, width)`` inputs of shape ``(..., width)``;
    return them as C-contiguous ``(N, width)`` float64 arrays and the batch shape."""
    arrays = []
    for name, value, width in named:
        arr = value if type(value) is np.ndarray and value.dtype == np.float64 \
            else _as_array(name, value)
        if arr.ndim == 0 or arr.shape[-1] != width:
            what = "a wrench: force, moment" if name == "h_e" else "one value per joint"
            raise InputError(f"{name}: expected shape (..., {width}) ({what}), got {arr.shape}")
        arrays.append(arr)
    shapes = [a.shape[:-1] for a in arrays]
    if len(arrays) > 1 and any(s != shapes[0] for s in shapes):
        try:
            batch = np.broadcast_shapes(*shapes)
        except ValueError:
            detail = ", ".join(f"{n} {a.shape}" for (n, _, _), a in zip(named, arrays))
            raise InputError(f"batch shapes do not broadcast: {detail}") from None
        arrays = [np.broadcast_to(a, batch + a.shape[-1:]) for a in arrays]
    else:
        batch = shapes[0]
    flat = [np.ascontiguousarray(a.reshape(-1, a.shape[-1])) for a in arrays]
    return flat, batch


def _cholesky_pivots(m: np.ndarray) -> np.ndarray:
    """The pivots ``d_j`` of ``M = L diag(d) L^T`` (all > 0 iff ``M`` is positive definite)."""
    n = m.shape[0]
    low = np.eye(n)
    d = np.zeros(n)
    for j in range(n):
        d[j] = m[j, j] - np.sum(low[j, :j] ** 2 * d[:j])
        for i in range(j + 1, n):
            low[i, j] = (m[i, j] - np.sum(low[i, :j] * low[j, :j] * d[:j])) / d[j] \
                if d[j] != 0 else 0.0
    return d


def load(source: str | Path, **kwargs) -> Robot:
    """Load a robot: a built-in model name (``rd.models.names()``) or a path to a
    ``.yaml``/``.yml`` model file."""
    from .model import builtin as models

    text = str(source)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml"):
        if not path.is_file():
            raise ModelError(f"{text}: no such model file")
        if kwargs:
            raise TypeError(f"load() of a YAML file takes no options, got {sorted(kwargs)}")
        parsed = read_model_file(path)
    elif path.suffix.lower() == ".urdf":
        from .model.urdf import load_urdf  # only URDF users pay the import

        parsed = load_urdf(path, **kwargs)
    elif text in models.names():
        if kwargs:
            raise TypeError(f"load() of a built-in model takes no options, got {sorted(kwargs)}")
        parsed = read_model_file(models.path(text))
    else:
        raise ModelError(
            f"cannot load {text!r}: not a built-in model ({', '.join(models.names())}) and not a "
            ".yaml/.yml/.urdf file"
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
