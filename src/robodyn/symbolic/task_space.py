"""The operational space dynamic model in closed form, with its steps (Siciliano et al.,
Robotics, §7.8, eqs. 7.119-7.122; Khatib 1987).

For an arm whose task coordinates ``x(q)`` are as many as its joints (the planar 2R's tip
``x, y``; the planar 3R's ``x, y, phi``), the analytical Jacobian ``J_A = dx/dq`` is square
and, away from singular configurations, invertible; the joint-space model
``B(q) q'' + C(q, q') q' + g(q) = tau`` then gives the task-space one::

    B_A(x) x'' + C_A(x, x') x' + g_A(x) = gamma_A        tau = J_A^T gamma_A

    B_A       = J_A^-T B J_A^-1                                  (7.120)
    C_A x'    = J_A^-T C q' - B_A J_A' q'                         (7.121)
    g_A       = J_A^-T g                                         (7.122)

with ``q' = J_A^-1 x'``. They are written here as functions of ``q`` and ``q'`` (``x`` is a
function of ``q``): ``B_A`` is Khatib's ``Lambda``, ``C_A x'`` his ``mu`` and ``g_A`` his
``p`` (:mod:`robodyn.dynamics.operational_space`, which takes any number of rows and
joints numerically). Friction acts on the joints and is not part of them.

The task coordinates are rows of the frame's position (``0, 1, 2``: ``x, y, z``) and
``3``: the angle ``phi`` of a frame that turns about the base ``z`` axis only (a planar
arm's orientation, ``R = Rz(phi)``; ``phi`` is the sum of the angles of the revolute
joints about ``z``, checked against ``R``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import sympy as sp

from ..core.errors import InputError, ModelError

__all__ = ["TaskSpaceEquations", "task_space", "MAX_TASK_JOINTS"]

#: Most joints a closed-form task-space model is derived for (the inverse of a symbolic
#: ``n x n`` Jacobian grows as ``n!``); the numeric :meth:`robodyn.Robot.operational_space`
#: takes any arm.
MAX_TASK_JOINTS = 3

_ROW_NAMES = ("x", "y", "z", "phi")
_SYMPY_OPS = SimpleNamespace(sin=sp.sin, cos=sp.cos, sqrt=sp.sqrt, sign=sp.sign, name="sympy")


@dataclass(frozen=True)
class TaskSpaceEquations:
    """The closed forms of the task-space model (module docstring), each a SymPy matrix in
    the joint coordinates ``q``, ``qd``: ``x`` the task coordinates, ``J`` the analytical
    Jacobian, ``det_J`` its determinant (zero at singular configurations), ``J_inv``,
    ``Jdot_qd`` ``J_A' q'``, ``B_A``, ``C_A_xd`` (``C_A x'``) and ``g_A``; ``rows`` their
    names."""

    name: str
    rows: tuple[str, ...]
    q: tuple[sp.Symbol, ...]
    qd: tuple[sp.Symbol, ...]
    x: sp.Matrix
    J: sp.Matrix
    det_J: sp.Expr
    J_inv: sp.Matrix
    Jdot_qd: sp.Matrix
    B_A: sp.Matrix
    C_A_xd: sp.Matrix
    g_A: sp.Matrix

    def steps(self) -> list[tuple[str, str]]:
        """``(title, text)`` of each step, in the order of the derivation."""
        def show(m):
            return sp.sstr(m if not isinstance(m, sp.Matrix) or m.cols > 1 else m.T)

        return [
            ("task coordinates x(q)", f"x = ({', '.join(self.rows)}) = {show(self.x)}"),
            ("analytical Jacobian J_A = dx/dq", show(self.J)),
            ("its determinant (singular where zero)", sp.sstr(self.det_J)),
            ("its inverse J_A^-1", show(self.J_inv)),
            ("J_A' q' (the Jacobian's rate times q')", show(self.Jdot_qd)),
            ("B_A = J_A^-T B J_A^-1 (7.120)", show(self.B_A)),
            ("C_A x' = J_A^-T C q' - B_A J_A' q' (7.121)", show(self.C_A_xd)),
            ("g_A = J_A^-T g (7.122)", show(self.g_A)),
        ]

    def text(self, steps: bool = True) -> str:
        """The model as text: the steps (``steps``) or the three results."""
        head = (f"Operational space model of {self.name} (Siciliano 7.8): "
                "B_A(x) x'' + C_A(x, x') x' + g_A(x) = gamma_A, tau = J_A^T gamma_A, "
                "q' = J_A^-1 x'")
        shown = self.steps() if steps else self.steps()[-3:]
        return "\n".join([head, ""] + [f"({k}) {title}:\n    {body}"
                                       for k, (title, body) in enumerate(shown, 1)]) + "\n"

    def latex(self) -> str:
        """``B_A``, ``C_A x'`` and ``g_A`` as LaTeX equations."""
        return "\n".join([rf"B_A = {sp.latex(self.B_A)}", rf"C_A \dot x = {sp.latex(self.C_A_xd)}",
                          rf"g_A = {sp.latex(self.g_A)}"]) + "\n"

    def __str__(self) -> str:
        return self.text()


def _expr(x) -> sp.Expr:
    """A chain's number or SymPy expression as an expression; never text (nothing is
    parsed: the chain holds what the model reader checked)."""
    if isinstance(x, sp.Basic):
        return x
    if isinstance(x, bool) or not isinstance(x, int | float):
        raise TypeError(f"expected a number or a SymPy expression, got {type(x).__name__}")
    return sp.Integer(x) if isinstance(x, int) else sp.Float(x)


def task_space(eq, rows: Sequence[int] = (0, 1), simplify: bool = True) -> TaskSpaceEquations:
    """The closed-form operational space model of equations ``eq``
    (:class:`~robodyn.symbolic.equations.Equations`) at the end effector (module docstring):
    ``rows`` the task coordinates, as many as the joints (at most
    :data:`MAX_TASK_JOINTS`). The results are numerators over ``det J_A`` (``g_A``) and
    ``det J_A^2`` (``B_A``, ``C_A x'``), each numerator a polynomial in the model's
    parameters whose trigonometric coefficients are simplified one by one (``simplify``).
    """
    from ..dynamics.kinematics import link_poses, tip_pose

    try:
        rows = tuple(int(r) for r in rows)
    except (TypeError, ValueError):
        raise InputError(f"rows: expected task rows from 0 to 3, got {rows!r}") from None
    if not rows or len(set(rows)) != len(rows) or not all(0 <= r <= 3 for r in rows):
        raise InputError(f"rows: expected distinct task rows from 0 to 3 (x, y, z, phi), got "
                         f"{rows}")
    chain, q, qd = eq.chain, tuple(eq.q), tuple(eq.qd)
    n = len(q)
    if not chain.single_valued:
        raise ModelError(f"{eq.name}: the closed-form task-space model takes one-value joints; "
                         "use robot.operational_space for free and ball joints")
    if n > MAX_TASK_JOINTS:
        raise ModelError(f"{eq.name}: {n} joints; the closed-form task-space model is derived "
                         f"for at most {MAX_TASK_JOINTS} (the symbolic inverse of J_A grows as "
                         "n!): use robot.operational_space(q, qd) for the numbers")
    if len(rows) != n:
        raise InputError(f"rows: {len(rows)} task coordinates for {n} joints; the closed form "
                         f"needs a square Jacobian: give {n} rows (e.g. rows=(0, 1) for a "
                         "planar 2R, (0, 1, 3) for a planar 3R), or use "
                         "robot.operational_space for redundant arms")
    rot, pos = tip_pose(chain, link_poses(chain, list(q), _SYMPY_OPS))
    coords = []
    for r in rows:
        if r < 3:
            coords.append(sp.expand_trig(_expr(pos[r])))
        else:
            coords.append(_yaw(chain, q, rot, eq.name))
    x = sp.Matrix(coords)
    J = x.jacobian(sp.Matrix(q)).applyfunc(sp.trigsimp)
    params = sorted(eq.params, key=str)

    def tidy(e):
        # a polynomial in the parameters whose coefficients are small trigonometric
        # polynomials: each coefficient simplified on its own (cheap), not the whole
        e = sp.expand(sp.expand_trig(e))
        if e == 0 or not simplify:
            return e
        terms = sp.Poly(e, *params).terms() if params else [((), e)]
        return sp.Add(*[sp.Mul(*[p**k for p, k in zip(params, mon, strict=True)])
                        * sp.factor(sp.trigsimp(c)) for mon, c in terms])

    det = sp.factor(sp.trigsimp(sp.expand(J.det())))
    if det == 0:
        raise ModelError(f"{eq.name}: the task Jacobian of rows {rows} is singular at every "
                         "configuration (the arm cannot move those coordinates); choose "
                         "other rows")
    adj = J.adjugate().applyfunc(sp.trigsimp)                 # J^-1 = adj(J) / det J
    qd_vec = sp.Matrix(qd)
    Jdot_qd = (sum((J.diff(s) * d for s, d in zip(q, qd, strict=True)), sp.zeros(n, n))
               * qd_vec).applyfunc(tidy)
    # over the common denominators det^2 (B_A, C_A x') and det (g_A): numerators tidied
    B_num = (adj.T * eq.M * adj).applyfunc(tidy)
    C_num = (adj.T * eq.C * qd_vec * det - B_num * Jdot_qd).applyfunc(tidy)
    g_num = (adj.T * eq.g).applyfunc(tidy)
    J_inv = adj / det
    B_A, C_A_xd, g_A = B_num / det**2, C_num / det**2, g_num / det
    return TaskSpaceEquations(eq.name, tuple(_ROW_NAMES[r] for r in rows), q, qd, x, J, det,
                              J_inv, Jdot_qd, B_A, C_A_xd, g_A)


def _yaw(chain, q, rot, name: str) -> sp.Expr:
    """``phi`` with ``rot = Rz(phi)``: the angles of the revolute joints about ``z`` (with
    the sign of their axis) and their offsets, checked against ``rot``."""
    phi = sp.Integer(0)
    for link, s in zip(chain.links, q, strict=True):
        joint = link.joint
        axis = tuple(sp.nsimplify(_expr(a)) for a in joint.axis)
        if joint.type == "revolute" and axis[:2] == (0, 0) and axis[2] in (1, -1):
            phi += axis[2] * (s + _expr(joint.offset))
    R = sp.Matrix(3, 3, lambda i, j: _expr(rot[i][j]))
    Rz = sp.Matrix([[sp.cos(phi), -sp.sin(phi), 0], [sp.sin(phi), sp.cos(phi), 0], [0, 0, 1]])
    residual = (R - Rz).applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
    if residual != sp.zeros(3, 3):
        # the frame's own constant turn about z (a DH theta offset) is part of phi
        extra = sp.atan2(sp.simplify(R[1, 0].subs({s: 0 for s in q})),
                         sp.simplify(R[0, 0].subs({s: 0 for s in q})))
        Rz = Rz.subs(phi, phi + extra)
        residual = (R - Rz).applyfunc(lambda e: sp.simplify(sp.expand_trig(e)))
        phi = phi + extra
        if residual != sp.zeros(3, 3):
            raise ModelError(f"{name}: the end effector does not turn about the base z axis "
                             "only, so it has no angle phi (row 3); choose position rows")
    return phi
