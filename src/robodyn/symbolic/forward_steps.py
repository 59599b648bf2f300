"""Forward dynamics step by step: from the torques ``tau`` to the accelerations ``q''``, and
a worked simulation step with numbers (``robodyn derive MODEL --forward``).

The equations of motion ``M(q) q'' + C(q, q') q' + g(q) + f(q') = tau`` (Siciliano et al.,
Robotics, eq. 7.82; ``f`` the joint friction) are solved for ``q''``::

    q'' = M(q)^-1 (tau - C(q, q') q' - g(q) - f(q'))                      (7.83)

For one or two joints the inverse is written out, ``M^-1 = adj(M) / det(M)`` (Cramer's
rule); for more only the solve is written (the closed-form inverse of a symbolic ``n x n``
matrix grows as ``n!``). At a numeric state (``q``, ``q'``, ``tau`` and the parameters'
values) each term is a vector of numbers, ``q''`` the solution of the linear system, and one
step of length ``h`` of the state ``x = (q, q')``, ``x' = (q', q''(q, q', tau))`` with
``tau`` held over the step, is worked out:

* explicit Euler: ``x_1 = x_0 + h x'(x_0)``;
* classical Runge-Kutta (RK4): ``k1 = x'(x_0)``, ``k2 = x'(x_0 + h/2 k1)``,
  ``k3 = x'(x_0 + h/2 k2)``, ``k4 = x'(x_0 + h k3)``,
  ``x_1 = x_0 + h/6 (k1 + 2 k2 + 2 k3 + k4)`` (Hairer, Norsett & Wanner, Solving ODEs I,
  §II.1).

With LuGre friction (a model file's ``lugre:``) the state has the bristle deflections ``z``
too, whose equation ``dz/dt = q' - sigma0 |q'| z / g(q')`` is stiff (rates up to 1e6 1/s:
an explicit step of ``h = 0.01`` s would be meaningless); it is linear in ``z`` at fixed
``q'``, so its backward-Euler step is closed, ``z_1 = (z + h q') / (1 + h sigma0 |q'| /
g(q'))`` (Hairer & Wanner, Solving ODEs II, §IV.3: implicit Euler, L-stable), and the arm's
step is Euler's with ``F(q', z_1)`` (:func:`_bristle_step`); RK4 is refused by name.

The numbers come from :meth:`.Equations.numeric` (the closed form evaluated); the tests
compare them with :meth:`robodyn.Robot.forward_dynamics` (the recursive algorithms).
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from ..core.errors import InputError

__all__ = ["ForwardSteps", "forward_steps", "INTEGRATORS", "MAX_INVERSE_DOF"]

#: The integrators of the worked step.
INTEGRATORS = ("euler", "rk4")
#: Most joints whose ``M^-1`` is written out in closed form.
MAX_INVERSE_DOF = 2


@dataclass
class ForwardSteps:
    """The steps, each ``(lhs, formula, value)``: ``value`` SymPy (an expression or a
    matrix), ``formula`` LaTeX-free text of the general equation (may be empty)."""

    name: str
    steps: list[tuple[str, str, object]] = field(default_factory=list)
    #: the accelerations and the state after the step, as NumPy arrays (numeric only)
    qdd: np.ndarray | None = None
    q1: np.ndarray | None = None
    qd1: np.ndarray | None = None
    #: the bristle states after the step (LuGre friction only)
    z1: np.ndarray | None = None

    def text(self) -> str:
        """Plain text, one step a paragraph."""
        out = [f"Forward dynamics of {self.name}: q'' = M(q)^-1 (tau - C(q, q') q' - g(q) - "
               "f(q')) (Siciliano 7.83)", ""]
        for k, (lhs, formula, value) in enumerate(self.steps, 1):
            middle = f" = {formula}" if formula else ""
            out.append(f"({k}) {lhs}{middle}\n    = {_plain(value)}")
        return "\n".join(out) + "\n"

    def latex(self, document: bool = True) -> str:
        """The steps as a LaTeX ``align*`` (a whole document when ``document``)."""
        rows = [rf"\text{{{_tex_text(lhs)}}} &= "
                + (rf"\text{{{_tex_text(formula)}}} \\ &= " if formula else "")
                + sp.latex(value) for lhs, formula, value in self.steps]
        body = "\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}\n"
        if not document:
            return body
        return ("\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}\n"
                f"\\section*{{Forward dynamics of {_tex_text(self.name)}}}\n" + body
                + "\\end{document}\n")

    def markdown(self) -> str:
        """Markdown with ``$$`` math."""
        out = [f"# Forward dynamics of {self.name}", ""]
        for k, (lhs, formula, value) in enumerate(self.steps, 1):
            middle = f" = {formula}" if formula else ""
            out += [f"({k}) `{lhs}{middle}`", "", f"$$ {sp.latex(value)} $$", ""]
        return "\n".join(out)

    def html(self) -> str:
        """A self-contained web page, the math in MathML (no script)."""
        items = "\n".join(
            f"<li><code>{html.escape(lhs)}{html.escape(' = ' + formula if formula else '')}"
            f"</code><br><math display=\"block\">{sp.mathml(value, printer='presentation')}"
            "</math></li>" for lhs, formula, value in self.steps)
        title = html.escape(f"Forward dynamics of {self.name}")
        return (f"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{title}</title>"
                f"</head><body><h1>{title}</h1>\n<ol>\n{items}\n</ol></body></html>\n")

    def __str__(self) -> str:
        return self.text()


def _plain(value) -> str:
    if isinstance(value, sp.MatrixBase):
        return str(value.tolist())
    return str(value)


def _tex_text(text: str) -> str:
    return "".join("\\" + c if c in "_^&%$#{}" else c for c in text)


def forward_steps(eq, state: Mapping[str, Sequence[float]] | None = None, *,
                  values: Mapping[str, float] | None = None, dt: float = 0.01,
                  integrator: str = "euler") -> ForwardSteps:
    """The steps from ``tau`` to ``q''`` for the equations ``eq``; with ``state``
    (``{"q": [...], "qd": [...], "tau": [...]}``, one number per joint; ``"z"`` too, LuGre's
    bristle deflections, for a model with ``lugre:``, 0 if left out) the numbers at that
    state and one simulation step of length ``dt`` by ``integrator`` (``"euler"`` or
    ``"rk4"``), the parameters from the model's defaults updated by ``values``."""
    if integrator not in INTEGRATORS:
        raise InputError(f"integrator: {str(integrator)[:20]!r} is not one of "
                         f"{', '.join(INTEGRATORS)}")
    out = ForwardSteps(eq.name)
    tau = sp.Matrix([sp.Symbol(f"tau{i + 1}") for i in range(eq.dof)])
    rhs = tau - eq.Cqd - eq.g - eq.friction
    out.steps.append(("tau - C q' - g - f", "", rhs))
    if eq.dof <= MAX_INVERSE_DOF:
        det = sp.factor(eq.M.det())
        adj = eq.M.adjugate()
        out.steps += [("det M", "", det), ("adj M", "", adj),
                      ("q''", "adj(M) (tau - C q' - g - f) / det(M)",
                       (adj * rhs).applyfunc(lambda e: e / det))]
    else:
        out.steps.append(("M(q) q''", f"tau - C q' - g - f ({eq.dof} joints: q'' is solved "
                          "for at a state, M is not inverted)", eq.M * sp.Matrix(eq.qdd)))
    if state is None:
        return out
    bristles = bool(getattr(eq, "z", ()))  # LuGre: the friction reads the bristle states
    if bristles and integrator != "euler":
        raise InputError(f"integrator: {eq.name} has LuGre friction, whose stiff bristles "
                         f"(rates sigma0 |q'| / g up to 1e6 1/s) no explicit {integrator} step "
                         "follows; its worked step is backward Euler in z (--integrator euler)")
    if "z" in state and not bristles:
        raise InputError(f"state: z: {eq.name} has no LuGre friction (no lugre: in its model "
                         "file), so no bristle deflections; leave z out")
    q0, qd0, tau0 = (_vector(state, key, eq.dof) for key in ("q", "qd", "tau"))
    if not (np.isfinite(dt) and 0 < dt <= 1):
        raise InputError(f"dt: {dt} is not a step length in (0, 1] s; give e.g. --dt 0.01")
    num = eq.numeric(values)
    if bristles:
        z0 = _vector(state, "z", eq.dof) if "z" in state else np.zeros(eq.dof)
        return _bristle_step(out, eq, num, q0, qd0, tau0, z0, dt)

    def accel(q, qd):
        return np.linalg.solve(num.M(q), tau0 - num.Cqd(q, qd) - num.g(q) - num.friction(qd))

    out.steps += [("q, q', tau", "the state", _col(q0, qd0, tau0)),
                  ("M(q)", "", _num(num.M(q0))), ("C(q, q') q'", "", _num(num.Cqd(q0, qd0))),
                  ("g(q)", "", _num(num.g(q0))), ("f(q')", "", _num(num.friction(qd0)))]
    out.qdd = accel(q0, qd0)
    out.steps.append(("q''", "M^-1 (tau - C q' - g - f)", _num(out.qdd)))
    if integrator == "euler":
        out.q1, out.qd1 = q0 + dt * qd0, qd0 + dt * out.qdd
        out.steps.append((f"(q, q') after h = {dt:g} s", "(q + h q', q' + h q'') (Euler)",
                          _col(out.q1, out.qd1)))
        return out
    ks = []
    q, qd = q0, qd0
    for k, frac in enumerate((0.0, 0.5, 0.5, 1.0), 1):
        if ks:
            q, qd = q0 + frac * dt * ks[-1][0], qd0 + frac * dt * ks[-1][1]
        ks.append((qd, accel(q, qd)))
        out.steps.append((f"k{k}", ("x'(x_0)" if k == 1 else
                                    f"x'(x_0 + {'h/2' if frac == 0.5 else 'h'} k{k - 1})"),
                          _col(*ks[-1])))
    out.q1 = q0 + dt / 6 * (ks[0][0] + 2 * ks[1][0] + 2 * ks[2][0] + ks[3][0])
    out.qd1 = qd0 + dt / 6 * (ks[0][1] + 2 * ks[1][1] + 2 * ks[2][1] + ks[3][1])
    out.steps.append((f"(q, q') after h = {dt:g} s", "x_0 + h/6 (k1 + 2 k2 + 2 k3 + k4) (RK4)",
                      _col(out.q1, out.qd1)))
    return out


