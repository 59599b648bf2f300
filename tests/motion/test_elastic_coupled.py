"""Elastic drives behind a coupled transmission (robodyn.motion.elastic_coupled): a planar
2R of two point masses whose motors drive it through ``N = [[G1, 0], [c, G2]]`` (motor 2's
gear train runs through joint 1, a differential wrist), a spring per motor on its side of
the gear. Checked against the equations written out by hand from

    T = 1/2 q'^T M q' + 1/2 theta_m'^T J_m theta_m',  U = U_g + 1/2 d^T K_m d,  d = theta_m - N q

the rigid coupled model (``M + N^T J_m N``) as ``K_m -> inf`` within O(1/K), the energy kept
without damping, friction or input, and a diagonal ``N`` equal to today's per-joint springs
with ``K = G^2 K_m``, ``B = G^2 J_m``, ``D = G^2 D_m``, ``theta = theta_m / G``."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import InputError, ModelError
from robodyn.model.transmission import transmission_of
from robodyn.motion.elastic import (
    CoupledSprings,
    ElasticJoints,
    elastic_forward_dynamics,
    link_side_of,
    simulate_elastic,
    springs_of,
    static_deflection,
    without_springs,
)
from robodyn.motion.elastic_control import ElasticPDGravity
from robodyn.motion.elastic_energy import elastic_energy

pytestmark = pytest.mark.usefixtures("numpy_backend")

L1, L2, M1, M2, G = 0.7, 0.5, 1.3, 0.8, 9.81
G1, C, G2 = 40.0, 25.0, 50.0
JM, BM, FM = np.array([1e-4, 5e-5]), np.array([1e-4, 2e-4]), np.array([0.01, 0.02])
KM, DM = np.array([2.0, 1.5]), np.array([1e-3, 5e-4])

WRIST = """\
name: coupled-wrist
planar: true
gravity: [0, -g, 0]
links:
  - {{joint: revolute, a: 0.7, mass: 1.3, com: [0, 0, 0], friction: {{viscous: {fv1}}}}}
  - {{joint: revolute, a: 0.5, mass: 0.8, com: [0, 0, 0], friction: {{viscous: {fv2}}}}}
transmission:
  matrix: {matrix}
  motor_inertia: [1.0e-4, 5.0e-5]
  motor_viscous: {bm}
  motor_coulomb: {fm}
  stiffness: {km}
  spring_damping: {dm}
