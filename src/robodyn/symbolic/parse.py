"""Matrices written as text, read safely: :func:`parse_matrix` (a student's answer to
:mod:`robodyn.teaching.compare`, a term named by :meth:`.Equations.name_terms`).

Python's :mod:`ast` is translated node by node as the model files are
(:mod:`robodyn.model.expressions`), extended to lists of lists and to the joint variables
``q1``, ``qd1``, ``qdd1``; nothing is evaluated and ``sympify`` never sees the text. ``^``
is read as a power (``l1^2``), as students write it.
"""

from __future__ import annotations

import ast
import re

import sympy as sp

from ..core.errors import InputError, ModelError, excerpt
from ..model import expressions as ex

__all__ = ["parse_matrix", "entry_label", "MAX_TEXT_CHARS", "MAX_ENTRIES", "GREEK",
           "transliterate"]

#: Greek letters read as their names (``θ1`` is ``theta1``), as students type them.
GREEK = {"α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "ε": "epsilon",
         "ζ": "zeta", "η": "eta", "θ": "theta", "ϑ": "theta", "ι": "iota", "κ": "kappa",
         "λ": "lambda_", "μ": "mu", "ν": "nu", "ξ": "xi", "π": "pi", "ρ": "rho", "σ": "sigma",
         "τ": "tau", "υ": "upsilon", "φ": "phi", "ϕ": "phi", "χ": "chi", "ψ": "psi",
         "ω": "omega", "Θ": "Theta", "Φ": "Phi", "Ψ": "Psi", "Ω": "Omega", "Λ": "Lambda",
         "Δ": "Delta", "Γ": "Gamma", "Σ": "Sigma", "Π": "Pi"}
#: Two factors side by side with only spaces between (``m1 c1``, ``2 m1``): Python reads
#: no implicit product, and neither does robodyn (``a b`` could be a typo for ``a + b``).
_SIDE_BY_SIDE = re.compile(r"(?<![\w.])([A-Za-z_]\w*|\d+(?:\.\d*)?)\s+([A-Za-z_(]\w*)")


def transliterate(text: str) -> str:
    """``text`` with each Greek letter of :data:`GREEK` spelled out (``θ1`` -> ``theta1``)."""
    return "".join(GREEK.get(ch, ch) for ch in text)

#: Longest matrix text (characters) and most entries.
MAX_TEXT_CHARS = 100_000
MAX_ENTRIES = 400


class _AnswerTranslator(ex.Translator):
    """The model files' translator, with the joint variables allowed."""

    def fail(self, what: str) -> ModelError:
        return ModelError(f"{self.field}: {what} in {excerpt(self.text)}; allowed are numbers, "
                          "names, + - * / ** (or ^), parentheses, pi, sqrt, sin, cos, sign")

    def visit(self, node: ast.AST) -> sp.Expr:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id == "sign":  # Coulomb friction, F_c sign(qd)
            if node.keywords or len(node.args) != 1:
                raise self.fail("sign() takes exactly one argument")
            return sp.sign(self.visit(node.args[0]))
        if isinstance(node, ast.Name) and node.id not in ex.CONSTANTS \
                and node.id not in ex.FUNCTIONS:
            if len(node.id) > ex.MAX_NAME_CHARS:
                raise self.fail(f"the name {excerpt(node.id, 40)} is too long")
            return ex.symbol(node.id)
        return super().visit(node)


def _entry(node: ast.AST, field: str, text: str) -> sp.Expr:
    try:
        ex.check_size(node, field, text)
        return ex.checked_expression(_AnswerTranslator(field, text).visit(node), field, text)
    except ModelError as exc:
        raise InputError(str(exc)) from None


def parse_matrix(text: str, field: str = "answer") -> sp.Matrix:
    """A matrix written as text, ``"[[a, b], [c, d]]"`` (a list of rows) or a vector
    ``"[a, b]"`` (a column), optionally wrapped in ``Matrix(...)``; a single expression
    is a 1x1 matrix. Entries as in a model file (see the module docstring); errors are
    :class:`~robodyn.core.errors.InputError` naming ``field`` and the entry."""
    if not isinstance(text, str):
        raise InputError(f"{field}: expected the matrix as text, got {type(text).__name__}")
    text = text.strip()
    if not text:
        raise InputError(f"{field}: empty answer")
    if len(text) > MAX_TEXT_CHARS:
        raise InputError(f"{field}: the answer {excerpt(text)} is too long (more than "
                         f"{MAX_TEXT_CHARS} characters)")
    # ``^`` is a power, as students write it (Python's ^ binds looser than +: rewrite)
    text = transliterate(text).replace("^", "**")
    try:
        tree = ast.parse(text, mode="eval").body
    except SyntaxError as exc:
        pair = _SIDE_BY_SIDE.search(text)
        if pair and pair.group(2) not in ("if", "else", "for", "in", "and", "or", "not"):
            a, b = pair.group(1), pair.group(2)
            raise InputError(f"{field}: cannot parse {excerpt(text)}: {a} {b} has no operator "
                             f"between the factors; write {a}*{b}") from None
        raise InputError(f"{field}: cannot parse {excerpt(text)}: {exc.msg}") from None
    except (ValueError, RecursionError, MemoryError):
        raise InputError(f"{field}: cannot parse {excerpt(text)}: not an expression or "
                         "nested too deeply") from None
    if isinstance(tree, ast.Call) and isinstance(tree.func, ast.Name) \
            and tree.func.id == "Matrix" and len(tree.args) == 1 and not tree.keywords:
        tree = tree.args[0]
    if not isinstance(tree, (ast.List, ast.Tuple)):
        return sp.Matrix([[_entry(tree, field, text)]])
    rows = tree.elts
    if len(rows) > MAX_ENTRIES:
        raise InputError(f"{field}: more than {MAX_ENTRIES} entries")
    if all(isinstance(r, (ast.List, ast.Tuple)) for r in rows) and rows:
        widths = {len(r.elts) for r in rows}
        if len(widths) != 1:
            raise InputError(f"{field}: the rows have different lengths "
                             f"{[len(r.elts) for r in rows]}")
        if len(rows) * widths.pop() > MAX_ENTRIES:
            raise InputError(f"{field}: more than {MAX_ENTRIES} entries")
        return sp.Matrix([[_entry(x, f"{field}{entry_label(i, j)}", text)
                           for j, x in enumerate(r.elts)] for i, r in enumerate(rows)])
    if any(isinstance(r, (ast.List, ast.Tuple)) for r in rows):
        raise InputError(f"{field}: mixes rows and entries; write [[a, b], [c, d]] or [a, b]")
    return sp.Matrix([_entry(x, f"{field}{entry_label(i)}", text) for i, x in enumerate(rows)])


def entry_label(*idx: int) -> str:
    """An entry's index as the books write it after the matrix's name, from 0-based
    ``idx``: ``12`` for ``(0, 1)`` (``M12``), ``[10,3]`` once an index passes 9."""
    if all(i < 9 for i in idx):
        return "".join(str(i + 1) for i in idx)
    return "[" + ",".join(str(i + 1) for i in idx) + "]"
