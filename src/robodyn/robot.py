"""The public robot object: a model, its parameter values, and its dynamics.

A :class:`Robot` is immutable. It holds the symbolic chain (every number a SymPy
expression of the model's parameters) and default values for the parameters;
:meth:`Robot.with_values` returns a new robot. Numeric functions evaluate the
chain with the values once, trace each algorithm into a compiled kernel on
first use (:mod:`robodyn.codegen.kernels`) and run it over the whole batch.

All numeric functions take arrays of shape ``(..., dof)`` and broadcast their
leading (batch) axes; a single state is ``(dof,)``.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np
import sympy as sp

from .codegen.kernels import Kernel
from .errors import InputError, ModelError
from .model.chain import Chain
from .model.dh import DHRow
from .model.expressions import check_parameter_name
from .model.yaml_file import ModelSource, read_model_file


@dataclass(frozen=True, eq=False)
class Robot:
    """A serial manipulator: ``name``, symbolic ``chain`` and default parameter values.

    Build one with :func:`robodyn.load`.
    """

    name: str
    chain: Chain
    _values: tuple[tuple[str, float], ...] = ()
    convention: str | None = None  # DH convention, if the geometry came from a DH table
    dh_rows: tuple[DHRow, ...] = ()
    description: str = ""
    source: str = ""
    locked: tuple[str, ...] = field(default=())

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
                raise ModelError(f"{self.name}.with_values: {key} = {value!r} is not a number")
            if not np.isfinite(value):
                raise ModelError(f"{self.name}.with_values: {key} = {value!r} is not finite")
            new[key] = float(value)
        return _replace(self, _values=tuple(sorted(new.items())))

    def __getstate__(self):
        # compiled kernels and the numeric chain are caches: rebuilt after unpickling
        caches = ("_kernels", "numeric_chain", "parameter_values")
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
        """The compiled ``kind`` algorithm of this model. Parameters are kernel inputs, so
        every robot with an equal chain (any ``with_values``) shares one kernel."""
        kernels = self.__dict__.setdefault("_kernels", {})
        kernel = kernels.get(kind)
        if kernel is None:
            self.parameter_values  # noqa: B018 - fail on bad values before compiling
            shared = _SHARED_KERNELS.setdefault(self.chain, {})
            kernel = shared.get(kind)
            if kernel is None:
                names = tuple(str(s) for s in self.symbols)
                kernel = shared[kind] = Kernel(self.chain, kind, names)
            kernels[kind] = kernel
        return kernel

    def _run(self, kind: str, *arrays, out_shape: tuple = ()):
        kernel = self.__dict__.get("_kernels", {}).get(kind) or self._kernel(kind)
        p = self.parameter_values
        one = _single_state(self.chain.dof, arrays)
        if one is not None:  # fast path for one state: simulation loops call this
            return kernel.single(p, *one).reshape(out_shape)
        inputs, batch = _batch(self.chain.dof, arrays)
        out = kernel(p, *inputs, batch_shape=batch)
        return out.reshape(batch + out_shape) if batch else out.reshape(out_shape)

    # -- dynamics -----------------------------------------------------------------
    def inverse_dynamics(self, q, qd, qdd, h_e=None) -> np.ndarray:
        """Joint torques ``tau = M qdd + C qd + F_v qd + F_s sign(qd) + g + J^T h_e``.

        Recursive Newton–Euler (:func:`robodyn.dynamics.rnea.rnea`) plus friction.
        ``h_e``: the wrench ``(f, mu)`` (6 numbers, base frame, moment about the
        end-effector origin) that the end effector exerts on the environment
        (Siciliano eq. 7.83, seed 002). Shapes ``(..., dof)`` -> ``(..., dof)``.
        """
        tau = self._run("inverse_dynamics", ("q", q), ("qd", qd), ("qdd", qdd),
                        out_shape=(self.dof,))
        if h_e is not None:
            tau = tau + self._wrench_torques(q, h_e)
        return tau

    def mass_matrix(self, q) -> np.ndarray:
        """Joint-space inertia matrix ``M(q)`` (composite-rigid-body algorithm),
        ``(..., dof)`` -> ``(..., dof, dof)``, symmetric positive definite."""
        return self._run("mass_matrix", ("q", q), out_shape=(self.dof, self.dof))

    def coriolis_matrix(self, q, qd) -> np.ndarray:
        """Coriolis/centrifugal matrix ``C(q, qd)`` in Christoffel form
        (``dM/dt - 2C`` skew-symmetric), ``(..., dof, dof)``."""
        return self._run("coriolis_matrix", ("q", q), ("qd", qd), out_shape=(self.dof, self.dof))

    def gravity_torques(self, q) -> np.ndarray:
        """Gravity torques ``g(q) = dU/dq``, ``(..., dof)``."""
        return self._run("gravity_torques", ("q", q), out_shape=(self.dof,))

    def friction_torques(self, qd) -> np.ndarray:
        """Friction ``F_v qd + F_s sign(qd)``, ``(..., dof)``."""
        (qd,), batch = _batch(self.dof, (("qd", qd),))
        fv = np.array([link.friction.viscous for link in self.numeric_chain.links])
        fs = np.array([link.friction.coulomb for link in self.numeric_chain.links])
        out = fv * qd + fs * np.sign(qd)
        return out.reshape(batch + (self.dof,)) if batch else out.reshape(self.dof)

    def forward_dynamics(self, q, qd, tau, h_e=None) -> np.ndarray:
        """Joint accelerations ``qdd = M^{-1} (tau - J^T h_e - C qd - F_v qd - F_s sign(qd) - g)``,
        solved with the Cholesky factor of ``M`` (no inverse), ``(..., dof)``."""
        if h_e is not None:
            q_arr = _as_array("q", q)
            tau = _as_array("tau", tau) - self._wrench_torques(q_arr, h_e)
        return self._run("forward_dynamics", ("q", q), ("qd", qd), ("tau", tau),
                         out_shape=(self.dof,))

    # -- closed forms ---------------------------------------------------------------
    def equations(self, method: str = "lagrange", **options):
        """The equations of motion in closed form (SymPy), by ``method`` ``"lagrange"``
        (Lagrange–Euler) or ``"newton-euler"``; see :mod:`robodyn.symbolic`."""
        from .symbolic import equations

        return equations(self, method=method, **options)

    # -- kinematics ---------------------------------------------------------------
    def forward_kinematics(self, q) -> np.ndarray:
        """Pose of the end-effector frame in the base frame, ``(..., 4, 4)``."""
        top = self._run("forward_kinematics", ("q", q), out_shape=(3, 4))
        bottom = np.broadcast_to(np.array([0.0, 0.0, 0.0, 1.0]), top.shape[:-2] + (1, 4))
        return np.concatenate([top, bottom], axis=-2)

    def jacobian(self, q) -> np.ndarray:
        """Geometric Jacobian at the end-effector origin in the base frame,
        rows ``(v_x, v_y, v_z, w_x, w_y, w_z)``, ``(..., 6, dof)``."""
        return self._run("jacobian", ("q", q), out_shape=(6, self.dof))

    def _wrench_torques(self, q, h_e) -> np.ndarray:
        """``J(q)^T h_e``, batched and chunked so that the Jacobians of a huge batch are
        never held at once."""
        h = _as_array("h_e", h_e)
        if h.ndim == 0 or h.shape[-1] != 6:
            raise InputError(f"h_e: expected shape (..., 6) (force, moment in the base frame), "
                             f"got {h.shape}")
        q = _as_array("q", q)
        n = self.chain.dof
        try:
            batch = np.broadcast_shapes(q.shape[:-1], h.shape[:-1])
        except ValueError:
            raise InputError(f"batch shapes do not broadcast: q {q.shape}, h_e {h.shape}") from None
        qf = np.broadcast_to(q, batch + (n,)).reshape(-1, n)
        hf = np.broadcast_to(h, batch + (6,)).reshape(-1, 6)
        out = np.empty((qf.shape[0], n))
        for start in range(0, qf.shape[0], _WRENCH_CHUNK):
            stop = start + _WRENCH_CHUNK
            jac = self.jacobian(qf[start:stop])
            out[start:stop] = np.einsum("kij,ki->kj", jac, hf[start:stop])
        return out.reshape(batch + (n,))


#: Samples per chunk when applying a contact wrench (bounds the Jacobians held at once).
_WRENCH_CHUNK = 65536


#: Compiled kernels per chain (weakly held): robots that differ only in values share them.
_SHARED_KERNELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _replace(robot: Robot, **changes) -> Robot:
    kwargs = {f: getattr(robot, f) for f in robot.__dataclass_fields__}
    kwargs.update(changes)
    return Robot(**kwargs)


def _as_array(name: str, value) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected an array of numbers, got {value!r}") from None
    return arr


def _single_state(dof: int, named) -> list[np.ndarray] | None:
    """The inputs as ``(1, dof)`` views if each is one C-contiguous float64 state, else None."""
    out = []
    for _, value in named:
        if type(value) is not np.ndarray or value.shape != (dof,) or value.dtype != np.float64 \
                or not value.flags.c_contiguous:
            return None
        out.append(value.reshape(1, dof))
    return out


def _batch(dof: int, named) -> tuple[list[np.ndarray], tuple]:
    """Check and broadcast ``(name, array)`` inputs of shape ``(..., dof)``; return them as
    C-contiguous ``(N, dof)`` float64 arrays and the batch shape."""
    arrays = []
    for name, value in named:
        arr = value if type(value) is np.ndarray and value.dtype == np.float64 \
            else _as_array(name, value)
        if arr.ndim == 0 or arr.shape[-1] != dof:
            raise InputError(f"{name}: expected shape (..., {dof}) (one value per joint), "
                             f"got {arr.shape}")
        arrays.append(arr)
    shapes = [a.shape[:-1] for a in arrays]
    if len(arrays) > 1 and any(s != shapes[0] for s in shapes):
        try:
            batch = np.broadcast_shapes(*shapes)
        except ValueError:
            detail = ", ".join(f"{n} {a.shape}" for (n, _), a in zip(named, arrays))
            raise InputError(f"batch shapes do not broadcast: {detail}") from None
        arrays = [np.broadcast_to(a, batch + (dof,)) for a in arrays]
    else:
        batch = shapes[0]
    flat = [np.ascontiguousarray(a.reshape(-1, dof)) for a in arrays]
    return flat, batch


def load(source: str | Path, **kwargs) -> Robot:
    """Load a robot: a built-in model name (``rd.models.names()``) or a path to a
    ``.yaml``/``.yml`` model file."""
    from . import models

    text = str(source)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml"):
        if not path.is_file():
            raise ModelError(f"{text}: no such model file")
        if kwargs:
            raise TypeError(f"load() of a YAML file takes no options, got {sorted(kwargs)}")
        parsed = read_model_file(path)
    elif path.suffix.lower() == ".urdf":
        from .model.urdf import load_urdf  # noqa: PLC0415 - optional path

        return load_urdf(path, **kwargs)
    elif text in models.names():
        parsed = read_model_file(models.path(text))
    else:
        raise ModelError(
            f"cannot load {text!r}: not a built-in model ({', '.join(models.names())}) and not a "
            ".yaml/.yml/.urdf file"
        )
    return from_source(parsed, source=text)


def from_source(parsed: ModelSource, source: str = "") -> Robot:
    """A robot from a parsed model file; checks that defaults give a physical model."""
    robot = Robot(
        name=parsed.name,
        chain=parsed.chain,
        _values=tuple(sorted(parsed.values.items())),
        convention=parsed.convention,
        dh_rows=parsed.dh_rows,
        description=parsed.description,
        source=source,
    )
    # fail at load time on a non-physical model, when every symbol has a value
    if {str(s) for s in robot.symbols} <= set(parsed.values):
        robot.numeric_chain  # noqa: B018 - evaluated for its checks
    return robot
