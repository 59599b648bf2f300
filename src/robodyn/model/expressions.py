"""Safe parsing of the numbers and expressions in a model file.

A model file is data: its expressions (``m2*l2**2/12``, ``pi/2``) are parsed
with Python's :mod:`ast` and translated node by node into SymPy; nothing is
evaluated by Python and ``sympify`` is never called on raw text, so a file
containing ``__import__('os')`` is an error, not a call.

Allowed: numbers, names, ``+ - * / **``, parentheses, ``pi``, ``sqrt``,
``sin``, ``cos``.

Hostile text fails fast with a :class:`~robodyn.core.errors.ModelError`: the text, its
syntax tree and its nesting are bounded before anything is built; an exponent
must be a constant within :data:`MAX_EXPONENT`, and a power of two numbers is
computed only when the result is small (``9**9**9**9`` is an error, not a hang);
a constant that is not a finite real number (``0/0``, ``1/0``, ``1e200*1e200``,
``sqrt(-1)``) is an error naming the field; so is an expression that would expand to
more than :data:`~robodyn.model.expansion.MAX_EXPANDED_TERMS` terms
(``(a1 + ... + a8)**64``: 1.3e9), bounded before anything expands
(:mod:`robodyn.model.expansion`).
"""

from __future__ import annotations

import ast
import builtins
import functools
import keyword
import math
import re
import types
from numbers import Real

from ..core.errors import ModelError, excerpt
from ..core.lazy import is_parameter, sp
from .expansion import check_expansion

FUNCTIONS = {"sqrt": lambda x: sp.sqrt(x), "sin": lambda x: sp.sin(x),
             "cos": lambda x: sp.cos(x)}
