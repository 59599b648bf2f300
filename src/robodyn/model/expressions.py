"""Safe parsing of the numbers and expressions in a model file.

A model file is data: its expressions (``m2*l2**2/12``, ``pi/2``) are parsed
with Python's :mod:`ast` and translated node by node into SymPy; nothing is
evaluated by Python and ``sympify`` is never called on raw text, so a file
containing ``__import__('os')`` is an error, not a call.

Allowed: numbers, names, ``+ - * / **``, parentheses, ``pi``, ``sqrt``,
``sin``, ``cos``.
"""

from __future__ import annotations

import ast
import math
import re
from numbers import Real

import sympy as sp

from ..errors import ModelError

_FUNCTIONS = {"sqrt": sp.sqrt, "sin": sp.sin, "cos": sp.cos}
_CONSTANTS = {"pi": sp.pi}
_BINOPS = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.Div: lambda a, b: a / b,
    ast.Pow: lambda a, b: a**b,
}
#: Names a model may not use for its parameters: the joint variables and torques.
RESERVED = re.compile(r"^(q|qd|qdd|tau)\d+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

_symbol_cache: dict[str, sp.Symbol] = {}


def symbol(name: str) -> sp.Symbol:
    """The SymPy symbol robodyn uses for ``name`` (plain, no assumptions).

    Plain symbols make ``sympy.parse_expr`` of printed output give back
    expressions that compare equal to ours.
    """
    s = _symbol_cache.get(name)
    if s is None:
        s = _symbol_cache[name] = sp.Symbol(name)
    return s


def number(value: Real) -> sp.Expr:
    """A Python number as SymPy: ints stay exact, floats stay floats."""
    if isinstance(value, bool):
        raise TypeError("a boolean is not a number")
    if isinstance(value, int):
        return sp.Integer(value)
    if not math.isfinite(value):
        raise ValueError(f"{value} is not finite")
    return sp.Float(value)


def to_sympy(value: object) -> sp.Basic:
    """A model number as SymPy without parsing text: SymPy objects pass through, Python
    numbers convert exactly; anything else (a string) is a ``TypeError``."""
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    raise TypeError(f"expected a SymPy expression or a number, got {value!r}")


def parse_expression(value: object, field: str) -> sp.Expr:
    """Parse a number or an expression string from a model file into SymPy.

    ``field`` names where the value came from (``links[0].mass``) for the
    error message.
    """
    if isinstance(value, bool) or value is None:
        raise ModelError(f"{field}: expected a number or an expression, got {value!r}")
    if isinstance(value, Real):
        try:
            return number(value)
        except ValueError as exc:
            raise ModelError(f"{field}: {exc}") from None
    if isinstance(value, sp.Expr):
        return value
    if not isinstance(value, str):
        raise ModelError(
            f"{field}: expected a number or an expression string, got {type(value).__name__} "
            f"{value!r}"
        )
    text = value.strip()
    if not text:
        raise ModelError(f"{field}: empty expression")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ModelError(f"{field}: cannot parse {value!r}: {exc.msg}") from None
    return _Translator(field, text).visit(tree.body)


class _Translator:
    def __init__(self, field: str, text: str):
        self.field = field
        self.text = text

    def fail(self, what: str) -> ModelError:
        return ModelError(
            f"{self.field}: {what} in {self.text!r}; allowed are numbers, names, "
            "+ - * / **, parentheses, pi, sqrt, sin, cos"
        )

    def visit(self, node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self.fail(f"constant {node.value!r} is not a number")
            return number(node.value)
        if isinstance(node, ast.Name):
            if node.id in _CONSTANTS:
                return _CONSTANTS[node.id]
            if node.id in _FUNCTIONS:
                raise self.fail(f"function {node.id!r} used without arguments")
            return symbol(node.id)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            return _BINOPS[type(node.op)](self.visit(node.left), self.visit(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            operand = self.visit(node.operand)
            return -operand if isinstance(node.op, ast.USub) else operand
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name not in _FUNCTIONS:
                raise self.fail(f"call of {ast.unparse(node.func)!r} (not an allowed function)")
            if node.keywords or len(node.args) != 1:
                raise self.fail(f"{name}() takes exactly one argument")
            return _FUNCTIONS[name](self.visit(node.args[0]))
        raise self.fail(f"{type(node).__name__} {ast.unparse(node)!r} is not allowed")


def check_parameter_name(name: object, field: str) -> str:
    """A parameter name must be an identifier that is not reserved."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelError(f"{field}: {name!r} is not a valid parameter name (letters, digits, _)")
    if RESERVED.match(name) or name in _CONSTANTS or name in _FUNCTIONS:
        raise ModelError(
            f"{field}: {name!r} is reserved (joint variables q1.., qd1.., qdd1.., tau1.., "
            "and pi, sqrt, sin, cos); rename the parameter"
        )
    return name
