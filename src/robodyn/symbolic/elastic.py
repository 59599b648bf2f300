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

With only some joints elastic (the model's motors with a ``stiffness``, or ``joints``), a
rigid joint ``i``'s link row is the rigid model's, equal to its input ``tau_i`` (its rotor's
armature stays in ``M``), and only the elastic joints have a motor row and a ``theta_i``
(named after the joint: ``theta2`` for joint 2)::

    link side:   M q'' + C q' + F + g - S^T [K (theta - S q) + D (theta' - S q')] = P^T P tau
    motor side:  B theta'' + K (theta - S q) + D (theta' - S q') = S tau

Behind a coupled transmission with springs (:func:`coupled_elastic_equations`,
:mod:`robodyn.motion.elastic_coupled`) ``theta`` are the motors' own angles, the rigid
equations' drives (``N^T J_m N q''`` and the motors' friction) move to the motor side, and
the motor rows equal the motors' torques ``tau_m``::

    link side:   M q'' + C q' + F + g - N^T [K_m (theta - N q) + D_m (theta' - N q')] = 0
    motor side:  J_m theta'' + B_m theta' + F_m sign(theta') + K_m (theta - N q)
                 + D_m (theta' - N q') = tau_m

With some motors rigid (a ``None`` stiffness) only the elastic motors ``E`` have a
``theta`` and a motor row; the rigid ones' ``N_R^T J_R N_R q''`` and friction stay in the
link rows, and their torques, the symbols ``tau_m<k>``, moved to the left
(``- N_R^T tau_mR``), so the link rows are still ``= 0``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import TYPE_CHECKING

import sympy as sp

from ..model.expressions import to_sympy

if TYPE_CHECKING:
    from ..model.chain import Chain

__all__ = ["ElasticEquations", "elastic_equations", "coupled_elastic_equations"]


@dataclass(frozen=True)
class ElasticEquations:
    """``link`` (each entry ``= 0`` on an elastic joint, ``= tau_i`` on a rigid one) and
    ``motor`` (one per elastic joint, each ``= tau_i``), SymPy column matrices, in the link
    coordinates ``q``, the motor coordinates ``theta`` and their rates, with the symbols
    ``K``, ``B``, ``D`` of each elastic joint; ``joints`` the elastic joints' indices
    (0-based, one per entry of ``theta``, ``K``, ``B``, ``D`` and ``motor``); ``coupling``
    the rows of ``N`` behind a coupled transmission (``theta``: the motors' angles, the
    motor rows ``= tau_m``), ``None`` per joint."""

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
    joints: tuple = ()
    coupling: tuple | None = None

    def text(self) -> str:
        """The two sets of equations as text, with the steps' words."""
        if self.coupling is not None:
            return "\n".join([
                f"Elastic drives of {self.name} behind the coupled transmission N = "
                f"{[list(r) for r in self.coupling]} (Spong 1987; De Luca and Book): link "
                "side = 0, motor side = tau_m",
                "(1) link side: the links' tau (the drives' N^T J_m N q'' and friction moved "
                "to the motors) with N^T [K_m (theta - N q) + D_m (theta' - N q')] moved to "
                "the left" + ("" if not self.joints else "; motors " + ", ".join(
                    str(k + 1) for k in range(len(self.coupling)) if k not in self.joints)
                    + " rigid: their rotors and friction stay, their torques tau_m moved to "
                    "the left"),
                *[f"    {sp.sstr(e)} = 0" for e in self.link],
                "(2) motor side: J_m theta'' + B_m theta' + F_m sign(theta') + K_m (theta - "
                "N q) + D_m (theta' - N q') = tau_m",
                *[f"    {sp.sstr(e)} = tau_m{k + 1}" for k, e in zip(
                    self.joints or range(len(self.motor)), self.motor, strict=True)]]) + "\n"
        elastic = set(self.joints) if self.joints else set(range(len(self.link)))
        lines = [f"Elastic joints of {self.name} (Spong 1987): link side = 0, motor side = tau",
                 "(1) link side: the rigid model's tau with the spring's torque "
                 "K (theta - q) + D (theta' - q') moved to the left"]
        if len(elastic) < len(self.link):
            lines[0] = (f"Elastic joints {', '.join(str(j + 1) for j in sorted(elastic))} of "
                        f"{self.name} (Spong 1987; the others rigid): link side = 0 (a rigid "
                        "joint's = tau), motor side = tau")
        lines += [f"    {sp.sstr(e)} = " + ("0" if i in elastic else f"tau{i + 1}")
                  for i, e in enumerate(self.link)]
        lines.append("(2) motor side: B theta'' + K (theta - q) + D (theta' - q') = tau")
        index = self.joints or tuple(range(len(self.motor)))
        lines += [f"    {sp.sstr(e)} = tau{j + 1}" for j, e in zip(index, self.motor,
                                                                  strict=True)]
        return "\n".join(lines) + "\n"

    def __str__(self) -> str:
        return self.text()


