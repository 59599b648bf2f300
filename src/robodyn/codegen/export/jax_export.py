"""``robot.to_jax()``: the robot's compiled functions as functions of JAX arrays.

Each function walks the traced straight-line program of its registry entry (the
program robodyn's own kernel runs, :mod:`.autodiff`) with ``jax.numpy`` operations, so
``jax.jit``, ``jax.vmap``, ``jax.grad``, ``jax.jacfwd`` and ``jax.jacrev`` apply to it,
on any device JAX has. Nothing is generated as text or executed from text.

Arguments are as the :class:`~robodyn.Robot` method's (``inverse_dynamics(q, qd, qdd)``,
the ``h_e`` variants as ``*_contact`` with ``h_e`` last; the parameter vector ``p`` first
in ``argument`` mode), each ``(..., width)`` with leading batch axes broadcast together,
and a single number for a joint quantity meaning that number for every joint. Results are
those of the method (``forward_kinematics`` the ``4 x 4`` pose, the derivatives a triple
of arrays, ``torque_parts`` a dict of its six terms).

Precision: the functions compute in float64 (``dtype="float64"``, the default), which
JAX gives only in its 64-bit mode. That mode is a global setting of JAX that robodyn
does not change behind the user's back: enable it once, before making arrays,
``jax.config.update("jax_enable_x64", True)`` (or ``JAX_ENABLE_X64=1``); without it
:func:`to_jax` says so. ``dtype="float32"`` computes in single precision in either mode
(GPUs are much faster in it; results then agree with robodyn's to about 1e-6 relative).

Unlike robodyn's methods, the functions do not raise on a non-finite input or result
(they run inside traced JAX code): a NaN propagates, and a singular mass matrix makes
``forward_dynamics`` return NaN or infinity. Coulomb friction ``F_s sign(qd)`` has
derivative 0, as in robodyn's derivative kernels.
"""

from __future__ import annotations

import inspect

import numpy as np

from ...core.errors import InputError, RobodynError
from ...dynamics.inverse_dynamics import TORQUE_PARTS
from ..runner import Runner
from .autodiff import (
    Functions,
    Program,
    build_program,
    check_parameters,
    evaluate,
    function_names,
)

#: What to run when JAX is missing.
INSTALL = "pip install 'robodyn[jax]'"
DTYPES = ("float64", "float32")

__all__ = ["to_jax", "jax_function", "INSTALL", "DTYPES"]


