"""Kernel dispatch and batching for one robot: the mutable "data" beside an immutable model.

A :class:`Runner` is what a :class:`~robodyn.Robot` computes with (a "data" object in
Pinocchio's sense). It is made from the robot's symbolic chain, parameter values and
name, and builds on first use, then keeps: the numeric chain (every number a float,
checked for physics), the parameter values in kernel order, the compiled kernels
(:mod:`robodyn.codegen.kernel`) and, per registry entry, what a call needs. The robot
itself never changes; its numeric methods call :meth:`Runner.run`.

Kernels are shared between runners of equal chains (every ``with_values`` of a model),
since the parameters are kernel inputs. A runner pickles without its caches and
rebuilds them where it is unpickled (a Dask worker).
"""

from __future__ import annotations

import contextlib
import re
import threading
import time
import weakref
from collections.abc import Callable, Hashable
from functools import cached_property

import numpy as np

from ..core.errors import InputError, ModelError, RobodynError
from ..dynamics.registry import KERNELS, input_width, kernel_spec, lookup, output_shape
from ..model.chain import Chain
from . import cache, tiers
from .batch_inputs import batch_inputs
from .cache import generated_function
from .kernel import (
    Kernel,
    NonFiniteResult,
    backend,
    backend_without_import,
    compiled_source,
    traced_program,
)

__all__ = ["Runner", "KernelHandle"]

#: Compiled kernels per chain (weakly held): runners that differ only in values share them.
_SHARED_KERNELS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()

_F64 = np.dtype(np.float64)
_empty = np.empty
#: One-state calls of a kind after which its one-state function is compiled (about a second,
#: once: Numba caches it on disk) and takes over: a controller's or a ROS node's calls.
HOT_CALLS = 64
_MODULE = re.compile(r"robodyn_kernel_[0-9a-f]+")