def elastic_equations(eq, damping: bool = True, chain: Chain | None = None,
                      joints=None) -> ElasticEquations:
    """The elastic-joint equations of the rigid equations ``eq`` (module docstring), with
    the new symbols ``K1..Kn``, ``B1..Bn`` (and ``D1..Dn`` with ``damping``) and the motor
    coordinates ``theta1..thetan``, their rates ``thetad1..``, ``thetadd1..``, on the joints
    ``joints`` (0-based indices; ``None``: every joint; the symbols keep the joint's
    number). With ``chain`` (the model's, ``robot.chain``, whose motors have a
    ``stiffness`` on some joints: those are the elastic ones): its ``K``, ``D``
    (``spring_damping``, 0 when absent) and ``B = G^2 J_m`` as the model writes them, and
    the elastic joints' armature taken out of the link side (module docstring)."""
    n = len(eq.q)
    if len(eq.qd) != n:
        raise ValueError("elastic_equations: elastic joints are revolute or prismatic; these "
                         "equations have free or ball joints")
    motors = None
    if chain is not None:
        motors = [link.motor for link in chain.links]
        if len(motors) != n:
            raise ValueError(f"elastic_equations: chain: {len(motors)} motors for {n} joints "
                             "of the equations; give the model's own chain")
        joints = [j for j, m in enumerate(motors) if m.stiffness is not None]
        if not joints:
            raise ValueError("elastic_equations: chain: no motor has a stiffness (motor."
                             "stiffness); not every joint's motor needs a stiffness, but one "
                             "must: give the elastic joints' motors a stiffness")
    index = _joints(joints, n)
    th = tuple(sp.Symbol(f"theta{j + 1}") for j in index)
    thd = tuple(sp.Symbol(f"thetad{j + 1}") for j in index)
    thdd = tuple(sp.Symbol(f"thetadd{j + 1}") for j in index)
    K = tuple(sp.Symbol(f"K{j + 1}") for j in index)
    B = tuple(sp.Symbol(f"B{j + 1}") for j in index)
    D = tuple(sp.Symbol(f"D{j + 1}") for j in index) if damping else (sp.Integer(0),) * n
    rotor = (sp.Integer(0),) * len(index)
    if motors is not None:
        chosen = [motors[j] for j in index]
        # the model's numbers as SymPy without parsing text (to_sympy refuses a string)
        K = tuple(to_sympy(m.stiffness) for m in chosen)
        B = rotor = tuple(to_sympy(m.armature) for m in chosen)
        D = tuple(to_sympy(m.spring_damping or 0) if damping else sp.Integer(0)
                  for m in chosen)
    spring = {j: K[k] * (th[k] - eq.q[j]) + D[k] * (thd[k] - eq.qd[j])
              for k, j in enumerate(index)}
    rotors = dict(zip(index, rotor, strict=True))
    link = sp.Matrix([eq.tau[i] if i not in spring else
                      (sp.expand(eq.tau[i] - rotors[i] * eq.qdd[i]) if rotors[i] != 0
                       else eq.tau[i]) - spring[i] for i in range(n)])
    motor = sp.Matrix([B[k] * thdd[k] + spring[j] for k, j in enumerate(index)])
    return ElasticEquations(eq.name, tuple(eq.q), th, thd, thdd, K, B, tuple(D), link, motor,
                            () if len(index) == n else tuple(index))


