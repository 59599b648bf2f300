"""The words of an exercise sheet typeset (:mod:`robodyn.teaching.sheet`): the questions
with every formula in LaTeX (:func:`question_latex`) and the sheet's prose, whose formulas
are written ``x_1``, ``z_{i-1}``, ``C_1 = O_0 + lc1 x_1``, turned into text with inline
math (:func:`typeset_words`): a subscripted name is math, a symbol of the model is its
typeset form, and math separated only by ``=``, ``+``, ``-`` or spaces is one formula.
"""

from __future__ import annotations

import re
from collections.abc import Callable

__all__ = ["typeset_words", "question_latex"]

#: Greek letters the prose spells out (``theta_1``, ``alpha_i``).
_GREEK = {"theta": r"\theta", "alpha": r"\alpha", "tau": r"\tau", "pi": r"\pi",
          "omega": r"\omega"}
#: A name with a subscript (``x_1``, ``z_{i-1}``, ``p_ci``, ``theta_2``), or a bare word.
_TOKEN = re.compile(r"(?<![\w\\])([A-Za-z]+)_(\{[^{}]{1,20}\}|[A-Za-z0-9]+)(?!\w)"
                    r"|(?<![\w\\])([A-Za-z][A-Za-z0-9]*)(?!\w)")
#: Two formulas with only ``=``, ``+``, ``-``, ``;`` or spaces between them.
_JOIN = re.compile(r"\$((?:\s*[=+\-]\s*|\s+))\$")


def typeset_words(text: str, names: dict[str, str], escape: Callable[[str], str]) -> str:
    """``text`` (the sheet's ASCII prose) with its formulas as inline math: ``x_1`` ->
    ``$x_{1}$``, a model symbol in ``names`` (``{"lc1": r"\\ell_{c_1}"}``) -> its LaTeX,
    the rest through ``escape`` (:func:`~robodyn.symbolic.printing.common.tex_escape` for
    LaTeX, the identity for Markdown with math)."""
    out, last = [], 0
    for m in _TOKEN.finditer(text):
        if m.group(3) is not None:
            word = m.group(3)
            if word not in names:
                continue
            math = names[word]
        else:
            base, sub = m.group(1), m.group(2).strip("{}")
            math = f"{_GREEK.get(base, base)}_{{{sub}}}"
        out += [escape(text[last:m.start()]), f"${math}$"]
        last = m.end()
    out.append(escape(text[last:]))
    joined = re.sub(r"(^|\s)-\$", r"\1$-", "".join(out))  # -$z_0$ -> $-z_0$
    return _JOIN.sub(lambda m: f" {m.group(1).strip()} " if m.group(1).strip() else r"\, ",
                     joined)


def question_latex(key: str, route: str, points: str, pi_tex: list[str],
                   task: str = "x, y") -> str:
    """The question ``key`` (a quantity of :data:`~robodyn.teaching.questions.QUANTITIES`,
    or ``"kinematics"``) of ``route`` with its formulas in LaTeX; the same question as the
    sheet's plain text asks."""
    if key == "kinematics":
        return (r"Write the homogeneous transforms $A_i$ (from row $i$ of the DH table) and "
                r"$T_i = A_1 \cdots A_i$, and the position $\mathbf{p}_{c_i}$ of the centre "
                rf"of mass $C_i$ of each link{points} in the base frame.")
    if key == "M":
        return {
            "energy": r"Write the kinetic energy $K$ and the potential energy $U$; read the "
                      r"inertia matrix $M(q)$ off $K = \frac{1}{2}\,\dot q^T M(q)\,\dot q$ "
                      r"($M_{ij} = \partial^2 K / \partial \dot q_i\,\partial \dot q_j$).",
            "lagrange": r"Write $K$, $U$ and the Lagrangian $L = K - U$; write the "
                        r"Euler--Lagrange equation $\tau_i = \frac{d}{dt}\frac{\partial L}"
                        r"{\partial \dot q_i} - \frac{\partial L}{\partial q_i}$ of each "
                        r"joint and read the inertia matrix $M(q)$ off them as the "
                        r"coefficients of the accelerations $\ddot q$.",
            "jacobian": r"Compute the Jacobians $J_P^{(\ell_i)}$, $J_\theta^{(\ell_i)}$ of each "
                        rf"centre of mass{points} and the inertia matrix $M(q) = \sum_i m_i\, "
                        r"J_P^{(\ell_i)T} J_P^{(\ell_i)} + J_\theta^{(\ell_i)T} R_i I_i R_i^T "
                        r"J_\theta^{(\ell_i)}$.",
            "newton-euler": r"Run the Newton--Euler recursion (forward: the angular velocity "
                            r"and acceleration of each link and the acceleration of each "
                            r"centre of mass; backward: the force and moment on each link "
                            r"from the one before it, and the joint torques $\tau_i$) and "
                            r"read the inertia matrix $M(q)$ off $\tau$ as the coefficients "
                            r"of $\ddot q$."}[route]
    if key == "C":
        return (r"Compute all Christoffel symbols $c_{ijk} = \frac{1}{2}\left(\frac{\partial "
                r"M_{ij}}{\partial q_k} + \frac{\partial M_{ik}}{\partial q_j} - \frac{"
                r"\partial M_{jk}}{\partial q_i}\right)$, the matrix $C(q, \dot q)$ with "
                r"$C_{ij} = \sum_k c_{ijk}\,\dot q_k$, and show that $N = \dot M - 2C$ is "
                r"skew-symmetric.")
    if key == "g":
        return {"jacobian": r"Compute the gravity torques $g_i = -\sum_j m_j\, "
                            r"\mathbf{g}_0^T J_{P,i}^{(\ell_j)}$.",
                "newton-euler": r"Read the gravity torques $g(q)$ off $\tau$ at "
                                r"$\dot q = \ddot q = 0$."}.get(
            route, r"Compute the gravity torques $g(q) = \partial U / \partial q$.")
    if key == "tau":
        return (r"Write the equations of motion $M(q)\,\ddot q + C(q, \dot q)\,\dot q + g(q) "
                r"= \tau$, joint by joint.")
    if key == "regressor":
        return (r"Write the torques as $\tau = Y(q, \dot q, \ddot q)\,\pi$, linear in the "
                r"masses and moments of inertia $\pi = [" + ", ".join(pi_tex) + "]$.")
    if key == "B_A":
        return (r"Compute the operational-space inertia $B_A = J_A^{-T} M J_A^{-1}$ of the tip "
                r"position $(" + task + r")$ in the base frame (Siciliano 7.120), "
                r"$J_A = \partial (" + task + r") / \partial q$.")
    if key == "tau_s":
        return (r"The same path is run 2 times slower, $q_s(t) = q(t/2)$. Give the torques "
                r"$\tau_s$ it needs, in terms of $q, \dot q, \ddot q$ of the original motion "
                r"(friction left out).")
    raise KeyError(key)
