"""Rigid and elastic motors behind one coupled transmission (``stiffness: [K_m1, null]``,
robodyn.motion.elastic_coupled): a planar 2R of point masses behind ``N = [[40, 0], [25,
50]]`` whose motor 1 has a spring and motor 2 is rigid, against the equations written out
by hand (motor 2's angle ``n_2 . q``, its rotor ``J_2 n_2 n_2^T`` in ``M``, its friction
``n_2 (B_2 n_2 . q' + F_2 sign(n_2 . q'))``, its torque ``n_2 tau_m2`` on the links); the
stiff limit within O(1/K) of the rigid coupled model; the energy kept by hand; a diagonal
``N`` folded into the per-joint springs of joint 1; the exported code; the refusals."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robodyn as rd
from conftest import write_model
from robodyn.codegen.export.autodiff import build_program, evaluate
from robodyn.core.errors import ModelError
from robodyn.motion.elastic import (
    ElasticComputedTorque,
    ElasticJoints,
    elastic_forward_dynamics,
    simulate_elastic,
    springs_of,
    static_deflection,
    without_springs,
)
from robodyn.motion.elastic_control import ElasticPDGravity

pytestmark = pytest.mark.usefixtures("numpy_backend")

L1, L2, M1, M2, G, FV = 0.7, 0.5, 1.3, 0.8, 9.81, (0.2, 0.1)
N1, N2 = np.array([40.0, 0.0]), np.array([25.0, 50.0])   # the rows of N
J, B, F = (1.0e-4, 5.0e-5), (1.0e-4, 2.0e-4), (5.0e-4, 1.0e-3)
K1, D1 = 2.0, 1.0e-3

MIXED = """\
name: mixed-wrist
planar: true
gravity: [0, -9.81, 0]
links:
  - {joint: revolute, a: 0.7, mass: 1.3, com: [0, 0, 0], friction: {viscous: 0.2}}
  - {joint: revolute, a: 0.5, mass: 0.8, com: [0, 0, 0], friction: {viscous: 0.1}}
transmission: {matrix: [[40, 0], [25, 50]], motor_inertia: [1.0e-4, 5.0e-5],
               motor_viscous: [1.0e-4, 2.0e-4], motor_coulomb: [5.0e-4, 1.0e-3],
               stiffness: [2.0, null], spring_damping: [1.0e-3, null]}
"""


@pytest.fixture(scope="module")
def wrist(tmp_path_factory):
    return rd.load(str(write_model(tmp_path_factory.mktemp("mixed"), MIXED)))


def _links(q, qd, friction=True):
    """The links of point masses by hand: ``M`` and ``h = C q' + F + g``."""
    c2, s2 = np.cos(q[1]), np.sin(q[1])
    c1, c12 = np.cos(q[0]), np.cos(q[0] + q[1])
    M11 = M1 * L1**2 + M2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2)
    M12 = M2 * (L2**2 + L1 * L2 * c2)
    M = np.array([[M11, M12], [M12, M2 * L2**2]])
    h = np.array([-M2 * L1 * L2 * s2 * (2 * qd[0] * qd[1] + qd[1]**2)
                  + (M1 + M2) * G * L1 * c1 + M2 * G * L2 * c12,
                  M2 * L1 * L2 * s2 * qd[0]**2 + M2 * G * L2 * c12])
    return M, h + (np.array(FV) * qd if friction else 0.0)


def _hand(q, th, qd, thd, tau):
    """``(q'', theta_1'')`` of the module docstring's equations, written out."""
    tm2 = tau[1] / 50.0                    # tau = N^T tau_m: tau2 = 50 tau_m2
    tm1 = (tau[0] - 25.0 * tm2) / 40.0     # tau1 = 40 tau_m1 + 25 tau_m2
    s1 = K1 * (th[0] - N1 @ q) + D1 * (thd[0] - N1 @ qd)
    M, h = _links(q, qd)
    w2 = N2 @ qd                           # motor 2's speed, rigid
    lhs = M + J[1] * np.outer(N2, N2)
    rhs = N1 * s1 + N2 * tm2 - h - N2 * (B[1] * w2 + F[1] * np.sign(w2))
    thdd = (tm1 - B[0] * thd[0] - F[0] * np.sign(thd[0]) - s1) / J[0]
    return np.linalg.solve(lhs, rhs), np.array([thdd])