CONSTANTS = {"pi": lambda: sp.pi}
#: Names a model may not use for its parameters: the joint variables and torques.
RESERVED = re.compile(r"^(q|qd|qdd|tau)\d+$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

#: Longest expression text (characters); a model's longest is about 100.
MAX_EXPRESSION_CHARS = 10_000
#: Most operands and operations in one expression (a sum of 1000 terms has 1999).
MAX_EXPRESSION_NODES = 3000
#: Deepest nesting of one expression; a chain of the same operator (``a + b - c + ...``,
#: ``a * b / c * ...``) counts as one level, so long sums and products are fine.
MAX_EXPRESSION_DEPTH = 40
#: Largest magnitude of an exponent (``m**64``): each power is a chain of multiplications
#: in the generated code, and a constant power must stay small enough to compute.
MAX_EXPONENT = 64
#: Largest exact integer or fraction in an expression, in bits (about 1000 digits; a
#: float ends at 1.8e308, about 1024 bits).
MAX_NUMBER_BITS = 3400
#: Longest parameter name.
MAX_NAME_CHARS = 64
_ADDITIVE = (ast.Add, ast.Sub)
_MULTIPLICATIVE = (ast.Mult, ast.Div)


@functools.cache
def _not_finite() -> dict:
    """SymPy's non-finite numbers and what to say of each."""
    return {sp.nan: "is not a finite number (0/0 is undefined)",
            sp.zoo: "is not a finite number (division by zero)",
            sp.oo: "is not a finite number (infinite)",
            -sp.oo: "is not a finite number (infinite)"}


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
        raise ValueError(f"{value} is not a finite number")
    return sp.Float(value)


def to_sympy(value: object) -> sp.Basic:
    """A model number as SymPy without parsing text: SymPy objects pass through, Python
    numbers convert exactly; anything else (a string) is a ``TypeError``."""
    if isinstance(value, (sp.Basic, sp.MatrixBase)):
        return value
    if is_parameter(value):
        return value._sympy_()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return number(value)
    raise TypeError(f"expected a SymPy expression or a number, got {value!r}")


def parse_expression(value: object, field: str, joints: int = 0) -> sp.Expr:
    """Parse a number or an expression string from a model file into SymPy.

    ``field`` names where the value came from (``links[0].mass``) for the
    error message. The result is checked: no NaN or infinity, no complex
    constant, no exponent beyond :data:`MAX_EXPONENT`, no number beyond
    :data:`MAX_NUMBER_BITS`; without symbols it is a finite real number. ``joints``:
    the joint variables ``q1`` .. ``q<joints>`` are allowed too (a model's named terms).
    """
    if isinstance(value, bool) or value is None:
        raise ModelError(f"{field}: expected a number or an expression, got {value!r}")
    if isinstance(value, Real):
        if isinstance(value, int) and value.bit_length() > MAX_NUMBER_BITS:
            raise ModelError(f"{field}: the integer {excerpt(value)} is too large (more than "
                             f"{MAX_NUMBER_BITS} bits); write it as a float, e.g. 1e300")
        try:
            return checked_expression(number(value), field, value)
        except ValueError as exc:
            raise ModelError(f"{field}: {exc}") from None
    if isinstance(value, sp.Expr):
        return check_expansion(checked_expression(value, field, value), field, value)
    if not isinstance(value, str):
        raise ModelError(
            f"{field}: expected a number or an expression string, got {type(value).__name__} "
            f"{excerpt(value)}"
        )
    text = value.strip()
    if not text:
        raise ModelError(f"{field}: empty expression")
    if len(text) > MAX_EXPRESSION_CHARS:
        raise ModelError(f"{field}: the expression {excerpt(text)} is too long (at most "
                         f"{MAX_EXPRESSION_CHARS} characters); split it with parameters")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise ModelError(f"{field}: cannot parse {excerpt(text)}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        # null bytes; Python's own parser giving up on nesting
        raise ModelError(f"{field}: cannot parse {excerpt(text)}: not an expression or nested "
                         "too deeply") from None
    check_size(tree.body, field, text)
    allowed = frozenset(f"q{i}" for i in range(1, joints + 1))
    expr = checked_expression(Translator(field, text, allowed).visit(tree.body), field, text)
    return check_expansion(expr, field, text)


def check_size(root: ast.AST, field: str, text: str) -> None:
    """At most :data:`MAX_EXPRESSION_NODES` nodes and :data:`MAX_EXPRESSION_DEPTH` levels
    (a chain of one operator is one level), counted without recursion."""
    count = 0
    stack = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > MAX_EXPRESSION_NODES:
            raise ModelError(f"{field}: the expression {excerpt(text)} is too large (more than "
                             f"{MAX_EXPRESSION_NODES} terms); split it with parameters")
        if depth > MAX_EXPRESSION_DEPTH:
            raise ModelError(f"{field}: the expression {excerpt(text)} is nested too deeply "
                             f"(more than {MAX_EXPRESSION_DEPTH} levels)")
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.operator, ast.unaryop, ast.expr_context)):
                continue
            same_chain = (
                isinstance(node, ast.BinOp) and child is node.left
                and isinstance(child, ast.BinOp)
                and any(isinstance(node.op, k) and isinstance(child.op, k)
                        for k in (_ADDITIVE, _MULTIPLICATIVE))
            )
            stack.append((child, depth if same_chain else depth + 1))


def checked_expression(expr: sp.Expr, field: str, raw: object) -> sp.Expr:
    """``expr`` if it can be a finite real number: else a :class:`ModelError` saying why."""
    for node in sp.preorder_traversal(expr):
        if node in _not_finite():
            raise ModelError(f"{field}: {excerpt(raw)} {_not_finite()[node]}")
        if node is sp.I:
            raise ModelError(f"{field}: {excerpt(raw)} is not a real number (it evaluates to "
                             f"{excerpt(expr)})")
        if isinstance(node, sp.Rational) and _bits(node) > MAX_NUMBER_BITS:
            raise ModelError(f"{field}: {excerpt(raw)} holds a number too large (more than "
                             f"{MAX_NUMBER_BITS} bits)")
        if isinstance(node, sp.Pow) and node.exp.is_Number and abs(node.exp) > MAX_EXPONENT:
            raise ModelError(f"{field}: {excerpt(raw)} has the exponent {excerpt(node.exp)}; "
                             f"exponents must be within +-{MAX_EXPONENT}")
    if not expr.free_symbols:
        try:
            value = float(expr)
        except TypeError:
            raise ModelError(f"{field}: {excerpt(raw)} is not a real number (it evaluates to "
                             f"{excerpt(expr)})") from None
        if not math.isfinite(value):
            raise ModelError(f"{field}: {excerpt(raw)} is not a finite number (it overflows the "
                             "largest float, 1.8e308)")
    return expr


