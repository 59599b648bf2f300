"""Identification of a model with a free-flying base and a ball joint: ``q`` holds the
quaternions (``nq`` values a sample), the rates ``nv``; noiseless torques of the model give
its own base parameters back, from arrays, from a CSV file and on the command line."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.model.configuration import random_configuration

pytestmark = pytest.mark.usefixtures("numpy_backend")

SATELLITE = """
    name: satellite
    floating: true
    gravity: [0, 0, -g]
    base: {mass: 10, com: [0, 0.05, 0.1], inertia: [0.5, 0.6, 0.7, 0.01, 0, 0.02]}
    links:
      - {joint: revolute, a: 0.4, alpha: pi/2, mass: 1.5, com: [-0.2, 0, 0],
         inertia: [0.01, 0.02, 0.02, 0, 0, 0], friction: {viscous: 0.2}}
      - {joint: prismatic, theta: pi/2, mass: 0.7, com: [0, 0.1, -0.1],
         inertia: [0.003, 0.004, 0.005, 0, 0, 0]}
    values: {g: 9.81}
    """


def _samples(robot, n=60, seed=3):
    rng = np.random.default_rng(seed)
    q = random_configuration(robot.chain, rng, n)
    qd, qdd = rng.standard_normal((2, n, robot.dof))
    return q, qd, qdd, robot.inverse_dynamics(q, qd, qdd)


def test_noiseless_samples_give_the_base_parameters_of_a_floating_model(tmp_path, capsys):
    from conftest import write_model

    model = write_model(tmp_path, SATELLITE)
    robot = rd.load(str(model))
    q, qd, qdd, tau = _samples(robot)
    assert q.shape == (60, 9) and tau.shape == (60, 8)
    truth = robot.base_parameters().values
    scale = np.abs(truth).max()
    result = rd.identify(robot, q, qd, qdd, tau, physical=True)
    np.testing.assert_allclose(result.estimate, truth, rtol=0, atol=1e-10 * scale)
    # the physically consistent fit (a pseudo-inertia per link, the free base's body one)
    from robodyn.identification.physical import consistency_problems

    assert result.physical_converged and consistency_problems(robot, result.standard) == []
    np.testing.assert_allclose(result.physical_estimate, truth, rtol=0, atol=1e-7 * scale)
    # the same from a CSV file of q1..q9, qd1..qd8, qdd1..qdd8, tau1..tau8
    header = ([f"q{j}" for j in range(1, 10)]
              + [f"{k}{j}" for k in ("qd", "qdd", "tau") for j in range(1, 9)])
    data = tmp_path / "data.csv"
    np.savetxt(data, np.hstack([q, qd, qdd, tau]), delimiter=",", header=",".join(header),
               comments="", fmt="%.17g")
    from_file = rd.identify(robot, str(data))
    np.testing.assert_allclose(from_file.estimate, result.estimate, rtol=1e-12, atol=1e-13)
    assert main(["identify", str(model), str(data), "--format", "json"]) == 0
    import json

    printed = json.loads(capsys.readouterr().out)
    values = [p["estimate"] for p in printed["parameters"]] if "parameters" in printed \
        else printed["estimate"]
    np.testing.assert_allclose(values, truth, rtol=0, atol=1e-9 * scale)


def test_a_csv_of_a_floating_model_names_its_columns(tmp_path):
    """A file with one ``q`` column per velocity (the quaternion missing) is refused,
    naming the columns the model needs."""
    from conftest import write_model

    robot = rd.load(str(write_model(tmp_path, SATELLITE)))
    q, qd, qdd, tau = _samples(robot, 20)
    header = [f"{k}{j}" for k in ("q", "qd", "qdd", "tau") for j in range(1, 9)]
    data = tmp_path / "short.csv"
    np.savetxt(data, np.hstack([q[:, :8], qd, qdd, tau]), delimiter=",",
               header=",".join(header), comments="", fmt="%.17g")
    with pytest.raises(rd.InputError, match="q9"):
        rd.identify(robot, str(data))
