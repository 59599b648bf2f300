"""Stiction in simulation (robodyn.motion.stick_slip, Karnopp's model): a pendulum held by
static friction stays at rest to the bit, one pushed past it slides and stops where the
energy balance says (turning points in closed form), energy only goes down, friction does
not chatter, and without dry friction the method is semi-implicit Euler."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

import robodyn as rd

M, L, IZZ, G = 1.0, 0.5, 0.02, 9.81
MGL = M * G * L
PENDULUM = """\
name: stickpend
dh: standard
gravity: [0, -{g}, 0]
planar: true
links:
  - joint: revolute
    a: 0
    alpha: 0
    d: 0
    theta: -pi/2
    mass: {m}
    com: [{l}, 0, 0]
    inertia: [0, 0, {izz}, 0, 0, 0]
    friction: {friction}
"""


def pendulum(tmp_path, friction: str) -> rd.Robot:
    """A pendulum hanging at q = 0, gravity torque ``m g l sin q``."""
    path = tmp_path / "stickpend.yaml"
    path.write_text(PENDULUM.format(g=G, m=M, l=L, izz=IZZ, friction=friction))
    return rd.load(path)


STRIBECK = "{coulomb: 0.8, static: 1.2, stribeck_velocity: 0.05}"


def test_held_by_static_friction_it_stays_at_rest_exactly(tmp_path):
    """Gravity's 1.1 N m exceeds the Coulomb level 0.8 but not the static level 1.2:
    Stribeck friction holds it, to the last bit, for the whole run."""
    robot = pendulum(tmp_path, STRIBECK)
    q0 = math.asin(1.1 / MGL)
    sim = rd.simulate(robot, [q0], 0.0, duration=0.5, dt=1e-3, method="stick-slip")
    assert np.all(sim.q == q0) and np.all(sim.qd == 0) and np.all(sim.qdd == 0)
    assert sim.info["sticking_steps"] == sim.info["steps"]


def test_past_the_static_level_it_slides_and_stops_by_the_energy_balance(tmp_path):
    """Gravity above the static level starts the slide at once, the way gravity minus the
    static level accelerates it: qdd(0) = -(m g l sin q0 - F_st) / I."""
    robot = pendulum(tmp_path, STRIBECK)
    q0 = math.asin(1.5 / MGL)
    sim = rd.simulate(robot, [q0], 0.0, duration=2.0, dt=1e-3, method="stick-slip")
    inertia = IZZ + M * L**2
    assert sim.qdd[0, 0] == pytest.approx(-(1.5 - 1.2) / inertia, rel=1e-12)
    assert sim.q[1, 0] < q0 and abs(sim.q[-1, 0]) < q0
    # it comes to rest for good where gravity is within the static level
    rest = sim.q[-1, 0]
    assert MGL * abs(math.sin(rest)) <= 1.2
    still = sim.t > sim.t[-1] - 0.2
    assert np.all(sim.q[still, 0] == rest) and np.all(sim.qd[still, 0] == 0)


def turning_points(q0: float, level: float) -> list[float]:
    """The turning points of a pendulum with Coulomb friction ``level`` released at rest
    from ``q0``: between two, ``m g l (cos q_{k+1} - cos q_k) = level |q_k - q_{k+1}|`` (the
    potential energy lost is the work of friction); it stops at the first ``q_k`` where
    ``m g l |sin q_k| <= level``."""
    points = [q0]
    for _ in range(100):
        q = points[-1]
        if MGL * abs(math.sin(q)) <= level:
            return points
        a = abs(q)  # by symmetry, from a > 0 towards -a: the root in [-a, a) other than a

        def balance(x, a=a):
            return MGL * (math.cos(x) - math.cos(a)) - level * (a - x)

        points.append(brentq(balance, -a, a * (1 - 1e-9)) * math.copysign(1.0, q))
    raise AssertionError("no rest within 100 swings")


@pytest.mark.slow
@pytest.mark.parametrize("dt", [1e-3, 2.5e-4])
def test_coulomb_pendulum_turns_and_rests_where_the_energy_balance_says(tmp_path, dt):
    level, q0 = 0.6, 1.0
    robot = pendulum(tmp_path, f"{{coulomb: {level}}}")
    sim = rd.simulate(robot, [q0], 0.0, duration=4.0, dt=dt, method="stick-slip")
    expected = turning_points(q0, level)
    qd = sim.qd[:, 0]
    # turning points: where the velocity, moving, reaches zero or changes sign
    turns = [sim.q[k + 1, 0] for k in range(len(qd) - 1)
             if qd[k] != 0 and np.sign(qd[k + 1]) != np.sign(qd[k])]
    assert len(turns) == len(expected) - 1 >= 2
    np.testing.assert_allclose(turns, expected[1:], atol=20 * dt)
    # energy: never up by more than the method's O(dt^2) wobble, down by the friction work
    energy = sim.total
    assert np.max(np.diff(energy)) <= 10 * dt**2 * MGL
    assert energy[0] - energy[-1] == pytest.approx(
        MGL * (math.cos(expected[-1]) - math.cos(q0)), abs=100 * dt)
    # no chattering: the friction torque the arm felt changes sign once a swing
    friction = sim.tau - robot.without_friction().inverse_dynamics(sim.q, sim.qd, sim.qdd)
    signs = np.sign(friction[:, 0])
    signs = signs[signs != 0]
    assert np.count_nonzero(np.diff(signs)) <= len(expected)


def test_without_dry_friction_it_is_semi_implicit_euler(tmp_path):
    robot = pendulum(tmp_path, "{viscous: 0.3, coulomb: 0.5, smooth_velocity: 0.01}")
    a = rd.simulate(robot, [1.0], 0.5, duration=1.0, dt=1e-3, method="stick-slip")
    b = rd.simulate(robot, [1.0], 0.5, duration=1.0, dt=1e-3, method="semi-implicit-euler")
    np.testing.assert_allclose(a.q, b.q, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(a.qd, b.qd, rtol=1e-11, atol=1e-12)
    assert a.info["sticking_steps"] == 0


def test_stick_slip_needs_a_step(tmp_path):
    robot = pendulum(tmp_path, STRIBECK)
    with pytest.raises(rd.InputError, match="give dt"):
        rd.simulate(robot, [0.1], method="stick-slip")


ARM = """\
name: stick2r
dh: standard
gravity: [0, -9.81, 0]
planar: true
links:
  - joint: revolute
    a: 0.4
    alpha: 0
    d: 0
    theta: 0
    mass: 2.0
    com: [-0.2, 0, 0]
    inertia: [0, 0, 0.03, 0, 0, 0]
    friction: {{coulomb: {c1}, static: {s1}, stribeck_velocity: 0.02}}
  - joint: revolute
    a: 0.3
    alpha: 0
    d: 0
    theta: 0
    mass: 1.0
    com: [-0.15, 0, 0]
    inertia: [0, 0, 0.01, 0, 0, 0]
    friction: {{coulomb: {c2}, static: {s2}, stribeck_velocity: 0.02}}
