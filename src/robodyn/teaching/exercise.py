"""Exercises for a dynamics course: a random small arm, its task sheet and its solution.

:func:`make_exercise` draws a small serial arm (1 to 3 joints, each revolute ``R`` or
prismatic ``P``) from a seed: for every link a standard-DH row (twist ``alpha`` of 0 or
+-pi/2, a link length ``l_i`` or none), the centre of mass on the link, a diagonal
inertia tensor about it, and gravity along ``-y0`` or ``-z0``. Every parameter stays a
symbol (``m1``, ``l1``, ``lc1``, ``Ixx1``, ..., ``g``) and gets a plausible default value
(inertias within the triangle inequality). The same seed gives the same arm, byte for
byte (:class:`random.Random` with that seed; nothing depends on time or hashing).

:meth:`Exercise.write` writes two folders, one to hand out and one to keep::

    task/arm.yaml        the model file (robodyn load / derive / check read it)
    task/task.md         the task sheet: the given data and the questions (Markdown)
    task/task.tex        the same for pdflatex
    solution/solution.txt, .md, .tex   the worked derivation (robodyn derive --steps)
    solution/answer.json               M, C, g, tau as text, for robodyn check

The solution is the output of :func:`robodyn.symbolic.equations` on the written model
file, by Lagrange–Euler, with every step.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ..core.errors import InputError

__all__ = ["Exercise", "make_exercise", "MAX_DOF"]

#: Most joints of an exercise arm (the derivation stays a page or two).
MAX_DOF = 3
_TWISTS = ("0", "pi/2", "-pi/2")


@dataclass(frozen=True)
class Exercise:
    """A random arm (:attr:`model_yaml`, a robodyn model file) drawn from :attr:`seed`."""

    name: str
    joints: str
    seed: int
    model_yaml: str
    values: dict = field(default_factory=dict)
    #: per link ``(mass, com, inertia)`` as SymPy, in DH frame ``i`` (as the model file)
    links: tuple = ()
    gravity: tuple = ()

    @property
    def dof(self) -> int:
        return len(self.joints)

    def write(self, out: str | Path, option: str = "out") -> list[Path]:
        """Write ``out/task/`` (model file, task sheet) and ``out/solution/`` (the worked
        derivation); returns the paths written, in order. The files are replaced each
        time (not through a symbolic link: one is refused); a folder that cannot be made
        is an :class:`InputError` naming ``option`` (``--out`` for the command line)."""
        from ..codegen.export.files import prepare_folder, write_files
        from ..robot import load
        from ..symbolic import equations

        out = prepare_folder(out, option)
        task, solution = out / "task", out / "solution"
        (model,) = write_files({"arm.yaml": self.model_yaml}, task, force=True, option=option)
        eq = equations(load(model), method="lagrange")
        written = write_files({"task.md": task_markdown(self, eq),
                               "task.tex": task_latex(self, eq)}, task, force=True,
                              option=option)
        written += write_files({"solution.txt": eq.text(steps=True),
                                "solution.md": eq.markdown(steps=True),
                                "solution.tex": eq.latex(steps=True, document=True),
                                "answer.json": eq.json()}, solution, force=True,
                               option=option)
        return [model, *written]


def make_exercise(dof: int = 2, joints: str | None = None, seed: int = 0) -> Exercise:
    """Draw an arm of ``dof`` joints of the types ``joints`` (``"RP"``: revolute then
    prismatic; default: drawn too) from ``seed``; see the module."""
    if joints is not None:
        joints = str(joints).strip().upper()
        if not joints or set(joints) - {"R", "P"}:
            raise InputError(f"joints: {joints[:20]!r} is not a string of R (revolute) and P "
                             "(prismatic), e.g. RP")
        if dof is None:
            dof = len(joints)
    if isinstance(dof, bool) or not isinstance(dof, int) or not 1 <= dof <= MAX_DOF:
        raise InputError(f"dof: {str(dof)[:20]!r} is not a number of joints from 1 to "
                         f"{MAX_DOF}")
    if joints is not None and len(joints) != dof:
        raise InputError(f"joints: {joints!r} names {len(joints)} joint(s) but dof is {dof}; "
                         f"give {dof} letters R/P")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {str(seed)[:20]!r} is not a non-negative integer")
    rng = random.Random(seed)
    if joints is None:
        joints = "".join(rng.choice("RP") for _ in range(dof))
    gravity = rng.choice(("[0, -g, 0]", "[0, 0, -g]"))
    data = []
    values: dict[str, float] = {}
    links, display = [], {}
    for i, kind in enumerate(joints, start=1):
        alpha = rng.choice(_TWISTS) if i < dof else "0"
        m = f"m{i}"
        values[m] = round(rng.uniform(0.5, 3.0), 1)
        if kind == "R":
            display[f"q{i}"] = f"theta_{i}"
            a = f"l{i}" if rng.random() < 0.75 else "0"
            if a != "0":
                values[f"l{i}"] = round(rng.uniform(0.3, 1.0), 2)
                values[f"lc{i}"] = round(values[f"l{i}"] * rng.uniform(0.3, 0.7), 2)
                com = f"[lc{i} - l{i}, 0, 0]"   # frame i at the link's far end
                display[f"lc{i}"] = f"\\ell_{{c_{i}}}"
            else:
                com = "[0, 0, 0]"
            row = dict(joint="revolute", a=a, alpha=alpha, d="0", theta="0")
        else:
            display[f"q{i}"] = f"d_{i}"
            theta = rng.choice(("0", "pi/2"))
            if rng.random() < 0.5:
                values[f"lc{i}"] = round(rng.uniform(0.05, 0.3), 2)
                com = f"[0, 0, -lc{i}]"         # behind the slider's end, along its axis
                display[f"lc{i}"] = f"\\ell_{{c_{i}}}"
            else:
                com = "[0, 0, 0]"
            row = dict(joint="prismatic", a="0", alpha=alpha, d="0", theta=theta)
        for axis in ("xx", "yy", "zz"):
            values[f"I{axis}{i}"] = round(rng.uniform(0.03, 0.05), 3)
        row.update(mass=m, com=com, inertia=f"[Ixx{i}, Iyy{i}, Izz{i}, 0, 0, 0]")
        links.append(row)
        data.append((sp.Symbol(m), _column(com),
                     sp.diag(*sp.symbols(f"Ixx{i} Iyy{i} Izz{i}"))))
    values["g"] = 9.81
    name = f"exercise-{joints.lower()}-{seed}"
    lines = [f"# Exercise arm drawn by robodyn exercise --dof {dof} --joints {joints} "
             f"--seed {seed}", f"name: {name}", "dh: standard", f"gravity: {gravity}",
             "links:"]
    for row in links:
        first = True
        for key in ("joint", "a", "alpha", "d", "theta", "mass", "com", "inertia"):
            lines.append(f"  {'- ' if first else '  '}{key}: {row[key]}")
            first = False
    lines.append("display:")
    lines += [f"  {k}: \"{v.replace(chr(92), chr(92) * 2)}\"" for k, v in display.items()]
    lines.append("values:")
    lines += [f"  {k}: {v}" for k, v in values.items()]
    lines.append(f"description: Random {dof}-DOF {joints} arm (seed {seed}) for an exercise "
                 "in Lagrange-Euler dynamics.")
    return Exercise(name, joints, seed, "\n".join(lines) + "\n", values, tuple(data),
                    _column(gravity))


def _column(text: str) -> sp.Matrix:
    """``"[lc1 - l1, 0, 0]"`` (this module's own text) as a SymPy column."""
    items = text.strip("[]").split(",")
    return sp.Matrix([sp.Integer(0) if x.strip() == "0" else _linear(x) for x in items])


def _linear(text: str) -> sp.Expr:
    """A sum of signed names (``lc1 - l1``, ``-g``) as SymPy, without parsing code."""
    out, sign = sp.Integer(0), 1
    for token in text.replace("-", " - ").replace("+", " + ").split():
        if token in "+-":
            sign = -1 if token == "-" else 1
        else:
            out += sign * sp.Symbol(token)
            sign = 1
    return out


# -- the task sheet ----------------------------------------------------------------------
QUESTIONS = [
    "Write the homogeneous transforms A_i and T_i = A_1 ... A_i, and the position p_ci of "
    "each link's centre of mass in the base frame.",
    "Write the kinetic energy K and the potential energy U; read the inertia matrix M(q) "
    "off K = 1/2 qd^T M(q) qd.",
    "Compute all Christoffel symbols c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) "
    "and the matrix C(q, qd) with C_ij = sum_k c_ijk qd_k.",
    "Show that N = dM/dt - 2C is skew-symmetric.",
    "Compute the gravity torques g(q) = dU/dq and write the equations of motion "
    "M(q) qdd + C(q, qd) qd + g(q) = tau.",
]


def _given(ex: Exercise, eq) -> list[tuple[str, str, sp.Basic]]:
    """``(title, LaTeX lhs, value)`` of the data a task sheet gives: the DH table, each
    link's centre of mass and inertia tensor in its DH frame (as the model file
    writes them), gravity."""
    out = [(s.title, s.latex_lhs, s.expression) for s in eq.steps if s.lhs == "DH"]
    for k, (_mass, com, inertia) in enumerate(ex.links, start=1):
        out += [(f"Link {k}: centre of mass in DH frame {k}", rf"\mathbf{{c}}_{{{k}}}", com),
                (f"Link {k}: inertia tensor about the centre of mass, axes of DH frame {k}",
                 rf"\mathbf{{I}}_{{{k}}}", inertia)]
    out.append(("Gravity (base frame)", r"\mathbf{g}_0", ex.gravity))
    return out


def _check_hint(ex: Exercise) -> str:
    rows = ", ".join("[" + ", ".join("..." for _ in range(ex.dof)) + "]" for _ in range(ex.dof))
    return f'robodyn check arm.yaml --M "[{rows}]" --g "[...]"'


def task_markdown(ex: Exercise, eq) -> str:
    """The task sheet in Markdown: the arm's data (DH table, link data, gravity) and the
    questions."""
    from ..symbolic.printing.render import markdown_math

    names = ", ".join(f"${eq_tex(eq, q)}$ ({t})" for q, t in zip(eq.q, eq.joint_types,
                                                                 strict=True))
    out = [f"# Exercise: dynamics of a {ex.dof}-DOF {ex.joints} arm (seed {ex.seed})", "",
           f"Joint variables: {names}. Standard Denavit-Hartenberg frames; link $i$ has "
           "mass $m_i$; the model file is `arm.yaml`.", "", "## Given", ""]
    for title, lhs, value in _given(ex, eq):
        out += [f"**{title}**", "", markdown_math(eq, lhs, value), ""]
    out += ["## Questions", ""]
    out += [f"{k}. {text}" for k, text in enumerate(QUESTIONS, start=1)]
    out += ["", "Check your answer (text as in Python, `^` for powers, your own symbol names "
            "mapped with `--symbols theta1=q1`):", "", "```", _check_hint(ex), "```", ""]
    return "\n".join(out)


def task_latex(ex: Exercise, eq) -> str:
    """The task sheet as a LaTeX document (``pdflatex task.tex``)."""
    from ..symbolic.printing.render import tex_escape, tex_lines

    names = ", ".join(f"${eq_tex(eq, q)}$ ({t})" for q, t in zip(eq.q, eq.joint_types,
                                                                 strict=True))
    out = ["\\documentclass[11pt]{article}", "\\usepackage[margin=2cm]{geometry}",
           "\\usepackage{amsmath}", "\\setlength{\\parindent}{0pt}", "\\begin{document}",
           f"\\section*{{Exercise: dynamics of a {ex.dof}-DOF {ex.joints} arm "
           f"(seed {ex.seed})}}",
           f"Joint variables: {names}. Standard Denavit--Hartenberg frames; link $i$ has "
           "mass $m_i$; the model file is \\texttt{arm.yaml}.", "\\subsection*{Given}"]
    for title, lhs, value in _given(ex, eq):
        out.append(f"\\paragraph{{{tex_escape(title)}}}")
        out.append(tex_lines(eq, lhs, value))
    out += ["\\subsection*{Questions}", "\\begin{enumerate}"]
    out += [f"  \\item {tex_escape(text)}" for text in QUESTIONS]
    out += ["\\end{enumerate}", "Check your answer:", "\\begin{verbatim}", _check_hint(ex),
            "\\end{verbatim}", "\\end{document}"]
    return "\n".join(out) + "\n"


def eq_tex(eq, expr) -> str:
    from ..symbolic.printing.render import tex_of

    return tex_of(eq, expr)
