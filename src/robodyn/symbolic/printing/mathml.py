"""Presentation MathML from the LaTeX that robodyn prints, for the HTML page.

:func:`tex_to_mathml` reads the subset of LaTeX that :mod:`.latex` writes (SymPy's
``latex()`` of the closed forms, the steps' left sides and formulas, ``align*`` blocks with
their line breaks, the model's display names) and writes MathML Core, which browsers
render without a script: ``mi``/``mn``/``mo``/``mtext``, ``msub``/``msup``/``msubsup``,
``munder``/``mover``, ``mfrac``, ``msqrt``/``mroot``, ``mtable``, ``mspace``, ``mrow``.
Translating robodyn's own LaTeX (rather than printing the expressions a second way) makes
the page show what the LaTeX and Markdown show: the same names, shorthand and line breaks.

Every character of the input ends up escaped in a text node (control and invisible
characters written ``<U+XXXX>``, :func:`~robodyn.model.names.visible`); a command the translator
does not know is shown as its name in text (``\\foo``), never passed through; input that
does not parse (an unbalanced brace) is shown whole as text. Nesting deeper than
:data:`MAX_DEPTH` and input longer than :data:`MAX_CHARS` are shown as text too, so no
input can make the translator recurse without bound.
"""

from __future__ import annotations

from html import escape

from ...model.names import visible

#: Deepest nesting of groups the translator follows (robodyn's LaTeX nests < 20 deep).
MAX_DEPTH = 200
#: Longest LaTeX translated (puma560's longest entry is far below this).
MAX_CHARS = 2_000_000

GREEK = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ϵ",
    "varepsilon": "ε", "zeta": "ζ", "eta": "η", "theta": "θ", "vartheta": "ϑ", "iota": "ι",
    "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "omicron": "ο", "pi": "π",
    "varpi": "ϖ", "rho": "ρ", "varrho": "ϱ", "sigma": "σ", "varsigma": "ς", "tau": "τ",
    "upsilon": "υ", "phi": "ϕ", "varphi": "φ", "chi": "χ", "psi": "ψ", "omega": "ω",
    "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
    "Sigma": "Σ", "Upsilon": "Υ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
}
#: Symbols written as identifiers (``mi``), upright.
IDENTIFIERS = {"partial": "∂", "nabla": "∇", "infty": "∞", "ell": "ℓ", "hbar": "ℏ",
               "emptyset": "∅", "top": "⊤", "intercal": "⊺", "dagger": "†"}
#: Operators and relations (``mo``).
OPERATORS = {
    "times": "×", "cdot": "⋅", "pm": "±", "mp": "∓", "le": "≤", "leq": "≤", "ge": "≥",
    "geq": "≥", "ne": "≠", "neq": "≠", "approx": "≈", "equiv": "≡", "sim": "∼",
    "simeq": "≃", "propto": "∝", "to": "→", "rightarrow": "→", "leftarrow": "←",
    "Rightarrow": "⇒", "Leftarrow": "⇐", "leftrightarrow": "↔", "mapsto": "↦", "in": "∈",
    "notin": "∉", "subset": "⊂", "cup": "∪", "cap": "∩", "wedge": "∧", "vee": "∨",
    "otimes": "⊗", "oplus": "⊕", "circ": "∘", "ast": "∗", "star": "⋆", "ldots": "…",
    "cdots": "⋯", "dots": "…", "vdots": "⋮", "ddots": "⋱", "prime": "′", "mid": "∣",
    "parallel": "∥", "perp": "⊥", "langle": "⟨", "rangle": "⟩", "lbrack": "[",
    "rbrack": "]", "vert": "|", "Vert": "‖", "lVert": "‖", "rVert": "‖", "lvert": "|",
    "rvert": "|", "colon": ":", "setminus": "∖", "forall": "∀", "exists": "∃",
    "neg": "¬", "lfloor": "⌊", "rfloor": "⌋", "lceil": "⌈", "rceil": "⌉",
}
#: Large operators, with their limits below and above in display style.
LARGE = {"sum": "∑", "prod": "∏", "int": "∫", "oint": "∮", "bigcup": "⋃", "bigcap": "⋂"}
#: Named functions, upright, followed by function application.
FUNCTIONS = {"sin", "cos", "tan", "cot", "sec", "csc", "sinh", "cosh", "tanh", "coth",
             "arcsin", "arccos", "arctan", "exp", "log", "ln", "det", "max", "min", "sup",
             "inf", "lim", "arg", "deg", "dim", "ker", "sgn", "tr", "Re", "Im"}
