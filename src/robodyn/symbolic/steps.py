"""The printed derivation: :class:`Step` (``lhs = formula = expression``, as a student
writes it) and the steps of one :class:`~.equations.Equations`, from the derivation's own
(:class:`~.derivation.RawStep`, their polynomials printed in the equations' compact form)
to the closing ones: ``M``, the Christoffel symbols, ``C``, ``g``, ``tau`` and the
skew-symmetry of ``dM/dt - 2C``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import sympy as sp
from sympy.polys.rings import PolyElement

from .derivation import SECTION_GIVEN, PlusExpr, RawStep, given_steps, n_matrix
from .lugre import BRISTLE_FORMULA, LUGRE_FORMULA
from .simplify import textbook, textbook_matrix

if TYPE_CHECKING:  # pragma: no cover
    from .equations import Equations

SECTION_COLLECT = "Collecting M, C, g"
SECTION_SKEW = "Skew-symmetry of dM/dt - 2C"
#: LaTeX of the joint variables and rates (``qd2`` as ``\dot{q}_{2}``).
_RATE_TEX = {"q": "q_{{{}}}", "qd": r"\dot{{q}}_{{{}}}", "qdd": r"\ddot{{q}}_{{{}}}"}

#: The closing step of M per route: (title, formula, LaTeX formula).
_M_STEP = {
    "euler-lagrange": ("Inertia matrix: the coefficients of qdd in tau",
                       "M_ij = d tau_i / d qdd_j", r"M_{ij} = \partial\tau_i/\partial\ddot q_j"),
    "newton-euler": ("Inertia matrix: the coefficients of qdd in tau",
                     "M_ij = d tau_i / d qdd_j", r"M_{ij} = \partial\tau_i/\partial\ddot q_j"),
    "energy": ("Inertia matrix: the Hessian of K in the rates",
               "M_ij = d^2 K / (dqd_i dqd_j)",
               r"M_{ij} = \partial^2 K/\partial\dot q_i\,\partial\dot q_j"),
    "jacobian": ("Inertia matrix from the Jacobians", "B",
                 r"B = \sum_i m_i (J_P^{l_i})^T J_P^{l_i} + (J_\theta^{l_i})^T R_i I_i R_i^T "
                 r"J_\theta^{l_i}"),
}
#: The closing step of g per route: (formula, LaTeX lhs, LaTeX formula).
_G_FORMULA = {
    "euler-lagrange": ("dU/dq", "g", r"\partial U/\partial q"),
    "energy": ("dU/dq", "g", r"\partial U/\partial q"),
    "jacobian": ("g_i = -sum_j m_j g0^T J_P,i^(lj)", "g",
                 r"g_i = -\sum_j m_j \mathbf{g}_0^T J_{P_i}^{l_j}"),
    "newton-euler": ("tau(q, qd = 0, qdd = 0)", "g", r"\tau(q, 0, 0)"),
}
#: The sections of the Newton–Euler recursion (printed without the named terms).
_RECURSION_SECTIONS = frozenset({"Link frames", "Outward iteration (link i in frame i)",
                                 "Inward iteration (link i in frame i)",
                                 "Forward recursion (Siciliano 7.5: link i in DH frame i)",
                                 "Backward recursion (Siciliano 7.5: link i in DH frame i)"})


@dataclass(frozen=True)
class Step:
    """One step of a derivation, as a student writes it: ``lhs = formula = expression``.

    Iterating gives ``(title, expression)``. ``expression`` is a SymPy expression or
    matrix; ``formula`` the general equation the step instantiates (may be empty).
    """

    section: str
    title: str
    lhs: str
    expression: Any
    formula: str = ""
    latex_lhs: str = ""
    latex_formula: str = ""
    #: whether printing writes the named terms (``h``) into this step; false for the
    #: vectors of the Newton–Euler recursion, which the lecture writes out in full
    substitute_terms: bool = True
    #: the model's LaTeX names of its symbols (``q2 -> d_{2}``, :attr:`.Equations.tex_names`),
    #: for the notebook display; not part of the step's value
    tex_names: Any = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator:
        yield self.title
        yield self.expression

    def _repr_latex_(self) -> str:
        """``lhs = formula = expression`` as LaTeX, for Jupyter (the equations' own
        printing, :meth:`.Equations.latex`, also uses the model's display names)."""
        lhs = self.latex_lhs or rf"\text{{{self.lhs}}}"
        middle = f" = {self.latex_formula}" if self.latex_formula else ""
        names = {}
        model = dict(self.tex_names or {})
        for sym in getattr(self.expression, "free_symbols", ()):
            if sym in model:  # the model's display names, as eq.latex() prints them
                names[sym] = model[sym]
                continue
            head, index = sym.name.rstrip("0123456789"), sym.name[len(sym.name.rstrip(
                "0123456789")):]
            if index and head in _RATE_TEX:
                names[sym] = _RATE_TEX[head].format(index)
        return f"$\\displaystyle {lhs}{middle} = {sp.latex(self.expression, symbol_names=names)}$"


def steps_of(eq: Equations, potential_shift: sp.Expr) -> list[Step]:
    """The derivation of ``eq``, step by step (see :class:`Step`), ending with M, C, g,
    tau; ``potential_shift``: ``U(q0)``, where the model puts the zero of ``U``
    (:attr:`~.equations.Equations.potential_zero`; 0 without one)."""
    given = given_steps(eq.derivation, eq.dh_rows, eq.convention)
    out = [printed_step(eq, s) for s in given + eq.derivation.steps]
    names = eq.tex_names
    steps = _model_masses(eq, _shifted(eq, out, potential_shift) + _closing_steps(eq))
    return [replace(s, tex_names=names) for s in _distinct_names(eq, steps)]


_MASS_LHS = re.compile(r"^m_(\d+(?:,\d+)?)$")


def _model_masses(eq: Equations, steps: list[Step]) -> list[Step]:
    """``steps`` with each mass the model names otherwise than ``m<k>`` written in the
    templates by the model's own name: ``K_2 = 1/2 mL2 v_c2^T v_c2`` where link 2's body
    is ``mL2`` (the model's ``m2`` being a motor), ``1/2 m2 v_c1,1^T v_c1,1`` for the
    motor at link 1's tip; the Given step then reads ``Link 2 (mass mL2): centre of
    mass ...`` (no ``mL2 = mL2``). A mass named
    ``m<k>`` (``m_1 = m1``) and one that is an expression keep the template's ``m_k``."""
    from .printing.latex import tex_of

    text, tex = {}, {}
    for step in steps:
        m = _MASS_LHS.match(step.lhs) if step.section == SECTION_GIVEN else None
        value = step.expression
        if m and isinstance(value, sp.Symbol) and value.name != "m" + m.group(1).replace(
                ",", ""):
            text[m.group(1)], tex[m.group(1)] = value.name, tex_of(eq, value)
    if not text:
        return steps
    keys = "|".join(sorted((re.escape(k) for k in text), key=len, reverse=True))
    plain = re.compile(rf"(?<![\w\[])m_({keys})(?![\w,])")
    latex = re.compile(rf"m_\{{({keys})\}}")
    out, named = [], ""
    for step in steps:
        m = _MASS_LHS.match(step.lhs) if step.section == SECTION_GIVEN else None
        if m and m.group(1) in text:  # said in the next step's title: no "mL1 = mL1"
            named = text[m.group(1)]
            continue
        if named:  # the step after a mass: its centre of mass, where the point sits
            head, sep, rest = step.title.partition(": ")
            title = (re.sub(r"point mass (\d+)", rf"point mass \1 ({named})", step.title,
                            count=1)
                     if "point mass" in rest else f"{head} (mass {named}){sep}{rest}")
            step, named = replace(step, title=title), ""
        out.append(replace(
            step, formula=plain.sub(lambda x: text[x.group(1)], step.formula or ""),
            latex_formula=latex.sub(lambda x: tex[x.group(1)], step.latex_formula or "")))
    return out


def _shifted(eq: Equations, steps: list[Step], shift: sp.Expr) -> list[Step]:
    """The energy steps with ``U`` zero at ``eq.potential_zero``: ``U - U(q0)`` and
    ``L = K - U`` with it (lecture 15's reference ``U_ref``, Siciliano §7.1's
    ``U = m g l (1 - cos q)``)."""
    if shift == 0:
        return steps
    q0 = ", ".join(str(x) for x in eq.potential_zero)
    out = []
    for step in steps:
        if step.lhs == "U" and step.section != SECTION_GIVEN:
            out.append(step)
            step = replace(step, title=f"Potential energy with its zero at q = [{q0}]",
                           expression=step.expression - shift, formula=f"U - U([{q0}])",
                           latex_formula=r"U - U(q_0)")
        elif step.lhs == "L":
            step = replace(step, expression=step.expression + shift)
        out.append(step)
    return out


def _distinct_names(eq: Equations, steps: list[Step]) -> list[Step]:
    """``steps`` with every left side that prints like one of the model's symbols
    (``m_1`` and the parameter ``m1`` both read m1, ``g`` the gravity torques and the
    parameter ``g``) but stands for something else, or that is set to another index's
    symbol (``m_1 = m2``), renamed: ``m[1]``, ``g(q)``."""
    def bare(name: str) -> str:
        return "".join(ch for ch in str(name) if ch not in "_{}\\ ")

    taken = {bare(s.name) for s in eq.params} | {bare(v) for v in eq.display.values()}
    taken |= {bare(k) for k in eq.user_terms} | {bare(k) for k in eq.model_terms}
    out, renamed = [], {}
    for step in steps:
        mine = bare(step.lhs)
        value = step.expression
        same = isinstance(value, sp.Symbol) and bare(value.name) == mine
        # m_1 = m2: link 1's mass named like link 2's
        other = isinstance(value, sp.Symbol) and not same and \
            bare(value.name).rstrip("0123456789") == mine.rstrip("0123456789")
        if (mine not in taken or same) and not other:
            out.append(step)
            continue
        head, sep, index = step.lhs.partition("_")
        lhs = f"{head}[{index}]" if sep and index else f"{step.lhs}(q)"
        tex = step.latex_lhs
        if tex and sep and index and tex.endswith("}") and "_{" in tex:
            at = tex.rindex("_{")
            tex = f"{tex[:at]}_{{[{tex[at + 2:-1]}]}}"
        elif tex:
            tex = f"{tex}(q)"
        if step.section == SECTION_GIVEN and sep and index:
            renamed[step.lhs] = lhs
        out.append(replace(step, lhs=lhs, latex_lhs=tex))
    if not renamed:
        return out
    # the templates name the renamed data as the Given step does: R_1 c[1], not R_1 c_1
    # beside the parameter c1 (a vector and a scalar never share a name)
    keys = "|".join(re.escape(k) for k in sorted(renamed, key=len, reverse=True))
    token = re.compile(rf"(?<![\w\[])({keys})(?![\w,\]])")
    return [replace(s, formula=token.sub(lambda m: renamed[m.group(1)], s.formula))
            if s.formula else s for s in out]


def _value(eq: Equations, value):
    ring, form = eq.derivation.ring, eq.trig_form
    if isinstance(value, PolyElement):
        return textbook(ring, value, form=form)
    if isinstance(value, PlusExpr):
        return textbook(ring, value.poly, form=form) + value.extra
    if isinstance(value, tuple):
        return textbook_matrix(ring, [[p] for p in value], form=form)
    if isinstance(value, list):
        return textbook_matrix(ring, value, form=form)
    return value


def printed_step(eq: Equations, s: RawStep) -> Step:
    """The derivation's step ``s`` as ``eq`` prints it: its polynomials in the compact
    form of :mod:`.simplify`, in ``eq``'s trigonometric form."""
    return Step(s.section, s.title, s.lhs, _value(eq, s.value), s.formula, s.latex_lhs,
                s.latex_formula, substitute_terms=s.section not in _RECURSION_SECTIONS)


def _friction_formula(chain) -> tuple[str, str, str]:
    """The friction step's formula (text, LaTeX symbol, LaTeX): the textbook's
    ``F_v qd + F_s sign(qd)``, or the richer model of :mod:`robodyn.model.friction` when a
    joint has more."""
    extra = LUGRE_FORMULA if getattr(chain, "lugre", None) is not None else ("", "")
    if not any(link.friction.extended for link in chain.links):
        return ("F_v qd + F_s sign(qd)" + extra[0], r"\tau_f",
                r"F_v \dot q + F_s \operatorname{sign}(\dot q)" + extra[1])
    return ("F_v qd + F_c(qd) s(qd) + (F_st - F_c(qd)) exp(-|qd/v_st|^delta) s(qd) + tau_0"
            + extra[0], r"\tau_f", r"F_v \dot q + F_c s + (F_{st} - F_c)\,"
            r"e^{-|\dot q/v_{st}|^\delta} s + \tau_0" + extra[1])


def _closing_steps(eq: Equations) -> list[Step]:
    n = eq.dof
    S = SECTION_COLLECT
    lagrange = eq.method == "lagrange"
    title, formula, latex_formula = _M_STEP[eq.route if lagrange else "newton-euler"]
    steps = [Step(S, title, "M", eq.M, formula, "M", latex_formula)]
    split = eq.mass_matrix_split()
    if split is not None:  # the lecture notes' form: M = M_0 + sum_k M_k cos(...)
        for k, (factor, part) in enumerate(split):
            what = "constant part" if k == 0 else f"coefficient of {factor}"
            steps.append(Step(S, f"M = M_0 + sum_k M_k cos(...): {what}", f"M_{k}", part,
                              "", f"M_{{{k}}}", ""))
    # the whole table c_ijk, zeros included, as Siciliano et al. write it out
    frame = bool(eq.derivation.ring.structure)  # ball or free joints: a non-holonomic frame
    for i in range(n):
        for j in range(n):
            for k in range(n):
                a, b, c = i + 1, j + 1, k + 1
                if frame:  # derivation.christoffel: the brackets add, c_ijk != c_ikj
                    steps.append(Step(
                        S, f"Christoffel symbol c_{a}{b}{c} (frame of the velocity "
                        "coordinates)", f"c_{a}{b}{c}", eq.christoffel[i][j][k],
                        f"1/2 (X_{c} M_{a}{b} + X_{b} M_{a}{c} - X_{a} M_{b}{c}) + 1/2 sum_m "
                        f"(c^m_{c}{b} M_m{a} - c^m_{b}{a} M_m{c} - c^m_{c}{a} M_m{b})",
                        f"c_{{{a}{b}{c}}}",
                        rf"\tfrac12\left(X_{{{c}}} M_{{{a}{b}}} + X_{{{b}}} M_{{{a}{c}}} - "
                        rf"X_{{{a}}} M_{{{b}{c}}}\right) + \tfrac12 \sum_m \left("
                        rf"c^m_{{{c}{b}}} M_{{m{a}}} - c^m_{{{b}{a}}} M_{{m{c}}} - "
                        rf"c^m_{{{c}{a}}} M_{{m{b}}}\right)"))
                    continue
                steps.append(Step(
                    S, f"Christoffel symbol c_{a}{b}{c}"
                    + (f" (= c_{a}{c}{b})" if j != k else ""),
                    f"c_{a}{b}{c}", eq.christoffel[i][j][k],
                    f"1/2 (dM_{a}{b}/dq{c} + dM_{a}{c}/dq{b} - dM_{b}{c}/dq{a})",
                    f"c_{{{a}{b}{c}}}",
                    rf"\tfrac12\left(\frac{{\partial M_{{{a}{b}}}}}{{\partial "
                    rf"q_{{{c}}}}} + \frac{{\partial M_{{{a}{c}}}}}{{\partial "
                    rf"q_{{{b}}}}} - \frac{{\partial M_{{{b}{c}}}}}{{\partial "
                    rf"q_{{{a}}}}}\right)"))
    steps += [
        Step(S, "Coriolis and centrifugal matrix", "C", eq.C, "C_ij = sum_k c_ijk qd_k",
             "C", r"C_{ij} = \sum_k c_{ijk}\,\dot q_k"),
        Step(S, "Coriolis and centrifugal torques", "C qd", eq.Cqd,
             "tau - M qdd - g" if not lagrange else "",
             r"C\dot q", r"\tau - M\ddot q - g" if not lagrange else ""),
        Step(S, "Gravity torques", "g", eq.g,
             *_G_FORMULA[eq.route if lagrange else "newton-euler"]),
    ]
    if getattr(eq, "z", ()):  # LuGre: the bristles' equation, then the friction reading z
        steps.append(Step(S, "LuGre bristle deflections z: their rates (the states' "
                          "equation)", "dz/dt", eq.bristle_rate, BRISTLE_FORMULA[0],
                          r"\dot z", BRISTLE_FORMULA[1]))
    steps.append(Step(S, "Friction torques", "friction", eq.friction,
                      *_friction_formula(eq.chain)))
    if eq.derivation.wrench is not None:
        steps.append(Step(S, "Torques balancing the end-effector wrench h_e", "J^T h_e",
                          eq.wrench_torques, "", r"J^T h_e"))
    steps.append(Step(S, "Equations of motion", "tau", eq.tau,
                      "M qdd + C qd + friction + g" + (" + J^T h_e" if eq.h_e else ""),
                      r"\tau", r"M\ddot q + C\dot q + \tau_f + g"
                      + (r" + J^T h_e" if eq.h_e else "")))
    return steps + _skew_steps(eq)


def _skew_steps(eq: Equations) -> list[Step]:
    """``dM/dt``, ``N = dM/dt - 2C`` and ``N + N^T`` (zero: ``N`` is skew-symmetric)."""
    S = SECTION_SKEW
    n = eq.dof
    N = n_matrix(eq.derivation)
    sym_polys = [[N[i][j] + N[j][i] for j in range(n)] for i in range(n)]
    skew = not any(x for row in sym_polys for x in row)
    sym = _value(eq, sym_polys)
    rate = ("dM_ij/dt = sum_k X_k(M_ij) v_k (X_k: along velocity coordinate k)",
            r"\dot M_{ij} = \sum_k X_k(M_{ij})\, v_k") if eq.derivation.ring.structure else \
        ("dM_ij/dt = sum_k dM_ij/dq_k qd_k",
         r"\dot M_{ij} = \sum_k \frac{\partial M_{ij}}{\partial q_k}\,\dot q_k")
    return [
        Step(S, "Time derivative of the inertia matrix", "dM/dt", eq.Mdot, rate[0],
             r"\dot M", rate[1]),
        Step(S, "The matrix N", "N", eq.N, "dM/dt - 2C", "N", r"\dot M - 2C"),
        Step(S, "N + N^T (all zero: N is skew-symmetric)" if skew else
             "N + N^T (NOT zero: N is not skew-symmetric)", "N + N^T", sym, "", r"N + N^T"),
    ]
