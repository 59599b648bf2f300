"""How robodyn's objects show themselves: text tables, HTML tables, short summaries, and the
small pictures Jupyter shows inline.

Every object a user gets back (a robot, a simulation, an identification) prints a few lines
(``print(obj)``), has a one-line ``repr`` and, where a table says more, an HTML table for
Jupyter (``_repr_html_``). The helpers here build them. Every cell of an HTML table is
escaped (:func:`html.escape`): a model's name or a parameter's symbol is user text.
Matplotlib is imported only when a picture is asked for.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["text_table", "html_table", "number", "numbers", "span", "shape", "png", "degrees"]


def number(value, digits: int = 4) -> str:
    """``value`` in ``digits`` significant digits (``-`` for None); text is kept as it is."""
    if value is None:
        return "-"
    if isinstance(value, str):
        return value
    value = float(value)
    if value == 0:
        return "0"
    return f"{value:.{digits}g}"


def numbers(values, digits: int = 4) -> str:
    """``[a, b, c]`` of :func:`number` of each value."""
    return "[" + ", ".join(number(v, digits) for v in np.asarray(values, dtype=float).ravel()) \
        + "]"


def span(t) -> str:
    """``0 .. 2 s`` of a time grid (``t`` ``(T,)``)."""
    t = np.asarray(t, dtype=float)
    if t.size == 0:
        return "no samples"
    return f"{number(t[0])} .. {number(t[-1])} s"


def shape(values) -> str:
    """``(201, 6)`` of an array, ``-`` for None."""
    return "-" if values is None else str(tuple(np.shape(values)))


def text_table(headers: Sequence[str], rows: Sequence[Sequence[str]],
               left: Sequence[int] = (0,)) -> list[str]:
    """The lines of a table drawn with box characters, as the Robotics Toolbox prints its
    robots: ``headers`` on top, columns in ``left`` flush left, the others flush right."""
    cells = [[str(c) for c in headers]] + [[str(c) for c in row] for row in rows]
    widths = [max(len(row[k]) for row in cells) for k in range(len(headers))]

    def line(row):
        parts = [f" {c:<{w}} " if k in left else f" {c:>{w}} "
                 for k, (c, w) in enumerate(zip(row, widths))]
        return "│" + "│".join(parts) + "│"

    def rule(a, b, c):
        return a + b.join("─" * (w + 2) for w in widths) + c

    return [rule("┌", "┬", "┐"), line(cells[0]), rule("├", "┼", "┤"),
            *(line(row) for row in cells[1:]), rule("└", "┴", "┘")]


def html_table(headers: Sequence[str], rows: Sequence[Sequence[str]], caption: str = "",
               notes: Sequence[str] = ()) -> str:
    """An HTML table (for Jupyter's ``_repr_html_``): ``caption`` above (its first line in
    bold), ``notes`` below, one line each; every piece of text escaped."""
    from html import escape as esc  # only for notebooks' HTML (1.4 ms of import)

    cell = "padding:1px 8px;text-align:right"
    out = ["<div class=\"robodyn\">"]
    if caption:
        first, *rest = caption.split("\n")
        out.append(f"<p><b>{esc(first)}</b>" + "".join(f"<br>{esc(line)}" for line in rest)
                   + "</p>")
    out.append("<table style=\"border-collapse:collapse\">")
    out.append("<thead><tr>" + "".join(f"<th style=\"{cell}\">{esc(str(h))}</th>"
                                       for h in headers) + "</tr></thead>")
    out.append("<tbody>")
    for row in rows:
        out.append("<tr>" + "".join(f"<td style=\"{cell}\">{esc(str(c))}</td>" for c in row)
                   + "</tr>")
    out.append("</tbody></table>")
    if notes:
        out.append("<p>" + "<br>".join(esc(note) for note in notes) + "</p>")
    out.append("</div>")
    return "\n".join(out)


def png(draw: Callable, size: tuple[float, float] = (6.0, 3.2), dpi: float = 72) -> bytes:
    """PNG bytes of a small Matplotlib figure (Agg, no ``pyplot``) that ``draw(fig)`` fills."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size, layout="constrained")
    FigureCanvasAgg(fig)
    draw(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def degrees(value: float) -> str:
    """An angle in radians as degrees, ``90°`` (to 4 significant digits)."""
    deg = math.degrees(float(value))
    return f"{number(deg)}°"
