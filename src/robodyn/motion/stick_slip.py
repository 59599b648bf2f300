"""The ``"stick-slip"`` method of :func:`robodyn.simulate`: dry friction with stiction
(Karnopp, "Computer simulation of stick-slip friction in mechanical dynamic systems",
ASME J. Dyn. Syst. Meas. Control 107, 1985), fixed steps of semi-implicit Euler.

A joint with dry friction (Coulomb, or Stribeck; exact ``sign``, not the smooth
``tanh``) whose velocity is zero (within :data:`STICK_VELOCITY`), or would change sign
during the step, *sticks*: its acceleration is 0 and its velocity set to exactly 0, and
friction is whatever torque holds it, as long as that torque is within the breakaway
level (``F_st`` with a Stribeck term, else the Coulomb level of that direction,
:attr:`Friction.breakaway <robodyn.model.friction.Friction.breakaway>`). Joints that slide
feel the friction model of :mod:`robodyn.dynamics.friction`. With stuck set ``S`` and
sliding set ``F``, per step::

    r = tau - (C qd + g + F_v qd + tau_0) - J^T h_e          (everything but dry friction)
    M_FF qdd_F = r_F - f_F,   qdd_S = 0                      (f_F: the dry friction of F)
    f_S = r_S - M_SF qdd_F                                   (the torque that holds S)

and a stuck joint whose holding torque exceeds its breakaway level is released (the worst
first, at most ``n`` times a step), sliding off with friction at the breakaway level in the
direction of the push. Then ``qd += dt qdd`` (``qd_S = 0`` exactly) and ``q += dt qd``.
So an arm held by static friction stays at rest to the bit, and friction never chatters
about zero velocity: the sign of a sliding joint's velocity cannot flip within a step.
Viscous friction and the offset are ordinary torques. One-value joints only; a Python
loop (a few robot calls a step).
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError
from ..model.friction import is_zero
from .inputs import Problem, torque_value, wrench_value
from .options import SimulationOptions
from .result import Simulation, finished

__all__ = ["run_stick_slip", "STICK_VELOCITY"]

#: Speeds at most this large (rad/s or m/s) count as zero for sticking (Karnopp's band).
STICK_VELOCITY = 1e-9


def _dry_joints(chain) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(dry, viscous, offset, breakaway (2, n))`` of a numeric chain: whether joint ``j``
    has dry friction with an exact sign (the stick-slip joints), its ``F_v``, ``tau_0`` and
    its breakaway levels ``(positive, negative)``."""
    dry, viscous, offset, levels = [], [], [], []
    for link in chain.links:
        fr = link.friction
        up, down = fr.breakaway
        dry.append(is_zero(fr.smooth_velocity) and (up > 0 or down > 0))
        viscous.append(fr.viscous)
        offset.append(fr.offset)
        levels.append((up, down))
    dry = np.array(dry, bool)
    return (dry, np.array(viscous, float), np.array(offset, float),
            np.where(dry, np.array(levels, float).T, 0.0))


def karnopp_acceleration(M, r, dry_f, stuck, levels, dt, qd):
    """``(qdd, stuck, f)``: the accelerations of one step (module docstring) from the mass
    matrix ``M``, the torque ``r`` on the joints without their dry friction, the sliding dry
    friction ``dry_f`` at the current velocity, the candidates ``stuck`` (a boolean mask,
    updated), the breakaway ``levels`` ``(2, n)``; ``f`` the dry friction used."""
    n = len(r)
    f = dry_f.copy()
    released = np.zeros(n, bool)
    added = np.zeros(n, bool)
    for _ in range(2 * n + 1):  # each joint is added and released at most once
        free = ~stuck
        qdd = np.zeros(n)
        if free.any():
            qdd[free] = np.linalg.solve(M[np.ix_(free, free)], r[free] - f[free])
        hold = r - M @ qdd
        over = np.where(hold > 0, hold - levels[0], -hold - levels[1])
        over[~stuck] = -np.inf
        worst = int(np.argmax(over))
        if stuck.any() and over[worst] > 0:  # slips: friction at breakaway, against the push
            stuck[worst], released[worst] = False, True
            f[worst] = levels[0, worst] if hold[worst] > 0 else -levels[1, worst]
            continue
        f[stuck] = hold[stuck]
        crossing = (~stuck & ~released & ~added & (levels.max(axis=0) > 0)
                    & (qd * (qd + dt * qdd) < 0))
        if not crossing.any():
            return qdd, stuck, f
        stuck |= crossing  # the velocity would flip sign within the step: try sticking
        added |= crossing
    raise AssertionError("karnopp_acceleration: the active set did not settle")  # unreachable


def run_stick_slip(problem: Problem, options: SimulationOptions, bar) -> Simulation:
    """Fixed steps ``options.dt`` over ``options.times`` (module docstring)."""
    robot = problem.robot
    if not robot.chain.single_valued:
        raise InputError("method 'stick-slip' takes joints of one value (revolute, "
                         "prismatic); this model has ball or free joints")
    chain = robot.numeric_chain
    dry, viscous, offset, levels = _dry_joints(chain)
    rigid = robot.without_friction()
    t = options.times
    n, steps = robot.dof, len(t) - 1
    Q, QD = np.empty((steps + 1, n)), np.empty((steps + 1, n))
    QDD, TAU = np.empty((steps + 1, n)), np.empty((steps + 1, n))
    Q[0], QD[0] = problem.q0, problem.qd0
    sticking = 0
    zero = np.zeros(n)
    for k in range(steps + 1):
        q, qd = Q[k], QD[k]
        tau = torque_value(problem.torque, t[k], q, qd, n)
        h_e = wrench_value(problem.wrench, t[k], q, qd)
        r = tau - rigid.inverse_dynamics(q, qd, zero, h_e=h_e) - viscous * qd - offset
        rest = robot.friction_torques(qd) - viscous * qd - offset  # Coulomb, Stribeck
        dry_f = np.where(dry, rest, 0.0)
        r_all = np.where(dry, r, r - rest)  # smooth (tanh) friction is an ordinary torque
        h = t[k + 1] - t[k] if k < steps else options.dt
        stuck = dry & (np.abs(qd) <= STICK_VELOCITY)
        qdd, stuck, _ = karnopp_acceleration(robot.mass_matrix(q), r_all, dry_f, stuck,
                                             levels, h, qd)
        QDD[k], TAU[k] = qdd, tau
        if k == steps:
            break
        sticking += int(stuck.any())
        QD[k + 1] = np.where(stuck, 0.0, qd + h * qdd)
        Q[k + 1] = q + h * QD[k + 1]
        if not (np.all(np.isfinite(Q[k + 1])) and np.all(np.isfinite(QD[k + 1]))):
            raise InputError(f"simulate: the stick-slip motion stopped being finite at t = "
                             f"{t[k + 1]:.6g} s; reduce dt")
        if bar.active and k % max(1, steps // 100) == 0:
            bar.update(t[k + 1])
    info = {"steps": steps, "dt": options.dt, "compiled": False, "sticking_steps": sticking}
    return finished(robot, t, Q, QD, QDD, TAU, info)