class Runner:
    """Runs the registry's kernels (:data:`~robodyn.dynamics.registry.KERNELS`) of one
    model: ``chain`` (symbolic), ``values`` (``(name, value)`` pairs, a number for every
    parameter) and ``name`` (the robot's, for error messages)."""

    def __init__(self, chain: Chain, values: tuple[tuple[str, float], ...], name: str):
        self.chain = chain
        # joints with a quaternion (ball, free): the robot checks their q before a call, so
        # no one-state shortcut in Robot.inverse_dynamics / forward_dynamics (fixed_hot)
        self.quaternions = not chain.single_valued
        self.values = tuple(values)
        self.name = name
        self._kernels: dict[str, Kernel] = {}
        self._entries: dict[str, tuple] = {}
        self._results: dict[Hashable, object] = {}
        self._handles: dict[str, KernelHandle] = {}
        self._hits: dict[str, int] = {}  # one-state calls per kind, until HOT_CALLS
        # kinds answered by a no-compile tier while compiled in the background:
        # ``[Numba source, traced program, time of the next look, loading thread or None]``
        # (:meth:`poll`)
        self._pending: dict[str, list] = {}
        # the hot kinds' one-state functions ``(function, parameter values, width, shape or
        # None for a vector)``; ``fixed_hot`` the same for a model without quaternions only,
        # which Robot.inverse_dynamics and forward_dynamics call first (a quaternion joint's
        # inputs are checked before)
        self.hot: dict[str, tuple] = {}
        self.fixed_hot: dict[str, tuple] = {}
        # fixed_hot's entries of the two a controller calls, as plain attributes (Robot's
        # methods read them first on every call)
        self.hot_inverse_dynamics: tuple | None = None
        self.hot_forward_dynamics: tuple | None = None

    @property
    def nv(self) -> int:
        """Values of a velocity of the robot's coordinates (a coupled runner: fewer)."""
        return self.chain.nv

    @property
    def nq(self) -> int:
        """Values of a configuration of the robot's coordinates."""
        return self.chain.nq

    @property
    def joints(self) -> tuple[str, ...]:
        """The names of the robot's coordinates' joints, in ``q`` order."""
        return tuple(link.joint.name or link.name for link in self.chain.links)

    def neutral(self) -> np.ndarray:
        """The zero configuration of the robot's coordinates."""
        return self.chain.neutral()

    def __getstate__(self):
        return {"chain": self.chain, "values": self.values, "name": self.name}

    def __setstate__(self, state):
        self.__init__(state["chain"], state["values"], state["name"])

    @cached_property
    def numeric_chain(self) -> Chain:
        """The chain with every number a float (parameters substituted), checked for physics."""
        return self.chain.evaluate(dict(self.values), source=self.name)

    @cached_property
    def parameter_names(self) -> tuple[str, ...]:
        """The names of the chain's parameters, sorted: the order of the kernels' ``p``."""
        return tuple(sorted(self.chain.parameter_names()))

    @cached_property
    def parameter_values(self) -> np.ndarray:
        """The values of :attr:`parameter_names`, in that order (checked for physics first)."""
        self.numeric_chain  # noqa: B018 - raises on a missing value or a non-physical model
        values = dict(self.values)
        return np.array([values[name] for name in self.parameter_names], dtype=float)

    def kernel(self, kind: str, traced: tuple | None = None) -> Kernel:
        """The compiled ``kind`` algorithm (an entry of
        :data:`~robodyn.dynamics.registry.KERNELS`) of this chain, on the backend chosen
        when this runner first needs it (``ROBODYN_BACKEND``), compiled now if it is not
        yet (``traced``: its program, if already traced). Every runner of an equal chain
        (any ``with_values``) shares one kernel."""
        kernel = self._kernels.get(kind)
        if kernel is None:
            self._check_kind(kind)
            shared = _SHARED_KERNELS.setdefault(self.chain, {})
            key = (kind, backend())
            kernel = shared.get(key)
            if kernel is None:
                kernel = shared[key] = Kernel(self.chain, kind, self.parameter_names,
                                              traced=traced)
            self._kernels[kind] = kernel
        return kernel

    def _check_kind(self, kind) -> None:
        try:
            known = isinstance(kind, str) and lookup(kind, self.chain) is not None
        except (KeyError, TypeError):
            known = False
        if not known:
            raise InputError(f"kind: {str(kind)[:80]!r} is not an entry of the kernel "
                             f"registry; the entries are {', '.join(KERNELS)} (and "
                             "'<entry>@<frame number>' for this model's frames)")
        self.parameter_values  # noqa: B018 - fail on bad values before compiling

    def tiered_kernel(self, kind: str) -> Kernel:
        """The kernel a call of ``kind`` runs now, by the tier rules of
        :mod:`~robodyn.codegen.tiers`: the compiled one when it is built (or
        ``ROBODYN_TIER=compiled``), else a no-compile tier while a background process
        builds it (:meth:`poll` switches)."""
        kernel = self._kernels.get(kind)
        if kernel is not None:
            return kernel
        self._check_kind(kind)
        setting, nv = tiers.tier_setting(), self.chain.nv
        first = setting if setting in ("numpy", "generic") else tiers.first_tier(nv)
        wanted = backend_without_import()
        if setting == "compiled" or (setting == "auto" and first == "numpy"
                                     and wanted == "numpy"):
            return self.kernel(kind)
        if setting == "auto" and nv <= tiers.COMPILE_MAX_DOF and wanted == "numba":
            if (kind, "numba") in _SHARED_KERNELS.get(self.chain, {}):
                return self.kernel(kind)
            traced = traced_program(self.chain, kind, self.parameter_names)
            source = compiled_source(*traced, len(self.parameter_names))
            if cache.is_ready(source):
                # compiled before: loading it costs Numba's import (0.3-0.5 s), which pays
                # only for a process that goes on calling; the first calls answer from the
                # NumPy tier and a thread loads it after LOAD_AFTER seconds (poll)
                self._pending[kind] = [source, traced, time.monotonic() + tiers.LOAD_AFTER,
                                       None]
                return self._no_compile(kind, first, traced)
            tiers.request_compile(source, traced[1], len(self.parameter_names),
                                  len(traced[2]))
            self._pending[kind] = [source, traced, time.monotonic() + tiers.POLL_SECONDS, None]
            return self._no_compile(kind, first, traced)
        return self._no_compile(kind, first)

    def compiled_ready(self, kind: str) -> bool:
        """Whether the compiled ``kind`` kernel is at hand without compiling: built in this
        process, or marked ready in the kernel cache (loading it reads Numba's cache)."""
        kernel = self._kernels.get(kind) or _SHARED_KERNELS.get(self.chain, {}).get(
            (kind, "numba"))
        if kernel is not None and kernel.backend == "numba":
            return True
        if backend_without_import() != "numba":
            return False
        traced = traced_program(self.chain, kind, self.parameter_names)
        return cache.is_ready(compiled_source(*traced, len(self.parameter_names)))

    def _no_compile(self, kind: str, tier: str, traced: tuple | None = None) -> Kernel:
        if tier == "generic":  # the numeric chain in it: one per runner, not shared
            from .generic import GenericKernel  # big models only

            return GenericKernel(self.numeric_chain, kind, self.parameter_names)
        shared = _SHARED_KERNELS.setdefault(self.chain, {})
        kernel = shared.get((kind, "numpy"))
        if kernel is None:
            kernel = shared[(kind, "numpy")] = Kernel(self.chain, kind, self.parameter_names,
                                                      which="numpy", traced=traced)
        return kernel

    def compile(self, kinds=None) -> dict[str, float]:
        """Compile the kernels ``kinds`` (default :data:`~robodyn.codegen.tiers.FIRST_KINDS`)
        now, in this process, into the kernel cache, and run them from now on; the seconds
        each took (a kernel compiled before loads from the cache in a fraction of one).
        ``"closed_forward_dynamics"``: a closed mechanism's (:mod:`.closed_kernel`)."""
        seconds = {}
        for kind in tiers.FIRST_KINDS if kinds is None else kinds:
            start = time.perf_counter()
            if kind == "closed_forward_dynamics":  # a closed mechanism's, no registry entry
                from .closed_kernel import CLOSED, closed_kernel

                self._results[CLOSED] = closed_kernel(self.chain, self.parameter_names, "numba")
                seconds[kind] = time.perf_counter() - start
                continue
            pending = self._pending.pop(kind, None)
            kernel = self.kernel(kind, pending[1] if pending else None)
            spec = kernel_spec(kind, self.chain)
            if len(output_shape(spec, self.chain)) == 1:  # and its one-state function
                one_state_function(kernel, tuple(input_width(name, self.chain, spec.wrenches)
                                                 for name in spec.inputs))
            self._entries.pop(kind, None)
            self._handles.pop(kind, None)
            seconds[kind] = time.perf_counter() - start
        return seconds

    def poll(self) -> None:
        """Switch each kernel whose background compile finished to its compiled tier
        (looked for at most every :data:`~robodyn.codegen.tiers.POLL_SECONDS`): a thread
        loads it from Numba's cache (a tenth of a second to a second: Numba's import, the
        machine code) while the calls go on in the no-compile tier, then it takes over."""
        now = time.monotonic()
        for kind, pending in list(self._pending.items()):
            if now < pending[2]:
                continue
            pending[2] = now + tiers.POLL_SECONDS
            loader = pending[3]
            if loader is None and cache.is_ready(pending[0]):
                pending[3] = threading.Thread(target=self._load_compiled,
                                              args=(kind, pending[1]), daemon=True)
                pending[3].start()
            elif loader is not None and not loader.is_alive():
                del self._pending[kind]
                self._entries.pop(kind, None)

    def _load_compiled(self, kind: str, traced: tuple) -> None:
        with contextlib.suppress(Exception):  # a failure leaves the no-compile tier on
            self.kernel(kind, traced)

    def _entry(self, kind: str) -> tuple:
        """``(kernel, parameter values, input names, widths, output shape, one-state
        function or None)`` of registry entry ``kind``, looked up once (simulation loops and
        controllers call :meth:`run` often)."""
        entry = self._entries.get(kind)
        if entry is None:
            kernel = self.tiered_kernel(kind)
            spec = kernel_spec(kind, self.chain)
            widths = tuple(input_width(name, self.chain, spec.wrenches) for name in spec.inputs)
            entry = self._entries[kind] = (kernel, self.parameter_values, spec.inputs, widths,
                                           output_shape(spec, self.chain), _entry_point(kernel))
        return entry

    def run(self, kind: str, *arrays):
        """Registry entry ``kind`` on ``arrays`` (one per input of the entry, shape
        ``(..., width)``, broadcast together): an array ``batch + shape(dof)``, or a lazy
        Dask array when an input is one."""
        # fastest path, one state of C-contiguous float64 vectors (a controller's call):
        # the kind's compiled one-state function once it is hot; Numba itself checks the
        # types (no match: TypeError), the function the lengths, the kernel the values
        hot = self.hot.get(kind)
        if hot is not None:
            one, p, width, shape = hot
            out = _empty(width)
            try:
                if one(*arrays, p, out) == -1:  # -2: a length is wrong, 0: not finite
                    return out if shape is None else out.reshape(shape)
            except TypeError:
                pass
        if self._pending:
            self.poll()
        kernel, p, names, widths, out_shape, direct = (self._entries.get(kind)
                                                       or self._entry(kind))
        if hot is None and direct is not None and len(arrays) == len(widths):
            rows = []
            for a, w in zip(arrays, widths):
                if type(a) is np.ndarray and a.dtype is _F64 and a.shape == (w,) \
                        and a.strides == (8,):
                    rows.append(a[None])
                else:
                    break
            else:
                out = np.empty((1, kernel.width))
                if direct(*rows, p, out, 0, 1) < 0:
                    hits = self._hits[kind] = self._hits.get(kind, 0) + 1
                    if hits == HOT_CALLS:
                        one = one_state_function(
                            kernel, widths, tiers.tier_setting() == "compiled")
                        if one is not None:
                            self.hot[kind] = (one, p, kernel.width, None if len(out_shape)
                                              == 1 else out_shape)
                            if not self.quaternions:
                                self.fixed_hot[kind] = self.hot[kind]
                                if kind in ("inverse_dynamics", "forward_dynamics"):
                                    setattr(self, f"hot_{kind}", self.hot[kind])
                    return out[0] if len(out_shape) == 1 else out.reshape(out_shape)
        if len(arrays) != len(names):
            raise InputError(f"{kind}: takes {len(names)} array{'s' * (len(names) != 1)} "
                             f"({', '.join(names)}), got {len(arrays)}")
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
            from .dask import run_lazy  # Dask only for Dask inputs

            return run_lazy(self, kind, names, widths, out_shape, arrays)
        try:
            if one is not None:
                return kernel.single(p, *one).reshape(out_shape)
            inputs, batch = batch_inputs(list(zip(names, arrays, widths, strict=True)),
                                   kind, kernel.width)
            out = kernel(p, *inputs, batch_shape=batch)
        except NonFiniteResult as exc:
            flat = one if one is not None else inputs
            raise self._explain_non_finite(kind, {name: a[exc.row]
                                                  for name, a in zip(names, flat)}) from None
        return out.reshape(batch + out_shape)

    def handle(self, kind: str) -> KernelHandle:
        """The :class:`KernelHandle` of registry entry ``kind`` (made once per runner)."""
        handle = self._handles.get(kind)
        if handle is None:
            handle = self._handles[kind] = kernel_handle(self, kind)
        return handle

    def cached(self, key: Hashable, compute: Callable[[], object]):
        """``compute()``, computed once per runner for each ``key`` (results of the model
        and its values that are costly to find, such as the base parameters)."""
        if key not in self._results:
            self._results[key] = compute()
        return self._results[key]

    def closed_forward_dynamics(self, q, qd, tau):
        """``(out, ok)`` of the compiled forward dynamics of the model's closed mechanism on
        ``(N, ...)`` arrays (:mod:`.closed_kernel`: ``ok`` the states it answered), or None
        where it has none (yet): the caller solves by its KKT path."""
        from .closed_kernel import CLOSED, closed_kernel  # closed mechanisms only

        kernel = self.cached(CLOSED, lambda: closed_kernel(self.chain, self.parameter_names))
        return None if kernel is None else kernel(self.parameter_values, q, qd, tau)

    def _explain_non_finite(self, kind: str, sample: dict) -> RobodynError:
        """Why a result is not finite although its inputs are: a singular mass matrix
        (a joint that moves no mass) or parameter values too large for float64."""
        state = ", ".join(f"{k}={np.array2string(v, precision=4, separator=', ')}"
                          for k, v in sample.items())
        if "q" in sample and kind.startswith("forward_dynamics"):
            pivots = _cholesky_pivots(self.run("mass_matrix", sample["q"]))
            scale = max(1.0, float(np.max(np.abs(pivots))))
            labels = self.chain.velocity_labels()
            for j, pivot in enumerate(pivots):
                if not pivot > 1e-13 * scale:
                    return ModelError(
                        f"{self.name}: {kind} at {state}: the mass matrix is singular (Cholesky "
                        f"pivot {pivot:.3g} at {labels[j]}): that coordinate moves no mass or "
                        "inertia at this q, so its acceleration is undefined; give the links "
                        "it moves a mass and inertia")
        big = max(self.values, key=lambda kv: abs(kv[1]), default=None)
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


