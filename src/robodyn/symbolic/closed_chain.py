"""The closed form of a closed mechanism whose loop closure is linear in the joint angles
(Siciliano's parallelogram arm): the open tree's Lagrangian, the closure, and the reduced
model on the actuated coordinates, with steps.

The tree has coordinates ``q`` (``n``), the actuated ones ``y`` (``n_a``). A closure linear in
the angles is ``q = G y + c`` with ``G`` constant (integer entries) and ``c`` a constant
(multiples of pi), so ``qd = G yd``, ``qdd = G ydd`` and ``Gdot = 0``. The virtual work
``tau_y . dy = tau . dq`` gives the reduced model (Siciliano et al., "Robotics", §7.3.3,
eqs. (7.90)-(7.91); Featherstone, "Rigid Body Dynamics Algorithms", §8.2):

    B_y(y) ydd + C_y(y, yd) yd + g_y(y) = tau_y,
    B_y = G^T B(q(y)) G,   C_y = G^T C(q(y), G yd) G   (G^T (B Gdot + C G), Gdot = 0),
    g_y = G^T g(q(y)).

``C_y`` is the Christoffel matrix of ``B_y`` (the tree's ``C`` is that of ``B``, and a
constant linear change of coordinates carries Christoffel symbols to Christoffel
symbols), so ``dB_y/dt - 2 C_y`` is skew-symmetric.

``G`` and ``c`` come from the numeric mechanism (:class:`~robodyn.dynamics.constrained.
ClosedChain`): its velocity map ``S(q)`` at assembled states must be the same integer matrix
everywhere; ``c`` is read at an assembled state and rounded to a multiple of pi/12; the
closure residual of ``q = G y + c`` is then checked at random ``y``. A closure that is not
linear (a four-bar, a five-bar) is refused with a clear error: its passive angles are
implicit functions of ``y`` (their closed form is not built yet; the numeric reduced model
of :mod:`robodyn.dynamics.constrained` handles it).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sympy as sp

from ..core.errors import ModelError
from .printing.text import wrap_line
from .steps import Step

SECTION_GIVEN = "Given"
SECTION_TREE = "Open-tree Lagrangian"
SECTION_CONSTRAINT = "Loop constraint"
SECTION_REDUCTION = "Reduction to the actuated coordinates"
SECTION_RESULT = "Result"
#: Random assembled states at which the velocity map must be the same integer matrix.
SAMPLES = 6
#: How far from an integer an entry of the velocity map (or c / (pi/12)) may be.
INTEGER_TOLERANCE = 1e-8
#: The largest closure residual (m) of ``q = G y + c`` at a random ``y``.
RESIDUAL_TOLERANCE = 1e-9


@dataclass(frozen=True)
class LinearClosure:
    """``q = G y + c`` (``G`` ``(n, n_a)`` of integers, ``c`` multiples of pi)."""

    G: sp.Matrix
    c: sp.Matrix
    actuated: tuple[int, ...]


def _text_step(lhs: str, middle: str, expression) -> str:
    """One step as text lines of at most :data:`~.printing.text.TEXT_WIDTH` characters: an
    expression on its line, a matrix entry by entry (``B_y[1,2] = ...``; a vector's
    ``tau_y[2] = ...``)."""
    if not isinstance(expression, sp.MatrixBase):
        return wrap_line(f"  {lhs}{middle} = {sp.sstr(expression)}")
    rows, cols = expression.shape
    lines = [f"  {lhs}{middle}, {rows} x {cols}:"]
    for i in range(rows):
        for j in range(cols):
            at = f"{i + 1}" if cols == 1 else f"{i + 1},{j + 1}"
            lines.append(wrap_line(f"    {lhs}[{at}] = {sp.sstr(expression[i, j])}"))
    return "\n".join(lines)


class _Printed:
    """Printing of a reduction's ``steps``."""

    steps: tuple[Step, ...]

    def text(self) -> str:
        """The steps as plain text, ``lhs = formula = expression`` under their sections."""
        out, section = [], None
        for s in self.steps:
            if s.section != section:
                section = s.section
                out.append(f"\n{section}\n{'-' * len(section)}")
            middle = f" = {s.formula}" if s.formula else ""
            out.append(f"{s.title}:\n" + _text_step(s.lhs, middle, s.expression))
        return "\n".join(out).lstrip("\n") + "\n"

    def markdown(self) -> str:
        """The steps as markdown with LaTeX (``$...$``), one paragraph each."""
        out, section = [], None
        for s in self.steps:
            if s.section != section:
                section = s.section
                out.append(f"### {section}")
            out.append(f"**{s.title}.** {s._repr_latex_()}")
        return "\n\n".join(out) + "\n"

    def latex(self) -> str:
        """The steps as a LaTeX document, one displayed equation per step under its section
        (long entries are not broken across lines yet)."""
        out, section = [r"\documentclass[10pt]{article}", r"\usepackage{amsmath}",
                        r"\allowdisplaybreaks", r"\begin{document}"], None
        for s in self.steps:
            if s.section != section:
                section = s.section
                out.append(f"\\subsection*{{{section}}}")
            middle = f" = {s.formula}" if s.formula else ""
            out.append(f"% {s.title}\n\\[ \\text{{{s.lhs}{middle}}} = "
                       f"{sp.latex(s.expression)} \\]")
        return "\n".join(out + [r"\end{document}"]) + "\n"