def import_jax():
    """``(jax, jax.numpy)``, or a :class:`RobodynError` saying how to install JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError as exc:
        raise RobodynError(f"robot.to_jax needs JAX ({exc}): {INSTALL}") from None
    return jax, jnp


def _check_x64(jax, where: str) -> None:
    if not jax.config.jax_enable_x64:
        raise InputError(
            f"{where}: dtype='float64' needs JAX's 64-bit mode, which is off (JAX computes "
            "in float32 by default); call jax.config.update('jax_enable_x64', True) at the "
            "start of the program (a global JAX setting, which robodyn leaves to you) or "
            "set JAX_ENABLE_X64=1, or pass dtype='float32' to compute in single precision")


class _Ops:
    """The scalar functions of a tape, as ``jax.numpy`` ufuncs."""

    def __init__(self, jnp):
        self.sin, self.cos, self.sqrt, self.sign = jnp.sin, jnp.cos, jnp.sqrt, jnp.sign
        self.exp, self.tanh, self.pow = jnp.exp, jnp.tanh, jnp.power


class _Columns:
    """``columns[j]`` is ``array[..., j]`` (the scalar inputs of a program, batched)."""

    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array

    def __getitem__(self, j: int):
        return self.array[..., j]


_KINDS = {"b": "booleans", "c": "complex numbers", "U": "text", "S": "bytes", "O": "objects"}


def _as_array(jnp, where: str, name: str, value, width: int, dtype):
    """Argument ``name`` as a ``(..., width)`` array of ``dtype``, or an InputError."""
    try:
        arr = jnp.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{where}: {name}: expected an array of real numbers "
                         f"({str(exc)[:120]})") from None
    kind = np.dtype(arr.dtype).kind
    if kind not in "iuf":
        raise InputError(f"{where}: {name}: expected real numbers, got "
                         f"{_KINDS.get(kind, str(arr.dtype))} (dtype {arr.dtype})")
    arr = arr.astype(dtype)
    if arr.ndim == 0 and name not in ("h_e", "p"):  # one number for every joint
        arr = jnp.broadcast_to(arr, (width,))
    if arr.ndim == 0 or arr.shape[-1] != width:
        what = {"p": "the parameter vector, ordered as robot.symbols",
                "h_e": "a wrench: force, moment", "theta": "one per spring's motor",
                "thetad": "one per spring's motor"}.get(name, "one value per joint")
        raise InputError(f"{where}: {name}: expected shape (..., {width}) ({what}), got "
                         f"{tuple(arr.shape)}")
    return arr


def jax_function(program: Program, jax, jnp, dtype: str = "float64"):
    """The JAX function of a traced ``program`` (see the module docstring)."""
    ops = _Ops(jnp)
    names = [name for name, _ in program.inputs]
    signature = inspect.Signature(
        [inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD) for n in names])
    where = program.name
    real = getattr(jnp, dtype)
    result_names = tuple(out.name for out in program.results)

    def function(*args, **kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise InputError(f"{where}: {exc}; it takes ({', '.join(names)})") from None
        if dtype == "float64":
            _check_x64(jax, where)
        arrays, shapes = {}, []
        for name, width in program.inputs:
            arr = _as_array(jnp, where, name, bound.arguments[name], width, real)
            arrays[name] = _Columns(arr)
            shapes.append(tuple(arr.shape[:-1]))
        try:
            batch = np.broadcast_shapes(*shapes)
        except ValueError:
            detail = ", ".join(f"{n} {(*s, w)}" for (n, w), s in zip(program.inputs, shapes))
            raise InputError(f"{where}: batch shapes do not broadcast: {detail}") from None
        flat = evaluate(program, arrays, ops)
        results = []
        for out in program.results:
            # constants first, then each computed entry set into its column: stacking the
            # entries instead lets XLA fuse the whole program into the stack, recomputed
            # for every entry (measured on the CPU: 150x slower, and slower to compile)
            values = [flat[k] if isinstance(k, int) else k for k in out.items]
            init = np.array([v if isinstance(v, float) else 0.0 for v in values])
            buffer = jnp.broadcast_to(jnp.asarray(init, dtype=real), (*batch, len(init)))
            for j, v in enumerate(values):
                if not isinstance(v, float):
                    buffer = buffer.at[..., j].set(v)
            results.append(buffer.reshape(*batch, *out.shape))
        if len(results) == 1:
            return results[0]
        if result_names == TORQUE_PARTS:
            return dict(zip(result_names, results, strict=True))
        return tuple(results)

    shapes = ", ".join(f"{out.name} {out.shape}" for out in program.results)
    function.__name__ = function.__qualname__ = program.name
    function.__signature__ = signature
    function.__doc__ = (f"{program.name}({', '.join(names)}) -> {shapes}: {program.doc}.\n\n"
                        f"A function of JAX arrays ({dtype}), each argument (..., width) with "
                        f"leading batch axes; {program.statements} traced statements.")
    return function


def to_jax(runner: Runner, functions=None, parameters: str = "baked", dtype: str = "float64"
           ) -> Functions:
    """The functions of the model of ``runner`` as JAX functions (a
    :class:`~.autodiff.Functions` mapping by registry name:
    ``fns.inverse_dynamics(q, qd, qdd)``), each traced on first use.

    ``functions``: registry names (default: all); ``parameters``: ``"baked"`` (the robot's
    values folded in) or ``"argument"`` (each function takes the vector ``p`` first,
    ordered as ``robot.symbols``; ``fns.parameter_values`` are the robot's); ``dtype``:
    ``"float64"`` (needs ``jax.config.update("jax_enable_x64", True)``) or ``"float32"``.
    """
    where = f"{runner.name}.to_jax"
    names = function_names(runner.chain, functions, where)
    mode = check_parameters(parameters, where)
    if dtype not in DTYPES:
        raise InputError(f"{where}: dtype: {str(dtype)[:40]!r} is not supported; use "
                         "'float64' or 'float32'")
    jax, jnp = import_jax()
    if dtype == "float64":
        _check_x64(jax, where)
    params = runner.parameter_names if mode == "argument" else ()
    values = tuple(float(v) for v in runner.parameter_values) if params else ()

    def make(name: str):
        return jax_function(build_program(runner, name, mode), jax, jnp, dtype)

    return Functions("JAX", runner.name, names, mode, params, values, make)