class KernelHandle:
    """``robot.kernel(kind)``: registry entry ``kind`` for inner loops, ``handle(*inputs,
    out=None) -> out`` (``out`` may also come last, positionally: the cheapest call).
    Inputs: float64 C-contiguous arrays, each ``(width,)`` (one state) or all
    ``(N, width)``; ``out``: a float64 C-contiguous array of the result's shape
    (``shape(dof)``, or ``(N,) + shape(dof)``) to write into, else a new one. No
    broadcasting, conversion or copy: anything else is an :class:`InputError` saying what
    to pass. A value that is not finite, or a result that is not, raises the error the
    robot's method raises."""

    def __init__(self, runner: Runner, kind: str, entry: tuple | None = None):
        self.runner = runner
        self.kind = kind
        self.kernel, self.p, self.names, self.widths, self.shape, self.direct = \
            entry or runner._entry(kind)
        self.one = one_state_function(self.kernel, self.widths) if len(self.shape) == 1 \
            else None
        self.width = self.kernel.width

    def __repr__(self) -> str:
        return (f"KernelHandle({self.kind!r}, {', '.join(self.names)} -> shape {self.shape}, "
                f"{self.kernel.backend})")

    def __call__(self, *arrays, out=None):
        one = self.one
        if one is not None:  # one state, 1-D float64 C-contiguous (Numba checks the types)
            result = np.empty(self.kernel.width) if out is None else out
            try:
                if one(*arrays, self.p, result) == -1:
                    return result
            except TypeError:
                pass
        return self._checked(arrays, out)

    def _rest(self, given, out, extra):
        """An arity-specific call (below) that the one-state function did not take:
        ``given`` the inputs (None where not passed), ``extra`` arguments beyond ``out``."""
        if extra:  # more positional arguments than inputs and out: _general counts them
            return self._checked((*given, out, *extra), None)
        return self._checked(tuple(x for x in given if x is not None), out)

    def _checked(self, arrays, out):
        """Every call the one-state function did not take: one state through the kernel
        with the cheapest checks, else :meth:`_general`."""
        fn, widths = self.direct, self.widths
        if fn is not None and len(arrays) == len(widths):  # one state: the cheapest checks
            rows = []
            for a, w in zip(arrays, widths):
                if type(a) is np.ndarray and a.dtype is _F64 and a.shape == (w,) \
                        and a.strides == (8,):
                    rows.append(a[None])
                else:
                    break
            else:
                if out is None:
                    out = np.empty(self.shape)
                elif not (type(out) is np.ndarray and out.dtype is _F64
                          and out.shape == self.shape and out.flags.c_contiguous
                          and out.flags.writeable):
                    raise InputError(f"{self.kind}: out must be a writeable C-contiguous "
                                     f"float64 array of shape {self.shape}, got "
                                     f"{_described(out)}")
                flat = out[None] if len(self.shape) == 1 else out.reshape(1, -1)
                if fn(*rows, self.p, flat, 0, 1) >= 0:
                    self.runner.run(self.kind, *arrays)  # the robot's own error
                return out
        return self._general(arrays, out)

    def _general(self, arrays, out):
        """Batches, and every input the fast paths refused (the errors that say why)."""
        names, widths = self.names, self.widths
        if len(arrays) != len(names):
            raise InputError(f"{self.kind}: takes {len(names)} array{'s' * (len(names) != 1)} "
                             f"({', '.join(names)}), got {len(arrays)}")
        batch = None
        for name, a, w in zip(names, arrays, widths):
            if not (type(a) is np.ndarray and a.dtype is _F64 and a.flags.c_contiguous
                    and a.ndim in (1, 2) and a.shape[-1] == w):
                raise InputError(f"{self.kind}: {name} must be a C-contiguous float64 array of "
                                 f"shape ({w},) or (N, {w}), got {_described(a)}; pass "
                                 f"np.ascontiguousarray({name}, dtype=float), or call the "
                                 "robot's method, which converts")
            here = a.shape[0] if a.ndim == 2 else None
            if name == names[0]:
                batch = here
            elif here != batch:
                raise InputError(f"{self.kind}: {name} has shape {a.shape}, {names[0]} "
                                 f"{arrays[0].shape}: give every input one state, or N each")
        shape = self.shape if batch is None else (batch, *self.shape)
        if out is None:
            out = np.empty(shape)
        elif not (type(out) is np.ndarray and out.dtype is _F64 and out.flags.c_contiguous
                  and out.shape == shape and out.flags.writeable):
            raise InputError(f"{self.kind}: out must be a writeable C-contiguous float64 "
                             f"array of shape {shape}, got {_described(out)}")
        n = 1 if batch is None else batch
        rows = [a.reshape(n, w) for a, w in zip(arrays, widths)]
        flat = out.reshape(n, self.kernel.width)
        if self.direct is None:  # the rows of a batch; one state as given (its errors' index)
            given = rows if batch is not None else arrays
            flat[...] = self.runner.run(self.kind, *given).reshape(n, -1)
            entry = self.runner._entries.get(self.kind)
            if entry is not None and entry[0] is not self.kernel:  # compiled by now
                KernelHandle.__init__(self, self.runner, self.kind, entry)
            return out
        try:  # a batch as the robot's methods run it: blocked, on every core
            self.kernel(self.p, *rows, batch_shape=() if batch is None else (n,), out=flat)
        except NonFiniteResult as exc:  # the robot's own explanation of that state
            raise self.runner._explain_non_finite(
                self.kind, {name: r[exc.row] for name, r in zip(names, rows)}) from None
        return out


