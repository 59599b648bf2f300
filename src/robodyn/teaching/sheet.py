"""The task sheet and the solution of an exercise (:mod:`robodyn.teaching.exercise`), in
Markdown, LaTeX and plain text: the figure described in words, the symbols, the given data
in the DH frames, the questions of the route asked and their answers (:class:`Sheet`)."""

from __future__ import annotations

from ..core.lazy import sp
from ..model.dh import dh_matrix
from .questions import ROUTES, SCALE

__all__ = ["Sheet", "FIGURE_POSE"]

#: Joint values of the figure's pose, per joint: a generic pose (no angle 0 or 90 degrees,
#: no link folded), revolute in degrees, prismatic in m.
FIGURE_POSE = ((35.0, 0.45), (-55.0, 0.35), (40.0, 0.3))


class Sheet:
    """The task sheet and its solution for one exercise, route and set of questions:
    ``ex`` the :class:`~robodyn.teaching.exercise.Exercise`, ``eq`` its equations, ``robot``
    its model loaded, ``route`` a key of :data:`ROUTES`, ``asked`` the quantities
    (:func:`~robodyn.teaching.questions.questions_of`), ``figure`` whether the sheet shows
    the drawn figure."""

    def __init__(self, ex, eq, robot, route: str, asked: tuple, figure: bool, *,
                 assessment: bool = False):
        self.ex, self.eq, self.robot = ex, eq, robot
        self.assessment = assessment  # no model file, no robodyn check on the sheet
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
                         "and moments of inertia pi = [" + ", ".join(self.pi()) + "].",
            "B_A": "Compute the operational-space inertia B_A = J_A^-T M J_A^-1 of the tip "
                   "position ({xy}) in the base frame (Siciliano 7.120), J_A = d({xy})/dq.",
            "tau_s": f"The same path is run {SCALE} times slower, q_s(t) = q(t/{SCALE}). Give "
                     "the torques tau_s it needs, in terms of q, qd, qdd of the original "
                     "motion (friction left out).",
        }
        for key in self.asked:
            text = texts[key]
            text = text[route] if isinstance(text, dict) else text
            out.append((key, text.format(xy=self.task_words()) if key == "B_A" else text))
        return out

    def pi(self) -> list[str]:
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
                out.append((f"Link {k}: position of the point mass {mass} in DH frame {k}",
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
            A = self._compact(dh_matrix(a, alpha, d, theta, symbolic=True))
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
        reg = self.eq.regressor(parameters=self.pi())
        # Y is the Jacobian of tau in pi: tau = Y(q, qd, qdd) pi is linear in pi
        return [(r"\pi", "pi", reg.pi, ""), ("Y", "Y", reg.Y,
                                             r"\frac{\partial \tau}{\partial \pi}")]

    def _answer_B_A(self):
        from ..symbolic.task_space import task_space

        return [("B_A", "B_A", task_space(self.eq, task_rows(self.eq)).B_A,
                 r"J_A^{-T} M J_A^{-1}")]

    def task_words(self) -> str:
        return ", ".join("xyz"[r] for r in task_rows(self.eq))

    def _answer_tau_s(self):
        return [(r"\tau_s", "tau_s", scaled_torques(self.eq),
                 rf"(\tau - g)/{SCALE}^2 + g")]

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
        for i, kind in enumerate(ex.joints):
            name = _plain_name(eq, eq.q[i])
            degrees, metres = FIGURE_POSE[i]
            pose.append(f"{name} = {degrees:g} deg" if kind == "R"
                        else f"{name} = {metres:g} m")
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
            out.append((name, tex(sym), meaning))
        return out

    def _words(self, escape):
        """The sheet's prose typeset: its formulas as inline math, each symbol of the arm
        in its typeset form (:func:`~robodyn.teaching.sheet_words.typeset_words`)."""
        from ..symbolic.printing.latex import tex_of
        from .sheet_words import typeset_words

        names = {name: tex for name, tex, _ in self._symbol_lines(
            lambda s: tex_of(self.eq, s))}
        return lambda text: typeset_words(text, names, escape)

    def questions_latex(self) -> list[str]:
        """The questions with every formula in LaTeX, in the order of :attr:`questions`."""
        from .sheet_words import question_latex

        points = " and of each point mass" if any(self.ex.point_masses) else ""
        pi_tex = [_tex_name(self.eq, n) for n in self.pi()]
        return [question_latex(key, self.route, points, pi_tex,
                               self.task_words() if key == "B_A" else "")
                for key, _ in self.questions]

    def _hint_words(self) -> str:
        if self.assessment:
            return ("Hand in one text file with a line KEY = VALUE per quantity asked, in "
                    "the typed names above")
        return ("Check your answer (your own symbol names mapped with --symbols "
                "theta1=q1)")

    def _hint(self) -> str:
        if not self.assessment:
            return _check_hint(self.ex)
        n = self.ex.dof
        row = "[" + ", ".join("..." for _ in range(n)) + "]"
        shapes = {"M": "[" + ", ".join(row for _ in range(n)) + "]", "g": row, "tau": row}
        shapes["C"] = shapes["B_A"] = shapes["M"]
        shapes["tau_s"] = row
        return "\n".join(f"{q} = {shapes[q]}" for q in self.asked if q in shapes) or \
            "M = [[...]]"

    # -- Markdown ------------------------------------------------------------------------
    def task_markdown(self) -> str:
        from ..symbolic.printing.latex import tex_of
        from ..symbolic.printing.markdown import markdown_math

        eq = self.eq
        out = [f"# {self._title()}", ""]
        if self.figure:
            out += ["![The arm at a generic pose, with its DH frames](arm.png)", ""]
        words = self._words(str)  # robodyn's own prose; Markdown keeps $...$ as math
        out += [words(self._figure_words()), "", "## Symbols", "",
                "Type each symbol in an answer by the name in code beside it (the rates of "
                "`q1` as `q1dot`, `q1ddot`).", ""]
        out += [f"- ${t}$ (`{name}`): {words(meaning)}"
                for name, t, meaning in self._symbol_lines(lambda s: tex_of(eq, s))]
        if not self.assessment:
            out += ["", "The model file is `arm.yaml` (the same data, for robodyn)."]
        out += ["", "## Given", ""]
        for title, lhs, value in self.given():
            out += [f"**{words(title)}**", "", markdown_math(eq, lhs, value), ""]
        out += ["## Questions", ""]
        out += [f"{k}. {text}" for k, text in enumerate(self.questions_latex(), start=1)]
        out += ["", self._hint_words() + " (text as in Python, `^` for powers):", "",
                "```", self._hint(), "```", ""]
        return "\n".join(out)

    def solution_markdown(self) -> str:
        from ..symbolic.printing.markdown import markdown_math

        eq = self.eq
        out = [f"# Solution: {self._title()}", "",
               f"Route: {ROUTES[self.route]}. Every vector of the kinematics is in the DH "
               "frames of the task (the model file's frames); the whole derivation is in "
               "derivation.md.", ""]
        for k, ((_, items), text) in enumerate(zip(self.answers(), self.questions_latex(),
                                                   strict=True), start=1):
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
        words = self._words(tex_escape)
        out += [words(self._figure_words()), "\\subsection*{Symbols}",
                "Type each symbol in an answer by the name in typewriter type beside it (the "
                "rates of \\texttt{q1} as \\texttt{q1dot}, \\texttt{q1ddot}).",
                "\\begin{itemize}"]
        out += [f"  \\item ${t}$ (\\texttt{{{tex_escape(name)}}}): {words(meaning)}"
                for name, t, meaning in self._symbol_lines(lambda s: tex_of(eq, s))]
        out.append("\\end{itemize}")
        if not self.assessment:
            out.append("The model file is \\texttt{arm.yaml}.")
        out.append("\\subsection*{Given}")
        for title, lhs, value in self.given():
            out.append(f"\\paragraph{{{words(title)}}}")
            out.append(tex_lines(eq, lhs, value))
        out += ["\\subsection*{Questions}", "\\begin{enumerate}"]
        out += [f"  \\item {text}" for text in self.questions_latex()]
        out += ["\\end{enumerate}", tex_escape(self._hint_words()) + ":",
                "\\begin{verbatim}", self._hint(), "\\end{verbatim}", "\\end{document}"]
        return "\n".join(out) + "\n"

    def solution_latex(self) -> str:
        from ..symbolic.printing.common import tex_escape
        from ..symbolic.printing.latex import tex_lines

        eq = self.eq
        out = self._latex_head(f"Solution: {self._title()}")
        out.append(tex_escape(f"Route: {ROUTES[self.route]}. The kinematics is in the DH "
                              "frames of the task; the whole derivation is in "
                              "derivation.tex."))
        for k, ((_, items), text) in enumerate(zip(self.answers(), self.questions_latex(),
                                                   strict=True), start=1):
            out += [f"\\subsection*{{Question {k}}}", f"\\emph{{{text}}}"]
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


def _tex_name(eq, name) -> str:
    from ..symbolic.printing.latex import tex_of

    return tex_of(eq, sp.Symbol(str(name)))


def _plain_name(eq, symbol) -> str:
    display = dict(getattr(eq, "display", {}) or {})
    return display.get(str(symbol), str(symbol)).replace("\\", "")


def task_rows(eq) -> tuple[int, int]:
    """The two tip coordinates of the base frame (``(0, 1)``: x, y) whose Jacobian is not
    singular everywhere: the plane a planar arm moves in; an :class:`InputError` else."""
    from ..core.errors import InputError, ModelError
    from ..symbolic.task_space import task_space

    if eq.dof != 2:
        raise InputError(f"questions: B_A is asked of a 2-joint arm (this one has {eq.dof})")
    for rows in ((0, 1), (0, 2), (1, 2)):
        try:
            task_space(eq, rows, simplify=False)
        except (InputError, ModelError):
            continue
        return rows
    raise InputError("questions: B_A: the tip of this arm moves in no plane of the base "
                     "frame's axes; draw a --planar arm")


def scaled_torques(eq) -> sp.Matrix:
    """``tau_s = (M qdd + C qd) / SCALE^2 + g``: the torques of the path run SCALE times
    slower (``q_s' = q' / k``, ``q_s'' = q'' / k^2``, so the velocity and inertia terms shrink
    by ``k^2``; Siciliano et al. §7.6), friction left out."""
    return (eq.M * sp.Matrix(eq.qdd) + eq.Cqd) / SCALE ** 2 + eq.g


def _check_hint(ex) -> str:
    rows = ", ".join("[" + ", ".join("..." for _ in range(ex.dof)) + "]" for _ in range(ex.dof))
    return f'robodyn check arm.yaml --M "[{rows}]" --g "[...]"'
