"""SymPy's code printers, adjusted for exported equations.

* Floats print as Python's shortest round-trip ``repr`` (SymPy prints 15 digits), so a
  baked parameter reads back as the same double.
* Small integer powers print as products in C, C++ and Java (``x*x`` rather than
  ``pow(x, 2)``), which compilers do not always do for ``pow(x, 3)``.
* Java has no printer in SymPy: it is the C printer with ``Math.`` functions and
  ``Math.signum``; Mathematica's ``sign`` prints as ``Sign``; pi prints as a number in C
  (``M_PI`` is not C99).
* :func:`safe_names` renames symbols that collide with a language's keywords or with the
  generated code's own names (``q``, ``p``, ``tau``, ...), and symbols whose name is not
  an ASCII identifier (made in Python: ``Symbol("m 1")``, ``Symbol("a$(run(x))")``):
  never is a symbol's name printed into code as it is unless it is an identifier.
"""

from __future__ import annotations

import keyword
import re

import sympy as sp
from sympy.printing.c import C99CodePrinter
from sympy.printing.cxx import CXX11CodePrinter
from sympy.printing.julia import JuliaCodePrinter
from sympy.printing.mathematica import MCodePrinter
from sympy.printing.numpy import NumPyPrinter
from sympy.printing.octave import OctaveCodePrinter

PI = repr(float(sp.pi))


class _ReprFloat:
    def _print_Float(self, expr):
        return repr(float(expr))


class _Products:
    """``x**k`` for ``k`` in 2..4 (and -2..-4) as a product of ``x``."""

    def _print_Pow(self, expr):
        base, exp = expr.base, expr.exp
        if exp.is_Integer and 2 <= abs(int(exp)) <= 4:
            factor = self.parenthesize(base, 100)  # atom or parenthesised
            product = "*".join([factor] * abs(int(exp)))
            return f"({product})" if exp > 0 else f"(1.0/({product}))"
        return super()._print_Pow(expr)


class PythonPrinter(_ReprFloat, NumPyPrinter):
    pass


class CPrinter(_Products, _ReprFloat, C99CodePrinter):
    def _print_Pi(self, expr):
        return PI


class CppPrinter(_Products, _ReprFloat, CXX11CodePrinter):
    def _print_Pi(self, expr):
        return PI


class JavaPrinter(_Products, _ReprFloat, C99CodePrinter):
    """Java expressions: the C printer with ``java.lang.Math``."""

    _ns = "Math."

    def _print_Pi(self, expr):
        return "Math.PI"

    def _print_sign(self, expr):
        return f"Math.signum({self._print(expr.args[0])})"

    def _print_Abs(self, expr):
        return f"Math.abs({self._print(expr.args[0])})"


class OctavePrinter(_ReprFloat, OctaveCodePrinter):
    pass


class JuliaPrinter(_ReprFloat, JuliaCodePrinter):
    def _print_Rational(self, expr):
        return f"({expr.p}/{expr.q})"  # a Float64, not a Julia Rational


class MathematicaPrinter(MCodePrinter):
    def _print_Float(self, expr):
        text = repr(float(expr))
        mantissa, _, exponent = text.partition("e")
        return f"{mantissa}*^{int(exponent)}" if exponent else text

    def _print_sign(self, expr):
        return f"Sign[{self._print(expr.args[0])}]"


#: Words a generated local variable must not be, per language (besides the generated
#: code's own names, added by the writers).
RESERVED = {
    "python": set(keyword.kwlist) | {"numpy", "np", "batch", "_vector", "DOF"},
    "c": {"auto", "break", "case", "char", "const", "continue", "default", "do", "double",
          "else", "enum", "extern", "float", "for", "goto", "if", "inline", "int", "long",
          "register", "restrict", "return", "short", "signed", "sizeof", "static", "struct",
          "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "sin", "cos",
          "tan", "tanh", "sqrt", "pow", "fabs", "exp", "log", "signbit", "y0", "y1", "j0", "j1"},
    "java": {"abstract", "assert", "boolean", "break", "byte", "case", "catch", "char",
             "class", "const", "continue", "default", "do", "double", "else", "enum",
             "extends", "final", "finally", "float", "for", "goto", "if", "implements",
             "import", "instanceof", "int", "interface", "long", "native", "new", "package",
             "private", "protected", "public", "return", "short", "static", "strictfp",
             "super", "switch", "synchronized", "this", "throw", "throws", "transient", "try",
             "void", "volatile", "while", "true", "false", "null", "var", "Math"},
    "matlab": {"break", "case", "catch", "classdef", "continue", "else", "elseif", "end",
               "for", "function", "global", "if", "otherwise", "parfor", "persistent",
               "return", "spmd", "switch", "try", "while", "pi", "i", "j", "e", "eps", "inf",
               "Inf", "nan", "NaN", "sin", "cos", "sqrt", "sign", "zeros", "exp", "tanh"},
    "julia": {"baremodule", "begin", "break", "catch", "const", "continue", "do", "else",
              "elseif", "end", "export", "false", "finally", "for", "function", "global", "if",
              "import", "let", "local", "macro", "module", "quote", "return", "struct",
              "true", "try", "using", "while", "pi", "im", "sin", "cos", "sqrt", "sign",
              "zeros", "exp", "tanh"},
    "mathematica": {"C", "D", "E", "I", "K", "N", "O", "Pi", "Sin", "Cos", "Sqrt", "Sign", "Exp",
                    "Tanh", "Module", "List", "Length"},
}
RESERVED["cpp"] = RESERVED["c"] | {"bool", "class", "namespace", "template", "this", "new",
                                   "delete", "std", "Eigen", "Vector", "Matrix", "Parameters",
                                   "true", "false", "using", "operator", "private", "public",
                                   "protected", "virtual", "friend", "typename", "dof"}


_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def safe_names(symbols, language: str, taken: set[str]) -> dict[sp.Symbol, sp.Symbol]:
    """A renaming of ``symbols`` (only those that need it) so that no name is reserved in
    ``language`` or in ``taken``, or (Mathematica) holds an ``_``. A name that is not an
    ASCII identifier first has every other character replaced by ``_`` (``s`` in front
    when it would not start with a letter or ``_``)."""
    reserved = RESERVED[language] | set(taken)
    names = {str(s) for s in symbols}
    out = {}
    for s in symbols:
        name = str(s)
        new = name
        if not _IDENTIFIER.match(name):
            new = re.sub(r"\W", "_", name, flags=re.ASCII)
            new = new if new[:1].isalpha() or new[:1] == "_" else "s" + new
        new = re.sub("_", "U", new) if language == "mathematica" else new
        suffix = "V" if language == "mathematica" else "_"
        while new in reserved or (new != name and new in names):
            new += suffix
        if new != name:
            out[s] = sp.Symbol(new)
            names.add(new)
    return out