# A handle's call with the kernel's own number of inputs: a fixed signature spares the
# packing of ``*arrays`` and lets ``out`` come as the last positional argument, which
# Python passes without the keyword dictionary a class's ``__call__`` builds (the PUMA's
# one-state inverse dynamics: 0.84 us with ``out=``, 0.72 us with ``out`` positional).
# Missing inputs (None) or extra arguments fall through to the checks that name them.
class _OneInput(KernelHandle):
    def __call__(self, a=None, out=None, *extra):
        one = self.one
        if one is not None and not extra:
            result = _empty(self.width) if out is None else out
            try:
                if one(a, self.p, result) == -1:
                    return result
            except TypeError:
                pass
        return self._rest((a,), out, extra)


class _TwoInputs(KernelHandle):
    def __call__(self, a=None, b=None, out=None, *extra):
        one = self.one
        if one is not None and not extra:
            result = _empty(self.width) if out is None else out
            try:
                if one(a, b, self.p, result) == -1:
                    return result
            except TypeError:
                pass
        return self._rest((a, b), out, extra)


class _ThreeInputs(KernelHandle):
    def __call__(self, a=None, b=None, c=None, out=None, *extra):
        one = self.one
        if one is not None and not extra:
            result = _empty(self.width) if out is None else out
            try:
                if one(a, b, c, self.p, result) == -1:
                    return result
            except TypeError:
                pass
        return self._rest((a, b, c), out, extra)


