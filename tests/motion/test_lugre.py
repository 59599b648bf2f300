"""LuGre friction (Canudas de Wit et al. 1995): its steady state is the Stribeck curve, a
torque below the static level deflects the bristles by F / sigma0, a pendulum held by it
stays, and the mechanical plus bristle energy only decreases."""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import robodyn as rd
from robodyn.core.errors import ModelError
from robodyn.motion.lugre import LuGre, lugre_rates, simulate_lugre, steady_friction

PARAMS = {"sigma0": 1.0e4, "sigma1": 100.0, "sigma2": 0.1, "Fc": 3.0, "Fs": 4.0, "vs": 0.1}
M, L, G0 = 1.0, 0.5, 9.81

PENDULUM = """
name: pendulum
dh: standard
gravity: {gravity}
links:
  - joint: revolute
    a: {L}
    mass: {M}
    com: [0, 0, 0]
    inertia: [1.0e-6, 1.0e-6, 1.0e-6, 0, 0, 0]
"""


def _pendulum(tmp_path, gravity=f"[0, -{G0}, 0]"):
    path = tmp_path / "p.yaml"
    path.write_text(PENDULUM.format(gravity=gravity, L=L, M=M))
    return rd.load(path)


@pytest.mark.parametrize("v", [-1.0, -0.05, 0.02, 0.1, 0.5, 2.0])
def test_steady_state_is_the_stribeck_curve(v):
    lugre = LuGre.of(PARAMS, 1)
    # closed form: g(v) sign v + sigma2 v with g = Fc + (Fs - Fc) exp(-(v/vs)^2)
    g = 3.0 + 1.0 * np.exp(-((v / 0.1) ** 2))
    np.testing.assert_allclose(steady_friction(lugre, [v]), [g * np.sign(v) + 0.1 * v],
                               rtol=1e-15)
    # the bristle equation at constant v, integrated, settles there
    sol = solve_ivp(lambda t, z: lugre_rates(lugre, [v], z)[0], (0, 0.5), [0.0],
                    method="Radau", rtol=1e-10, atol=1e-14)
    force = lugre_rates(lugre, [v], sol.y[:, -1])[1]
    np.testing.assert_allclose(force, [g * np.sign(v) + 0.1 * v], rtol=1e-7)


def _presliding(F):
    """The rest displacement of a load F < F_s applied slowly from rest: while sliding
    forward at v ~ 0 (g ~ F_s), dz/dq = 1 - sigma0 z / F_s, so z = (F_s / sigma0)(1 - exp(
    -sigma0 q / F_s)), and at rest sigma0 z = F: q = -(F_s / sigma0) ln(1 - F / F_s), the
    spring F / sigma0 for small F."""
    return -(PARAMS["Fs"] / PARAMS["sigma0"]) * np.log(1 - F / PARAMS["Fs"])


@pytest.mark.parametrize("F", [0.02, 1.0, 2.0])
def test_presliding_is_a_bounded_spring(tmp_path, F):
    robot = _pendulum(tmp_path, gravity="[0, 0, -9.81]")  # gravity along the axis: no torque
    sim = simulate_lugre(robot, PARAMS, q0=[0.0], duration=0.5, tau=lambda t, q, qd: [F])
    # at rest the bristles carry the load: sigma0 z = F
    np.testing.assert_allclose(sim.z[-1], [F / PARAMS["sigma0"]], rtol=1e-4)
    np.testing.assert_allclose(sim.friction[-1], [F], rtol=1e-4)
    # the displacement: the closed form (the load is a step, so a little more slips)
    np.testing.assert_allclose(sim.q[-1], [_presliding(F)], rtol=3e-2)
    if F < 0.1:
        np.testing.assert_allclose(sim.q[-1], [F / PARAMS["sigma0"]], rtol=1e-2)
    assert np.abs(sim.q).max() <= 2 * _presliding(F)  # bounded: it never slides away
    np.testing.assert_allclose(sim.q[250], sim.q[-1], rtol=1e-4)  # and it does not creep


def test_pendulum_released_inside_the_static_level_stays(tmp_path):
    robot = _pendulum(tmp_path)
    hold = 3.5  # gravity torque m g l cos q0 = 3.5 N m < Fs = 4
    q0 = np.arccos(hold / (M * G0 * L))
    sim = simulate_lugre(robot, PARAMS, q0=[q0], duration=1.0)
    assert np.abs(sim.q - q0).max() <= 2 * _presliding(hold)  # about 1e-3 rad: at rest
    np.testing.assert_allclose(sim.q[500], sim.q[-1], rtol=1e-6)  # no creep
    assert abs(sim.qd[-1, 0]) < 1e-6
    # the friction holds the gravity torque there: F = -g(q) = -m g l cos q
    np.testing.assert_allclose(sim.friction[-1], -M * G0 * L * np.cos(sim.q[-1]), rtol=1e-4)


