"""Equations of motion in closed form, by Lagrange–Euler and by Newton–Euler, with the
steps shown and the proof that both routes agree.

>>> import robodyn as rd
>>> eq = rd.load("rp-arm").equations(method="lagrange")
>>> eq.M
Matrix([
[Izz1 + Izz2 + l1**2*m1 + m2*q2**2,  0],
[                                0, m2]])
>>> eq.g.T
Matrix([[g*(l1*m1 + m2*q2)*cos(q1), g*m2*sin(q1)]])
>>> bool(verify(rd.load("rp-arm")))
True

Design (see ``shared/STYLE.md``): the Newton–Euler route runs the core's one
recursion, :func:`robodyn.dynamics.rnea.rnea`, on closed forms; the Lagrange route
differentiates energies built from the core's kinematics
(:func:`robodyn.dynamics.kinematics.link_poses`). Both compute in the polynomial ring of
:mod:`.ring` (sines and cosines of the joint angles reduced with
``sin^2 + cos^2 = 1`` as they are formed), which is what keeps a 6-DOF arm with
symbolic inertial parameters to seconds, and prints through :mod:`.simplify`. Free and
ball joints enter with their unit quaternions (reduced with their unit norm) and body
twists (:mod:`.ring.coordinates`); their Lagrange route is :mod:`.hamel`'s
Boltzmann–Hamel equations.
"""

from __future__ import annotations

from .derive import METHODS, derive, equations
from .equations import Checks, Equations
from .numeric import NumericEquations
from .routes import ROUTES
from .simplify import equal, simplify_expression
from .steps import Step
from .verify import Agreement, verify

__all__ = [
    "equations",
    "derive",
    "verify",
    "Agreement",
    "Equations",
    "NumericEquations",
    "Step",
    "Checks",
    "equal",
    "simplify_expression",
    "METHODS",
    "ROUTES",
]
