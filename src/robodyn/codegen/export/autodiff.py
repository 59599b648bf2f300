"""What :mod:`.jax_export` and :mod:`.casadi_export` share: the traced programs of a robot,
the layout of their results, and a walk over a tape with any arithmetic.

Both exports run the straight-line programs robodyn's own kernels run
(:func:`robodyn.codegen.trace.trace` of an entry of
:data:`~robodyn.dynamics.registry.KERNELS`), walking the tape instruction by instruction
with the other library's operations (:func:`evaluate`): no source text is generated or
executed. Parameters ``"baked"``: the program of the numeric chain (the robot's values
folded in as constants); ``"argument"``: the program of the symbolic chain, whose
parameters are the inputs ``p0, p1, ...`` read from a vector ``p`` that every function
takes first, ordered as :attr:`robodyn.Robot.symbols`.

Each function returns what the :class:`~robodyn.Robot` method of the same name returns
(:func:`layout`): ``forward_kinematics`` the whole ``4 x 4`` pose, the derivatives a
triple, ``torque_parts`` its six terms, ``regressor`` only the columns of the model's
parameters. A model with a coupled transmission (``chain.transmission``) has the drives'
programs (:func:`robodyn.dynamics.driven_dynamics.driven_spec`), one with LuGre friction
LuGre's (:func:`robodyn.dynamics.lugre_dynamics.lugre_spec`: the bristle deflections ``z``
their last input, ``bristle_rate`` and its derivatives added), one with springs
``elastic_forward_dynamics(q, theta, qd, thetad, tau) -> (qdd, thetadd)``
(:func:`robodyn.dynamics.elastic_dynamics.elastic_spec`; ``theta`` one entry per spring),
as the other exports.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass

from ...core.errors import InputError, RobodynError
from ...dynamics.elastic_dynamics import ELASTIC, elastic_spec, exports_elastic
from ...dynamics.lugre_dynamics import LUGRE_ADDED, lugre_names, lugre_spec
from ...dynamics.registry import KERNELS, output_shape
from ...dynamics.regressor import parameter_columns
from ..emit import live_ops
from ..runner import Runner
from ..tape import Tape, Var
from ..trace import trace
from .kernel_program import check_functions
from .languages import PARAMETER_MODES

#: What a :class:`Program` item is: an index into the traced outputs, or a constant.
Item = int | float


@dataclass(frozen=True)
class Output:
    """One result of a function: ``name``, ``shape`` (row-major) and its entries, each an
    index into the program's flat ``outputs`` or a constant."""

    name: str
    shape: tuple[int, ...]
    items: tuple[Item, ...]


@dataclass(frozen=True)
class Program:
    """A registry entry traced for one robot: the ``tape``, its flat ``outputs`` (tape
    values or constants), the per-sample inputs ``(name, width)`` in call order (with
    ``("p", count)`` first in ``argument`` mode) and the results (:class:`Output`)."""

    name: str
    doc: str
    tape: Tape
    outputs: tuple
    inputs: tuple[tuple[str, int], ...]
    results: tuple[Output, ...]
    parameters: tuple[str, ...]

    @property
    def statements(self) -> int:
        """The instructions the results need (the program's length)."""
        return sum(live_ops(self.tape, self.outputs))


def check_parameters(parameters, where: str) -> str:
    if parameters not in PARAMETER_MODES:
        raise InputError(f"{where}: parameters: {str(parameters)[:40]!r} is not a mode; use "
                         "'baked' (the robot's values folded in) or 'argument' (a vector p, "
                         "ordered as robot.symbols, taken first)")
    return parameters


def function_names(chain, functions, where: str) -> tuple[str, ...]:
    """The functions ``functions`` selects for ``chain`` (``None``: every one its exports
    have: LuGre's, or the springs' :data:`~robodyn.dynamics.elastic_dynamics.ELASTIC`)."""
    names = lugre_names(check_functions(functions, where), chain, functions is None)
    if functions is None and getattr(chain, "lugre", None) is None and exports_elastic(chain):
        names += (ELASTIC,)
    return names


def entry(name: str, chain):
    """The registry entry ``name`` for ``chain``: with LuGre friction, LuGre's (taking the
    bristle deflections ``z``, :func:`~robodyn.dynamics.lugre_dynamics.lugre_spec`); with a
    coupled transmission, the drives'
    (:func:`~robodyn.dynamics.driven_dynamics.driven_spec`); the springs'
    :func:`~robodyn.dynamics.elastic_dynamics.elastic_spec`."""
    if name == ELASTIC:
        return elastic_spec(chain)
    if getattr(chain, "lugre", None) is not None:
        return lugre_spec(name, chain)
    if getattr(chain, "transmission", None) is None:
        return KERNELS[name]
    from ...dynamics.driven_dynamics import driven_spec

    return driven_spec(name, chain)