def _bits(x: sp.Rational) -> int:
    return max(int(x.p).bit_length(), int(x.q).bit_length())


class Translator:
    """Python syntax tree to SymPy, node by node; sizes are checked before each power."""

    def __init__(self, field: str, text: str, joints: frozenset = frozenset()):
        self.field = field
        self.text = text
        self.joints = joints  # joint variables allowed as names (q1, ...)

    def fail(self, what: str) -> ModelError:
        return ModelError(
            f"{self.field}: {what} in {excerpt(self.text)}; allowed are numbers, names, "
            "+ - * / **, parentheses, pi, sqrt, sin, cos"
        )

    def _operands(self, node, ops, keep, invert) -> list:
        """The operands of a chain ``a + b - c ...`` (or ``a * b / c ...``) as one n-ary
        list, walked without recursion along the chain; an operand after an operator other
        than ``keep`` (``-``, ``/``) is ``invert``-ed."""
        tail = []
        while isinstance(node, ast.BinOp) and isinstance(node.op, ops):
            tail.append((node.op, node.right))
            node = node.left
        args = [self.visit(node)]
        for op, right in reversed(tail):
            value = self.visit(right)
            args.append(value if isinstance(op, keep) else invert(value))
        return args

    def visit(self, node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Constant):
            if isinstance(node.value, bool) or not isinstance(node.value, (int, float)):
                raise self.fail(f"constant {excerpt(node.value)} is not a number")
            if isinstance(node.value, float) and not math.isfinite(node.value):
                raise ModelError(f"{self.field}: {excerpt(self.text)} is not a finite number "
                                 "(a number beyond the largest float, 1.8e308)")
            return number(node.value)
        if isinstance(node, ast.Name):
            if node.id in CONSTANTS:
                return CONSTANTS[node.id]()
            if node.id in FUNCTIONS:
                raise self.fail(f"function {node.id!r} used without arguments")
            if node.id in self.joints:
                return symbol(node.id)
            return symbol(check_parameter_name(node.id, self.field))
        if isinstance(node, ast.BinOp) and isinstance(node.op, _ADDITIVE):
            return sp.Add(*self._operands(node, _ADDITIVE, ast.Add, lambda t: -t))
        if isinstance(node, ast.BinOp) and isinstance(node.op, _MULTIPLICATIVE):
            return sp.Mul(*self._operands(node, _MULTIPLICATIVE, ast.Mult,
                                          lambda f: sp.Pow(f, -1)))
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return self.power(self.visit(node.left), self.visit(node.right))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            negative = False
            while isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
                negative ^= isinstance(node.op, ast.USub)
                node = node.operand
            operand = self.visit(node)
            return -operand if negative else operand
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name not in FUNCTIONS:
                raise self.fail(f"call of {excerpt(ast.unparse(node.func))} (not an allowed "
                                "function)")
            if node.keywords or len(node.args) != 1:
                raise self.fail(f"{name}() takes exactly one argument")
            if name == "sqrt":  # the checks of a power
                return self.power(self.visit(node.args[0]), sp.S.Half)
            return FUNCTIONS[name](self.visit(node.args[0]))
        raise self.fail(f"{type(node).__name__} {excerpt(ast.unparse(node))} is not allowed")

    def power(self, base: sp.Expr, exp: sp.Expr) -> sp.Expr:
        """``base**exp`` when the exponent is a real constant within :data:`MAX_EXPONENT`
        and, for a power of two exact numbers, the result has at most
        :data:`MAX_NUMBER_BITS` bits: checked before SymPy computes anything."""
        if exp.free_symbols:
            raise self.fail(f"a power with the exponent {excerpt(exp)} (not a constant; "
                            "exponents must be numbers)")
        try:
            size = abs(float(exp))
        except TypeError:
            raise self.fail(f"the exponent {excerpt(exp)} is not a real number") from None
        if not size <= MAX_EXPONENT:
            raise ModelError(f"{self.field}: the exponent {excerpt(exp)} in {excerpt(self.text)} "
                             f"is too large; exponents must be within +-{MAX_EXPONENT}")
        if isinstance(base, sp.Rational) and _bits(base) * max(size, 1) > MAX_NUMBER_BITS:
            raise ModelError(f"{self.field}: {excerpt(self.text)} is too large a number (more "
                             f"than {MAX_NUMBER_BITS} bits); write it as a float, e.g. 1e300")
        return sp.Pow(base, exp)


