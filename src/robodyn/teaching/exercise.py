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

The questions follow the route asked (:data:`ROUTES`) and the quantities asked
(:data:`QUANTITIES`): first the kinematics (the ``A_i``, ``T_i`` and the centres of mass
``p_ci``), then ``M`` the way the route reads it, then ``C`` (Christoffel symbols, and the
skew-symmetry of ``dM/dt - 2C``), ``g``, the equations of motion, the regressor in the
arm's masses and inertias. The solution answers them in that order and that way.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from pathlib import Path

import sympy as sp

from ..core.errors import InputError

__all__ = ["Exercise", "make_exercise", "MAX_DOF", "ROUTES", "QUANTITIES", "questions_of",
           "generic_pose"]

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

    @property
    def dof(self) -> int:
        return len(self.joints)

    def write(self, out: str | Path, option: str = "out", *, route: str = "energy",
              questions=None, figure=None) -> list[Path]:
        """Write ``out/task/`` (model file, figure, task sheet) and ``out/solution/`` (the
        answers and the worked derivation); returns the paths written, in order.

        ``route``: how ``M`` is found, one of :data:`ROUTES`; ``questions``: the quantities
        asked, a subset of :data:`QUANTITIES` (a list or ``"M,C,g"``; default
        ``M, C, g, tau``); ``figure``: a function ``figure(robot, q, path)`` that draws the
        arm at ``q`` into the PNG ``path`` (the command line passes
        :func:`robodyn.plot.exercise_figure.exercise_figure`; the teaching layer does not
        draw). The files are replaced each time (not through a symbolic link: one is
        refused); a folder that cannot be made is an :class:`InputError` naming ``option``
        (``--out`` for the command line)."""
        import json

        from ..codegen.export.files import prepare_folder, write_files
        from ..robot import load
        from ..symbolic import equations

        route = _route(route)
        asked = questions_of(questions)
        out = prepare_folder(out, option)
        task, solution = out / "task", out / "solution"
        (model,) = write_files({"arm.yaml": self.model_yaml}, task, force=True, option=option)
        robot = load(model)
        method = "newton-euler" if route == "newton-euler" else "lagrange"
        eq = equations(robot, method=method,
                       route=None if method == "newton-euler" else ROUTE_NAMES[route])
        written = [model]
        has_figure = figure is not None
        if has_figure:
            png = task / "arm.png"
            if png.is_symlink():
                raise InputError(f"{option}: {png} is a symbolic link; robodyn writes the "
                                 "figure only as a file of its own")
            figure(robot, generic_pose(self), png)
            written.append(png)
        sheet = _Sheet(self, eq, robot, route, asked, has_figure)
        written += write_files({"task.md": sheet.task_markdown(),
                                "task.tex": sheet.task_latex()}, task, force=True,
                               option=option)
        answer = json.loads(eq.json())
        answer["model_file"] = self.model_yaml  # "model" is the model's name
        written += write_files({"solution.txt": sheet.solution_text(),
                                "solution.md": sheet.solution_markdown(),
                                "solution.tex": sheet.solution_latex(),
                                "derivation.txt": eq.text(steps=True),
                                "derivation.md": eq.markdown(steps=True),
                                "derivation.tex": eq.latex(steps=True, document=True),
                                "answer.json": json.dumps(answer, indent=2) + "\n"},
                               solution, force=True, option=option)
        return written


def make_exercise(dof: int = 2, joints: str | None = None, seed: int = 0, *,
                  planar: bool = False, point_masses: bool = False) -> Exercise:
    """Draw an arm of ``dof`` joints of the types ``joints`` (``"RP"``: revolute then
    prismatic; default: drawn too) from ``seed``; ``planar``, ``point_masses``: see the
    module."""
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
    rng = random.Random(seed)
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
                        for extra in points), planar)
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


