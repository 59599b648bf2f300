"""Exercises for a dynamics course: a random small arm, its task sheet and its solution.

:func:`make_exercise` draws a small serial arm (1 to 3 joints, each revolute ``R`` or
prismatic ``P``) from a seed: for every link a standard-DH row (twist ``alpha`` of 0 or
+-pi/2, a link length ``l_i`` or none), the centre of mass on the link, a diagonal
inertia tensor about it, and gravity along ``-y0`` or ``-z0``. ``planar=True`` draws a
planar arm (revolute joints about parallel axes, gravity in the plane, only the moments
``Izz_i`` about the joint axes); ``point_masses=True`` adds a payload ``mE`` at the end of
the last link and, with two joints or more, the motor of joint 2 (``mM2``) at the end of
link 1. Every parameter stays a symbol (``m1``, ``l1``, ``lc1``, ``Ixx1``, ..., ``g``) with
a plausible default value (inertias within the triangle inequality), and every symbol is
defined on the sheet. The same seed gives the same arm, byte for byte
(:class:`random.Random` with that seed; nothing depends on time or hashing).

:meth:`Exercise.write` writes two folders, one to hand out and one to keep::

    task/arm.yaml        the model file (robodyn load / derive / check read it)
    task/arm.png         the figure (when a figure function is given; the command draws it)
    task/task.md         the task sheet: the figure, the symbols, the given data (DH table,
    task/task.tex        centres of mass and inertias in the DH frames) and the questions
    solution/solution.txt, .md, .tex     the answers, question by question, in the DH frames
    solution/derivation.txt, .md, .tex   the whole derivation (robodyn derive --steps)
    solution/answer.json                 M, C, g, tau as text (eq.json()) and "model_file":
                                         the model file's text, for robodyn check / grade

The questions follow the route asked (:data:`~robodyn.teaching.questions.ROUTES`) and the
quantities asked (:data:`~robodyn.teaching.questions.QUANTITIES`): first the kinematics (the
``A_i``, ``T_i`` and the centres of mass ``p_ci``), then ``M`` the way the route reads it,
then ``C`` (Christoffel symbols, and the skew-symmetry of ``dM/dt - 2C``), ``g``, the
equations of motion, the regressor in the arm's masses and inertias. The solution answers
them in that order and that way (:class:`~robodyn.teaching.sheet.Sheet`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..core.errors import InputError
from ..core.lazy import sp
from ..model.expressions import parse_expression
from .questions import ROUTE_NAMES, questions_of, route_key
from .sheet import FIGURE_POSE, Sheet

__all__ = ["Exercise", "make_exercise", "MAX_DOF", "generic_pose", "REQUIREMENTS",
           "collinear_slides", "MODES", "ASSESSMENT_MARK"]

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
    #: ``(symbol name, LaTeX, meaning)`` of every symbol the sheet uses, in order
    symbols: tuple = ()
    #: per link ``((mass, position in DH frame i), ...)`` of its point masses
    point_masses: tuple = ()
    planar: bool = False
    #: per link its DH row ``(kind "R"/"P", a, alpha, d, theta)`` as the model file's text
    dh: tuple = ()

    @property
    def dof(self) -> int:
        return len(self.joints)

    def write(self, out: str | Path, option: str = "out", *, route: str = "energy",
              questions=None, figure=None, force: bool = False,
              mode: str = "practice") -> list[Path]:
        """Write ``out/task/`` (model file, figure, task sheet) and ``out/solution/`` (the
        answers and the worked derivation); returns the paths written, in order.

        ``mode="assessment"`` (:data:`MODES`) writes ``out/student/`` instead, with only
        the sheet and the figure, and ``out/lecturer/`` with the model file (marked
        :data:`ASSESSMENT_MARK`, so ``robodyn check --reveal`` refuses it), the solution
        and ``answer.json``: nothing in the student's folder is read by robodyn.

        ``route``: how ``M`` is found, one of :data:`~robodyn.teaching.questions.ROUTES`;
        ``questions``: the quantities asked, a subset of
        :data:`~robodyn.teaching.questions.QUANTITIES` (a list or ``"M,C,g"``; default
        ``M, C, g, tau``); ``figure``: a function ``figure(robot, q, path)`` that draws the
        arm at ``q`` into the PNG ``path`` (the command line passes
        :func:`robodyn.plot.exercise_figure.exercise_figure`; the teaching layer does not
        draw). Every file is checked before any is written, by the rule of
        :mod:`robodyn.codegen.export.files`: a file robodyn wrote earlier is replaced, one
        robodyn did not write or the user edited since (a teacher's changed ``task.md``) is
        refused unless ``force``, a symbolic link is refused; a folder that cannot be made
        is an :class:`InputError` naming ``option``
        (``--out`` for the command line)."""
        import json

        from ..codegen.export.files import check_files, prepare_folder, write_files
        from ..robot import load
        from ..symbolic import equations

        route = route_key(route)
        asked = questions_of(questions)
        if mode not in MODES:
            raise InputError(f"mode: {str(mode)[:20]!r} is not one of {', '.join(MODES)}")
        assessment = mode == "assessment"
        task_files = ["task.md", "task.tex"] + (["arm.png"] if figure else [])
        solution_files = ["solution.txt", "solution.md", "solution.tex", "derivation.txt",
                          "derivation.md", "derivation.tex", "answer.json"]
        if assessment:  # the model file stays with the lecturer
            task, solution = Path(out) / "student", Path(out) / "lecturer"
            solution_files.insert(0, "arm.yaml")
            model_yaml = ASSESSMENT_MARK + "\n" + self.model_yaml
            model_folder = solution
        else:
            task, solution = Path(out) / "task", Path(out) / "solution"
            task_files.insert(0, "arm.yaml")
            model_yaml, model_folder = self.model_yaml, task
        if Path(out).is_symlink():
            prepare_folder(out, option)  # refuses the link, before anything is written
        check_files(task_files, task, force, option)
        check_files(solution_files, solution, force, option)
        out = prepare_folder(out, option)
        (model,) = write_files({"arm.yaml": model_yaml}, model_folder, force=force,
                               option=option)
        robot = load(model)
        method = "newton-euler" if route == "newton-euler" else "lagrange"
        eq = equations(robot, method=method,
                       route=None if method == "newton-euler" else ROUTE_NAMES[route])
        written = [model]
        has_figure = figure is not None
        if has_figure:
            written += write_files({"arm.png": lambda p: figure(robot, generic_pose(self), p)},
                                   task, force=force, option=option)
        sheet = Sheet(self, eq, robot, route, asked, has_figure, assessment=assessment)
        written += write_files({"task.md": sheet.task_markdown(),
                                "task.tex": sheet.task_latex()}, task, force=force,
                               option=option)
        answer = json.loads(eq.json())
        answer["model_file"] = model_yaml  # "model" is the model's name
        answer["mode"] = mode
        answer["asked"] = list(asked)  # grade: unanswered rows, C must be Christoffel's
        answer["pi"] = sheet.pi()  # grade: the regressor Y's parameters
        written += write_files({"solution.txt": sheet.solution_text(),
                                "solution.md": sheet.solution_markdown(),
                                "solution.tex": sheet.solution_latex(),
                                "derivation.txt": eq.text(steps=True),
                                "derivation.md": eq.markdown(steps=True),
                                "derivation.tex": eq.latex(steps=True, document=True),
                                "answer.json": json.dumps(answer, indent=2) + "\n"},
                               solution, force=force, option=option)
        return written


#: How an exercise is written: ``practice`` (the student's ``task/`` holds the model file,
#: so ``robodyn check`` and ``derive`` work on it) or ``assessment`` (the student's
#: ``student/`` holds only the sheet and the figure; the model file and the solution are in
#: ``lecturer/``).
MODES = ("practice", "assessment")
#: The first line of an assessment's model file; ``robodyn check --reveal`` refuses a model
#: file that starts with it (a lecturer derives the answer with ``robodyn derive``).
ASSESSMENT_MARK = "# robodyn exercise --mode assessment: the lecturer's copy, not for students"

#: What ``require`` may ask of a drawn arm: ``g``, ``C``: not identically zero (checked at
#: random states, :data:`REQUIRE_STATES` of them: the entries are analytic, so zero at
#: random points is zero everywhere up to rounding); ``slides``: no two prismatic joints
#: whose axes are parallel for every ``q`` (two collinear slides move one point one way).
REQUIREMENTS = ("g", "C", "slides")
REQUIRE_STATES = 3
#: Most redraws for ``require`` before giving up (each takes about a second for ``g``/``C``).
MAX_REDRAWS = 50


def make_exercise(dof: int = 2, joints: str | None = None, seed: int = 0, *,
                  planar: bool = False, point_masses: bool = False,
                  require=()) -> Exercise:
    """Draw an arm of ``dof`` joints of the types ``joints`` (``"RP"``: revolute then
    prismatic; default: drawn too) from ``seed``; ``planar``, ``point_masses``: see the
    module. ``require``: some of :data:`REQUIREMENTS` (a list or ``"g,C"``); while the arm
    drawn fails one, it is drawn again from the next stream of the same seed
    (``seed/1``, ``seed/2``, ...), so a seed and its requirements give one arm."""
    wanted = _requirements(require)
    for attempt in range(MAX_REDRAWS if wanted else 1):
        ex = _draw(dof, joints, seed, planar, point_masses, attempt)
        if not wanted or not _fails(ex, wanted):
            if wanted:
                ex = replace(ex, model_yaml=ex.model_yaml.replace(
                    f"--seed {seed}", f"--seed {seed} --require {','.join(wanted)}", 1))
            return ex
    raise InputError(f"require: no arm of joints {ex.joints} drawn from seed {seed} in "
                     f"{MAX_REDRAWS} tries has {', '.join(wanted)} (fails: "
                     f"{', '.join(_fails(ex, wanted))}); drop a requirement or change --joints")


def _requirements(require) -> tuple[str, ...]:
    if isinstance(require, str):
        require = [x for x in require.replace(" ", "").split(",") if x]
    out = tuple(dict.fromkeys(str(x) for x in require))
    bad = [x for x in out if x not in REQUIREMENTS]
    if bad:
        raise InputError(f"require: {', '.join(repr(b[:20]) for b in bad)} is not one of "
                         f"{', '.join(REQUIREMENTS)}")
    return out


def _dh_value(text) -> sp.Expr:
    """A DH entry of a drawn arm (``"pi/2"``, ``"l1"``) read by the model files' checked
    parser, never ``sympify``."""
    return parse_expression(text, "dh")


def collinear_slides(ex: Exercise) -> list[tuple[int, int]]:
    """Pairs ``(i, j)`` of prismatic joints whose axes ``z_{i-1}``, ``z_{j-1}`` are parallel
    for every ``q`` (the rotation between them depends only on the joints between)."""
    frames = [sp.eye(3)]
    for i, (kind, _a, alpha, _d, theta) in enumerate(ex.dh, start=1):
        th = sp.Symbol(f"q{i}") if kind == "R" else _dh_value(theta)
        al = _dh_value(alpha)
        frames.append(frames[-1] * sp.Matrix([[sp.cos(th), -sp.sin(th) * sp.cos(al),
                                               sp.sin(th) * sp.sin(al)],
                                              [sp.sin(th), sp.cos(th) * sp.cos(al),
                                               -sp.cos(th) * sp.sin(al)],
                                              [0, sp.sin(al), sp.cos(al)]]))
    slides = [i for i, row in enumerate(ex.dh, start=1) if row[0] == "P"]
    out = []
    for n, i in enumerate(slides):
        for j in slides[n + 1:]:
            cross = frames[i - 1][:, 2].cross(frames[j - 1][:, 2])
            if all(sp.simplify(x) == 0 for x in cross):
                out.append((i, j))
    return out


def _fails(ex: Exercise, wanted: tuple[str, ...]) -> list[str]:
    failed = []
    if "slides" in wanted and collinear_slides(ex):
        failed.append("slides")
    if {"g", "C"} & set(wanted):
        import tempfile

        import numpy as np

        from ..robot import load

        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "arm.yaml"
            path.write_text(ex.model_yaml)
            robot = load(path)
        rng = np.random.default_rng(ex.seed)
        q = rng.uniform(-1.5, 1.5, (REQUIRE_STATES, ex.dof))
        qd = rng.uniform(-1.5, 1.5, (REQUIRE_STATES, ex.dof))
        if "g" in wanted and np.abs(robot.gravity_torques(q)).max() < 1e-9:
            failed.append("g")
        if "C" in wanted and np.abs(robot.coriolis_matrix(q, qd)).max() < 1e-9:
            failed.append("C")
    return failed


def _draw(dof, joints, seed, planar, point_masses, attempt) -> Exercise:
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
    for flag, value in (("planar", planar), ("point_masses", point_masses)):
        if not isinstance(value, bool):
            raise InputError(f"{flag}: expected True or False, got {str(value)[:20]!r}")
    if planar and joints is not None and "P" in joints:
        raise InputError(f"joints: {joints!r} has a prismatic joint, but a planar exercise "
                         "arm turns about parallel axes only (its sliders would leave the "
                         "plane); use R joints, or drop planar")
    rng = random.Random(seed if attempt == 0 else f"{seed}/{attempt}")
    if joints is None:
        joints = "R" * dof if planar else "".join(rng.choice("RP") for _ in range(dof))
    gravity = rng.choice(("[0, -g, 0]", "[0, 0, -g]"))
    if planar:
        gravity = "[0, -g, 0]"  # in the plane of motion
    data = []
    values: dict[str, float] = {}
    links, display = [], {}
    for i, kind in enumerate(joints, start=1):
        alpha = rng.choice(_TWISTS) if i < dof else "0"
        if planar:
            alpha = "0"
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
        if planar:  # only the moment about the joint axes enters
            for axis in ("xx", "yy"):
                del values[f"I{axis}{i}"]
            row.update(mass=m, com=com, inertia=f"[0, 0, Izz{i}, 0, 0, 0]")
            inertia = sp.diag(0, 0, sp.Symbol(f"Izz{i}"))
        else:
            row.update(mass=m, com=com, inertia=f"[Ixx{i}, Iyy{i}, Izz{i}, 0, 0, 0]")
            inertia = sp.diag(*sp.symbols(f"Ixx{i} Iyy{i} Izz{i}"))
        links.append(row)
        data.append((sp.Symbol(m), _column(com), inertia))
    points: list[list] = [[] for _ in range(dof)]
    if point_masses:
        if dof >= 2:  # the motor of joint 2 on link 1, on joint 2's axis at O_1
            values["mM2"] = round(rng.uniform(0.3, 1.0), 1)
            points[0].append(("mM2", "[0, 0, 0]"))
        values["mE"] = round(rng.uniform(0.2, 1.0), 1)  # the payload, at O_n
        points[-1].append(("mE", "[0, 0, 0]"))
        display["mM2"], display["mE"] = "m_{M_2}", "m_E"
        for row, extra in zip(links, points, strict=True):
            if extra:
                row["point_masses"] = "[" + ", ".join(f"{{mass: {m_}, at: {at}}}"
                                                      for m_, at in extra) + "]"
    values["g"] = 9.81
    name = f"exercise-{joints.lower()}-{seed}"
    flags = (" --planar" if planar else "") + (" --point-masses" if point_masses else "")
    lines = [f"# Exercise arm drawn by robodyn exercise --dof {dof} --joints {joints} "
             f"--seed {seed}{flags}", f"name: {name}", "dh: standard", f"gravity: {gravity}"]
    if planar:
        lines.append("planar: true")
    lines.append("links:")
    for row in links:
        first = True
        for key in ("joint", "a", "alpha", "d", "theta", "mass", "com", "inertia",
                    "point_masses"):
            if key in row:
                lines.append(f"  {'- ' if first else '  '}{key}: {row[key]}")
                first = False
    lines.append("display:")
    lines += [f"  {k}: \"{v.replace(chr(92), chr(92) * 2)}\"" for k, v in display.items()]
    lines.append("values:")
    lines += [f"  {k}: {v}" for k, v in values.items()]
    lines.append(f"description: Random {dof}-DOF {joints} arm (seed {seed}) for an exercise "
                 "in Lagrange-Euler dynamics.")
    ex = Exercise(name, joints, seed, "\n".join(lines) + "\n", values, tuple(data),
                  _column(gravity), (),
                  tuple(tuple((sp.Symbol(m_), _column(at)) for m_, at in extra)
                        for extra in points), planar,
                  tuple((kind, row["a"], row["alpha"], row["d"], row["theta"])
                        for kind, row in zip(joints, links, strict=True)))
    return replace(ex, symbols=_symbols(ex))


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


_AXES = ("x", "y", "z")


def centre_of_mass_words(i: int, row: tuple, com: sp.Matrix) -> str:
    """The sheet's meaning of ``lc_i``, read off the same geometry the solution uses: the
    centre of mass ``com`` (in DH frame ``i``, as the model file) and the standard-DH row
    ``(kind, a, alpha, d, theta)``. Revolute (``d`` constant): ``C_i - O_{i-1} = com + a x_i
    + d z_{i-1}``, and ``z_{i-1} = (0, sin alpha, cos alpha)`` in frame ``i``; prismatic
    (``d = q_i`` moves ``O_i``): ``C_i - O_i = com``. The words give the point as
    ``C_i = O_k +- lc_i u_i`` and, where ``u_i`` is parallel to an axis of frame ``i-1`` for
    every ``q_i`` (``R_{i-1,i} = R_z(theta) R_x(alpha)``), which one."""
    kind, a, alpha, d, theta = row
    lc = sp.Symbol(f"lc{i}")
    alpha_, theta_ = _dh_value(alpha), sp.Symbol(f"q{i}") if kind == "R" else _dh_value(theta)
    if kind == "R":
        rel = com + sp.Matrix([_dh_value(a), _dh_value(d) * sp.sin(alpha_),
                               _dh_value(d) * sp.cos(alpha_)])
        origin = f"O_{i - 1}"
    else:
        rel, origin = com, f"O_{i}"
    rel = sp.expand(rel)
    nonzero = [k for k in range(3) if rel[k] != 0]
    if len(nonzero) != 1 or sp.expand(rel[nonzero[0]] ** 2 - lc ** 2) != 0:
        raise ValueError(f"link {i}: centre of mass {list(com)} is not +-lc{i} along one axis")
    k = nonzero[0]
    sign = "+" if rel[k] == lc else "-"
    rotation = (sp.Matrix([[sp.cos(theta_), -sp.sin(theta_), 0],
                           [sp.sin(theta_), sp.cos(theta_), 0], [0, 0, 1]])
                * sp.Matrix([[1, 0, 0], [0, sp.cos(alpha_), -sp.sin(alpha_)],
                             [0, sp.sin(alpha_), sp.cos(alpha_)]]))
    column = [sp.simplify(x) for x in rotation[:, k]]
    axis = f"{_AXES[k]}_{i}"
    same = ""
    for j in range(3):
        if column[j] in (1, -1) and all(column[n] == 0 for n in range(3) if n != j):
            same = f"; {axis} = {'' if column[j] == 1 else '-'}{_AXES[j]}_{i - 1}"
    where = (f"from joint {i} (from {origin} towards O_{i})" if kind == "R" and sign == "+"
             else f"{'behind' if sign == '-' else 'beyond'} the link's end {origin}")
    return (f"distance of the centre of mass C_{i} of link {i} {where}, along {axis}: "
            f"C_{i} = {origin} {sign} lc{i} {axis}{same}")


def generic_pose(ex: Exercise) -> list[float]:
    """The joint values the figure shows the arm at
    (:data:`~robodyn.teaching.sheet.FIGURE_POSE`; revolute in rad)."""
    import math

    return [math.radians(FIGURE_POSE[i][0]) if kind == "R" else FIGURE_POSE[i][1]
            for i, kind in enumerate(ex.joints)]


def _symbols(ex: Exercise) -> tuple:
    """``(name, meaning)`` of every symbol the sheet uses (the joint variables as
    ``q1``.., shown with the model's display names), in order."""
    out = []
    values = ex.values
    for i, kind in enumerate(ex.joints, start=1):
        if kind == "R":
            out.append((f"q{i}", f"joint variable of joint {i} (revolute): the angle from "
                        f"x_{i - 1} to x_{i} about z_{i - 1}"))
        else:
            out.append((f"q{i}", f"joint variable of joint {i} (prismatic): the displacement "
                        f"of link {i} along z_{i - 1}"))
    for i in range(1, ex.dof + 1):
        out.append((f"m{i}", f"mass of link {i}"))
        if f"l{i}" in values:
            out.append((f"l{i}", f"length of link {i}: the DH length a_{i}, from z_{i - 1} "
                        f"to z_{i} along x_{i}"))
        if f"lc{i}" in values:
            out.append((f"lc{i}", centre_of_mass_words(i, ex.dh[i - 1], ex.links[i - 1][1])))
        axes = ("zz",) if ex.planar else ("xx", "yy", "zz")
        for a in axes:
            out.append((f"I{a}{i}", f"moment of inertia of link {i} about the axis through "
                        f"C_{i} parallel to {a[0]}_{i}"))
    if "mM2" in values:
        out.append(("mM2", "mass of the motor of joint 2, a point mass on link 1 at O_1 "
                    "(on joint 2's axis)"))
    if "mE" in values:
        out.append(("mE", f"mass of the payload, a point mass at the end of link {ex.dof} "
                    f"(at O_{ex.dof})"))
    axis = "y_0" if ex.gravity[1] != 0 else "z_0"
    out.append(("g", f"gravitational acceleration; gravity acts along -{axis}"))
    return tuple(out)
