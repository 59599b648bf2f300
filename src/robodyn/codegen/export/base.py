"""What every language writer shares: the printed body of one function."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from ...model.expressions import to_sympy
from ...model.names import visible
from .printers import safe_names
from .program import OUTPUTS, Function, Program

#: The names generated code uses for its own arrays (never a local variable's name): the
#: arguments, the results (``tau``, ``M``, ..., ``Y``) and ``out``.
OWN_NAMES = {"q", "qd", "qdd", "h_e", "z", "p", "out"} | set(OUTPUTS.values())


@dataclass(frozen=True)
class Body:
    """A function's body as text: ``loads`` ``(local, array, index)`` (0-based),
    ``temporaries`` ``(local, expression)``, ``entries`` ``((row, column), expression)``
    of the nonzero outputs."""

    loads: list[tuple[str, str, int]]
    temporaries: list[tuple[str, str]]
    entries: list[tuple[tuple[int, int], str]]


def body(program: Program, function: Function, printer, language: str,
         taken: set[str] = frozenset()) -> Body:
    """Print ``function``'s straight-line program with ``printer`` (a SymPy code printer
    instance), its locals renamed where ``language`` reserves the name."""
    symbols = set(program.parameters) | {s for _, syms in function.args for s in syms}
    symbols |= {t for t, _ in function.temporaries} | function.used()
    rename = safe_names(sorted(symbols, key=str), language, OWN_NAMES | set(taken))

    def text(e) -> str:
        return printer.doprint(to_sympy(e).xreplace(rename))

    loads = [(str(rename.get(s, s)), arr, i) for s, arr, i in function.loads(program.parameters)]
    temps = [(str(rename.get(t, t)), text(e)) for t, e in function.temporaries]
    cols = function.shape[1]
    entries = [((k // cols, k % cols), text(e)) for k, e in enumerate(function.entries)
               if not (e.is_number and e == 0)]
    return Body(loads, temps, entries)


#: language -> (opening, line prefix, closing) of its header comment: line comments
#: (``#``, ``%``) or one block comment.
COMMENTS = {
    "python": ("", "#", ""), "julia": ("", "#", ""), "matlab": ("", "%", ""),
    "c": ("/*", " *", " */"), "cpp": ("/*", " *", " */"), "java": ("/*", " *", " */"),
    "mathematica": ("(*", "  ", "*)"),
}
#: Character pairs that open or close a comment, per language, split by a space where
#: they occur in a header line: C, C++ and Java ``/*`` ``*/``; Mathematica's nested
#: ``(*`` ``*)``; Julia's ``#=`` ``=#``; MATLAB's ``%{`` ``%}`` (and Octave's ``#{`` ``#}``).
_PAIRS = {
    "c": r"\*(?=/)|/(?=\*)", "cpp": r"\*(?=/)|/(?=\*)", "java": r"\*(?=/)|/(?=\*)",
    "mathematica": r"\((?=\*)|\*(?=\))", "julia": r"#(?==)|=(?=#)",
    "matlab": r"[%#](?=[{}])",
}


def comment_line(text: str, language: str) -> str:
    """``text`` as it may stand in a header comment of ``language``: one line
    (:func:`~robodyn.model.names.visible`: line breaks and other control characters as
    ``<U+XXXX>``), the pairs that would open or close a comment split by a space, and in
    Java and Mathematica each backslash as ``<U+005C>`` (Java turns ``\\u002a\\u002f``
    into ``*/`` before it reads comments; Mathematica reads ``\\:`` escapes)."""
    text = visible(text)
    if language in ("java", "mathematica"):
        text = text.replace("\\", "<U+005C>")
    pairs = _PAIRS.get(language)
    return re.sub(pairs, lambda m: m.group() + " ", text) if pairs else text


def comment(program: Program, language: str) -> str:
    """The header comment of a file in ``language`` (:data:`COMMENTS`): the
    :meth:`~.program.Program.header_lines`, each made safe by :func:`comment_line`, so
    that no name can end the comment or the line."""
    start, middle, end = COMMENTS[language]
    lines = [f"{middle} {comment_line(line, language)}".rstrip()
             for line in program.header_lines()]
    return "\n".join(([start] if start else []) + lines + ([end] if end else [])) + "\n"


def java_string(text: str) -> str:
    """``text`` as a Java string literal: ``\\`` and ``"`` escaped, control characters as
    octal escapes; other characters that are not printable as ``\\uXXXX`` (never one
    that Java's early unicode-escape pass would turn into ``"``, ``\\`` or a line break:
    those are escaped as themselves first)."""
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ch == "\x7f":
            out.append(f"\\{ord(ch):03o}")
        elif ch.isprintable() and ch.isascii():
            out.append(ch)
        elif ord(ch) > 0xFFFF:
            v = ord(ch) - 0x10000
            out.append(f"\\u{0xD800 + (v >> 10):04x}\\u{0xDC00 + (v & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return '"' + "".join(out) + '"'


def julia_string(text: str) -> str:
    """``text`` as a Julia string literal: ``\\``, ``"`` and ``$`` (interpolation)
    escaped, every character outside printable ASCII as ``\\uXXXX`` or ``\\UXXXXXXXX``."""
    out = []
    for ch in str(text):
        if ch in '"\\$':
            out.append("\\" + ch)
        elif ch.isprintable() and ch.isascii():
            out.append(ch)
        elif ord(ch) > 0xFFFF or unicodedata.category(ch) == "Cs":
            out.append(f"\\U{ord(ch):08x}")
        else:
            out.append(f"\\u{ord(ch):04x}")
    return '"' + "".join(out) + '"'


def mathematica_string(text: str) -> str:
    """``text`` as a Wolfram Language string: ``\\`` and ``"`` escaped, every character
    outside printable ASCII as ``\\:XXXX`` (``\\|XXXXXX`` beyond the BMP)."""
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch.isprintable() and ch.isascii():
            out.append(ch)
        elif ord(ch) > 0xFFFF:
            out.append(f"\\|{ord(ch):06x}")
        else:
            out.append(f"\\:{ord(ch):04x}")
    return '"' + "".join(out) + '"'


def signature_args(program: Program, function: Function) -> list[str]:
    """The argument names in call order: ``p`` first in argument mode."""
    return (["p"] if program.argument else []) + [a for a, _ in function.args]
