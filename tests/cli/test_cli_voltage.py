"""``robodyn simulate --voltage`` of a closed mechanism (issue 36): the motors sit at the
actuated joints only, so one number is every actuated joint's voltage and a list has one
per actuated joint. Oracle by hand: the stall voltages ``V = R (S^T g)(q0) / k_t`` (``S``
the loops' velocity map, ``S^T g`` the weight on the actuated coordinates; gears of ratio 1)
hold the mechanism at rest, so the printed final state is the start with ``qd = 0``."""

from __future__ import annotations

import re

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main

R, KT = 2.0, 0.5


@pytest.fixture(autouse=True)
def _numpy(numpy_backend):
    """Values, not speed: no Numba compile time."""


def with_motors(tmp_path, name: str):
    """The built-in ``name`` with a DC motor (R, k_t) on every joint (the model file's
    motors are all or none; the run uses the actuated joints')."""
    text = re.sub(r"(\n    inertia: \[0, 0, I\d, 0, 0, 0\]\n)",
                  rf"\1    motor: {{resistance: {R}, torque_constant: {KT}}}\n",
                  rd.models.path(name).read_text())
    path = tmp_path / f"{name}.yaml"
    path.write_text(text)
    return path, rd.load(path)


def stall(robot, q0) -> tuple[np.ndarray, np.ndarray]:
    """The assembled start and the actuated joints' stall voltages ``R (S^T g) / k_t``."""
    chain = robot.closed_chain()
    q = chain.assemble(q0[chain.actuated][None], q0[None]).q[0]
    S, _ = chain.velocity_terms(q, np.zeros(len(chain.actuated)))
    return q, R * (S.T @ robot.gravity_torques(q)) / KT


def final_state(out: str) -> tuple[np.ndarray, np.ndarray]:
    line = out.split("final state: ")[1].splitlines()[0]
    q, qd = (np.array([float(x) for x in re.search(rf"{k} = \[([^]]*)\]", line)[1]
                       .split(",")]) for k in (r"\bq", "qd"))
    return q, qd


def _simulate(path, q0, volts, capsys):
    code = main(["simulate", str(path), "--q0", *map(repr, q0.tolist()), "--duration", "0.1",
                 "--dt", "0.01", "--voltage", *map(repr, volts)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_one_voltage_is_every_actuated_joints_and_a_list_one_each(tmp_path, capsys):
    """The four-bar (1 actuated of 3 joints) held by one number, its crank's stall voltage;
    the five-bar (2 of 4) held by a list of its two cranks' stall voltages (not by the list
    swapped), and driven by one number at both cranks; a list of any other length is refused
    naming the actuated joints."""
    path, robot = with_motors(tmp_path, "four-bar")
    q0, V = stall(robot, np.array([0.5, 0.09085012, -2.52122048]))
    code, out, err = _simulate(path, q0, [float(V[0])], capsys)
    assert code == 0, err
    assert "1 actuated" in out and f"voltage [{V[0]:.6g}] V" in out
    q, qd = final_state(out)
    assert np.abs(qd).max() < 1e-6 and np.abs(q - q0).max() < 1e-5
    code, _, err = _simulate(path, q0, [1.0, 1.0, 1.0], capsys)
    assert code != 0 and ("--voltage: expected 1 number (every actuated joint) or 1 (one per "
                          "actuated joint of four-bar: joint1), got 3") in err

    path, robot = with_motors(tmp_path, "five-bar")
    q0, V = stall(robot, np.array([1.9, -0.95087010, 1.2, 0.97259641]))
    assert abs(V[0] - V[1]) > 0.1  # two different voltages: the order matters
    code, out, err = _simulate(path, q0, V.tolist(), capsys)
    assert code == 0, err
    q, qd = final_state(out)
    assert np.abs(qd).max() < 1e-6 and np.abs(q - q0).max() < 1e-5
    code, out, err = _simulate(path, q0, V[::-1].tolist(), capsys)  # swapped: it moves
    assert code == 0 and np.abs(final_state(out)[1]).max() > 0.1
    code, out, err = _simulate(path, q0, [3.0], capsys)
    assert code == 0, err
    assert "voltage [3, 3] V" in out
    code, _, err = _simulate(path, q0, [1.0, 2.0, 3.0], capsys)
    assert code != 0 and "or 2 (one per actuated joint of five-bar: joint1, joint3), got 3" \
        in err