def _bristle_step(out: ForwardSteps, eq, num, q0, qd0, tau0, z0, h: float) -> ForwardSteps:
    """The worked step of a model with LuGre friction (module docstring): backward Euler in
    the bristle states, whose equation ``dz/dt = q' - a z``, ``a = sigma0 |q'| / g(q')``,
    is linear in ``z`` at fixed ``q'``, so the implicit step is closed::

        z_1 = z + h (q' - a z_1)   =>   z_1 = (z + h q') / (1 + h a)

    (stable for any ``h``: ``0 <= 1 / (1 + h a) <= 1``); then ``F(q', z_1)``, whose ``dz/dt``
    at ``z_1`` is ``(z_1 - z) / h``, held over an explicit Euler step of ``(q, q')``. ``a``
    is ``-d(dz/dt)/dz`` of the closed forms' ``eq.bristle_rate`` at ``q'``."""
    subs = {s: sp.Float(v) for s, v in num.values.items()}
    subs.update({s: sp.Float(v) for s, v in zip(eq.qd, qd0, strict=True)})
    a = np.array([-float(sp.diff(rate, z).xreplace(subs))
                  for rate, z in zip(eq.bristle_rate, eq.z, strict=True)])
    z1 = (z0 + h * qd0) / (1 + h * a)
    friction = num.friction(qd0, z=z1)
    out.qdd = np.linalg.solve(num.M(q0), tau0 - num.Cqd(q0, qd0) - num.g(q0) - friction)
    out.q1, out.qd1, out.z1 = q0 + h * qd0, qd0 + h * out.qdd, z1
    out.steps += [
        ("q, q', tau, z", "the state (z the bristle deflections; 0, relaxed, unless given)",
         _col(q0, qd0, tau0, z0)),
        ("M(q)", "", _num(num.M(q0))), ("C(q, q') q'", "", _num(num.Cqd(q0, qd0))),
        ("g(q)", "", _num(num.g(q0))),
        ("a", "sigma0 |q'| / g(q') = -d(dz/dt)/dz (dz/dt = q' - a z: linear in z at fixed q')",
         _num(a)),
        (f"z after h = {h:g} s", "(z + h q') / (1 + h a) (backward Euler: z_1 = z + h dz/dt "
         "at z_1)", _num(z1)),
        ("dz/dt", "(z_1 - z) / h = q' - a z_1", _num((z1 - z0) / h)),
        ("f(q') + F(q', z_1)", "the model's friction + sigma0 z_1 + sigma1 dz/dt + sigma2 q'",
         _num(friction)),
        ("q''", "M^-1 (tau - C q' - g - f - F)", _num(out.qdd)),
        (f"(q, q') after h = {h:g} s", "(q + h q', q' + h q'') (Euler, F held over the step)",
         _col(out.q1, out.qd1))]
    return out


def _vector(state: Mapping, key: str, dof: int) -> np.ndarray:
    if key not in state:
        raise InputError(f"state: no {key}; give q, qd and tau, one number per joint "
                         "(--state q=0.1,0.2 qd=0,0 tau=1,0)")
    v = np.asarray(state[key], dtype=float).reshape(-1)
    if v.shape != (dof,) or not np.all(np.isfinite(v)):
        raise InputError(f"state: {key} needs {dof} finite numbers (one per joint), got "
                         f"{v.size}")
    return v


def _num(a) -> sp.Matrix:
    a = np.asarray(a, dtype=float)
    a = a.reshape(-1, 1) if a.ndim == 1 else a
    return sp.Matrix(a.tolist()).applyfunc(lambda x: sp.Float(x, 6))


def _col(*vectors) -> sp.Matrix:
    return _num(np.column_stack(vectors))
