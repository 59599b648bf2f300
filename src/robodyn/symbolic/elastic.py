"""The equations of motion of a robot with elastic joints in closed form (Spong 1987; the
numeric model is :mod:`robodyn.motion.elastic`): the rigid arm's ``M q'' + C q' + F +
g`` from :class:`~robodyn.symbolic.equations.Equations` on the link side, a spring of
stiffness ``K_i`` and damping ``D_i`` to a motor of (reflected) inertia ``B_i`` on the
other::

    link side:   M(q) q'' + C(q, q') q' + F(q') + g(q) - K (theta - q) - D (theta' - q') = 0
    motor side:  B theta'' + K (theta - q) + D (theta' - q') = tau
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["ElasticEquations", "elastic_equations"]


@dataclass(frozen=True)
class ElasticEquations:
    """``link`` (each entry ``= 0``) and ``motor`` (each ``= tau_i``), SymPy column
    matrices, in the link coordinates ``q``, the motor coordinates ``theta`` and their
    rates, with the symbols ``K``, ``B``, ``D`` of each joint."""

    name: str
    q: tuple
    theta: tuple
    thetad: tuple
    thetadd: tuple
    K: tuple
    B: tuple
    D: tuple
    link: sp.Matrix
    motor: sp.Matrix

    def text(self) -> str:
        """The two sets of equations as text, with the steps' words."""
        lines = [f"Elastic joints of {self.name} (Spong 1987): link side = 0, motor side = tau",
                 "(1) link side: the rigid model's tau with the spring's torque "
                 "K (theta - q) + D (theta' - q') moved to the left"]
        lines += [f"    {sp.sstr(e)} = 0" for e in self.link]
        lines.append("(2) motor side: B theta'' + K (theta - q) + D (theta' - q') = tau")
        lines += [f"    {sp.sstr(e)} = tau{i + 1}" for i, e in enumerate(self.motor)]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.text()


def elastic_equations(eq, damping: bool = True) -> ElasticEquations:
    """The elastic-joint equations of the rigid equations ``eq`` (module docstring), with
    the new symbols ``K1..Kn``, ``B1..Bn`` (and ``D1..Dn`` with ``damping``) and the motor
    coordinates ``theta1..thetan``, their rates ``thetad1..``, ``thetadd1..``."""
    n = len(eq.q)
    if len(eq.qd) != n:
        raise ValueError("elastic_equations: elastic joints are revolute or prismatic; these "
                         "equations have free or ball joints")
    th = sp.symbols(f"theta1:{n + 1}")
    thd = sp.symbols(f"thetad1:{n + 1}")
    thdd = sp.symbols(f"thetadd1:{n + 1}")
    K = sp.symbols(f"K1:{n + 1}")
    B = sp.symbols(f"B1:{n + 1}")
    D = sp.symbols(f"D1:{n + 1}") if damping else (sp.Integer(0),) * n
    spring = [K[i] * (th[i] - eq.q[i]) + D[i] * (thd[i] - eq.qd[i]) for i in range(n)]
    link = sp.Matrix([eq.tau[i] - spring[i] for i in range(n)])
    motor = sp.Matrix([B[i] * thdd[i] + spring[i] for i in range(n)])
    return ElasticEquations(eq.name, tuple(eq.q), th, thd, thdd, K, B, tuple(D), link, motor)