@dataclass(frozen=True)
class ReducedEquations(_Printed):
    """The reduced closed form: ``B ydd + C yd + g = tau`` on the actuated coordinates ``y``
    (the tree's symbols of the actuated joints), with the steps that lead to it."""

    y: tuple[sp.Symbol, ...]
    yd: tuple[sp.Symbol, ...]
    B: sp.Matrix
    C: sp.Matrix
    g: sp.Matrix
    closure: LinearClosure
    steps: tuple[Step, ...]


#: Random starting points :func:`assembled_state` tries, at most.
ASSEMBLY_TRIES = 20


def assembled_state(mechanism, q0) -> np.ndarray:
    """An assembled ``q`` of ``mechanism``: from ``q0`` (a named configuration), else from
    up to :data:`ASSEMBLY_TRIES` seeded random guesses (a model without one)."""
    rng = np.random.default_rng(1)
    guesses = [np.asarray(q0, dtype=float)] + [rng.uniform(-np.pi, np.pi, len(q0))
                                               for _ in range(ASSEMBLY_TRIES)]
    for q in guesses:
        try:
            return mechanism.assemble(q[mechanism.actuated], q).q
        except ModelError:
            continue
    raise ModelError(f"derive: no assembly of the loops from {ASSEMBLY_TRIES} guesses; add "
                     "an assembled 'configurations: {home: [...]}' to the model file")


def linear_closure(mechanism, q_home, rng=None) -> LinearClosure:
    """``q = G y + c`` of ``mechanism`` (a :class:`~robodyn.dynamics.constrained.ClosedChain`)
    assembled from ``q_home``; raises :class:`ModelError` when the closure is not linear in
    the angles. ``rng``: the random states' generator (a seeded one by default)."""
    rng = rng or np.random.default_rng(0)
    q_home = np.asarray(q_home, dtype=float)
    a = mechanism.actuated
    S0 = mechanism.velocity_map(q_home)
    states = [q_home]
    for _ in range(SAMPLES):  # a bounded number of nearby assembled states
        y = q_home[a] + rng.uniform(-0.3, 0.3, len(a))
        guess = q_home + S0 @ (y - q_home[a])  # a predictor step: stay on the home branch
        states.append(mechanism.assemble(y, guess).q)
    for q in states:
        if not np.allclose(mechanism.velocity_map(q), S0, atol=1e-7):
            raise ModelError("derive: the loop closure is not linear in the joint angles (its "
                             "velocity map changes with q), so its passive angles have no "
                             "closed form here; use robot.closed_chain() for its numeric "
                             "reduced model, or derive --tree for the open tree "
                             "(docs/closed-chains.md)")
    G = np.rint(S0)
    if np.abs(S0 - G).max() > INTEGER_TOLERANCE:
        raise ModelError("derive: the loop closure's velocity map is constant but not of "
                         "integers; write the closure as q = G y + c by hand")
    step = np.pi / 12
    c_num = q_home - G @ q_home[a]
    k = np.rint(c_num / step)
    if np.abs(c_num / step - k).max() > 1e-6:
        raise ModelError("derive: the closure's offset c in q = G y + c is not a multiple of "
                         "pi/12; write the closure by hand")
    for _ in range(SAMPLES):  # check the closure at random actuated angles, not only nearby
        y = rng.uniform(-np.pi, np.pi, len(a))
        r = mechanism.residual(G @ y + k * step)
        if np.abs(r).max() > RESIDUAL_TOLERANCE:
            raise ModelError(f"derive: q = G y + c does not close the loop at y = {y} "
                             f"(residual {np.abs(r).max():.1e})")
    c = sp.Matrix([sp.pi * sp.Rational(int(x), 12) for x in k])
    return LinearClosure(sp.Matrix(G.astype(int)), c, tuple(int(i) for i in a))