# -- routes, questions, symbols --------------------------------------------------------
#: How the questions ask for ``M`` (``--route``): name -> what the student does.
ROUTES = {
    "energy": "M read off the kinetic energy, K = 1/2 qd^T M qd (course notes on planar arms)",
    "lagrange": "the Euler-Lagrange equations, M the coefficients of qdd (Siciliano et al., §7.1)",
    "jacobian": "M and g from the Jacobians of the centres of mass (Siciliano et al., §7.4)",
    "newton-euler": "the Newton-Euler recursion, M and g read off tau (Advanced Robotics, "
                    "Lecture 15)",
}
#: The Lagrange route of :func:`robodyn.symbolic.equations` behind each route.
ROUTE_NAMES = {"energy": "energy", "lagrange": "euler-lagrange", "jacobian": "jacobian",
               "newton-euler": None}
#: The quantities a sheet can ask for (``--questions``), in the order they are asked.
QUANTITIES = ("M", "C", "g", "tau", "regressor")
DEFAULT_QUESTIONS = ("M", "C", "g", "tau")


def _route(route) -> str:
    key = str(route).strip().lower().replace("_", "-")
    key = {"euler-lagrange": "lagrange", "ne": "newton-euler", "le": "lagrange",
           "jacobians": "jacobian"}.get(key, key)
    if key not in ROUTES:
        raise InputError(f"route: {str(route)[:40]!r} is not a route; use one of "
                         f"{', '.join(ROUTES)}")
    return key


def questions_of(questions=None) -> tuple[str, ...]:
    """The quantities asked, in the order of :data:`QUANTITIES`: from a list or a text
    ``"M,C,g"`` (default :data:`DEFAULT_QUESTIONS`)."""
    if questions is None:
        return DEFAULT_QUESTIONS
    items = questions.split(",") if isinstance(questions, str) else list(questions)
    names = [str(x).strip() for x in items if str(x).strip()]
    lower = {q.lower(): q for q in QUANTITIES}
    if not names:
        raise InputError(f"questions: give one or more of {', '.join(QUANTITIES)}")
    for name in names:
        if name.lower() not in lower:
            raise InputError(f"questions: {name[:40]!r} is not a quantity; use some of "
                             f"{', '.join(QUANTITIES)} (e.g. M,C,g)")
    chosen = {lower[n.lower()] for n in names}
    return tuple(q for q in QUANTITIES if q in chosen)


#: Joint values of the figure's pose, per joint: a generic pose (no angle 0 or 90 degrees,
#: no link folded), revolute in degrees, prismatic in m.
_POSE = ((35.0, 0.45), (-55.0, 0.35), (40.0, 0.3))