"""


def _wrist(tmp_path, name="wrist.yaml", fv=(0.2, 0.1), matrix=((G1, 0.0), (C, G2)), bm=BM,
           fm=FM, km=KM, dm=DM):
    def numbers(v):
        return [float(x) for x in v]

    text = WRIST.format(fv1=fv[0], fv2=fv[1], matrix=[numbers(r) for r in matrix],
                        bm=numbers(bm), fm=numbers(fm), km=numbers(km), dm=numbers(dm))
    return rd.load(str(write_model(tmp_path, text, name)))


@pytest.fixture(scope="module")
def wrist(tmp_path_factory):
    return _wrist(tmp_path_factory.mktemp("coupled"))


def _links(q, qd, fv=(0.2, 0.1)):
    """The links by hand: ``M`` (no rotor: they are the motor side) and ``h = C q' + F +
    g``, and the height of each mass."""
    c2, s2, c1, c12 = np.cos(q[1]), np.sin(q[1]), np.cos(q[0]), np.cos(q[0] + q[1])
    m11 = M1 * L1**2 + M2 * (L1**2 + L2**2 + 2 * L1 * L2 * c2)
    m12, m22 = M2 * (L2**2 + L1 * L2 * c2), M2 * L2**2
    h1 = (-M2 * L1 * L2 * s2 * (2 * qd[0] * qd[1] + qd[1]**2)
          + (M1 + M2) * G * L1 * c1 + M2 * G * L2 * c12 + fv[0] * qd[0])
    h2 = M2 * L1 * L2 * s2 * qd[0]**2 + M2 * G * L2 * c12 + fv[1] * qd[1]
    return np.array([[m11, m12], [m12, m22]]), np.array([h1, h2])


def test_the_accelerations_are_the_hand_derived_ones(wrist):
    """Link side ``M q'' + h = N^T s`` with ``s = K_m d + D_m d'``, ``d = theta_m - N q``:
    ``(G1 s1 + c s2, G2 s2)``; motor side ``J_m theta_m'' = tau_m - B_m theta_m' - F_m
    sign(theta_m') - s`` with ``tau = N^T tau_m``: ``tau_m2 = tau2 / G2``, ``tau_m1 = (tau1
    - c tau_m2) / G1``; at random states, to 1e-12. Held at rest: ``G2 K2 d2 = g2``,
    ``G1 K1 d1 + c K2 d2 = g1``."""
    springs = springs_of(wrist.numeric_chain)
    assert isinstance(springs, CoupledSprings) and springs.joints is None
    assert "coupled transmission with elastic drives K_m = [2, 1.5] N m/rad" in str(wrist)
    rng = np.random.default_rng(11)
    for _ in range(5):
        q, qd, tau = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2), rng.uniform(-5, 5, 2)
        thm = np.array([G1 * q[0], C * q[0] + G2 * q[1]]) + rng.uniform(-0.3, 0.3, 2)
        thmd = rng.uniform(-40, 40, 2)
        qdd, thmdd = elastic_forward_dynamics(wrist, springs, q, thm, qd, thmd, tau)
        d = thm - np.array([G1 * q[0], C * q[0] + G2 * q[1]])
        dd = thmd - np.array([G1 * qd[0], C * qd[0] + G2 * qd[1]])
        s = KM * d + DM * dd
        M, h = _links(q, qd)
        np.testing.assert_allclose(qdd, np.linalg.solve(M, [G1 * s[0] + C * s[1], G2 * s[1]]
                                                        - h), rtol=1e-12, atol=1e-12)
        tau_m2 = tau[1] / G2
        tau_m = np.array([(tau[0] - C * tau_m2) / G1, tau_m2])
        want = (tau_m - BM * thmd - FM * np.sign(thmd) - s) / JM
        np.testing.assert_allclose(thmdd, want, rtol=1e-12, atol=1e-9)
    q = np.array([0.4, -0.3])
    _, g = _links(q, np.zeros(2), fv=(0, 0))
    d2 = g[1] / (G2 * KM[1])
    d1 = (g[0] - C * KM[1] * d2) / (G1 * KM[0])
    np.testing.assert_allclose(static_deflection(wrist, springs, q),
                               [G1 * q[0] + d1, C * q[0] + G2 * q[1] + d2], rtol=1e-12)


def test_stiff_drives_move_as_the_rigid_coupled_arm_within_one_over_k(tmp_path):
    """``K_m`` times 1, 10, 100 (``D_m`` growing as ``sqrt(K_m)``): the links follow the rigid
    coupled model ``(M + N^T J_m N) q'' + h + N^T B_m N q' = tau`` (``without_springs``,
    whose ``M`` is checked by hand here) with errors falling as ``1/K``."""
    from scipy.integrate import solve_ivp

    q0 = np.array([0.3, 0.6])
    rigid = without_springs(_wrist(tmp_path, "r.yaml", fm=(0, 0)))
    assert rigid.chain.transmission.stiffness is None
    Nm = np.array([[G1, 0.0], [C, G2]])
    np.testing.assert_allclose(rigid.mass_matrix(q0), _links(q0, [0, 0])[0]
                               + Nm.T @ np.diag(JM) @ Nm, rtol=1e-12)
    g0 = rigid.gravity_torques(q0)

    def torque(t):
        return g0 + np.array([2.0, -1.0]) * np.sin(4.0 * t)

    times = np.arange(0.0, 0.4 + 1e-9, 1e-2)
    sol = solve_ivp(lambda t, x: np.concatenate([x[2:], rigid.forward_dynamics(
        x[:2], x[2:], torque(t))]), (0, times[-1]), np.concatenate([q0, [0, 0]]),
        t_eval=times, rtol=1e-11, atol=1e-12)
    errors = []
    for k in (1.0, 10.0, 100.0):
        stiff = _wrist(tmp_path, f"k{k:g}.yaml", fm=(0, 0), km=KM * k,
                       dm=1.4 * np.sqrt(KM * k * JM))
        run = simulate_elastic(stiff, None, q0, duration=0.4, dt=1e-2,
                               tau=lambda t, *_: torque(t), method="bdf")
        errors.append(np.abs(run.q - sol.y[:2].T).max())
    ratios = errors[0] / errors[1], errors[1] / errors[2]
    # measured: 1.1e-4, 1.1e-5, 1.1e-6 rad; ratios 9.98, 9.96
    assert errors[2] < 1e-5 and 5 < ratios[0] < 20 and 5 < ratios[1] < 20, (errors, ratios)


@pytest.mark.slow  # over 0.8 s: make test runs it, test-fast does not
def test_undamped_and_unforced_the_energy_with_the_springs_is_kept(tmp_path):
    """``1/2 q'^T M q' + 1/2 theta_m'^T J_m theta_m' + U_g + 1/2 d^T K_m d`` (by hand) is
    constant along a free swing without damping or friction; ``elastic_energy`` is it."""
    free = _wrist(tmp_path, fv=(0, 0), bm=(0, 0), fm=(0, 0), dm=(0, 0))
    springs = springs_of(free.numeric_chain)
    q0 = np.array([0.2, -0.4])
    run = simulate_elastic(free, None, q0, theta0=[G1 * 0.2 + 0.1, C * 0.2 - G2 * 0.4 - 0.2],
                           qd0=[0.5, 0.0], duration=0.3, dt=1e-2)
    Nm = np.array([[G1, 0.0], [C, G2]])
    energy = []
    for q, qd, th, thd in zip(run.q, run.qd, run.theta, run.thetad, strict=True):
        M, _ = _links(q, qd)
        y1, y12 = L1 * np.sin(q[0]), L1 * np.sin(q[0]) + L2 * np.sin(q.sum())
        d = th - Nm @ q
        energy.append(0.5 * qd @ M @ qd + 0.5 * thd @ (JM * thd) + G * (M1 * y1 + M2 * y12)
                      + 0.5 * d @ (KM * d))
    energy = np.array(energy)
    swing = np.ptp(0.5 * np.sum(KM * run.deflection**2, axis=1))
    assert swing > 1e-2                                       # the springs do work
    assert np.abs(energy - energy[0]).max() < 1e-6 * swing    # measured: 5e-10 J of 0.066 J
    e = elastic_energy(link_side_of(free, springs), springs, run)
    assert e.passive and e.error < 1e-6 * swing
    np.testing.assert_allclose(e.total - e.total[0], energy - energy[0], atol=1e-10)


def test_a_diagonal_coupling_is_the_per_joint_springs(tmp_path, wrist):
    """``N = diag(G)``: the file's drives fold into per-joint motors with ``K = G^2 K_m``
    (40^2 2 = 3200, 50^2 1.5 = 3750), ``B = G^2 J_m`` (0.16, 0.125), ``D = G^2 D_m``; kept
    as a coupled transmission the same arm's accelerations are the per-joint ones with
    ``theta = theta_m / G``, ``thetadd = thetadd_m / G`` (1e-12), and the runs agree."""
    folded = _wrist(tmp_path, "diag.yaml", matrix=((G1, 0.0), (0.0, G2)), bm=(0, 0),
                    fm=(0, 0))
    per_joint = springs_of(folded.numeric_chain)
    assert isinstance(per_joint, ElasticJoints) and folded.chain.transmission is None
    np.testing.assert_allclose(per_joint.stiffness, [3200.0, 3750.0], rtol=1e-15)
    np.testing.assert_allclose(per_joint.motor_inertia, [0.16, 0.125], rtol=1e-15)
    np.testing.assert_allclose(per_joint.damping, [1.6, 1.25], rtol=1e-15)
    gears = np.array([G1, G2])
    tr = transmission_of({"matrix": [[G1, 0], [0, G2]], "motor_inertia": JM.tolist(),
                          "stiffness": KM.tolist(), "spring_damping": DM.tolist()}, 2)
    links = link_side_of(wrist, springs_of(wrist.numeric_chain))   # the links, no drives
    coupled = links.with_chain(replace(links.chain, transmission=tr))
    springs = springs_of(coupled.numeric_chain)
    assert isinstance(springs, CoupledSprings)
    rng = np.random.default_rng(5)
    for _ in range(4):
        q, qd, tau = rng.uniform(-2, 2, 2), rng.uniform(-2, 2, 2), rng.uniform(-5, 5, 2)
        th, thd = q + rng.uniform(-0.01, 0.01, 2), rng.uniform(-2, 2, 2)
        qdd, thdd = elastic_forward_dynamics(folded, per_joint, q, th, qd, thd, tau)
        qdd_m, thdd_m = elastic_forward_dynamics(coupled, springs, q, gears * th, qd,
                                                 gears * thd, tau)
        np.testing.assert_allclose(qdd_m, qdd, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(thdd_m / gears, thdd, rtol=1e-12, atol=1e-12)
    a = simulate_elastic(folded, None, [0.3, 0.2], duration=0.1, dt=0.01)
    b = simulate_elastic(coupled, None, [0.3, 0.2], duration=0.1, dt=0.01)
    np.testing.assert_allclose(b.q, a.q, atol=1e-7)
    np.testing.assert_allclose(b.theta / gears, a.theta, atol=1e-7)


def test_pd_with_gravity_compensation_on_the_motors_reaches_the_goal(tmp_path):
    """Tomei's law on the motors' angles behind the coupling settles the links at the goal
    with the motors at ``N q_d + K_m^-1 N^-T g(q_d)`` (by hand, as above; no Coulomb
    friction, which would hold the motors short of it); the energy with the springs'
    changes by the law's work less the losses."""
    wrist = _wrist(tmp_path, fm=(0, 0))
    goal = np.array([0.5, -0.2])
    pd = ElasticPDGravity(wrist, None, goal, kp=0.2, kd=0.02)
    run = simulate_elastic(wrist, None, [0.3, 0.0], duration=2.0, dt=0.05, tau=pd,
                           method="bdf", rtol=1e-6, atol=1e-9, balance=True)
    # the power balance E(t) - E(0) = W - L: the work tau_m^T theta_m' the law puts in,
    # the losses to the springs' damping and all friction (integrated with the state)
    springs = springs_of(wrist.numeric_chain)
    e = elastic_energy(link_side_of(wrist, springs), springs, run)
    # measured: W = 2.79 J, L = 0.145 J, balance 2.9e-6 J (relative 7.7e-7, rtol 1e-6)
    assert e.integrated and e.work[-1] > 0.1 and e.relative < 1e-5, (e.work[-1], e.relative)
    _, g = _links(goal, np.zeros(2), fv=(0, 0))
    d2 = g[1] / (G2 * KM[1])
    d1 = (g[0] - C * KM[1] * d2) / (G1 * KM[0])
    assert d1 > 0.1 and d2 > 0.01                        # 0.18, 0.05 rad at the motors
    assert np.abs(run.q[-1] - goal).max() < 1e-6, run.q[-1]    # measured: 2e-10 rad
    np.testing.assert_allclose(run.theta[-1], [G1 * goal[0] + d1,
                                               C * goal[0] + G2 * goal[1] + d2], atol=1e-6)