def _tidy(expr):
    """Trigonometric simplification of one entry (angle differences kept as such)."""
    return sp.factor_terms(sp.trigsimp(sp.expand_trig(sp.expand(expr))))


def reduce(eq, closure: LinearClosure) -> ReducedEquations:
    """The reduced model of the open tree ``eq`` (:class:`~.equations.Equations`) under the
    linear ``closure`` (module docstring), with its steps."""
    q, qd = list(eq.q), list(eq.qd)
    G, c = closure.G, closure.c
    y = tuple(q[i] for i in closure.actuated)
    yd = tuple(qd[i] for i in closure.actuated)
    q_of_y = G * sp.Matrix(y) + c
    qd_of_y = G * sp.Matrix(yd)
    subs = dict(zip(q + qd, list(q_of_y) + list(qd_of_y)))
    B = (G.T * eq.M.subs(subs, simultaneous=True) * G).applyfunc(_tidy)
    g = (G.T * eq.g.subs(subs, simultaneous=True)).applyfunc(_tidy)
    C = (G.T * eq.C.subs(subs, simultaneous=True) * G).applyfunc(_tidy)
    Y, Yd = sp.Matrix(y), sp.Matrix(yd)
    Ydd = sp.Matrix([eq.qdd[i] for i in closure.actuated])
    steps = [
        Step(SECTION_GIVEN, "Tree coordinates", "q", sp.Matrix(q)),
        Step(SECTION_GIVEN, "Actuated (independent) coordinates", "y", Y),
        Step(SECTION_TREE, "Lagrangian of the open tree", "L", eq.lagrangian, "T - U"),
        Step(SECTION_TREE, "Inertia matrix of the tree", "B", eq.M),
        Step(SECTION_TREE, "Gravity of the tree", "g", eq.g, "dU/dq"),
        Step(SECTION_CONSTRAINT, "The loop closure, linear in the angles", "q",
             q_of_y, "G y + c"),
        Step(SECTION_CONSTRAINT, "Velocity map (constant)", "G", G, "dq/dy"),
        Step(SECTION_REDUCTION, "Reduced inertia", "B_y", B, "G^T B(q(y)) G"),
        Step(SECTION_REDUCTION, "Reduced Coriolis matrix", "C_y", C,
             "G^T (B Gdot + C G) = G^T C G"),
        Step(SECTION_REDUCTION, "Reduced gravity", "g_y", g, "G^T g(q(y))"),
        Step(SECTION_RESULT, "Equations of motion on y", "tau_y",
             B * Ydd + C * Yd + g,
             "B_y ydd + C_y yd + g_y"),
    ]
    return ReducedEquations(y, yd, B, C, g, closure, tuple(steps))


def verify(red: ReducedEquations, mechanism, values, q_home, samples: int = 5,
           seed: int = 0) -> dict[str, float]:
    """The closed form against the two numeric routes of ``mechanism`` at ``samples`` random
    assembled states (``values``: numbers for the symbols left in ``red``): the largest
    differences of ``B_y`` from ``S^T M S`` and of ``ydd = B_y^-1 (tau - C_y yd - g_y)``
    from the reduced numeric model and from the Lagrange-multiplier (KKT) route
    ``M qdd + h = tau + K^T lambda, K qdd + k = 0``."""
    table = {sp.Symbol(str(k)): v for k, v in dict(values or {}).items()}
    args = list(red.y) + list(red.yd)
    B_f, C_f, g_f = (sp.lambdify(args, m.subs(table), "numpy") for m in (red.B, red.C, red.g))
    rng = np.random.default_rng(seed)
    G = np.array(red.closure.G, dtype=float)
    c = np.array(red.closure.c, dtype=float).ravel()
    a = mechanism.actuated
    worst = {"B_y": 0.0, "ydd (reduced)": 0.0, "ydd (multipliers)": 0.0}
    for _ in range(samples):
        y = np.asarray(q_home, dtype=float)[a] + rng.uniform(-1, 1, len(a))
        yd, tau = rng.uniform(-2, 2, len(a)), rng.uniform(-5, 5, len(a))
        q = mechanism.assemble(y, G @ y + c).q
        B = np.array(B_f(*y, *yd), dtype=float)
        h = np.array(C_f(*y, *yd), dtype=float) @ yd + np.array(g_f(*y, *yd), dtype=float).ravel()
        ydd = np.linalg.solve(B, tau - h)
        worst["B_y"] = max(worst["B_y"], np.abs(B - mechanism.reduced_mass_matrix(q)).max())
        worst["ydd (reduced)"] = max(worst["ydd (reduced)"], np.abs(
            ydd - mechanism.reduced_forward_dynamics(q, yd, tau)).max())
        qdd = mechanism.forward_dynamics(q, G @ yd, tau)[0]
        worst["ydd (multipliers)"] = max(worst["ydd (multipliers)"],
                                         np.abs(ydd - qdd[a]).max())
    return worst