#: Accents: the character put over the base.
ACCENTS = {"dot": "˙", "ddot": "¨", "dddot": "⃛", "hat": "^", "widehat": "^",
           "bar": "‾", "overline": "‾", "tilde": "~", "widetilde": "~", "vec": "→",
           "check": "ˇ", "breve": "˘", "acute": "´", "grave": "`", "mathring": "˚"}
#: Spaces, in em.
SPACES = {",": 0.1667, ":": 0.2222, ">": 0.2222, ";": 0.2778, " ": 0.25, "quad": 1.0,
          "qquad": 2.0, "enspace": 0.5, "thinspace": 0.1667, "medspace": 0.2222,
          "thickspace": 0.2778, "!": 0.0, "negthinspace": 0.0}
#: Font commands: the CSS class given to the identifiers inside.
FONTS = {"mathbf": "bf", "boldsymbol": "bi", "bm": "bi", "mathrm": "rm", "mathit": "it",
         "mathsf": "sf", "mathtt": "tt", "mathcal": "cal", "mathbb": "bb", "mathfrak": "rm"}
#: Text commands: their argument is text.
TEXTS = {"text", "textrm", "textit", "textbf", "mbox", "textsf", "texttt",
         "emph"}
#: What the LaTeX escapes of :func:`~.common.tex_escape` stand for, inside text.
TEXT_ESCAPES = {"textbackslash": "\\", "textless": "<", "textgreater": ">",
                "textasciitilde": "~", "textasciicircum": "^", "textbar": "|"}
#: Commands that change nothing here.
IGNORED = {"displaystyle", "textstyle", "limits", "nolimits", "nonumber",
           "notag", "allowbreak", "relax", "strut"}
#: Fixed-size delimiters.
BIG = {"big": 1.2, "bigl": 1.2, "bigr": 1.2, "bigm": 1.2, "Big": 1.6, "Bigl": 1.6,
       "Bigr": 1.6, "bigg": 2.1, "biggl": 2.1, "biggr": 2.1, "Bigg": 2.6, "Biggl": 2.6,
       "Biggr": 2.6}
#: Environments and their delimiters (``align``-like ones alternate right/left columns).
MATRICES = {"matrix": ("", ""), "bmatrix": ("[", "]"), "pmatrix": ("(", ")"),
            "vmatrix": ("|", "|"), "Vmatrix": ("‖", "‖"), "Bmatrix": ("{", "}"),
            "smallmatrix": ("", ""), "array": ("", ""), "cases": ("{", "")}
ALIGNED = {"aligned", "align", "align*", "split", "gathered", "gather", "gather*",
           "alignat", "alignat*", "eqnarray", "eqnarray*"}
_OPERATOR_CHARS = set("+-=<>,;:!?()[]/|*'.")


class TexError(ValueError):
    """LaTeX the translator cannot read (shown as text instead)."""


def _text(tag: str, text: str, attrs: str = "") -> str:
    return f"<{tag}{attrs}>{escape(text, quote=False)}</{tag}>"


def _row(nodes: list[str]) -> str:
    if len(nodes) == 1:
        return nodes[0]
    return "<mrow>" + "".join(nodes) + "</mrow>"


