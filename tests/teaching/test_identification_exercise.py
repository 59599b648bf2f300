"""Identification exercises (issue 33, "What else a course needs"): data from a hidden arm,
the student finds the base parameters, ``grade`` scores them within a tolerance derived
from the noise.

Independent checks: a student's ordinary least squares on ``data.csv`` with the regressor of
the student's ``arm.yaml`` (placeholder inertias) lands within the tolerance of the hidden
arm's base parameters, and its errors divided by the stated ``sigma`` look like a standard
normal sample (the statistics the tolerance rests on: ``pi_hat - pi ~ N(0, noise^2 (W^T
W)^-1)``); the data's torques are the hidden arm's inverse dynamics to within the noise;
answers moved by planted multiples of ``sigma`` get the planted scores.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main


@pytest.fixture(scope="module")
def exercise(tmp_path_factory):
    out = tmp_path_factory.mktemp("ident") / "ex"
    assert main(["exercise", "--identification", "--dof", "2", "--joints", "RR", "--seed",
                 "3", "--samples", "300", "--noise", "0.05", "--out", str(out)]) == 0
    return out


def _least_squares(out):
    robot = rd.load(out / "task" / "arm.yaml")
    data = np.loadtxt(out / "task" / "data.csv", delimiter=",", skiprows=1)
    q, qd, qdd, tau = np.split(data, 4, axis=1)
    base = robot.base_parameters()
    W = robot.regressor_base(q, qd, qdd).reshape(-1, base.count)
    return list(base.base_names), np.linalg.lstsq(W, tau.reshape(-1), rcond=None)[0]


def test_the_data_is_the_hidden_arm_with_noise(exercise):
    hidden = rd.load(exercise / "solution" / "arm.yaml")
    data = np.loadtxt(exercise / "task" / "data.csv", delimiter=",", skiprows=1)
    q, qd, qdd, tau = np.split(data, 4, axis=1)
    residual = tau - hidden.inverse_dynamics(q, qd, qdd)
    assert abs(residual.std() - 0.05) < 0.005 and abs(residual.mean()) < 0.005
    student = (exercise / "task" / "arm.yaml").read_text()
    assert "1.7" not in student.split("values:")[1]  # the hidden mass m1 = 1.7 is not there


def test_least_squares_is_within_the_tolerance_and_sigma_is_its_spread(exercise):
    key = json.loads((exercise / "solution" / "answer.json").read_text())
    names, estimate = _least_squares(exercise)
    assert names == key["names"]
    z = (estimate - np.array(key["values"])) / np.array(key["sigma"])
    assert np.all(np.abs(z) < 4)
    assert 0.4 < np.sqrt(np.mean(z ** 2)) < 1.8  # 12 draws of N(0, 1): rms near 1


def test_grade_scores_a_planted_class(exercise, tmp_path, capsys):
    key = json.loads((exercise / "solution" / "answer.json").read_text())
    names, estimate = _least_squares(exercise)
    sigma = np.array(key["sigma"])
    files, planted = [], {}
    for k in range(6):  # student k moves its first k parameters by 10 sigma, leaves one out
        values = estimate.copy()
        values[:k] += 10 * sigma[:k]
        lines = [f"{n} = {float(v)!r}" for n, v in zip(names, values)]
        if k == 5:
            lines.pop()  # the last one unanswered
        (tmp_path / f"s{k}.txt").write_text("# least squares\n" + "\n".join(lines) + "\n")
        files.append(str(tmp_path / f"s{k}.txt"))
        planted[files[-1]] = len(names) - k - (k == 5)
    (tmp_path / "bad.txt").write_text("ZZ1R = many\n")
    assert main(["grade", str(exercise / "solution" / "answer.json"), *files,
                 str(tmp_path / "bad.txt")]) == 0
    lines = capsys.readouterr().out.splitlines()[1:]
    totals = {line.split(",")[0]: int(line.split(",")[2]) for line in lines
              if line.split(",")[1] == "total"}
    assert {f: totals[f] for f in files} == planted
    assert totals[str(tmp_path / "bad.txt")] == 0
    assert any(re.search(r"off by (9|10|11)\.\d sigma", line) for line in lines)
    assert any("unanswered" in line for line in lines)


def test_bad_options_are_named(tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["exercise", "--identification", "--samples", "3", "--out", str(tmp_path / "x")])
    assert "--samples: 3 is not 10" in capsys.readouterr().err