@pytest.mark.parametrize(("change", "message"), [
    ({"stiffness": [-1, 2]}, r"transmission.stiffness\[0\]: -1; a spring's stiffness is > 0"),
    ({"stiffness": [2, 0]}, r"transmission.stiffness\[1\]: 0; a spring's stiffness is > 0"),
    ({"stiffness": [2]}, r"transmission.stiffness: 1 entries for 2 joints"),
    ({"stiffness": "stiff"}, r"transmission.stiffness: expected a list of 2 numbers"),
    ({"stiffness": [2, float("nan")]}, r"transmission.stiffness\[1\]: nan is not finite"),
    ({"spring_damping": [0.1, -0.5]}, r"transmission.spring_damping\[1\]: -0.5 is negative"),
    ({"spring_damping": [0.1, 0.1], "stiffness": None},
     r"transmission.spring_damping: a damping without a stiffness"),
    ({"motor_inertia": [0, 1e-4]},
     r"transmission.motor_inertia\[0\]: 0; an elastic drive's motor side needs a rotor"),
])
def test_hostile_values_name_their_field(change, message):
    data = {"matrix": [[G1, 0], [C, G2]], "motor_inertia": [1e-4, 5e-5], "stiffness": [2, 1],
            **change}
    data = {k: v for k, v in data.items() if v is not None}
    with pytest.raises(ModelError, match=message):
        transmission_of(data, 2)


