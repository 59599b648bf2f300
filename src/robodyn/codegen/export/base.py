"""What every language writer shares: the printed body of one function."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...model.expressions import to_sympy
from .printers import safe_names
from .program import Function, Program

#: The names generated code uses for its own arrays (never a local variable's name).
OWN_NAMES = {"q", "qd", "qdd", "h_e", "p", "tau", "M", "C", "g", "tau_f", "Y", "out"}


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


def comment(program: Program, start: str, middle: str = "", end: str = "") -> str:
    """The header comment, each line prefixed with ``middle`` (a block comment when
    ``start``/``end`` are given, line comments when only ``start`` is)."""
    lines = program.header_lines()
    if not end:
        return "\n".join(f"{start} {line}".rstrip() for line in lines) + "\n"
    return start + "\n" + "\n".join(f"{middle} {line}".rstrip() for line in lines) + "\n" + end \
        + "\n"


def signature_args(program: Program, function: Function) -> list[str]:
    """The argument names in call order: ``p`` first in argument mode."""
    return (["p"] if program.argument else []) + [a for a, _ in function.args]


Writer = Callable[[Program], dict[str, str]]
