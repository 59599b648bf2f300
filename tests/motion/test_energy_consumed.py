"""The energy a motion costs (work-energy theorem as the independent check) and the
lower-energy motion search."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.motion import trajectory as tr

# values, not speed: new kernels run on the NumPy backend (no Numba compile time)
pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.mark.parametrize("name, q0, q1", [
    ("pendulum", [0.2], [2.0]),
    ("puma560", [0, 0.3, -0.5, 0.1, 0.4, 0], [1.0, -0.4, 0.6, 0.8, -0.3, 1.2]),
])
def test_net_work_is_energy_change_plus_friction_loss(name, q0, q1):
    robot = rd.load(name)
    motion = tr.quintic(q0, q1, 1.5).sample(1e-4)
    report = rd.energy.consumed(robot, motion)
    energy = robot.kinetic_energy(motion.q, motion.qd) + robot.potential_energy(motion.q)
    # friction loss from the friction law directly: F_v qd^2 + F_s |qd|, trapezoidal rule
    fv = np.array([link.friction.viscous for link in robot.numeric_chain.links])
    fs = np.array([link.friction.coulomb for link in robot.numeric_chain.links])
    density = (fv * motion.qd**2 + fs * np.abs(motion.qd)).sum(axis=1)
    loss = float(np.sum(0.5 * (density[1:] + density[:-1]) * np.diff(motion.t)))
    expected = energy[-1] - energy[0] + loss
    assert report.net_work == pytest.approx(expected, rel=1e-6, abs=1e-9)
    assert report.friction_loss == pytest.approx(loss, rel=1e-12, abs=1e-15)
    assert report.positive_work >= max(report.net_work, 0) - 1e-12
    assert report.positive_work_per_joint.shape == (robot.dof,)
    np.testing.assert_allclose(report.net_work_per_joint.sum(), report.net_work)


def test_effort_closed_form_for_a_pendulum_at_rest():
    # holding the pendulum at q for T seconds: tau = m g l sin q, effort = tau^2 T
    robot = rd.load("pendulum")
    v = robot.values
    motion = tr.Motion(np.linspace(0, 2, 5), np.full((5, 1), 0.7), np.zeros((5, 1)),
                       np.zeros((5, 1)))
    report = rd.energy.consumed(robot, motion)
    tau = v["m"] * v["g"] * v["l"] * np.sin(0.7)
    assert report.effort == pytest.approx(tau**2 * 2, rel=1e-12)
    assert report.net_work == 0 and report.positive_work == 0


def test_consumed_uses_a_motion_s_own_torques_when_given():
    robot = rd.load("planar-2r")
    motion = tr.quintic([0, 0], [1, 1], 1.0).sample(0.01)

    class Applied:
        t, q, qd, qdd = motion.t, motion.q, motion.qd, motion.qdd
        tau = np.ones_like(motion.q)

    report = rd.energy.consumed(robot, Applied)
    np.testing.assert_allclose(report.net_work, np.sum(motion.q[-1] - motion.q[0]), rtol=1e-3)


def test_consumed_rejects_bad_motions():
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match="expected q and qd of shape"):
        rd.energy.consumed(robot, tr.quintic([0, 0, 0], [1, 1, 1], 1.0).sample(0.1))


@pytest.mark.parametrize("name, objective", [("planar-2r", "effort"),
                                             ("planar-2r", "positive_work"),
                                             ("puma560", "effort")])
def test_optimize_beats_the_quintic_with_the_same_end_points(name, objective):
    robot = rd.load(name)
    rng = np.random.default_rng(3)
    q0 = rng.uniform(-1, 1, robot.dof)
    q1 = rng.uniform(-1, 1, robot.dof)
    best = rd.energy.optimize(robot, q0, q1, 1.2, via_points=2, objective=objective,
                              samples=101, maxiter=60)
    assert best.duration == 1.2
    q, qd, _ = best(np.array([0.0, 1.2]))
    np.testing.assert_allclose(q, [q0, q1], atol=1e-12)
    np.testing.assert_allclose(qd, 0, atol=1e-12)
    baseline = rd.energy.consumed(robot, tr.quintic(q0, q1, 1.2).sample(1.2 / 100))
    assert best.info["baseline_energy"] == pytest.approx(baseline.value(objective))
    # evaluated independently, on a finer grid than the optimiser used
    mine = rd.energy.consumed(robot, best.sample(1.2 / 400)).value(objective)
    fine_baseline = rd.energy.consumed(robot, tr.quintic(q0, q1, 1.2).sample(1.2 / 400))
    assert mine < fine_baseline.value(objective)


def test_optimize_respects_torque_limits():
    robot = rd.load("planar-2r")
    q0, q1 = [0.0, 0.0], [1.0, -0.5]
    free = rd.energy.consumed(robot, tr.quintic(q0, q1, 1.0).sample(0.01))
    limit = np.abs(free.tau).max(axis=0) * 1.05
    best = rd.energy.optimize(robot, q0, q1, 1.0, via_points=2, objective="effort",
                              torque_limits=limit, samples=101, maxiter=60)
    tau = best.info["report"].tau
    assert (np.abs(tau) <= limit * (1 + 1e-6)).all()
    assert best.info["energy"] <= best.info["baseline_energy"]


# -- budgets and checks (issue 15) ---------------------------------------------------------------
@pytest.mark.parametrize("kwargs, message", [
    ({"torque_limits": [1, 2, 3]}, r"torque_limits: expected one number or 2 \(one per joint\), "
                                   r"got 3"),
    ({"torque_limits": [[1, 2]]}, r"torque_limits: expected one number or 2"),
    ({"torque_limits": "strong"}, r"torque_limits: expected one number or 2 .* 'strong'"),
    ({"torque_limits": [1, -2]}, r"torque_limits: expected positive finite numbers"),
    ({"via_points": 10_000}, r"via_points: expected a whole number from 1 to 20, got 10000"),
    ({"via_points": 0}, r"via_points: .* got 0"),
    ({"via_points": "3"}, r"via_points: .* got '3'"),
    ({"via_points": 2.5}, r"via_points: .* got 2\.5"),
    ({"samples": 1}, r"samples: expected a whole number from 2 to 1,000,000, got 1"),
    ({"samples": 10**9}, r"samples: .* got 1000000000"),
    ({"maxiter": 0}, r"maxiter: .* got 0"),
    ({"max_evaluations": 0}, r"max_evaluations: .* got 0"),
    # they overflowed inside the inverse dynamics, which blamed g = 9.81
    ({"q0": [1e200, 0]}, r"q0: a value of magnitude 1e\+200 is out of range"),
    ({"duration": 1e-300}, r"duration: 1e-300 s is too short for this motion: its speeds or "
                           r"accelerations overflow float64"),
])
def test_optimize_names_a_bad_argument(kwargs, message):
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match=message):
        rd.energy.optimize(robot, **{"q0": [0, 0], "q1": [1, 1], "duration": 1.0, **kwargs})


def test_the_via_point_cap_is_the_command_s():
    from robodyn.cli.motion import via_count

    assert via_count(str(rd.energy.MAX_VIA_POINTS)) == rd.energy.MAX_VIA_POINTS
    with pytest.raises(Exception, match=f"is not between 1 and {rd.energy.MAX_VIA_POINTS}"):
        via_count(str(rd.energy.MAX_VIA_POINTS + 1))


def test_via_points_10000_is_refused_at_once():
    """It ran past 60 s (a 20 000-variable search with finite differences)."""
    from test_simulation import OUTCOMES, run_bounded

    out = run_bounded(OUTCOMES, """
        arm = rd.load("planar-2r")
        outcomes({"via": lambda: rd.energy.optimize(arm, [0, 0], [1, 1], 1.0,
                                                    via_points=10000)})
    """)
    assert out["via"] == ["InputError", "via_points: expected a whole number from 1 to 20, "
                                        "got 10000"]


@pytest.mark.parametrize("limits", [None, 40.0])
def test_optimize_warns_when_its_budget_runs_out(limits):
    """Five evaluations are not enough to converge: a RuntimeWarning saying so, and the
    motion returned still costs no more than the quintic (evaluated independently)."""
    robot = rd.load("planar-2r")
    with pytest.warns(RuntimeWarning, match=r"ran out of its budget before converging "
                                            r"\(maxiter = 200, max_evaluations = 5; 5 "
                                            r"evaluations used\)"):
        best = rd.energy.optimize(robot, [-1, 1], [1, -1], 1.5, objective="positive_work",
                                  torque_limits=limits, samples=61, max_evaluations=5)
    assert best.info["exhausted"] and best.info["evaluations"] == 5
    t = np.linspace(0, 1.5, 61)
    quintic = rd.energy.consumed(robot, tr.Motion(t, *tr.quintic([-1, 1], [1, -1], 1.5)(t)))
    mine = rd.energy.consumed(robot, tr.Motion(t, *best(t)))
    assert mine.positive_work <= quintic.positive_work * (1 + 1e-12)
    with pytest.warns(RuntimeWarning, match=r"ran out of its budget .*maxiter = 1,"):
        rd.energy.optimize(robot, [-1, 1], [1, -1], 1.5, samples=61, maxiter=1)


def _quaternion_arm():
    """A free-flying base carrying a ball joint and a revolute joint (``nq = 12``,
    ``nv = 10``), gravity on, viscous friction on the revolute joint."""
    from robodyn.model.chain import Chain, Friction, Inertial, Joint, Link, Transform

    def box(m, com):
        return Inertial(m, com, ((0.02 * m, 0, 0), (0, 0.03 * m, 0), (0, 0, 0.04 * m)))

    rot = ((1.0, 0, 0), (0, 1.0, 0), (0, 0, 1.0))
    links = (Link("base", Joint("free"), box(3.0, (0.0, 0.0, 0.0))),
             Link("upper", Joint("spherical", placement=Transform(rot, (0.0, 0.0, 0.2))),
                  box(1.0, (0.0, 0.1, 0.3))),
             Link("lower", Joint("revolute", (0.0, 1.0, 0.0), 0, Transform(rot, (0, 0, 0.6))),
                  box(0.5, (0.2, 0.0, 0.1)), friction=Friction(0.3, 0.0)))
    return rd.Robot("flier", Chain(links, (0.0, 0.0, -9.81)))


def _quaternion_ends():
    q0 = np.array([0, 0, 1.0, 0, 0, 0, 1.0, 0, 0, 0, 1.0, 0.1])
    q1 = np.array([0.3, -0.2, 1.4, *(np.array([0.2, -0.1, 0.4, 0.9]) / np.linalg.norm(
        [0.2, -0.1, 0.4, 0.9])), *(np.array([-0.3, 0.5, 0.1, 0.8]) / np.linalg.norm(
            [-0.3, 0.5, 0.1, 0.8])), 1.2])
    return q0, q1


def test_net_work_is_energy_change_plus_friction_loss_with_quaternion_joints():
    """The work-energy theorem with a free base and a ball joint: ``P = tau · v`` with the
    body wrench and twist, along the geodesic quintic."""
    robot = _quaternion_arm()
    q0, q1 = _quaternion_ends()
    motion = tr.geodesic(robot, q0, q1, 1.5).sample(1e-4)
    report = rd.energy.consumed(robot, motion)
    energy = robot.kinetic_energy(motion.q, motion.qd) + robot.potential_energy(motion.q)
    qd = motion.qd[:, -1]
    density = 0.3 * qd**2
    loss = float(np.sum(0.5 * (density[1:] + density[:-1]) * np.diff(motion.t)))
    assert report.net_work == pytest.approx(energy[-1] - energy[0] + loss, rel=1e-6)
    assert report.friction_loss == pytest.approx(loss, rel=1e-12)
    assert report.net_work_per_joint.shape == (robot.dof,)


@pytest.mark.parametrize("objective", ["effort", "positive_work"])
def test_optimize_with_quaternion_joints(objective):
    """Between two poses of a free base and a ball joint the searched motion starts and
    ends where asked, at rest, costs less than the geodesic quintic, and its velocities
    are the rates of its configurations (``(q(t+h) ⊖ q(t-h)) / 2h``)."""
    robot = _quaternion_arm()
    q0, q1 = _quaternion_ends()
    best = rd.energy.optimize(robot, q0, q1, 1.5, via_points=2, objective=objective,
                              samples=101)
    assert best.kind == "optimized" and best.nq == 12 and best.dof == 10
    assert best.info["energy"] < best.info["baseline_energy"]
    np.testing.assert_allclose(best.q0, q0, atol=1e-12)
    np.testing.assert_allclose(best.q1, q1, atol=1e-12)
    np.testing.assert_allclose(best(1.5)[1], 0, atol=1e-9)
    t, h = np.array([0.4, 0.9, 1.2]), 1e-6
    q, qd, qdd = best(t)
    rate = robot.difference(best(t - h)[0], best(t + h)[0]) / (2 * h)
    np.testing.assert_allclose(qd, rate, atol=1e-6)
    acc = (best(t + h)[1] - best(t - h)[1]) / (2 * h)
    np.testing.assert_allclose(qdd, acc, atol=1e-5)


def test_effort_gradient_with_quaternion_joints():
    """The exact effort gradient on a path through quaternion joints equals its central
    differences (the tangent derivative of ``q0 ⊕ s D`` is ``D``)."""
    from robodyn.motion.energy import EffortGradient, _directions

    robot = _quaternion_arm()
    q0, q1 = _quaternion_ends()
    directions, end = _directions(robot, q0, q1)
    t, knots = np.linspace(0, 1.5, 61), np.linspace(0, 1.5, 4)
    size = directions.shape[0]

    def path(x):
        w = tr.rest_spline(knots, np.vstack([np.zeros(size), x.reshape(2, size), end]))(t)
        return tuple(part @ directions for part in w)

    gradient = EffortGradient(robot, t, path, 2 * size, lambda u: robot.integrate(q0, u))
    x = np.outer([0.3, 0.7], end).reshape(-1) + np.random.default_rng(1).normal(
        scale=0.05, size=2 * size)
    value, grad = gradient(x)
    h = 1e-6
    ref = np.array([(gradient(x + h * e)[0] - gradient(x - h * e)[0]) / (2 * h)
                    for e in np.eye(2 * size)])
    np.testing.assert_allclose(grad, ref, rtol=1e-5, atol=1e-6 * np.abs(ref).max())