def test_what_refuses_the_coupled_springs(wrist):
    """``rd.simulate`` (its state is ``(q, q')``), an explicit method, and springs by hand
    for a robot whose motors are already per joint."""
    with pytest.raises(InputError, match=r"joints are elastic \(transmission.stiffness\)"):
        rd.simulate(wrist, [0.1, 0.2], duration=0.01, dt=0.01)
    with pytest.raises(InputError, match=r"method: 'rk45' is not for elastic joints.*radau, "
                                         "bdf"):
        simulate_elastic(wrist, None, [0.1, 0.2], duration=0.01, dt=0.01, method="rk45")
    tr = transmission_of({"matrix": [[G1, 0], [C, G2]], "motor_inertia": JM.tolist(),
                          "stiffness": list(KM)}, 2)
    arm = rd.load("planar-2r")
    motors = replace(arm.chain, links=tuple(replace(link, motor=replace(link.motor,
                                                                        inertia=1e-4))
                                            for link in arm.chain.links))
    geared = arm.with_chain(motors)
    with pytest.raises(InputError, match="springs: the robot has motors of its own"):
        simulate_elastic(geared, CoupledSprings(tr), [0.1, 0.2], duration=0.01, dt=0.01)


def test_computed_torque_behind_the_coupling_is_the_rigid_coupled_law(wrist):
    """``tau = (M + N^T J_m N) y + h + N^T (B_m N q' + F_m sign(N q')) + N^T K_v (N q' -
    theta_m')`` with ``y = q''_ref + K_D (q'_ref - q') + K_P (q_ref - q)``, by hand."""
    from robodyn.motion.elastic import ElasticComputedTorque

    ref = rd.trajectory.quintic([0.0, 0.5], [0.8, -0.2], 1.0)
    kv = np.array([0.02, 0.01])
    ctl = ElasticComputedTorque(wrist, None, ref, kp=100.0, kd=20.0, kv=kv)
    q, qd, thd = np.array([0.1, 0.4]), np.array([0.3, -0.2]), np.array([10.0, -3.0])
    q_ref, qd_ref, qdd_ref = ref(0.3)
    y = qdd_ref + 20.0 * (qd_ref - qd) + 100.0 * (q_ref - q)
    Nm = np.array([[G1, 0.0], [C, G2]])
    M, h = _links(q, qd)
    motors = BM * (Nm @ qd) + FM * np.sign(Nm @ qd) + kv * (Nm @ qd - thd)
    want = (M + Nm.T @ np.diag(JM) @ Nm) @ y + h + Nm.T @ motors
    np.testing.assert_allclose(ctl(0.3, q, Nm @ q, qd, thd), want, rtol=1e-12)