# -- a closure that is not linear: the reduction in the implicit passive angles -------------
SECTION_MULTIPLIERS = "Lagrange multipliers"


@dataclass(frozen=True)
class ImplicitReduction(_Printed):
    """The reduced inertia and gravity of a nonlinear closure, ``B_y = G^T B G``,
    ``g_y = G^T g`` with ``G = [1; -K_p^-1 K_a]`` (rows in the tree's order), functions of
    every tree angle ``q``: the passive ones are the implicit solution of ``phi(q) = 0``
    at the actuated ``y``. ``phi`` the closure, ``K = dphi/dq``."""

    y: tuple[sp.Symbol, ...]
    phi: sp.Matrix
    K: sp.Matrix
    G: sp.Matrix
    B: sp.Matrix
    g: sp.Matrix
    steps: tuple[Step, ...]
    #: ``yd`` and the velocity terms ``h_y = G^T (B Gdot + C G) yd`` (a vector),
    #: ``Gdot = sum_k dG/dq_k qd_k``, ``qd = G yd``
    yd: tuple[sp.Symbol, ...] = ()
    h: sp.Matrix | None = None


def _link_poses(chain, q) -> list:
    """The links' frames (SymPy :class:`~robodyn.model.chain.Transform`), revolute joints
    about their z axes only (planar closed mechanisms)."""
    from ..model.chain import Transform

    poses = []
    for i, link in enumerate(chain.links):
        j = link.joint
        if j.type != "revolute" or tuple(j.axis) != (0, 0, 1):
            raise ModelError(f"derive: joint {i + 1} ({link.name}) is not revolute about "
                             "its z axis; the closed form of a nonlinear closure takes "
                             "planar revolute mechanisms only")
        parent = poses[chain.parent(i)] if chain.parent(i) >= 0 else Transform()
        poses.append(parent @ j.placement @ Transform.rot_z(q[i] + j.offset))
    return poses


def closure_of(chain, q) -> sp.Matrix:
    """``phi(q)``: per loop, ``p_a - p_b`` (x, y for a planar loop; position loops only)."""
    from ..model.chain import Transform

    poses = _link_poses(chain, q)
    frames = {f.name: f for f in chain.frames}
    rows = []
    for loop in chain.closures.loops:
        if loop.kind == "pose":
            raise ModelError(f"derive: loop {loop.name!r} is a pose closure; the closed form "
                             "takes position and planar loops")
        p = []
        for name in (loop.frame_a, loop.frame_b):
            f = frames[name]
            base = poses[f.link] if f.link >= 0 else Transform()
            p.append((base @ f.placement).translation)
        d = [sp.expand(a - b) for a, b in zip(*p)]
        rows += d[:2] if loop.kind == "planar" else d
    return sp.Matrix(rows).applyfunc(sp.trigsimp)


