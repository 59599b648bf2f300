"""The plain text form (``robodyn derive --format text``): one expression per line in
SymPy's own syntax (``qd1**2*sin(q2)``), so that what a terminal shows can be pasted back
into Python, lines wrapped at :data:`TEXT_WIDTH`. The pretty form (:mod:`.pretty`) lays
out the same lines."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

import sympy as sp
from sympy.printing.str import StrPrinter

from ...dynamics.registry import printed_forms
from ...model.names import visible
from .common import OriginOrder, method_name, readable_for
from .readable import Readable

if TYPE_CHECKING:  # pragma: no cover
    from ..equations import Equations


class _PlainPrinter(OriginOrder, StrPrinter):
    """``str`` with each Float to 15 significant digits, trailing zeros dropped (``0.1``,
    not ``0.100000000000000``; ``0.3 - 0.1`` as ``0.2``): numbers print as the model
    wrote them. (JSON keeps every bit: :func:`.json.json_str`.)"""

    def _print_Float(self, expr):
        text = f"{float(expr):.15g}"
        return text if any(c in text for c in ".en") else text + ".0"


def plain(expr) -> str:
    """The text form of ``expr`` (SymPy syntax, numbers as written)."""
    return _PlainPrinter({"order": None}).doprint(expr)


def header_lines(eq: Equations) -> list[str]:
    joints = ", ".join(f"{', '.join(str(q) for q in jc.q)} {jc.type}"
                       + ("" if jc.single else f" (v: {', '.join(str(v) for v in jc.qd)})")
                       for jc in eq.coordinates)
    params = ", ".join(str(s) for s in eq.params) or "(none: all numbers)"
    lines = [f"Equations of motion of {visible(eq.name)} by {method_name(eq)}",
             f"  joints: {joints}",
             f"  parameters: {params}",
             f"  gravity g0 = [{', '.join(plain(x) for x in eq.chain.gravity)}] (base frame)"]
    if eq.h_e:
        lines.append(f"  end-effector wrench h_e = {list(eq.h_e)} (base frame)")
    if eq.frames_note:
        lines.append(f"  frames: {eq.frames_note}")
    if getattr(eq, "display", None):
        lines.append("  notation: " + ", ".join(f"{visible(k)} = {visible(v)}"
                                                for k, v in eq.display.items()))
    return lines


def definition_lines(rd: Readable, text, width: int = 90) -> list[str]:
    """``where s_1 = sin(q1), c_12 = cos(q1 + q2)`` (wrapped at ``width``), then each named
    term on a line of its own: ``and h = -c2*l1*m2*s_2``."""
    if not rd.definitions:
        return []
    short = [f"{text(k)} = {text(v)}" for k, v in rd.definitions if k not in rd.term_names]
    lines, current = [], "  where "
    for k, item in enumerate(short):
        piece = item + ("," if k < len(short) - 1 else "")
        if current.strip() != "where" and len(current) + len(piece) > width:
            lines.append(current.rstrip())
            current = "        "
        current += piece + " "
    if short:
        lines.append(current.rstrip())
    lead = "  and " if short else "  where "
    for k, v in rd.definitions:
        if k in rd.term_names:
            lines.append(f"{lead}{text(k)} = {text(v)}")
            lead = "  and "
    return lines


def _index(eq: Equations, *idx: int) -> str:
    if eq.dof < 10:
        return "".join(str(i + 1) for i in idx)
    return "[" + ",".join(str(i + 1) for i in idx) + "]"


def _text_value(value, fmt=None) -> str:
    if fmt is not None:
        return fmt(value)
    if isinstance(value, sp.MatrixBase):
        if value.shape[1] == 1:
            if value.shape[0] == 1:
                return plain(value[0, 0])
            return "[" + ", ".join(plain(x) for x in value) + "]^T"
        return "[" + ",\n ".join("[" + ", ".join(plain(x) for x in value.row(r)) + "]"
                                for r in range(value.shape[0])) + "]"
    return plain(value)


def text_equations(eq: Equations, fmt=None, prep=None) -> list[str]:
    n = eq.dof
    show = _entry_formatter(fmt, prep)
    bristles = getattr(eq, "z", ())
    out = ["", "M(q) qdd + C(q, qd) qd + friction(qd" + (", z" if bristles else "") + ") + g(q)"
           + (" + J(q)^T h_e" if eq.h_e else "") + " = tau", ""]
    if bristles:  # LuGre: the bristle states z and their equation (:mod:`..lugre`)
        out[-1:-1] = ["dz/dt, the LuGre bristle states' equation (z: their deflections):"]
        out[-1:-1] = [show(f"  dz{_index(eq, i)}/dt = ", eq.bristle_rate[i]) for i in range(n)]
    for form in printed_forms(bool(eq.h_e)):
        value, shown = getattr(eq, form.attribute), form.shown
        out.append(shown.label)
        forces = [str(jc.v_offset + 1) for jc in eq.coordinates if jc.type == "prismatic"]
        if form.attribute == "tau" and not all(jc.single for jc in eq.coordinates):
            out[-1] = out[-1].rstrip(":") + f" ({_quasi_note(eq)}):"
        elif form.attribute == "tau" and forces:
            which = "tau" + ", tau".join(forces)
            out[-1] = out[-1].rstrip(":") + (f" ({which}: a force, joint {forces[0]} is "
                                             "prismatic):" if len(forces) == 1 else
                                             f" ({which}: forces, prismatic joints):")
        if form.rank == 2:
            out += [show(f"  {shown.symbol}{_index(eq, i, j)} = ", value[i, j])
                    for i in range(n) for j in range(i if shown.symmetric else 0, n)]
        else:
            out += [show(f"  {shown.symbol}{_index(eq, i)} = ", value[i]) for i in range(n)]
    return out


def _quasi_note(eq: Equations) -> str:
    """What the entries of ``tau`` of a model with ball or free joints are:
    ``tau1..tau6: force and moment of free joint 1 (link frame), tau7: joint 2``."""
    parts = []
    for jc in eq.coordinates:
        first, last = jc.v_offset + 1, jc.v_offset + len(jc.qd)
        if jc.type == "free":
            parts.append(f"tau{first}..tau{last}: force and moment of free joint "
                         f"{jc.number} (its link frame)")
        elif jc.type == "spherical":
            parts.append(f"tau{first}..tau{last}: moment of ball joint {jc.number} (its link "
                         "frame)")
        else:
            what = "force" if jc.type == "prismatic" else "torque"
            parts.append(f"tau{first}: {what} of joint {jc.number}")
    return "; ".join(parts)


def _entry_formatter(fmt, prep=None):
    """``show(prefix, expr)``: ``prefix`` + the expression, continuation lines indented."""
    if hasattr(fmt, "show"):
        return fmt.show

    def show(prefix: str, expr) -> str:
        if prep is not None:
            expr = prep(expr)
        text = plain(expr) if fmt is None else fmt(expr)
        lines = text.split("\n")
        return prefix + lines[0] + "".join("\n" + " " * len(prefix) + x for x in lines[1:])
    return show


def text_steps(eq: Equations, fmt=None, prep=None, words=None) -> list[str]:
    words = words or (lambda text: text)
    out = ["", f"Derivation by {method_name(eq)}, step by step"]
    section = None
    number = 0
    count = 0
    for step in eq.steps:
        if step.section != section:
            section = step.section
            number += 1
            out += ["", f"{number}. {section}", ""]
        count += 1
        out.append(textwrap.fill(f"  ({count}) {words(step.title)}", width=100,
                                 subsequent_indent=" " * 6, break_long_words=False))
        lhs = f"      {words(step.lhs)} = "
        pad = " " * (len(lhs) - 2) + "= "
        expr = step.expression if prep is None else prep.step(step)
        value = _text_value(expr, fmt).replace("\n", "\n" + " " * len(lhs))
        if step.formula:
            out.append(lhs + words(step.formula))
            out.append(pad + value.replace("\n" + " " * len(lhs), "\n" + " " * len(pad)))
        else:
            out.append(lhs + value)
    return out


def to_text(eq: Equations, steps: bool = False, shorthand: bool = False,
            digits: int | None = None) -> str:
    """The plain form (SymPy syntax). With ``shorthand`` the names ``s_1``, ``c_12``, ``h``
    are declared in the header (``where s_1 = sin(q1), ...``); ``digits`` rounds Floats."""
    rd = readable_for(eq, steps, shorthand, digits)
    lines = header_lines(eq) + definition_lines(rd, plain)
    if steps:
        lines += text_steps(eq, prep=rd)
        lines += ["", "Result"]
    lines += text_equations(eq, prep=rd)
    text = "\n".join(lines)
    return "\n".join(wrap_line(line, TEXT_WIDTH) for line in text.split("\n")) + "\n"


#: Widest line of the text form (``robodyn derive --format text``).
TEXT_WIDTH = 100
_OPEN, _CLOSE = "([{", ")]}"


def wrap_line(line: str, width: int = TEXT_WIDTH) -> str:
    """``line`` broken into lines of at most ``width`` characters where it is longer:
    before a `` + `` or `` - `` or after a ``, `` (an expression, a matrix row), else at
    a space, the shallowest such place (fewest open brackets) in the second half of the
    line first; continuation lines are indented under the right-hand side (after
    `` = ``) or four columns deeper than the line. A piece with no such place (one very
    long name) is cut at the width."""
    if len(line) <= width:
        return line
    lead = len(line) - len(line.lstrip())
    eq_at = line.find(" = ")
    indent = eq_at + 3 if 0 <= eq_at < width // 2 else lead + 4
    rows, rest, first = [], line, True
    while len(rest) > width:
        cut = _break_at(rest, width, indent if not first else lead)
        rows.append(rest[:cut].rstrip())
        rest = " " * indent + rest[cut:].lstrip()
        first = False
    rows.append(rest)
    return "\n".join(rows)


def _break_at(text: str, width: int, start: int) -> int:
    """Where to break ``text`` (see :func:`wrap_line`): an index in ``(start, width]``,
    the shallowest place in the second half of the room (after a comma before a sign,
    before a space), else the last place there is."""
    depth, places = 0, []
    for i, ch in enumerate(text[:width + 1]):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth -= 1
        if i <= start + 8:
            continue
        if text.startswith(", ", i - 1) and ch == " ":
            kind = 0                 # after the comma
        elif text.startswith((" + ", " - "), i):
            kind = 1                 # the sign starts the next line
        elif ch == " ":
            kind = 2
        else:
            continue
        places.append((depth, kind, -i))
    if not places:
        return width
    half = start + (width - start) // 2
    late = [p for p in places if -p[2] >= half]
    return -min(late or places)[2]