def test_the_closed_forms_are_the_hand_derived_ones(wrist):
    """``coupled_elastic_equations``: the link rows are the links' ``M q'' + h - N^T s``
    (no rotor, no motor friction: those moved to the motors), the motor rows ``J_m
    theta_m'' + B_m theta_m' + F_m sign(theta_m') + s``; evaluated at random states against
    the hand formulas (1e-9), and the link rows free of ``J_m`` (the rigid model's ``N^T J_m
    N`` cancelled exactly, not numerically)."""
    import sympy as sp

    from robodyn.symbolic.elastic import coupled_elastic_equations

    eq = wrist.equations()
    el = coupled_elastic_equations(eq, wrist.chain.transmission)
    assert "tau_m2" in el.text() and el.coupling == ((G1, 0.0), (C, G2))
    args = (*eq.q, *eq.qd, *eq.qdd, *el.theta, *el.thetad, *el.thetadd, sp.Symbol("g"))
    link = sp.lambdify(args, list(el.link))
    motor = sp.lambdify(args, list(el.motor))
    Nm = np.array([[G1, 0.0], [C, G2]])
    rng = np.random.default_rng(3)
    for _ in range(3):
        q, qd, qdd = (rng.uniform(-2, 2, 2) for _ in range(3))
        th, thd, thdd = Nm @ q + rng.uniform(-0.2, 0.2, 2), rng.uniform(-9, 9, 2), \
            rng.uniform(-9, 9, 2)
        values = (*q, *qd, *qdd, *th, *thd, *thdd, G)
        s = KM * (th - Nm @ q) + DM * (thd - Nm @ qd)
        M, h = _links(q, qd)
        np.testing.assert_allclose(link(*values), M @ qdd + h - Nm.T @ s, rtol=1e-9,
                                   atol=1e-9)
        np.testing.assert_allclose(motor(*values), JM * thdd + BM * thd + FM * np.sign(thd)
                                   + s, rtol=1e-9, atol=1e-9)
    # M11 of the links alone: 1.3 0.7^2 + 0.8 (0.7^2 + 0.5^2) = 1.229, not 1.229 + R11
    m11 = float(sp.expand(el.link[0]).coeff(eq.qdd[0]).subs(eq.q[1], sp.pi / 2))
    assert abs(m11 - 1.229) < 1e-12, m11          # R11 = 40^2 1e-4 + 25^2 5e-5 = 0.19125