"""


def test_a_coupled_arm_holds_one_joint_while_the_other_slides(tmp_path):
    """A vertical 2R arm: with both static levels above the gravity torques nothing moves;
    with the elbow's below its gravity torque the elbow slides while the shoulder, whose
    holding torque ``r_1 - M_12 qdd_2`` stays within its static level, holds to the bit."""
    q0 = np.array([0.3, 0.5])

    def arm(levels):
        path = tmp_path / "stick2r.yaml"
        c1, s1, c2, s2 = levels
        path.write_text(ARM.format(c1=c1, s1=s1, c2=c2, s2=s2))
        return rd.load(path)

    g = arm((1, 1, 1, 1)).gravity_torques(q0)
    assert abs(g[0]) > 5 and abs(g[1]) > 1
    held = arm((0.5, abs(g[0]) + 0.5, 0.2, abs(g[1]) + 0.1))
    sim = rd.simulate(held, q0, 0.0, duration=0.3, dt=1e-3, method="stick-slip")
    assert np.all(sim.q == q0) and np.all(sim.qd == 0)
    elbow = arm((20.0, 30.0, 0.2, abs(g[1]) - 0.3))
    sim = rd.simulate(elbow, q0, 0.0, duration=0.3, dt=1e-3, method="stick-slip")
    assert np.all(sim.q[:, 0] == q0[0]) and np.all(sim.qd[:, 0] == 0)
    assert abs(sim.q[-1, 1] - q0[1]) > 1e-3
    rigid = elbow.without_friction()
    hold = (sim.tau - rigid.inverse_dynamics(sim.q, sim.qd, sim.qdd))[:, 0]
    assert np.all(np.abs(hold) <= 30.0) and np.ptp(hold) > 0  # the hold changes, within F_st


def test_the_command_line_simulates_stick_slip(tmp_path, capsys):
    from robodyn.cli import main

    robot = pendulum(tmp_path, STRIBECK)
    q0 = math.asin(1.1 / MGL)
    out = tmp_path / "sim.npz"
    assert main(["simulate", str(tmp_path / "stickpend.yaml"), "--q0", repr(q0), "--duration",
                 "0.2", "--dt", "1e-3", "--method", "stick-slip", "--save", str(out)]) == 0
    assert np.all(np.load(out)["q1"] == q0)
    assert robot.chain.links[0].friction.static != 0


MJCF_PENDULUM = """<mujoco><option timestep="{dt}" gravity="0 0 -9.81" integrator="implicitfast"/>
<worldbody><body name="bob"><joint name="hinge" type="hinge" axis="0 1 0" frictionloss="{F}"
 solreffriction="{solref} 1"/>
