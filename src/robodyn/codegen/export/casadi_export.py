"""``robot.to_casadi()``: the robot's compiled functions as CasADi functions.

Each :class:`casadi.Function` is an SX graph built by walking the traced straight-line
program of its registry entry (the program robodyn's own kernel runs, :mod:`.autodiff`)
with CasADi's operations, so CasADi's automatic differentiation (``casadi.jacobian``,
``casadi.hessian``), its code generation and its solvers (``nlpsol``, ``Opti``) apply.

Names: a function is named as the registry entry (``inverse_dynamics``), or
``<name>_inverse_dynamics`` for a ``name`` given to :func:`to_casadi`, made a legal
identifier (:func:`casadi_name`: ``my arm!`` -> ``my_arm``), so a model's text
never reaches CasADi's names or its generated C. Inputs are named as robodyn's arguments
(``q``, ``qd``, ``qdd``, ``tau``, ``h_e``, and ``p`` first in ``argument`` mode, ordered
as ``robot.symbols``); outputs as the results (``tau``, ``qdd``, ``M``, ``C``, ``g``,
``tau_f``, ``T_0e``, ``J``, ``T``, ``U``, ``Y``, ``dtau_dq``, ...). Vectors are columns,
scalars ``1 x 1``; ``mass_matrix_derivatives`` is ``dof^2 x dof`` (row ``i*dof + j``,
column ``k``: ``dM_ij/dq_k``, which is ``casadi.jacobian(M, q)`` of the symmetric ``M``).
Coulomb friction ``F_s sign(qd)`` has derivative 0, as in robodyn's derivative kernels.
"""

from __future__ import annotations

import math
import re

from ...core.errors import InputError, RobodynError
from ..runner import Runner
from .autodiff import (
    Functions,
    Program,
    build_program,
    check_parameters,
    evaluate,
    function_names,
)
from .program import identifier

#: What to run when CasADi is missing.
INSTALL = "pip install 'robodyn[casadi]'"

__all__ = ["to_casadi", "casadi_function", "INSTALL"]


def import_casadi():
    """The ``casadi`` module, or a :class:`RobodynError` saying how to install it."""
    try:
        import casadi
    except ImportError as exc:
        raise RobodynError(f"robot.to_casadi needs CasADi ({exc}): {INSTALL}") from None
    return casadi


def casadi_name(name: str) -> str:
    """``name`` as a prefix CasADi accepts: :func:`.program.identifier` (a legal identifier
    in every language) with each run of underscores made one and none at the ends
    (CasADi refuses ``a__b``)."""
    out = re.sub(r"_+", "_", identifier(name)).strip("_")
    return out if out and out[0].isalpha() else f"robot_{out}".rstrip("_")


class _Ops:
    def __init__(self, ca):
        self.sin, self.cos, self.sqrt, self.sign = ca.sin, ca.cos, ca.sqrt, ca.sign
        self.exp, self.tanh, self.pow = ca.exp, ca.tanh, ca.power


def _matrix(ca, entries: list, shape: tuple[int, ...]):
    """``entries`` (row-major) as an SX matrix: a scalar ``1 x 1``, a vector a column, a
    3-index array ``(a*b) x c``."""
    if len(shape) == 0:
        rows, cols = 1, 1
    elif len(shape) == 1:
        rows, cols = shape[0], 1
    else:
        rows, cols = math.prod(shape[:-1]), shape[-1]
    if not entries:
        return ca.SX(rows, cols)
    column = ca.vertcat(*[ca.SX(e) for e in entries])
    return ca.reshape(column, cols, rows).T  # CasADi reshapes column-major


def casadi_function(program: Program, ca, fname: str):
    """The :class:`casadi.Function` ``fname`` of a traced ``program``."""
    symbols = {name: ca.SX.sym(name, width) for name, width in program.inputs}
    arrays = {name: [symbols[name][j] for j in range(width)] for name, width in program.inputs}
    flat = evaluate(program, arrays, _Ops(ca))
    outputs = [_matrix(ca, [flat[k] if isinstance(k, int) else k for k in out.items], out.shape)
               for out in program.results]
    return ca.Function(fname, [symbols[name] for name, _ in program.inputs], outputs,
                       [name for name, _ in program.inputs],
                       [out.name for out in program.results])


def to_casadi(runner: Runner, functions=None, parameters: str = "baked", name: str | None = None
              ) -> Functions:
    """The functions of the model of ``runner`` as :class:`casadi.Function` objects (a
    :class:`~.autodiff.Functions` mapping by registry name), each built on first use.

    ``functions``: registry names (default: all); ``parameters``: ``"baked"`` or
    ``"argument"`` (input ``p`` first, ordered as ``robot.symbols``); ``name``: a prefix
    of the functions' names (made an identifier), for several robots in one CasADi
    code generation."""
    where = f"{runner.name}.to_casadi"
    names = function_names(runner.chain, functions, where)
    mode = check_parameters(parameters, where)
    if name is not None and not isinstance(name, str):
        raise InputError(f"{where}: name: expected a string (a prefix of the function names) "
                         f"or None, got {type(name).__name__}")
    prefix = f"{casadi_name(name)}_" if name else ""
    ca = import_casadi()
    params = runner.parameter_names if mode == "argument" else ()
    values = tuple(float(v) for v in runner.parameter_values) if params else ()

    def make(kernel: str):
        return casadi_function(build_program(runner, kernel, mode), ca, prefix + kernel)

    return Functions("CasADi", runner.name, names, mode, params, values, make)