def layout(name: str, dof: int, chain) -> tuple[Output, ...]:
    """The results of function ``name`` for a chain of ``dof`` joints, as the
    :class:`~robodyn.Robot` method of that name gives them, from the flat outputs of the
    registry entry (row-major in ``spec.shape(dof)``), named as the entry's ``parts`` (a
    stack of results) or its ``output``."""
    spec = entry(name, chain)
    shape = output_shape(spec, chain)
    size = math.prod(shape)
    names = spec.parts or (spec.output,)
    base = name.removesuffix("_contact")
    if name == ELASTIC:  # qdd (dof), then thetadd (one per spring: dof, or fewer)
        return (Output(names[0], (dof,), tuple(range(dof))),
                Output(names[1], (size - dof,), tuple(range(dof, size))))
    if base == "forward_kinematics":  # the bottom row [0 0 0 1] of the pose
        return (Output(names[0], (4, 4), (*range(12), 0.0, 0.0, 0.0, 1.0)),)
    if base == "regressor":
        cols, _ = parameter_columns(chain)
        width = shape[1]
        return (Output(names[0], (dof, len(cols)),
                       tuple(i * width + c for i in range(dof) for c in cols)),)
    if len(names) > 1:  # a stack of results: the derivatives' triple, the torque parts
        part = size // len(names)
        return tuple(Output(n, shape[1:], tuple(range(k * part, (k + 1) * part)))
                     for k, n in enumerate(names))
    return (Output(names[0], shape, tuple(range(size))),)


def build_program(runner: Runner, name: str, parameters: str) -> Program:
    """Trace registry entry ``name`` for the model of ``runner`` (see the module docstring for the
    ``parameters`` modes)."""
    if name == ELASTIC and getattr(runner.chain, "lugre", None) is not None:
        raise InputError(f"{name} of a model with LuGre friction is not exported yet (its "
                         "springs' state without the bristles' z); leave it out")
    if name not in (*KERNELS, ELASTIC) and (name not in LUGRE_ADDED
                                or getattr(runner.chain, "lugre", None) is None):
        raise InputError(f"{name}: only a model with LuGre friction (lugre:) has it")
    spec = entry(name, runner.chain)
    if parameters == "baked":
        params: tuple[str, ...] = ()
        tape, groups, outputs = trace(runner.numeric_chain, spec)
    else:
        params = runner.parameter_names
        runner.parameter_values  # noqa: B018 - fail on bad values before tracing
        tape, groups, outputs = trace(runner.chain, spec, params)
        groups = [("p", len(params)), *groups]
    return Program(name, spec.doc, tape, tuple(outputs), tuple(groups),
                   layout(name, runner.chain.nv, runner.chain), params)


def evaluate(program: Program, arrays: Mapping[str, object], lib) -> list:
    """The flat outputs of ``program`` on ``arrays`` (``{input name: indexable of scalars}``,
    ``arrays["q"][3]`` is input ``q3``), computed with ``lib``'s operations: ``lib.sin``,
    ``lib.cos``, ``lib.sqrt``, ``lib.sign``, ``lib.exp``, ``lib.tanh`` and ``lib.pow(x, c)``
    on its scalars (Python's ``+ - * /`` and negation for the rest). Only the instructions
    the outputs need run; a constant output stays a Python float."""
    tape = program.tape
    live = live_ops(tape, program.outputs)
    values: list = [None] * len(tape.ops)
    unary = {"sin": lib.sin, "cos": lib.cos, "sqrt": lib.sqrt, "sign": lib.sign,
             "exp": lib.exp, "tanh": lib.tanh}

    def arg(a):
        return values[a[1]] if a[0] == "v" else a[1]

    for i, op in enumerate(tape.ops):
        if not live[i]:
            continue
        kind = op[0]
        if kind == "in":
            prefix = op[1].rstrip("0123456789")
            values[i] = arrays[prefix][int(op[1][len(prefix):])]
        elif kind == "add":
            values[i] = arg(op[1]) + arg(op[2])
        elif kind == "sub":
            values[i] = arg(op[1]) - arg(op[2])
        elif kind == "mul":
            values[i] = arg(op[1]) * arg(op[2])
        elif kind == "div":
            values[i] = arg(op[1]) / arg(op[2])
        elif kind == "neg":
            values[i] = -arg(op[1])
        elif kind == "pow":
            values[i] = lib.pow(arg(op[1]), arg(op[2]))
        elif kind in unary:
            values[i] = unary[kind](arg(op[1]))
        else:  # a new instruction of the tracer that this walk does not know yet
            raise RobodynError(f"{program.name}: instruction {kind!r} cannot be exported")
    return [values[out.i] if isinstance(out, Var) else float(out) for out in program.outputs]


class Functions(Mapping):
    """The exported functions of one robot, by registry name: ``fns.inverse_dynamics`` or
    ``fns["inverse_dynamics"]``; iterating gives the names. Each is built on first use
    (``make(name)``) and then kept. ``parameters``: the names of the vector ``p`` the
    functions take first in ``argument`` mode, ``()`` when baked; ``parameter_values``: the robot's
    values of them, in that order."""

    def __init__(self, kind: str, robot_name: str, names: Sequence[str], mode: str,
                 parameters: tuple[str, ...], values: tuple[float, ...],
                 make: Callable[[str], object]):
        self._kind = kind
        self._robot = robot_name
        self._names = tuple(names)
        self._make = make
        self._built: dict[str, object] = {}
        self.mode = mode
        self.parameters = parameters
        self.parameter_values = values

    def __getitem__(self, name: str):
        if name not in self._names:
            raise KeyError(name)
        fn = self._built.get(name)
        if fn is None:
            fn = self._built[name] = self._make(name)
        return fn

    def __getattr__(self, name: str):
        if name.startswith("_") or name not in self._names:
            raise AttributeError(f"{self._kind} functions of {self._robot!r} have no "
                                 f"{name[:80]!r}; they are {', '.join(self._names)}")
        return self[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)

    def __dir__(self):
        return [*super().__dir__(), *self._names]

    def __repr__(self) -> str:
        return (f"<{self._kind} functions of {self._robot!r} ({self.mode} parameters): "
                f"{', '.join(self._names)}>")