def _exported(robot, tmp_path, parameters="baked"):
    """``robot``'s exported Python module (``to_code("python")``), imported."""
    import importlib.util

    files = robot.to_code("python", ["elastic_forward_dynamics"], parameters=parameters)
    (name, text), = files.items()
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location(f"{name[:-3]}_kernels", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_exported_code_has_the_elastic_forward_dynamics(wrist, tmp_path):
    """``elastic_forward_dynamics(q, theta, qd, thetad, tau) -> [qdd, thetadd]`` in the
    exported code: behind the coupling equal to the hand formulas (1e-12); per joint
    (tests/data/yaml/elastic_2r.yaml, its ``K1`` a parameter passed in ``p``) equal to
    robodyn.motion.elastic's; among every function of an elastic model's code, and refused
    by name for a model without springs."""
    from pathlib import Path

    module = _exported(wrist, tmp_path)
    Nm = np.array([[G1, 0.0], [C, G2]])
    rng = np.random.default_rng(9)
    q, qd, tau = (rng.uniform(-2, 2, (4, 2)) for _ in range(3))
    th, thd = q @ Nm.T + rng.uniform(-0.3, 0.3, (4, 2)), rng.uniform(-40, 40, (4, 2))
    acc = np.asarray(module.elastic_forward_dynamics(q, th, qd, thd, tau))
    for k in range(4):
        s = KM * (th[k] - Nm @ q[k]) + DM * (thd[k] - Nm @ qd[k])
        M, h = _links(q[k], qd[k])
        np.testing.assert_allclose(acc[k, 0], np.linalg.solve(M, Nm.T @ s - h), rtol=1e-12)
        want = (np.linalg.solve(Nm.T, tau[k]) - BM * thd[k] - FM * np.sign(thd[k]) - s) / JM
        np.testing.assert_allclose(acc[k, 1], want, rtol=1e-12)
    per_joint = rd.load(str(Path(__file__).parents[1] / "data" / "yaml" / "elastic_2r.yaml"))
    module = _exported(per_joint, tmp_path, "argument")
    p = per_joint.runner.parameter_values
    th, thd = q + rng.uniform(-0.01, 0.01, (4, 2)), rng.uniform(-2, 2, (4, 2))
    acc = np.asarray(module.elastic_forward_dynamics(p, q, th, qd, thd, tau))
    qdd, thdd = elastic_forward_dynamics(per_joint, springs_of(per_joint.numeric_chain), q,
                                         th, qd, thd, tau)
    np.testing.assert_allclose(acc[:, 0], qdd, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(acc[:, 1], thdd, rtol=1e-12, atol=1e-12)
    assert "elastic_forward_dynamics" in "".join(wrist.to_code("c").values())
    with pytest.raises(InputError, match="elastic_forward_dynamics is for a model with "
                                         "elastic joints"):
        rd.load("planar-2r").to_code("c", ["elastic_forward_dynamics"])
    # a partly elastic model's: tests/codegen/test_elastic_export.py