<geom type="sphere" size="0.01" pos="0 0 -0.5" mass="1" contype="0" conaffinity="0"/>
</body></worldbody></mujoco>"""


def _turns(q, qd):
    return [q[k + 1] for k in range(len(qd) - 1)
            if qd[k] != 0 and np.sign(qd[k + 1]) != np.sign(qd[k])]


@pytest.mark.slow  # 40 000 MuJoCo steps in Python and a new model's kernels: 3-9 s
def test_mjcf_frictionloss_matches_mujoco_dry_friction_made_stiff(tmp_path):
    """MuJoCo's frictionloss is a soft constraint; with its time constant solreffriction
    made short (5e-4 s, step 1e-4 s) a pendulum released at 1 rad turns where robodyn's
    stick-slip run of the same MJCF file turns (and where the energy balance says) to
    1e-3 rad, and comes to rest within 5e-4 rad of robodyn's exact stop (MuJoCo still
    creeps: its constraint is soft)."""
    mujoco = pytest.importorskip("mujoco")
    level, q0 = 0.6, 1.0
    text = MJCF_PENDULUM.format(dt=1e-4, F=level, solref=5e-4)
    m = mujoco.MjModel.from_xml_string(text)
    d = mujoco.MjData(m)
    d.qpos[0] = q0
    qs, vs = [], []
    for _ in range(40000):  # 4 s
        mujoco.mj_step(m, d)
        qs.append(d.qpos[0])
        vs.append(d.qvel[0])
    path = tmp_path / "pendulum.xml"
    path.write_text(text)
    robot = rd.load(path)
    assert float(robot.numeric_chain.links[0].friction.coulomb) == level
    sim = rd.simulate(robot, [q0], 0.0, duration=4.0, dt=2.5e-4, method="stick-slip")
    theirs, ours = _turns(np.array(qs), np.array(vs)), _turns(sim.q[:, 0], sim.qd[:, 0])
    expected = turning_points(q0, level)  # m g l of this pendulum is MGL too
    assert len(ours) == len(expected) - 1 and len(theirs) >= 3
    np.testing.assert_allclose(theirs[:3], ours[:3], atol=1e-3)
    np.testing.assert_allclose(ours, expected[1:], atol=1e-3)
    assert abs(qs[-1] - sim.q[-1, 0]) < 5e-4


def test_applied_torque_against_stiction_and_a_batch_of_rollouts(tmp_path):
    """At the bottom (no gravity torque) an applied 1.0 N m is held by the 1.2 N m static
    level and 1.3 N m breaks it loose; a batch of two rollouts is each run on its own."""
    robot = pendulum(tmp_path, STRIBECK)
    held = rd.simulate(robot, [0.0], 0.0, duration=0.2, dt=1e-3, method="stick-slip",
                       tau=np.full((2, 1), 1.0))
    assert np.all(held.q == 0.0)
    loose = rd.simulate(robot, [0.0], 0.0, duration=0.2, dt=1e-3, method="stick-slip",
                        tau=np.full((2, 1), 1.3))
    assert loose.q[-1, 0] > 0.01
    q0 = np.array([[math.asin(1.1 / MGL)], [0.6]])
    batch = rd.simulate(robot, q0, 0.0, duration=0.3, dt=1e-3, method="stick-slip")
    for i in range(2):
        alone = rd.simulate(robot, q0[i], 0.0, duration=0.3, dt=1e-3, method="stick-slip")
        assert np.array_equal(batch.q[i], alone.q)
