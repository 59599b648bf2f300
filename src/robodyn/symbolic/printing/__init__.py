"""Printing closed forms: text, pretty, LaTeX, Markdown, JSON (one module a format, their
shared helpers in :mod:`.common`), and HTML (:mod:`.html`, its math in MathML).

Text is one expression per line in SymPy's own syntax (``qd1**2*sin(q2)``), so what a
terminal shows can be pasted back into Python. LaTeX writes ``qd1`` as
:math:`\\dot q_1`, breaks long sums over lines (``align*``), and ``document=True``
gives a file that ``pdflatex`` compiles. JSON holds every expression as a string that
:func:`sympy.parse_expr` reads back to the same expression (Floats keep every bit).

Every format takes ``shorthand`` (``s_1 = sin q1``, ``c_12 = cos(q1 + q2)`` and named
recurring terms such as ``h``, declared once at the top; on by default for pretty, LaTeX
and Markdown, off for text and JSON, which scripts read back) and ``digits`` (Floats
rounded to that many significant digits); see :mod:`.readable`.
"""
