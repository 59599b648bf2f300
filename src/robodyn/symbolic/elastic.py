"""The equations of motion of a robot with elastic joints in closed form (Spong 1987; the
numeric model is :mod:`robodyn.motion.elastic`): the rigid arm's ``M q'' + C q' + F +
g`` from :class:`~robodyn.symbolic.equations.Equations` on the link side, a spring of
stiffness ``K_i`` and damping ``D_i`` to a motor of (reflected) inertia ``B_i`` on the
other::

    link side:   M(q) q'' + C(q, q') q' + F(q') + g(q) - K (theta - q) - D (theta' - q') = 0
    motor side:  B theta'' + K (theta - q) + D (theta' - q') = tau

With a model's springs (``chain``: its motors' ``stiffness``, ``spring_damping`` and rotor
``B = G^2 J_m``, :class:`~robodyn.model.chain.Motor`) the rigid equations' ``M`` holds the
armature ``G^2 J_m`` on its diagonal; the rotor is the motor side's ``B``, so the link side
is ``eq.tau - B_i q''_i`` (counted once, as :mod:`robodyn.motion.elastic` does).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from ..model.expressions import to_sympy

if TYPE_CHECKING:
    from ..model.chain import Chain

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


def elastic_equations(eq, damping: bool = True, chain: Chain | None = None) -> ElasticEquations:
    """The elastic-joint equations of the rigid equations ``eq`` (module docstring), with
    the new symbols ``K1..Kn``, ``B1..Bn`` (and ``D1..Dn`` with ``damping``) and the motor
    coordinates ``theta1..thetan``, their rates ``thetad1..``, ``thetadd1..``. With
    ``chain`` (the model's, ``robot.chain``, whose motors have a ``stiffness``): its
    ``K``, ``D`` (``spring_damping``, 0 when absent) and ``B = G^2 J_m`` as the model
    writes them, and the armature taken out of the link side (module docstring)."""
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
    rotor = (sp.Integer(0),) * n
    if chain is not None:
        motors = [link.motor for link in chain.links]
        if len(motors) != n or any(m.stiffness is None for m in motors):
            raise ValueError("elastic_equations: chain: every joint's motor needs a stiffness "
                             "(motor.stiffness), one motor per joint of the equations")
        # the model's numbers as SymPy without parsing text (to_sympy refuses a string)
        K = tuple(to_sympy(m.stiffness) for m in motors)
        B = rotor = tuple(to_sympy(m.armature) for m in motors)
        D = tuple(to_sympy(m.spring_damping or 0) if damping else sp.Integer(0)
                  for m in motors)
    spring = [K[i] * (th[i] - eq.q[i]) + D[i] * (thd[i] - eq.qd[i]) for i in range(n)]
    link = sp.Matrix([(sp.expand(eq.tau[i] - rotor[i] * eq.qdd[i]) if rotor[i] != 0
                       else eq.tau[i]) - spring[i] for i in range(n)])
    motor = sp.Matrix([B[i] * thdd[i] + spring[i] for i in range(n)])
    return ElasticEquations(eq.name, tuple(eq.q), th, thd, thdd, K, B, tuple(D), link, motor)