def _joints(joints, n: int) -> tuple[int, ...]:
    """The elastic joints' indices, checked: ``None`` is every joint."""
    if joints is None:
        return tuple(range(n))
    try:
        given = [operator.index(j) for j in joints]
    except TypeError:
        given = []
    index = sorted(set(given))
    if not index or len(index) != len(given) or not 0 <= index[0] <= index[-1] < n:
        raise ValueError(f"elastic_equations: joints: {list(joints)!r:.60}; give the elastic "
                         f"joints' indices, each once, from 0 to {n - 1}")
    return tuple(index)


def coupled_elastic_equations(eq, tr, damping: bool = True) -> ElasticEquations:
    """The equations of elastic drives behind the coupled transmission ``tr`` (a
    :class:`~robodyn.model.transmission.Transmission` with ``stiffness``; module
    docstring) from the rigid equations ``eq`` of the same model, which hold the drives'
    ``R q''`` (``R = N^T J_m N``, summed exactly as :func:`~robodyn.symbolic.derivation.
    finish` does) and friction ``N^T (B_m N q' + F_m sign(N q'))``: both are taken out of
    the link side (they belong to the motors), ``N^T`` times the springs' torques moved to
    its left; one motor row per motor, ``= tau_m``, in ``theta1..`` (the motors' angles).
    ``damping=False`` leaves ``D_m`` out."""
    from .derivation import exact, motor_rates

    n = len(eq.q)
    if len(eq.qd) != n or tr.stiffness is None or len(tr.stiffness) != n:
        raise ValueError("coupled_elastic_equations: give the equations of revolute or "
                         "prismatic joints and a transmission with a stiffness per motor")
    N, E = tr.N.tolist(), tr.springs   # E: the motors with a spring (the others rigid)
    th = {k: sp.Symbol(f"theta{k + 1}") for k in E}
    thd = {k: sp.Symbol(f"thetad{k + 1}") for k in E}
    thdd = {k: sp.Symbol(f"thetadd{k + 1}") for k in E}
    K = {k: sp.Float(tr.stiffness[k]) for k in E}
    J = {k: sp.Float(tr.motor_inertia[k]) for k in E}
    D = {k: sp.Float(tr.spring_damping[k]) if damping else sp.Integer(0) for k in E}
    nq, nqd = motor_rates(tr, eq.q), motor_rates(tr, eq.qd)
    # an elastic motor's spring torque; a rigid one's torque tau_m<k>, moved to the left
    push = {k: (K[k] * (th[k] - nq[k]) + D[k] * (thd[k] - nqd[k])) if k in th
            else sp.Symbol(f"tau_m{k + 1}") for k in range(n)}
    friction = [sp.Float(b) * w + sp.Float(c) * sp.sign(w)
                for b, c, w in zip(tr.motor_viscous, tr.motor_coulomb, nqd, strict=True)]
    Nx = [[exact(x) for x in row] for row in N]
    Jx = [exact(x) for x in tr.motor_inertia]
    link = []
    for i in range(n):   # the elastic motors' rotors and friction move to their rows
        drives = sum((Nx[k][i] * Jx[k] * Nx[k][j] * eq.qdd[j] for j in range(n)
                      for k in E), sp.Integer(0)) + sum(
            (sp.Float(N[k][i]) * friction[k] for k in E if N[k][i]), sp.Integer(0))
        link.append(sp.expand(eq.tau[i] - drives) - sum(
            (sp.Float(N[k][i]) * push[k] for k in range(n) if N[k][i]), sp.Integer(0)))
    motor = sp.Matrix([J[k] * thdd[k] + sp.Float(tr.motor_viscous[k]) * thd[k]
                       + sp.Float(tr.motor_coulomb[k]) * sp.sign(thd[k]) + push[k]
                       for k in E])
    values = [tuple(d.values()) for d in (th, thd, thdd, K, J, D)]
    return ElasticEquations(eq.name, tuple(eq.q), *values, sp.Matrix(link), motor,
                            () if len(E) == n else E, tuple(tuple(r) for r in N))