def _states(count, seed):
    rng = np.random.default_rng(seed)
    q, qd, tau = (rng.uniform(-2, 2, (count, 2)) for _ in range(3))
    th = q @ N1[:, None] + rng.uniform(-0.3, 0.3, (count, 1))
    return q, th, qd, rng.uniform(-40, 40, (count, 1)), tau


def test_the_accelerations_and_the_held_motor_are_the_hand_derived_ones(wrist):
    springs = springs_of(wrist.numeric_chain)
    assert springs.motors == (0,) and springs.dof == 1
    np.testing.assert_array_equal(springs.rows, [N1])
    q, th, qd, thd, tau = _states(5, seed=4)
    qdd, thdd = elastic_forward_dynamics(wrist, springs, q, th, qd, thd, tau)
    for k in range(5):
        want_q, want_th = _hand(q[k], th[k], qd[k], thd[k], tau[k])
        np.testing.assert_allclose(qdd[k], want_q, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(thdd[k], want_th, rtol=1e-12, atol=1e-12)
    # at rest under tau = g(q): the spring carries motor 1's torque, tau_m1 = (g1 - 25 g2 /
    # 50) / 40, so theta_1 = 40 q1 + tau_m1 / K1, and nothing moves
    q0 = np.array([0.3, 0.2])
    g = _links(q0, np.zeros(2))[1]
    held = static_deflection(wrist, springs, q0)
    np.testing.assert_allclose(held, [40 * q0[0] + (g[0] - 0.5 * g[1]) / 40 / K1], rtol=1e-12)
    qdd, thdd = elastic_forward_dynamics(wrist, springs, q0, held, np.zeros(2), [0.0], g)
    np.testing.assert_allclose(np.concatenate([qdd, thdd]), 0.0, atol=1e-9)


def test_the_exported_code_is_the_hand_derived_model(wrist, tmp_path):
    """The program of the exported code (Python file; the one JAX and CasADi walk, walked
    with NumPy) gives ``[qdd (2), thetadd (1)]`` by hand (1e-12)."""
    import importlib.util

    files = wrist.to_code("python", ["elastic_forward_dynamics"])
    (name, text), = files.items()
    assert "theta, thetad: 1 entry, motor 1 (the others rigid, their rotors in M)" in text
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location("mixed_wrist_elastic", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    states = _states(4, seed=8)
    acc = module.elastic_forward_dynamics(*states)
    program = build_program(wrist.runner, "elastic_forward_dynamics", "baked")
    lib = type("Np", (), dict(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, exp=np.exp,
                              tanh=np.tanh, pow=np.power))
    for k in range(4):
        want = np.concatenate(_hand(*(x[k] for x in states)))
        np.testing.assert_allclose(acc[k], want, rtol=1e-12, atol=1e-12)
        flat = evaluate(program, dict(zip(("q", "theta", "qd", "thetad", "tau"),
                                          (x[k] for x in states))), lib)
        got = np.concatenate([[flat[i] for i in out.items] for out in program.results])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def _rigid_run(robot, q0, times):
    """The rigid coupled model (``without_springs``: ``M + N^T J_m N``, both motors'
    friction) from rest at ``q0``, unforced."""
    rigid = without_springs(robot)

    def rhs(t, x):
        return np.concatenate([x[2:], rigid.forward_dynamics(x[:2], x[2:], np.zeros(2))])

    sol = solve_ivp(rhs, (0, times[-1]), np.concatenate([q0, np.zeros(2)]), method="Radau",
                    t_eval=times, rtol=1e-10, atol=1e-12)
    return sol.y[:2].T


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_stiff_motor_1_moves_as_the_rigid_coupled_model_within_one_over_k(tmp_path):
    """Without Coulomb friction on the motors (the spring's fast ring flips the sign of
    ``theta_1'``, which the rigid motor's ``n_1 . q'`` does not: an O(1) difference), the
    links follow the rigid coupled model within O(1/K): the error / 10 per K * 10."""
    q0 = np.array([0.3, 0.2])
    errors = []
    for scale in (1, 10, 100):
        text = (MIXED.replace("motor_coulomb: [5.0e-4, 1.0e-3]", "motor_coulomb: [0, 0]")
                .replace("stiffness: [2.0, null]", f"stiffness: [{2.0 * scale}, null]"))
        robot = rd.load(str(write_model(tmp_path, text, f"k{scale}.yaml")))
        run = simulate_elastic(robot, None, q0, duration=0.2, dt=0.01, method="bdf")
        errors.append(np.abs(run.q - _rigid_run(robot, q0, run.t)).max())
    ratios = errors[0] / errors[1], errors[1] / errors[2]
    assert errors[0] < 5e-3 and all(8 < r < 12 for r in ratios), (errors, ratios)


def test_undamped_and_unforced_the_energy_by_hand_is_kept(tmp_path):
    """``T = 1/2 q'^T (M + J_2 n_2 n_2^T) q' + 1/2 J_1 theta_1'^2``, ``U = U_g + 1/2 K_1
    (theta_1 - n_1 . q)^2`` of a free swing (no damping, no friction), kept."""
    text = (MIXED.replace(", friction: {viscous: 0.2}", "")
            .replace(", friction: {viscous: 0.1}", "")
            .replace("motor_viscous: [1.0e-4, 2.0e-4], motor_coulomb: [5.0e-4, 1.0e-3],", "")
            .replace(", spring_damping: [1.0e-3, null]", ""))
    robot = rd.load(str(write_model(tmp_path, text, "free.yaml")))
    run = simulate_elastic(robot, None, [0.3, 0.2], duration=0.3, dt=0.01, qd0=[0.5, -1.0],
                           thetad0=[30.0], method="bdf", rtol=1e-10, atol=1e-12)
    energy = []
    for q, th, qd, thd in zip(run.q, run.theta, run.qd, run.thetad, strict=True):
        M = _links(q, qd, friction=False)[0] + J[1] * np.outer(N2, N2)
        y1, y2 = L1 * np.sin(q[0]), L1 * np.sin(q[0]) + L2 * np.sin(q[0] + q[1])
        energy.append(0.5 * qd @ M @ qd + 0.5 * J[0] * thd[0]**2 + G * (M1 * y1 + M2 * y2)
                      + 0.5 * K1 * (th[0] - N1 @ q)**2)
    spring = 0.5 * K1 * np.max((run.theta[:, 0] - run.q @ N1)**2)
    assert spring > 1e-3 and np.ptp(energy) < 1e-6 * max(energy), (np.ptp(energy), spring)


def test_a_diagonal_coupling_folds_into_springs_on_joint_1(tmp_path):
    """``N = diag(40, 50)`` without motor friction: joint 1 elastic with ``K = 40^2 2 =
    3200``, ``B = 40^2 1e-4 = 0.16``; joint 2 rigid with its armature ``50^2 5e-5``."""
    text = (MIXED.replace("[[40, 0], [25, 50]]", "[[40, 0], [0, 50]]")
            .replace("motor_viscous: [1.0e-4, 2.0e-4], motor_coulomb: [5.0e-4, 1.0e-3],", ""))
    robot = rd.load(str(write_model(tmp_path, text, "diagonal.yaml")))
    springs = springs_of(robot.numeric_chain)
    assert isinstance(springs, ElasticJoints) and springs.joints == (0,)
    np.testing.assert_allclose([springs.stiffness[0], springs.motor_inertia[0],
                                springs.damping[0]], [3200.0, 0.16, 1.6], rtol=1e-14)
    assert robot.numeric_chain.links[1].motor.stiffness is None
    assert robot.numeric_chain.links[1].motor.armature == pytest.approx(0.125, rel=1e-14)


@pytest.mark.parametrize("old, new, message", [
    ("stiffness: [2.0, null]", "stiffness: [null, null]",
     r"transmission.stiffness: every entry null"),
    ("stiffness: [2.0, null]", "stiffness: [2.0, 0]",
     r"transmission.stiffness\[1\]: 0; a spring's stiffness is > 0 \(null for a rigid motor"),
    ("spring_damping: [1.0e-3, null]", "spring_damping: [1.0e-3, 0.5]",
     r"transmission.spring_damping\[1\]: 0.5 for a rigid motor"),
    ("motor_inertia: [1.0e-4, 5.0e-5]", "motor_inertia: [0, 5.0e-5]",
     r"transmission.motor_inertia\[0\]: 0; an elastic drive"),
])
def test_bad_mixed_drives_are_named(tmp_path, old, new, message):
    assert old in MIXED
    with pytest.raises(ModelError, match=message):
        rd.load(str(write_model(tmp_path, MIXED.replace(old, new), "bad.yaml")))


def test_a_rigid_motor_may_have_no_rotor(tmp_path):
    """Only a motor with a spring needs ``J_m > 0``: a rigid one may have none, and the
    rigid model's ``M`` is then the links' plus ``J_1 n_1 n_1^T``."""
    robot = rd.load(str(write_model(tmp_path, MIXED.replace(
        "motor_inertia: [1.0e-4, 5.0e-5]", "motor_inertia: [1.0e-4, 0]"), "bare.yaml")))
    side = robot.mass_matrix([0.3, 0.2]) - 1.0e-4 * np.outer(N1, N1)   # the rigid model's M
    np.testing.assert_allclose(side, _links(np.array([0.3, 0.2]), np.zeros(2))[0], rtol=1e-12)


def test_pd_with_gravity_compensation_reaches_the_goal(tmp_path):
    """Tomei's law on every motor's angle (motor 2's ``n_2 . q``) settles the links at the
    goal with motor 1 at ``40 q_d1 + tau_m1 / K1`` by hand (no Coulomb friction, which would
    hold the motors short of it)."""
    robot = rd.load(str(write_model(tmp_path, MIXED.replace(
        "motor_coulomb: [5.0e-4, 1.0e-3]", "motor_coulomb: [0, 0]"), "pd.yaml")))
    goal = np.array([0.5, -0.2])
    pd = ElasticPDGravity(robot, None, goal, kp=0.2, kd=0.02)
    run = simulate_elastic(robot, None, [0.3, 0.0], duration=2.0, dt=0.05, tau=pd,
                           method="bdf", rtol=1e-6, atol=1e-9)
    g = _links(goal, np.zeros(2), friction=False)[1]
    held = 40 * goal[0] + (g[0] - 0.5 * g[1]) / 40 / K1
    assert np.abs(run.q[-1] - goal).max() < 1e-6, run.q[-1]
    np.testing.assert_allclose(run.theta[-1], [held], atol=1e-6)


def test_computed_torque_is_the_rigid_coupled_law_with_motor_1_damped(wrist):
    """``tau = (M + N^T J_m N) y + h + N^T (B_m N q' + F_m sign(N q')) + n_1 K_v1 (n_1 . q'
    - theta_1')``, by hand (K_v2 unused: motor 2 has no spring)."""
    ref = rd.trajectory.quintic([0.0, 0.5], [0.8, -0.2], 1.0)
    ctl = ElasticComputedTorque(wrist, None, ref, kp=100.0, kd=20.0, kv=[0.02, 5.0])
    q, qd, thd = np.array([0.1, 0.4]), np.array([0.3, -0.2]), np.array([10.0])
    q_ref, qd_ref, qdd_ref = ref(0.3)
    y = qdd_ref + 20.0 * (qd_ref - qd) + 100.0 * (q_ref - q)
    Nm = np.array([N1, N2])
    M, h = _links(q, qd)
    w = Nm @ qd
    want = ((M + Nm.T @ np.diag(J) @ Nm) @ y + h + Nm.T @ (np.array(B) * w + np.array(F)
                                                         * np.sign(w))
            + N1 * 0.02 * (N1 @ qd - thd[0]))
    np.testing.assert_allclose(ctl(0.3, q, [N1 @ q], qd, thd), want, rtol=1e-12)


def test_the_closed_forms_are_the_hand_derived_ones(wrist):
    """``coupled_elastic_equations``: at random states with the hand accelerations, the
    link rows (motor 2's rotor and friction kept, ``- n_2 tau_m2`` moved left) are 0 and
    motor 1's row is ``tau_m1`` (1e-9); motor 2 has no row and no ``theta2``."""
    import sympy as sp

    from robodyn.symbolic.elastic import coupled_elastic_equations

    el = coupled_elastic_equations(wrist.equations(), wrist.chain.transmission)
    assert [str(x) for x in el.theta] == ["theta1"] and el.joints == (0,)
    assert len(el.motor) == 1 and "tau_m2" in str(el.link) and "theta2" not in str(el.link)
    eq = wrist.equations()
    for k, state in enumerate(zip(*_states(3, seed=12))):
        q, th, qd, thd, tau = state
        qdd, thdd = _hand(q, th, qd, thd, tau)
        values = {**dict(zip(eq.q, q)), **dict(zip(eq.qd, qd)), **dict(zip(eq.qdd, qdd)),
                  el.theta[0]: th[0], el.thetad[0]: thd[0], el.thetadd[0]: thdd[0],
                  sp.Symbol("tau_m2"): tau[1] / 50.0}
        link = [float(e.subs(values)) for e in el.link]
        scale = np.abs(tau).max() + 1.0
        np.testing.assert_allclose(link, 0.0, atol=1e-9 * scale, err_msg=f"state {k}")
        want = (tau[0] - 25.0 * tau[1] / 50.0) / 40.0
        assert abs(float(el.motor[0].subs(values)) - want) < 1e-9 * scale
    assert "K_m = [2, rigid]" in str(wrist)


def test_the_cli_holds_the_arm_with_motor_1_deflected(capsys, tmp_path):
    """``robodyn simulate`` under ``tau = g(q0)``: the links stay, motor 1 sits at ``40 q1
    + tau_m1 / K1`` (by hand) in every saved row, whose columns have ``theta1`` only."""
    from robodyn.cli import main

    path = write_model(tmp_path, MIXED.replace("motor_coulomb: [5.0e-4, 1.0e-3]",
                                               "motor_coulomb: [0, 0]"))  # no stiction at rest
    q0 = np.array([0.3, 0.2])
    g = _links(q0, np.zeros(2))[1]
    argv = ["simulate", path, "--q0", *q0, "--duration", "0.1", "--dt", "0.01", "--method",
            "bdf", "--tau", repr(float(g[0])), repr(float(g[1])), "--save", tmp_path / "r.csv"]
    assert main([str(a) for a in argv]) == 0
    out = capsys.readouterr().out
    assert "K_m = [2, rigid]" in out and "(motor 1, " in out
    rows = np.genfromtxt(tmp_path / "r.csv", delimiter=",", names=True)
    assert rows.dtype.names == ("t", "q1", "q2", "theta1", "qd1", "qd2", "thetad1", "tau1",
                                "tau2")
    np.testing.assert_allclose(rows["theta1"], 40 * q0[0] + (g[0] - 0.5 * g[1]) / 40 / K1,
                               atol=1e-8)
    np.testing.assert_allclose(np.stack([rows["q1"], rows["q2"]], 1), [q0] * len(rows),
                               atol=1e-8)