def test_energy_dissipated_is_non_negative(tmp_path):
    robot = _pendulum(tmp_path)
    sim = simulate_lugre(robot, PARAMS, q0=[0.0], duration=1.0)  # 4.9 N m > Fs: it falls
    assert sim.q[-1, 0] < -0.5  # it did move
    energy = (robot.kinetic_energy(sim.q, sim.qd) + robot.potential_energy(sim.q)
              + 0.5 * PARAMS["sigma0"] * sim.z[:, 0] ** 2)
    dissipated = energy[0] - energy
    assert dissipated.min() >= -1e-6
    assert np.all(np.diff(energy) <= 1e-6)


@pytest.mark.parametrize(("key", "value", "match"), [
    ("sigma0", 0.0, r"lugre.sigma0\[0\]: 0 must be finite and > 0"),
    ("vs", -1.0, r"lugre.vs\[0\]"),
    ("Fs", 2.0, r"lugre.Fs\[0\]: the static level 2 is below"),
    ("sigma1", float("nan"), r"lugre.sigma1\[0\]"),
])
def test_bad_lugre_parameters_name_the_field(key, value, match):
    with pytest.raises(ModelError, match=match):
        LuGre.of({**PARAMS, key: value}, 1)


def test_model_file_lugre_key(tmp_path):
    path = tmp_path / "lugre.yaml"
    path.write_text(PENDULUM.format(gravity=f"[0, -{G0}, 0]", L=L, M=M)
                    + "lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: [4], "
                      "vs: 0.1}\n")
    robot = rd.load(path)
    assert robot.chain.lugre == LuGre.of(PARAMS, 1)
    a = simulate_lugre(robot, None, q0=[0.0], duration=0.2)
    b = simulate_lugre(_pendulum(tmp_path), PARAMS, q0=[0.0], duration=0.2)
    np.testing.assert_array_equal(a.q, b.q)
    path.write_text(path.read_text().replace("Fs: [4]", "Fs: [4, 5]"))
    with pytest.raises(ModelError, match="lugre.Fs: expected a number or 1 numbers"):
        rd.load(path)
    with pytest.raises(rd.InputError, match="has no lugre parameters"):
        simulate_lugre(_pendulum(tmp_path), None, q0=[0.0])


def test_rd_simulate_method_lugre(tmp_path):
    path = tmp_path / "lugre.yaml"
    path.write_text(PENDULUM.format(gravity=f"[0, -{G0}, 0]", L=L, M=M)
                    + "lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, vs: 0.1}\n")
    robot = rd.load(path)
    sim = rd.simulate(robot, q0=[0.0], duration=1.0, method="lugre", sample_dt=1e-3)
    ref = simulate_lugre(robot, None, q0=[0.0], duration=1.0)
    np.testing.assert_allclose(sim.q, ref.q, atol=1e-6)  # two runs of the same equations
    np.testing.assert_allclose(sim.info["lugre_friction"], ref.friction, atol=1e-3)
    assert sim.info["method"] == "lugre"
    # the arm's energy balance with the LuGre friction as a torque on it closes
    assert abs(sim.info["energy_balance"].error) < 1e-4 * sim.info["energy_balance"].scale
    held = rd.simulate(robot, q0=[np.arccos(3.5 / (M * G0 * L))], duration=0.5,
                       method="lugre")
    assert np.abs(held.qd).max() < 0.05 and abs(held.qd[-1, 0]) < 1e-6
    with pytest.raises(rd.InputError, match="has no lugre parameters"):
        rd.simulate(_pendulum(tmp_path), q0=[0.0], method="lugre")
    # the model's LuGre friction is the default of a single run; another method warns
    default = rd.simulate(robot, q0=[0.0], duration=0.2, sample_dt=1e-3)
    assert default.info["method"] == "lugre"
    np.testing.assert_allclose(default.q, sim.q[:201], atol=1e-6)  # the same equations
    with pytest.warns(UserWarning, match=r"left out of this run \(method='rk45'\)"):
        rd.simulate(robot, q0=[0.0], duration=0.05, method="rk45")


def test_cli_simulate_method_lugre(tmp_path, capsys):
    from robodyn.cli import main

    path = tmp_path / "lugre.yaml"
    path.write_text(PENDULUM.format(gravity=f"[0, -{G0}, 0]", L=L, M=M)
                    + "lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, vs: 0.1}\n")
    assert main(["simulate", str(path), "--method", "lugre", "--duration", "0.3",
                 "--q0", "0"]) == 0
    out = capsys.readouterr().out
    assert "(lugre, rtol = 1e-09" in out and "balance" in out
    # tau = 0: the work of tau is the LuGre friction's, named as such
    found = re.search(r"work of tau (\S+) J \(the applied torque's (\S+) J less the LuGre "
                      r"friction's (\S+) J\)", out)
    assert found, out
    work, applied, lugre = map(float, found.groups())
    assert applied == 0 and lugre > 0 and np.isclose(work, -lugre, rtol=1e-5)