class _Parser:
    """A recursive-descent reader of one LaTeX math string."""

    def __init__(self, tex: str):
        self.s = tex
        self.i = 0
        self.depth = 0
        self.apply = False  # the atom just read is a function name (sin, operatorname)

    # -- characters ----------------------------------------------------------------
    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def skip_space(self) -> None:
        while self.i < len(self.s) and self.s[self.i] in " \t\n\r":
            self.i += 1

    def command_name(self) -> str:
        """The name after a backslash (letters, or one other character)."""
        start = self.i
        while self.i < len(self.s) and self.s[self.i].isascii() and self.s[self.i].isalpha():
            self.i += 1
        if self.i == start:
            if self.i >= len(self.s):
                raise TexError("a lone backslash at the end")
            self.i += 1
        return self.s[start:self.i]

    def braced_raw(self) -> str:
        """The raw text of a ``{...}`` argument (braces balanced), or one character."""
        self.skip_space()
        if self.peek() != "{":
            if not self.peek():
                raise TexError("an argument is missing")
            self.i += 1
            return self.s[self.i - 1]
        depth, start = 0, self.i
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "\\":
                self.i += 2
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    self.i += 1
                    return self.s[start + 1:self.i - 1]
            self.i += 1
        raise TexError("an unclosed brace")

    # -- structure -----------------------------------------------------------------
    def parse(self) -> str:
        nodes = self.items(stop=())
        if self.i < len(self.s):
            raise TexError(f"unexpected {self.s[self.i]!r}")
        return _row(nodes) if nodes else "<mrow></mrow>"

    def items(self, stop: tuple[str, ...], font: str = "") -> list[str]:
        """Nodes up to (not including) one of ``stop``: ``}``, ``&``, ``\\\\``,
        ``\\right``, ``\\end``."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TexError("nested too deep")
        nodes: list[str] = []
        while True:
            self.skip_space()
            if self.i >= len(self.s):
                if "}" in stop or "\\end" in stop or "\\right" in stop:
                    raise TexError("a group is not closed")
                break
            if self.s.startswith("\\\\", self.i) and "\\\\" not in stop:
                self.i += 2  # a line break outside a table: ignored
                continue
            if self.at_stop(stop):
                break
            ch = self.peek()
            if ch in "^_":
                self.i += 1
                base = nodes.pop() if nodes else "<mrow></mrow>"
                nodes.append(self.scripts(base, ch, font))
                continue
            if ch == "'":
                self.i += 1
                base = nodes.pop() if nodes else "<mrow></mrow>"
                nodes.append(f"<msup>{base}<mo>′</mo></msup>")
                continue
            self.apply = False
            node = self.atom(font)
            if node:
                nodes.append(node)
            if self.apply:  # sin, operatorname: scripts go on the name, then the application
                self.skip_space()
                if self.peek() in ("^", "_") and self.peek():
                    mark = self.peek()
                    self.i += 1
                    nodes.append(self.scripts(nodes.pop(), mark, font))
                nodes.append("<mo>&#x2061;</mo>")
                self.apply = False
        self.depth -= 1
        return nodes

    def at_stop(self, stop) -> bool:
        ch = self.peek()
        if ch == "}":
            if "}" in stop:
                return True
            raise TexError("an unmatched closing brace")
        if ch == "&":
            if "&" in stop:
                return True
            raise TexError("& outside a table")
        if ch == "\\":
            rest = self.s[self.i + 1:self.i + 6]
            if rest.startswith("\\"):
                return "\\\\" in stop
            for word in ("right", "end"):
                if rest.startswith(word) and not self.s[self.i + 1 + len(word):
                                                        self.i + 2 + len(word)].isalpha():
                    if "\\" + word in stop:
                        return True
                    raise TexError(f"an unmatched \\{word}")
        return False

    def scripts(self, base: str, first: str, font: str) -> str:
        """``base`` with the sub- and superscript that follow (either order)."""
        sub = sup = None
        mark = first
        while True:
            arg = self.argument(font)
            if mark == "_":
                if sub is not None:
                    raise TexError("a double subscript")
                sub = arg
            else:
                if sup is not None:
                    raise TexError("a double superscript")
                sup = arg
            self.skip_space()
            if self.peek() in "^_" and self.peek():
                mark = self.peek()
                self.i += 1
                continue
            break
        large = base.startswith('<mo largeop="true"')
        if sub is not None and sup is not None:
            tag = "munderover" if large else "msubsup"
            return f"<{tag}>{base}{sub}{sup}</{tag}>"
        if sub is not None:
            tag = "munder" if large else "msub"
            return f"<{tag}>{base}{sub}</{tag}>"
        tag = "mover" if large else "msup"
        return f"<{tag}>{base}{sup}</{tag}>"

    def argument(self, font: str = "") -> str:
        """One argument: a braced group, a command, or one character."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise TexError("nested too deep")
        try:
            return self._argument(font)
        finally:
            self.depth -= 1

    def _argument(self, font: str) -> str:
        self.skip_space()
        ch = self.peek()
        if not ch:
            raise TexError("an argument is missing")
        if ch == "{":
            self.i += 1
            nodes = self.items(("}",), font)
            self.i += 1
            return _row(nodes) if nodes else "<mrow></mrow>"
        if ch.isdigit():
            self.i += 1
            return _text("mn", ch)
        node = self.atom(font)
        return node or "<mrow></mrow>"

    def atom(self, font: str = "") -> str:
        ch = self.peek()
        if ch == "{":
            self.i += 1
            nodes = self.items(("}",), font)
            self.i += 1
            return _row(nodes) if nodes else ""
        if ch == "\\":
            self.i += 1
            return self.command(self.command_name(), font)
        if ch.isdigit() or (ch == "." and self.s[self.i + 1:self.i + 2].isdigit()):
            start = self.i
            while self.i < len(self.s) and (self.s[self.i].isdigit() or (
                    self.s[self.i] == "." and self.s[self.i + 1:self.i + 2].isdigit())):
                self.i += 1
            return _text("mn", self.s[start:self.i])
        if ch.isascii() and ch.isalpha() and not font:
            # a run of letters (a name such as Ixx): one identifier, set in italic by the
            # page's style (class "n"; several letters in one mi are upright by default)
            start = self.i
            while self.i < len(self.s) and self.s[self.i].isascii() and self.s[self.i].isalpha():
                self.i += 1
            run = self.s[start:self.i]
            if len(run) == 1:
                return self.identifier(run, font)
            return _text("mi", run, ' class="n"')
        self.i += 1
        if ch.isalpha():
            return self.identifier(ch, font)
        if ch == "~":
            return '<mspace width="0.25em"></mspace>'
        if ch == "-":
            return _text("mo", "−")
        if ch in _OPERATOR_CHARS:
            attrs = ' stretchy="false"' if ch in "()[]/|" else ""
            return _text("mo", ch, attrs)
        if ch in "#$%":
            raise TexError(f"{ch!r} in math")
        return _text("mo" if not ch.isalnum() else "mi", ch)

    def identifier(self, text: str, font: str, upright: bool = False) -> str:
        attrs = ""
        if font:
            attrs = f' class="{font}"'
        if (upright or font in ("bf", "rm", "sf", "tt")) and len(text) == 1:
            attrs += ' mathvariant="normal"'
        return _text("mi", text, attrs)

    def command(self, name: str, font: str) -> str:
        if name in GREEK:
            return self.identifier(GREEK[name], font, upright=name[0].isupper())
        if name in IDENTIFIERS:
            return self.identifier(IDENTIFIERS[name], font, upright=True)
        if name in OPERATORS:
            return _text("mo", OPERATORS[name])
        if name in LARGE:
            return _text("mo", LARGE[name], ' largeop="true" movablelimits="true"')
        if name in FUNCTIONS:
            self.apply = True
            return _text("mi", name)
        if name in SPACES:
            return f'<mspace width="{SPACES[name]}em"></mspace>'
        if name in IGNORED:
            return ""
        if name in ("{", "}", "|", "#", "$", "%", "&", "_"):
            return _text("mo" if name in "{}|" else "mi", "‖" if name == "|" else name)
        if name in ("frac", "tfrac", "dfrac", "cfrac"):
            num, den = self.argument(font), self.argument(font)
            attrs = ' displaystyle="false"' if name == "tfrac" else ""
            frac = f"<mfrac>{num}{den}</mfrac>"
            return f"<mstyle{attrs}>{frac}</mstyle>" if attrs else frac
        if name == "binom":
            top, bottom = self.argument(font), self.argument(font)
            return (f'<mrow><mo>(</mo><mfrac linethickness="0">{top}{bottom}</mfrac>'
                    "<mo>)</mo></mrow>")
        if name == "sqrt":
            self.skip_space()
            if self.peek() == "[":
                self.i += 1
                index = self.items_until_bracket(font)
                return f"<mroot>{self.argument(font)}{index}</mroot>"
            return f"<msqrt>{self.argument(font)}</msqrt>"
        if name in ACCENTS:
            base = self.argument(font)
            return f'<mover accent="true">{base}<mo>{ACCENTS[name]}</mo></mover>'
        if name == "underline":
            return f'<munder accentunder="true">{self.argument(font)}<mo>_</mo></munder>'
        if name in FONTS:
            inner = FONTS[name]
            if inner == "rm":  # upright letters read as one word: \mathrm{DH}
                raw = self.braced_raw()
                if raw.isascii() and raw.isalpha():
                    return self.identifier(raw, "rm", upright=True)
                return _row(_Parser(raw).nested(self.depth, inner)) if raw else ""
            self.skip_space()
            if self.peek() == "{":
                self.i += 1
                nodes = self.items(("}",), inner)
                self.i += 1
                return _row(nodes) if nodes else ""
            return self.argument(inner)
        if name == "operatorname":
            self.apply = True
            return _text("mi", text_of(self.braced_raw()))
        if name in TEXTS:
            return _text("mtext", text_of(self.braced_raw()))
        if name in TEXT_ESCAPES:
            self.skip_space()
            if self.s.startswith("{}", self.i):
                self.i += 2
            return _text("mtext", TEXT_ESCAPES[name])
        if name in ("left", "right") or name in BIG:
            return self.delimited(name, font)
        if name == "begin":
            return self.environment(font)
        if name == "\\":
            return ""
        return _text("mtext", "\\" + name, ' class="tex-unknown"')

    def nested(self, depth: int, font: str) -> list[str]:
        self.depth = depth
        nodes = self.items((), font)
        if self.i < len(self.s):
            raise TexError("unexpected input in a group")
        return nodes

    def items_until_bracket(self, font: str) -> str:
        start = self.i
        depth = 0
        while self.i < len(self.s):
            ch = self.s[self.i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "]" and depth == 0:
                raw = self.s[start:self.i]
                self.i += 1
                return _row(_Parser(raw).nested(self.depth, font) or ["<mrow></mrow>"])
            self.i += 1
        raise TexError("an unclosed [")

    def delimiter(self) -> str:
        self.skip_space()
        ch = self.peek()
        if not ch:
            raise TexError("a delimiter is missing")
        if ch == "\\":
            self.i += 1
            name = self.command_name()
            table = {"{": "{", "}": "}", "|": "‖", "langle": "⟨", "rangle": "⟩",
                     "lbrack": "[", "rbrack": "]", "vert": "|", "Vert": "‖", "lVert": "‖",
                     "rVert": "‖", "lvert": "|", "rvert": "|", "lfloor": "⌊", "rfloor": "⌋",
                     "lceil": "⌈", "rceil": "⌉"}
            if name not in table:
                raise TexError(f"\\{name} is no delimiter")
            return table[name]
        self.i += 1
        if ch not in "()[]|./<>":
            raise TexError(f"{ch!r} is no delimiter")
        return {"<": "⟨", ">": "⟩"}.get(ch, ch)

    def delimited(self, name: str, font: str) -> str:
        if name in BIG:
            size = BIG[name]
            d = self.delimiter()
            if d == ".":
                return ""
            return (f'<mo stretchy="true" symmetric="true" minsize="{size}em" '
                    f'maxsize="{size}em">{escape(d, quote=False)}</mo>')
        if name == "right":
            raise TexError("an unmatched \\right")
        left = self.delimiter()
        nodes = self.items(("\\right",), font)
        self.i += len("\\right")
        right = self.delimiter()
        out = []
        if left != ".":
            out.append(_text("mo", left, ' fence="true" stretchy="true"'))
        out += nodes
        if right != ".":
            out.append(_text("mo", right, ' fence="true" stretchy="true"'))
        return "<mrow>" + "".join(out) + "</mrow>"

    def environment(self, font: str) -> str:
        env = self.braced_raw()
        if env not in MATRICES and env not in ALIGNED:
            raise TexError(f"the environment {env!r}")
        if env in ("array", "alignat", "alignat*"):
            self.braced_raw()  # the column specification / count
        rows: list[list[str]] = [[]]
        while True:
            nodes = self.items(("&", "\\\\", "\\end"), font)
            rows[-1].append(_row(nodes) if nodes else "")
            if self.s.startswith("&", self.i):
                self.i += 1
            elif self.s.startswith("\\\\", self.i):
                self.i += 2
                self.skip_space()
                if self.s.startswith("[", self.i):  # \\[2pt]
                    close = self.s.find("]", self.i)
                    if close < 0:
                        raise TexError("an unclosed [")
                    self.i = close + 1
                rows.append([])
            else:
                self.i += len("\\end")
                if self.braced_raw() != env:
                    raise TexError(f"\\begin{{{env}}} ended by another \\end")
                break
        if rows and rows[-1] == [""]:
            rows.pop()  # a trailing \\
        aligned = env in ALIGNED
        cls = "align" if aligned else ("cases" if env == "cases" else "matrix")
        body = []
        for row in rows:
            cells = []
            for k, cell in enumerate(row):
                side = (' class="r"' if k % 2 == 0 else ' class="l"') if aligned else \
                    (' class="l"' if env == "cases" else "")
                # an aligned block's right column starts with its relation: no empty base
                cells.append(f"<mtd{side}>{cell}</mtd>")
            body.append("<mtr>" + "".join(cells) + "</mtr>")
        table = f'<mtable class="{cls}">' + "".join(body) + "</mtable>"
        if aligned:
            return f'<mstyle displaystyle="true">{table}</mstyle>'
        left, right = MATRICES[env]
        out = [_text("mo", left, ' fence="true" stretchy="true"')] if left else []
        out.append(table)
        if right:
            out.append(_text("mo", right, ' fence="true" stretchy="true"'))
        return "<mrow>" + "".join(out) + "</mrow>"


def text_of(raw: str) -> str:
    """The text of a ``\\text{...}`` argument: :func:`~.common.tex_escape`'s escapes read
    back (``\\_`` as ``_``, ``\\textbackslash{}`` as ``\\``), braces dropped."""
    out, i = [], 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\\" and i + 1 < len(raw):
            j = i + 1
            while j < len(raw) and raw[j].isascii() and raw[j].isalpha():
                j += 1
            name = raw[i + 1:j] if j > i + 1 else raw[i + 1]
            i = j if j > i + 1 else i + 2
            if raw.startswith("{}", i):
                i += 2
            if name in TEXT_ESCAPES:
                out.append(TEXT_ESCAPES[name])
            elif name in ("^", "~"):
                out.append(name)
            elif len(name) == 1 and not name.isalpha():
                out.append(" " if name in ", ;:" else name)
            else:
                out.append("\\" + name)
            continue
        if ch not in "{}":
            out.append(ch)
        i += 1
    return "".join(out)


def tex_to_mathml(tex: str, display: bool = True) -> str:
    """The ``<math>`` element of the LaTeX math ``tex`` (see the module docstring).

    ``display``: a block (``display="block"``) or inline in text. LaTeX that the
    translator cannot read is shown as escaped text in the ``<math>`` element."""
    # line breaks and tabs are TeX's spaces; other control and invisible characters are
    # written <U+XXXX>
    tex = visible(" ".join(str(tex).replace("\r", "\n").replace("\t", " ").split("\n")))
    try:
        if len(tex) > MAX_CHARS:
            raise TexError("too long")
        body = _Parser(tex).parse()
    except (TexError, RecursionError):
        body = _text("mtext", tex, ' class="tex-source"')
    attr = ' display="block"' if display else ""
    return f"<math{attr}>{body}</math>"


__all__ = ["tex_to_mathml", "TexError", "text_of"]