#: Friendlier words for what SymPy makes of some names.
_SYMPY_MEANINGS = {
    "I": "SymPy's imaginary unit", "E": "SymPy's Euler number e",
    "S": "SymPy's singleton registry S", "Q": "SymPy's assumption namespace Q",
    "oo": "SymPy's infinity",
    "zoo": "SymPy's complex infinity", "nan": "SymPy's not-a-number",
}


@functools.cache
def _parser_namespace() -> dict:
    """The names :func:`sympy.parse_expr` (and so ``sympify``) resolves to objects rather
    than to symbols: those of ``from sympy import *`` and Python's built-in functions,
    ``max``/``min`` as ``Max``/``Min`` (SymPy's default global namespace)."""
    names = {name: getattr(sp, name) for name in sp.__all__ if hasattr(sp, name)}
    names.update({name: obj for name, obj in vars(builtins).items()
                  if isinstance(obj, types.BuiltinFunctionType)})
    names.update(max=sp.Max, min=sp.Min)
    return names


@functools.lru_cache(maxsize=4096)
def _sympy_meaning(name: str) -> str | None:
    """What SymPy's parser reads the identifier ``name`` as, when it is not the plain
    symbol: the printed equations (``robodyn derive --format json``) must parse back with
    :func:`sympy.parse_expr`. A name is looked up as the parser does (an object that is a
    SymPy ``Basic``, a class, an assumption key or callable stays that object; anything
    else becomes a ``Symbol``); no text is parsed."""
    namespace = _parser_namespace()
    if name not in namespace:
        return None
    meaning = namespace[name]
    from sympy.assumptions.ask import AssumptionKeys as keys  # SymPy is loaded by now
    if not (isinstance(meaning, (keys, sp.Basic, type)) or callable(meaning)):
        return None
    if callable(meaning) and not isinstance(meaning, sp.Basic):
        return _SYMPY_MEANINGS.get(name, f"the function {name}() to SymPy's parser")
    return _SYMPY_MEANINGS.get(name, f"{excerpt(meaning, 40)} to SymPy's parser")


def check_parameter_name(name: object, field: str) -> str:
    """A parameter name must be an identifier that is not reserved and that SymPy's
    parser reads back as a plain symbol (``I``, ``E``, ``gamma`` are SymPy's)."""
    if not isinstance(name, str) or not _NAME.match(name):
        raise ModelError(f"{field}: {excerpt(name)} is not a valid parameter name (letters, "
                         "digits, _)")
    if len(name) > MAX_NAME_CHARS:
        raise ModelError(f"{field}: the parameter name {excerpt(name)} is too long (at most "
                         f"{MAX_NAME_CHARS} characters)")
    if RESERVED.match(name) or name in CONSTANTS or name in FUNCTIONS:
        raise ModelError(
            f"{field}: {name!r} is reserved (joint variables q1.., qd1.., qdd1.., tau1.., "
            "and pi, sqrt, sin, cos); rename the parameter"
        )
    if keyword.iskeyword(name):
        raise ModelError(f"{field}: {name!r} is a Python keyword; rename the parameter, "
                         f"e.g. {name}_1")
    meaning = _sympy_meaning(name)
    if meaning is not None:
        raise ModelError(f"{field}: {name!r} is {meaning}, so printed equations would not read "
                         f"back; rename the parameter, e.g. {name}_1")
    return name