def implicit_reduction(eq, chain, actuated) -> ImplicitReduction:
    """The reduction of ``eq`` (the open tree of ``chain``) on the ``actuated`` coordinates
    (indices) when the closure is nonlinear (a four-bar, a five-bar)."""
    q = list(eq.q)
    n = len(q)
    a = list(actuated)
    p = [i for i in range(n) if i not in a]
    phi = closure_of(chain, q)
    K = phi.jacobian(q)
    Kp, Ka = K[:, p], K[:, a]
    if Kp.shape[0] != Kp.shape[1]:
        raise ModelError(f"derive: {Kp.shape[0]} closure equations for {len(p)} passive "
                         "joints; the implicit reduction needs as many as there are")
    Gp = -(Kp.adjugate() * Ka) / Kp.det()  # K_p^-1 K_a by the adjugate: no pivots on symbols
    G = sp.zeros(n, len(a))
    for k, i in enumerate(a):
        G[i, k] = 1
    for k, i in enumerate(p):
        G[i, :] = Gp[k, :].applyfunc(sp.trigsimp)
    B, g = G.T * eq.M * G, G.T * eq.g
    y = tuple(q[i] for i in a)
    yd = sp.Matrix([eq.qd[i] for i in a])
    qd = G * yd
    Gdot = sp.zeros(*G.shape)
    for k, qk in enumerate(q):
        Gdot += G.diff(qk) * qd[k]
    h = G.T * (eq.M * Gdot * yd + eq.C.subs(dict(zip(eq.qd, qd)), simultaneous=True) * qd)
    lam = sp.Matrix(sp.symbols(f"lambda1:{K.shape[0] + 1}"))
    steps = (
        Step(SECTION_GIVEN, "Tree coordinates", "q", sp.Matrix(q)),
        Step(SECTION_GIVEN, "Actuated (independent) coordinates", "y", sp.Matrix(y)),
        Step(SECTION_TREE, "Lagrangian of the open tree", "L", eq.lagrangian, "T - U"),
        Step(SECTION_CONSTRAINT, "The loop closure (nonlinear: the passive angles are "
             "implicit functions of y, phi = 0)", "phi", phi, "p_a(q) - p_b(q)"),
        Step(SECTION_CONSTRAINT, "Constraint Jacobian", "A", K, "dphi/dq"),
        Step(SECTION_MULTIPLIERS, "Equations of the tree with the loop forces", "B qdd + C qd "
             "+ g - A^T lambda", eq.M * sp.Matrix(eq.qdd) + eq.Cqd + eq.g - K.T * lam,
             "tau, with A qd = 0"),
        Step(SECTION_REDUCTION, "Velocity map, in the implicit passive angles", "G", G,
             "[1; -A_p^-1 A_a]"),
        Step(SECTION_REDUCTION, "Reduced inertia", "B_y", B, "G^T B G"),
        Step(SECTION_REDUCTION, "Reduced gravity", "g_y", g, "G^T g"),
        Step(SECTION_REDUCTION, "Reduced velocity terms (qd = G yd)", "h_y", h,
             "G^T (B Gdot + C G) yd"),
        Step(SECTION_RESULT, "Equations of motion on y (q_p solving phi = 0)", "tau_y",
             B * sp.Matrix([eq.qdd[i] for i in a]) + h + g, "B_y ydd + h_y + g_y"),
    )
    return ImplicitReduction(y, phi, K, G, B, g, steps, tuple(yd), h)


def verify_implicit(red: ImplicitReduction, mechanism, values, q0, q_symbols,
                    samples: int = 5, seed: int = 0) -> dict[str, float]:
    """:func:`verify` of a nonlinear closure: ``B_y`` against ``S^T M S`` and
    ``ydd = B_y^-1 (tau - h_y - g_y)`` at random ``yd`` against the numeric reduced
    model and the Lagrange-multiplier (KKT) route, at ``samples`` assembled states near
    ``q0`` (each from the one before, by the velocity map's predictor)."""
    table = {sp.Symbol(str(k)): v for k, v in dict(values or {}).items()}
    args = list(q_symbols) + list(red.yd)
    B_f = sp.lambdify(args, red.B.subs(table), "numpy")
    g_f = sp.lambdify(args, (red.h + red.g).subs(table), "numpy")
    rng = np.random.default_rng(seed)
    a = mechanism.actuated
    q = np.asarray(q0, dtype=float)
    worst = {"B_y": 0.0, "ydd (reduced)": 0.0, "ydd (multipliers)": 0.0}
    for _ in range(samples):
        dy = rng.uniform(-0.2, 0.2, len(a))
        q = mechanism.assemble(q[a] + dy, q + mechanism.velocity_map(q) @ dy).q
        tau, yd = rng.uniform(-5, 5, len(a)), rng.uniform(-2, 2, len(a))
        B = np.array(B_f(*q, *yd), dtype=float)
        ydd = np.linalg.solve(B, tau - np.array(g_f(*q, *yd), dtype=float).ravel())
        worst["B_y"] = max(worst["B_y"], np.abs(B - mechanism.reduced_mass_matrix(q)).max())
        worst["ydd (reduced)"] = max(worst["ydd (reduced)"], np.abs(
            ydd - mechanism.reduced_forward_dynamics(q, yd, tau)).max())
        qdd = mechanism.forward_dynamics(q, mechanism.velocity_map(q) @ yd, tau)[0]
        worst["ydd (multipliers)"] = max(worst["ydd (multipliers)"],
                                         np.abs(ydd - qdd[a]).max())
    return worst