def generic_pose(ex: Exercise) -> list[float]:
    """The joint values the figure shows the arm at (revolute in rad)."""
    import math

    return [math.radians(_POSE[i][0]) if kind == "R" else _POSE[i][1]
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
    for i, kind in enumerate(ex.joints, start=1):
        out.append((f"m{i}", f"mass of link {i}"))
        if f"l{i}" in values:
            out.append((f"l{i}", f"length of link {i}: the DH length a_{i}, from z_{i - 1} "
                        f"to z_{i} along x_{i}"))
        if f"lc{i}" in values:
            out.append((f"lc{i}", f"distance of the centre of mass C_{i} of link {i} from "
                        f"joint {i} (from O_{i - 1}, along x_{i})" if kind == "R" else
                        f"distance of the centre of mass C_{i} of link {i} behind the "
                        f"link's end O_{i}, along z_{i - 1}"))
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


# -- the sheet: task and solution -------------------------------------------------------
class _Sheet:
    """The task sheet and its solution for one exercise, route and set of questions."""

    def __init__(self, ex: Exercise, eq, robot, route: str, asked: tuple, figure: bool):
        self.ex, self.eq, self.robot = ex, eq, robot
        self.route, self.asked, self.figure = route, asked, figure
        self.questions = self._questions()
        self._answers = None

    # the questions, in order: (key, text)
    def _questions(self) -> list[tuple[str, str]]:
        points = " and of each point mass" if any(self.ex.point_masses) else ""
        out = [("kinematics", "Write the homogeneous transforms A_i (from row i of the DH "
                "table) and T_i = A_1 ... A_i, and the position p_ci of the centre of mass "
                f"C_i of each link{points} in the base frame.")]
        route = self.route
        texts = {
            "M": {
                "energy": "Write the kinetic energy K and the potential energy U; read the "
                          "inertia matrix M(q) off K = 1/2 qd^T M(q) qd "
                          "(M_ij = d^2 K / dqd_i dqd_j).",
                "lagrange": "Write K, U and the Lagrangian L = K - U; write the "
                            "Euler-Lagrange equation tau_i = d/dt dL/dqd_i - dL/dq_i of each "
                            "joint and read the inertia matrix M(q) off them as the "
                            "coefficients of the accelerations qdd.",
                "jacobian": "Compute the Jacobians J_P^(l_i), J_theta^(l_i) of each centre "
                            f"of mass{points} and the inertia matrix M(q) = sum_i m_i "
                            "J_P^(l_i)T J_P^(l_i) + J_theta^(l_i)T R_i I_i R_i^T J_theta^(l_i).",
                "newton-euler": "Run the Newton-Euler recursion (forward: angular velocity "
                                "and acceleration of each link and the acceleration of each "
                                "centre of mass; backward: the force and moment on each link "
                                "from the one before it, and the joint torques tau_i) and "
                                "read the inertia matrix M(q) off tau as the coefficients of "
                                "qdd."},
            "C": "Compute all Christoffel symbols c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - "
                 "dM_jk/dq_i), the matrix C(q, qd) with C_ij = sum_k c_ijk qd_k, and show "
                 "that N = dM/dt - 2C is skew-symmetric.",
            "g": {"energy": "Compute the gravity torques g(q) = dU/dq.",
                  "lagrange": "Compute the gravity torques g(q) = dU/dq.",
                  "jacobian": "Compute the gravity torques g_i = -sum_j m_j g0^T J_P,i^(j).",
                  "newton-euler": "Read the gravity torques g(q) off tau at qd = qdd = 0."},
            "tau": "Write the equations of motion M(q) qdd + C(q, qd) qd + g(q) = tau, joint "
                   "by joint.",
            "regressor": "Write the torques as tau = Y(q, qd, qdd) pi, linear in the masses "
                         "and moments of inertia pi = [" + ", ".join(self._pi()) + "].",
        }
        for key in self.asked:
            text = texts[key]
            out.append((key, text[route] if isinstance(text, dict) else text))
        return out

    def _pi(self) -> list[str]:
        """The masses and moments of inertia of the arm that its torques depend on."""
        present = {str(s) for s in self.eq.params}
        names = [n for n, _ in self.ex.symbols if n in present
                 and (n.startswith("m") or n.startswith("I"))]
        return names

    # -- the given data, in the DH frames of the model file --------------------------
    def _dh_table(self) -> sp.Matrix:
        rows = []
        for i, row in enumerate(self.robot.dh_rows):
            q = self.eq.q[i]
            theta = _sym(row.theta) + (q if row.joint == "revolute" else 0)
            d = _sym(row.d) + (q if row.joint == "prismatic" else 0)
            rows.append([_sym(row.a), _sym(row.alpha), d, theta])
        return sp.Matrix(rows)

    def given(self) -> list[tuple[str, str, sp.Basic]]:
        """``(title, LaTeX lhs, value)`` of the data the sheet gives: the DH table, each
        link's centre of mass, inertia tensor and point masses in its DH frame (as the
        model file writes them), gravity."""
        out = [("DH table (standard, Siciliano): row i = joint i, columns a_i, alpha_i, d_i, "
                "theta_i", r"\mathrm{DH}", self._dh_table())]
        for k, (_mass, com, inertia) in enumerate(self.ex.links, start=1):
            out += [(f"Link {k}: centre of mass C_{k} in DH frame {k}",
                     rf"\mathbf{{c}}_{{{k}}}", com),
                    (f"Link {k}: inertia tensor about C_{k}, axes of DH frame {k}",
                     rf"\mathbf{{I}}_{{{k}}}", inertia)]
            for mass, at in self.ex.point_masses[k - 1]:
                out.append((f"Link {k}: point mass {mass} at, in DH frame {k}",
                            rf"\mathbf{{c}}_{{{_tex_name(self.eq, mass)}}}", at))
        out.append(("Gravity (base frame)", r"\mathbf{g}_0", self.ex.gravity))
        return out

    # -- the answers, question by question ---------------------------------------------
    def answers(self) -> list[tuple[str, list[tuple[str, str, sp.Basic, str]]]]:
        """Per question ``(text, [(LaTeX lhs, text lhs, value, LaTeX formula)])``,
        computed once for the three formats."""
        if self._answers is None:
            self._answers = [(text, getattr(self, f"_answer_{key}")())
                             for key, text in self.questions]
        return self._answers

    def _compact(self, matrix: sp.Matrix) -> sp.Matrix:
        """``matrix`` in normal form (the ring's), printed with ``cos(q1 + q2)`` where the
        angles add up and as products of sines and cosines otherwise (``T_3`` of a 3D arm),
        never as half sums of cosines."""
        from ..symbolic.simplify import PRODUCT, SUM_ANGLE, canonical, textbook

        ring, polys = canonical(list(matrix), joint_types=self.eq.joint_types)
        out = []
        for p in polys:
            e = textbook(ring, p, form=SUM_ANGLE)
            if any(isinstance(a, sp.Rational) and not a.is_Integer for a in e.atoms(sp.Number)):
                e = textbook(ring, p, form=PRODUCT)
            out.append(e)
        return sp.Matrix(matrix.shape[0], matrix.shape[1], out)

    def _transforms(self):
        """``(A_i, T_i)`` per joint, from the DH table (standard DH)."""
        out, T = [], sp.eye(4)
        for row in self._dh_table().tolist():
            a, alpha, d, theta = row
            A = self._compact(_rot_z(theta) * _trans(z=d) * _trans(x=a) * _rot_x(alpha))
            T = self._compact(T * A)
            out.append((A, T))
        return out

    def _answer_kinematics(self):
        items = []
        transforms = self._transforms()
        for k, (A, _) in enumerate(transforms, start=1):
            items.append((f"A_{{{k}}}", f"A_{k}", A, rf"R_z(\theta_{{{k}}})\,T_z(d_{{{k}}})\,"
                          rf"T_x(a_{{{k}}})\,R_x(\alpha_{{{k}}})"))
        for k, (_, T) in enumerate(transforms, start=1):
            if k > 1:
                items.append((f"T_{{{k}}}", f"T_{k}", T,
                              r"\,".join(f"A_{{{j}}}" for j in range(1, k + 1))))
        for k, ((_, T), (_m, com, _i)) in enumerate(zip(transforms, self.ex.links,
                                                        strict=True), start=1):
            p = self._compact((T * sp.Matrix([*com, 1]))[:3, 0])
            items.append((f"p_{{c{k}}}", f"p_c{k}", p, rf"T_{{{k}}}\,[\mathbf{{c}}_{{{k}}};\,1]"))
            for mass, at in self.ex.point_masses[k - 1]:
                p = self._compact((T * sp.Matrix([*at, 1]))[:3, 0])
                name = _tex_name(self.eq, mass)
                items.append((f"p_{{{name}}}", f"p_{mass}", p,
                              rf"T_{{{k}}}\,[\mathbf{{c}}_{{{name}}};\,1]"))
        return items

    def _route_steps(self, sections):
        return [(s.latex_lhs or s.lhs, s.lhs, s.expression, s.latex_formula)
                for s in self.eq.steps if s.section in sections]

    def _answer_M(self):
        eq, n = self.eq, self.eq.dof
        items = []
        if self.route in ("energy", "lagrange"):
            items += [("K", "K", eq.kinetic_energy, ""), ("U", "U", eq.potential_energy, "")]
        if self.route == "lagrange":
            items.append(("L", "L", eq.lagrangian, "K - U"))
            for i in range(n):
                items.append((rf"\tau_{{{i + 1}}}", f"tau{i + 1}", eq.tau[i],
                              rf"\frac{{d}}{{dt}}\frac{{\partial L}}{{\partial \dot q_{{{i + 1}}}}}"
                              rf" - \frac{{\partial L}}{{\partial q_{{{i + 1}}}}}"))
        if self.route == "jacobian":
            items += self._route_steps({"Jacobians of the centres of mass (base frame)"})
        if self.route == "newton-euler":
            from ..symbolic.newton_euler import (
                SECTION_BACKWARD,
                SECTION_FORWARD,
                SECTION_INWARD,
                SECTION_OUTWARD,
            )

            # Siciliano's recursion in the DH frames (standard DH) or Craig's (modified)
            items += self._route_steps({SECTION_FORWARD, SECTION_BACKWARD, SECTION_OUTWARD,
                                        SECTION_INWARD})
        formula = {"energy": r"\frac{\partial^2 K}{\partial \dot q_i\,\partial \dot q_j}",
                   "lagrange": r"\text{coefficient of } \ddot q_j \text{ in } \tau_i",
                   "jacobian": r"\sum_i m_i (J_P^{l_i})^T J_P^{l_i} + (J_\theta^{l_i})^T R_i "
                               r"I_i R_i^T J_\theta^{l_i}",
                   "newton-euler": r"\text{coefficient of } \ddot q_j \text{ in } \tau_i"}
        items.append(("M", "M", eq.M, formula[self.route]))
        return items

    def _answer_C(self):
        eq, n = self.eq, self.eq.dof
        items = []
        for i in range(n):
            for j in range(n):
                for k in range(j, n):
                    c = eq.christoffel[i][j][k]
                    idx = f"{i + 1}{j + 1}{k + 1}"
                    items.append((f"c_{{{idx}}}" + (f" = c_{{{i + 1}{k + 1}{j + 1}}}"
                                                     if j != k else ""),
                                  f"c_{idx}", c, ""))
        items.append(("C", "C", eq.C, r"C_{ij} = \sum_k c_{ijk}\,\dot q_k"))
        items.append((r"\dot M", "dM/dt", eq.Mdot, r"\sum_k \frac{\partial M}{\partial q_k}"
                      r"\,\dot q_k"))
        items.append(("N", "N", eq.N, r"\dot M - 2C"))
        items.append(("N + N^T", "N + N^T", self._compact(eq.N + eq.N.T),
                      r"0 \text{ (skew-symmetric)}"))
        return items

    def _answer_g(self):
        formula = {"energy": r"\frac{\partial U}{\partial q}",
                   "lagrange": r"\frac{\partial U}{\partial q}",
                   "jacobian": r"-\sum_j m_j\, \mathbf{g}_0^T J_{P,i}^{(j)}",
                   "newton-euler": r"\tau(q, 0, 0)"}[self.route]
        return [("g", "g", self.eq.g, formula)]

    def _answer_tau(self):
        return [(r"\tau", "tau", self.eq.tau, r"M\,\ddot q + C\,\dot q + g")]

    def _answer_regressor(self):
        reg = self.eq.regressor(parameters=self._pi())
        return [(r"\pi", "pi", reg.pi, ""), ("Y", "Y", reg.Y,
                                             r"\tau = Y(q, \dot q, \ddot q)\,\pi")]

    # -- the words around ---------------------------------------------------------------
    def _title(self) -> str:
        ex = self.ex
        planar = " planar" if ex.planar else ""
        masses = " with point masses" if any(ex.point_masses) else ""
        return (f"Exercise: dynamics of a{planar} {ex.dof}-DOF {ex.joints} arm{masses} "
                f"(seed {ex.seed})")

    def _figure_words(self) -> str:
        """The figure described in words (also for a reader without the picture)."""
        ex, eq = self.ex, self.eq
        pose = []
        for i, (kind, value) in enumerate(zip(ex.joints, generic_pose(ex), strict=True)):
            name = _plain_name(eq, eq.q[i])
            pose.append(f"{name} = {_POSE[i][0]:g} deg" if kind == "R"
                        else f"{name} = {value:g} m")
        joints = ", ".join(f"joint {i + 1} {'revolute' if k == 'R' else 'prismatic'}"
                           for i, k in enumerate(ex.joints))
        lead = "The figure shows" if self.figure else "Sketch"
        return (f"{lead} the arm at a generic pose ({', '.join(pose)}): {joints}. "
                f"Frames O_0 ... O_{ex.dof} are the standard DH frames (frame i at the far "
                "end of link i, z_{i-1} the axis of joint i); x_i red, y_i green, z_i blue"
                + (" (z_i points out of the page, drawn as a dot in a circle)" if ex.planar
                   else "")
                + ". Circles are revolute joints, squares prismatic ones; the orange dots "
                "C_i are the centres of mass" + (", the black dots the point masses"
                                                  if any(ex.point_masses) else "")
                + "; the arrow g shows gravity.")

    def _symbol_lines(self, tex) -> list[tuple[str, str]]:
        eq = self.eq
        out = []
        for name, meaning in self.ex.symbols:
            sym = eq.q[int(name[1:]) - 1] if name.startswith("q") and name[1:].isdigit() \
                else sp.Symbol(name)
            out.append((tex(sym), meaning))
        return out

    # -- Markdown ------------------------------------------------------------------------
    def task_markdown(self) -> str:
        from ..symbolic.printing.latex import tex_of
        from ..symbolic.printing.markdown import markdown_math

        eq = self.eq
        out = [f"# {self._title()}", ""]
        if self.figure:
            out += ["![The arm at a generic pose, with its DH frames](arm.png)", ""]
        out += [self._figure_words(), "", "## Symbols", ""]
        out += [f"- ${t}$: {meaning}" for t, meaning in self._symbol_lines(
            lambda s: tex_of(eq, s))]
        out += ["", "The model file is `arm.yaml` (the same data, for robodyn).", "",
                "## Given", ""]
        for title, lhs, value in self.given():
            out += [f"**{title}**", "", markdown_math(eq, lhs, value), ""]
        out += ["## Questions", ""]
        out += [f"{k}. {text}" for k, (_, text) in enumerate(self.questions, start=1)]
        out += ["", "Check your answer (text as in Python, `^` for powers, your own symbol "
                "names mapped with `--symbols theta1=q1`):", "", "```", _check_hint(self.ex),
                "```", ""]
        return "\n".join(out)

    def solution_markdown(self) -> str:
        from ..symbolic.printing.markdown import markdown_math

        eq = self.eq
        out = [f"# Solution: {self._title()}", "",
               f"Route: {ROUTES[self.route]}. Every vector of the kinematics is in the DH "
               "frames of the task (the model file's frames); the whole derivation is in "
               "derivation.md.", ""]
        for k, (text, items) in enumerate(self.answers(), start=1):
            out += [f"## Question {k}", "", f"*{text}*", ""]
            for lhs, _, value, formula in items:
                out += [markdown_math(eq, lhs, value, formula), ""]
        return "\n".join(out)

    # -- LaTeX ---------------------------------------------------------------------------
    def _latex_head(self, title: str) -> list[str]:
        from ..symbolic.printing.common import tex_escape

        return ["\\documentclass[11pt]{article}", "\\usepackage[margin=2cm]{geometry}",
                "\\usepackage{amsmath}", "\\usepackage{graphicx}",
                "\\setlength{\\parindent}{0pt}", "\\begin{document}",
                f"\\section*{{{tex_escape(title)}}}"]

    def task_latex(self) -> str:
        from ..symbolic.printing.common import tex_escape
        from ..symbolic.printing.latex import tex_lines, tex_of

        eq = self.eq
        out = self._latex_head(self._title())
        if self.figure:
            out += ["\\begin{center}", "\\includegraphics[width=0.7\\textwidth]{arm.png}",
                    "\\end{center}"]
        out += [tex_escape(self._figure_words()), "\\subsection*{Symbols}",
                "\\begin{itemize}"]
        out += [f"  \\item ${t}$: {tex_escape(meaning)}" for t, meaning in
                self._symbol_lines(lambda s: tex_of(eq, s))]
        out += ["\\end{itemize}", "The model file is \\texttt{arm.yaml}.",
                "\\subsection*{Given}"]
        for title, lhs, value in self.given():
            out.append(f"\\paragraph{{{tex_escape(title)}}}")
            out.append(tex_lines(eq, lhs, value))
        out += ["\\subsection*{Questions}", "\\begin{enumerate}"]
        out += [f"  \\item {tex_escape(text)}" for _, text in self.questions]
        out += ["\\end{enumerate}", "Check your answer:", "\\begin{verbatim}",
                _check_hint(self.ex), "\\end{verbatim}", "\\end{document}"]
        return "\n".join(out) + "\n"

    def solution_latex(self) -> str:
        from ..symbolic.printing.common import tex_escape
        from ..symbolic.printing.latex import tex_lines

        eq = self.eq
        out = self._latex_head(f"Solution: {self._title()}")
        out.append(tex_escape(f"Route: {ROUTES[self.route]}. The kinematics is in the DH "
                              "frames of the task; the whole derivation is in "
                              "derivation.tex."))
        for k, (text, items) in enumerate(self.answers(), start=1):
            out += [f"\\subsection*{{Question {k}}}", f"\\emph{{{tex_escape(text)}}}"]
            out += [tex_lines(eq, lhs, value, formula) for lhs, _, value, formula in items]
        out.append("\\end{document}")
        return "\n".join(out) + "\n"

    # -- plain text ----------------------------------------------------------------------
    def solution_text(self) -> str:
        out = [f"Solution: {self._title()}", f"Route: {ROUTES[self.route]}. The kinematics "
               "is in the DH frames of the task; the whole derivation is in derivation.txt.",
               ""]
        for k, (text, items) in enumerate(self.answers(), start=1):
            out += [f"Question {k}. {text}", ""]
            for _, lhs, value, _formula in items:
                out.append(f"  {lhs} = {_plain(value)}")
            out.append("")
        return "\n".join(out)


def _plain(value) -> str:
    if isinstance(value, sp.MatrixBase):
        return str(value.tolist())
    return str(value)


def _sym(x) -> sp.Expr:
    from ..model.expressions import to_sympy

    return to_sympy(x)


def _rot_z(t):
    c, s_ = sp.cos(t), sp.sin(t)
    return sp.Matrix([[c, -s_, 0, 0], [s_, c, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])


def _rot_x(t):
    c, s_ = sp.cos(t), sp.sin(t)
    return sp.Matrix([[1, 0, 0, 0], [0, c, -s_, 0], [0, s_, c, 0], [0, 0, 0, 1]])


def _trans(x=0, z=0):
    out = sp.eye(4)
    out[0, 3], out[2, 3] = x, z
    return out


def _tex_name(eq, name) -> str:
    from ..symbolic.printing.latex import tex_of

    return tex_of(eq, sp.Symbol(str(name)))


def _plain_name(eq, symbol) -> str:
    display = dict(getattr(eq, "display", {}) or {})
    return display.get(str(symbol), str(symbol)).replace("\\", "")


def _check_hint(ex: Exercise) -> str:
    rows = ", ".join("[" + ", ".join("..." for _ in range(ex.dof)) + "]" for _ in range(ex.dof))
    return f'robodyn check arm.yaml --M "[{rows}]" --g "[...]"'