class _FourInputs(KernelHandle):
    def __call__(self, a=None, b=None, c=None, d=None, out=None, *extra):
        one = self.one
        if one is not None and not extra:
            result = _empty(self.width) if out is None else out
            try:
                if one(a, b, c, d, self.p, result) == -1:
                    return result
            except TypeError:
                pass
        return self._rest((a, b, c, d), out, extra)


_BY_INPUTS = {1: _OneInput, 2: _TwoInputs, 3: _ThreeInputs, 4: _FourInputs}


def kernel_handle(runner: Runner, kind: str) -> KernelHandle:
    """``runner``'s :class:`KernelHandle` on ``kind``, with a call of that kernel's
    number of inputs where it has one to four (every registry kernel)."""
    entry = runner._entry(kind)
    return _BY_INPUTS.get(len(entry[3]), KernelHandle)(runner, kind, entry)


def _described(value) -> str:
    if isinstance(value, np.ndarray):
        order = "C-contiguous" if value.flags.c_contiguous else "not C-contiguous"
        access = "" if value.flags.writeable else ", read-only: pass a copy, np.array(out)"
        return f"{value.dtype} array of shape {value.shape} ({order}{access})"
    return type(value).__name__


def one_state_function(kernel: Kernel, widths: tuple[int, ...], compile_now: bool = True):
    """``one(A0, ..., P, OUT) -> int``: ``kernel`` on one state, compiled for 1-D
    C-contiguous float64 arrays only (Numba raises ``TypeError`` for anything else and
    compiles nothing new); -2 when a length is not ``widths`` (or ``OUT`` not the
    kernel's width), else the kernel's result (-1, or 0 for a value that is not finite).
    Inputs that are all 2-D (a batch ``(N, width)``) get -2 at once from a second
    signature: Numba's ``TypeError`` costs about 0.1-0.2 ms a call (it explains the
    mismatch), which every batched call of a hot kind would pay.
    None where it cannot be made (the NumPy backend, a compiler failure), or where it was
    never compiled before and not ``compile_now`` (it costs a second to several: the
    ``auto`` tier's calls never wait for it)."""
    if kernel.backend != "numba":
        return None
    module = kernel.fn.py_func.__module__
    if not _MODULE.fullmatch(module):  # only robodyn's own kernel modules go into the text
        return None
    args = [f"A{i}" for i in range(len(widths))]
    signature = "int64(" + ", ".join(["float64[::1]"] * (len(widths) + 2)) + ")"
    batched = ("int64(" + ", ".join(["float64[:, ::1]"] * len(widths) + ["float64[::1]"] * 2)
               + ")")
    lengths = " or ".join([f"A{i}.ndim != 1" for i in range(len(widths))]
                          + [f"A{i}.shape[0] != {w}" for i, w in enumerate(widths)]
                          + [f"OUT.shape[0] != {kernel.width}"])
    rows = ", ".join(f"A{i}.reshape(1, {w})" for i, w in enumerate(widths))
    source = (f"from numba import njit\nfrom {module} import kernel as k\n\n\n"
              '@njit(nogil=True, cache=True, error_model="numpy")\n'
              f"def one({', '.join(args)}, P, OUT):\n"
              f"    if {lengths}:\n        return -2\n"
              f"    return k({rows}, P, OUT.reshape(1, {kernel.width}), 0, 1)\n")
    if not compile_now and not cache.is_ready(source):
        return None
    try:
        fn = generated_function(source, "one")
        # compiled (or loaded from Numba's cache) once the module is registered, for these
        # types only: any other argument is a TypeError, never a new compilation
        if not fn.signatures:  # not yet made by another runner or handle of this kernel
            fn.compile(signature)
            fn.compile(batched)
            fn.disable_compile()
            cache.mark_ready(source)
        return fn
    except Exception:  # a compiler failure: the entry-point path stays
        return None


def _entry_point(kernel: Kernel):
    """The compiled function of a Numba ``kernel`` for C-contiguous float64 arrays, called
    without the dispatcher's type resolution (half the cost of a one-state call), or None
    (the NumPy backend, or a Numba without ``overloads``). Only arguments of exactly those
    types may be passed to it."""
    if kernel.backend != "numba":
        return None
    try:
        from numba import types

        arr2, arr1 = types.float64[:, ::1], types.float64[::1]
        groups = len(kernel.groups)
        signature = (arr2,) * groups + (arr1, arr2, types.int64, types.int64)
        return kernel.fn.overloads[signature].entry_point
    except Exception:  # another Numba's internals, or not compiled for these types
        return None


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
