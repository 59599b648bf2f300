"""Exercises asking for the operational-space inertia ``B_A`` and for the dynamic scaling
of a slowed-down path (issue 35, the exercise part), with their solutions and checking.

Independent sources, at random states of the drawn arm:

* ``B_A = J_A^-T M J_A^-1`` (Siciliano 7.120) from the recursive ``Robot.mass_matrix`` and
  the geometric ``Robot.jacobian``'s two position rows of the plane;
* the path run 2 times slower, ``q_s(t) = q(t/2)``, has ``q_s' = q'/2``, ``q_s'' = q''/4``:
  its torques are ``Robot.inverse_dynamics(q, q'/2, q''/4)`` (the recursive Newton-Euler of
  the arm, no friction in a drawn arm) -- the sheet's ``(tau - g)/4 + g``.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.teaching.exercise import make_exercise
from robodyn.teaching.grade import grade
from robodyn.teaching.sheet import scaled_torques, task_rows


@pytest.fixture(scope="module")
def arm(tmp_path_factory):
    ex = make_exercise(2, "RR", 3, planar=True)
    path = tmp_path_factory.mktemp("arm") / "arm.yaml"
    path.write_text(ex.model_yaml)
    robot = rd.load(path)
    return robot, robot.equations()


def _at(expr, eq, robot, q, qd=(0, 0), qdd=(0, 0)):
    table = {s: robot.values[str(s)] for s in eq.params}
    table.update(zip(eq.q, q))
    table.update(zip(eq.qd, qd))
    table.update(zip(eq.qdd, qdd))
    return np.array(sp.Matrix(expr).xreplace(table).evalf(), dtype=float)


def test_b_a_is_j_inverse_transpose_m_j_inverse(arm):
    from robodyn.teaching.intermediate import step_answers

    robot, eq = arm
    rows = task_rows(eq)
    (_, expected), = step_answers(eq, {"B_A": "0"}).values()
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = rng.uniform(0.3, 2.5, 2)  # away from the singular q2 = 0
        J = robot.jacobian(q)[list(rows)]
        want = np.linalg.inv(J).T @ robot.mass_matrix(q) @ np.linalg.inv(J)
        assert np.allclose(_at(expected, eq, robot, q), want, rtol=1e-10, atol=1e-12)


def test_the_scaled_torques_are_the_inverse_dynamics_at_scaled_rates(arm):
    robot, eq = arm
    rng = np.random.default_rng(6)
    for _ in range(3):
        q, qd, qdd = rng.uniform(-2, 2, (3, 2))
        want = robot.inverse_dynamics(q, qd / 2, qdd / 4)
        got = _at(scaled_torques(eq), eq, robot, q, qd, qdd).reshape(-1)
        assert np.allclose(got, want, rtol=1e-10, atol=1e-12)


def test_checking_and_grading_b_a_and_tau_s(arm, tmp_path):
    robot, eq = arm
    tau_s = [str(e) for e in scaled_torques(eq)]
    right = eq.compare(steps={"tau_s": f"[{tau_s[0]}, {tau_s[1]}]"})
    assert right.ok
    # forgetting the 1/k^2 on the velocity terms only: the sheet's classic mistake
    unscaled = (eq.M * sp.Matrix(eq.qdd)) / 4 + eq.Cqd + eq.g
    wrong = eq.compare(steps={"tau_s": str(list(unscaled))})
    assert {m.entry for m in wrong.mistakes} == {"tau_s[1]", "tau_s[2]"}
    (tmp_path / "s.txt").write_text(f"tau_s = {list(unscaled)}\n")
    rows = {r.quantity: (r.right, r.total) for r in
            grade(eq, [("s", tmp_path / "s.txt")], asked=["tau_s", "B_A"])}
    assert rows == {"tau_s": (0, 2), "B_A": (0, 4), "total": (0, 6)}


@pytest.mark.slow  # about 6 s: the sheet's B_A is simplified for print
def test_the_sheet_asks_and_answers_them(arm, tmp_path):
    ex = make_exercise(2, "RR", 3, planar=True)
    ex.write(tmp_path / "ex", questions="M,B_A,tau_s", figure=None)
    task = (tmp_path / "ex" / "task" / "task.md").read_text()
    solution = (tmp_path / "ex" / "solution" / "solution.txt").read_text()
    assert "B_A = J_A^{-T} M J_A^{-1}" in task and "2 times slower" in task
    assert "B_A = [[" in solution and "tau_s = [[" in solution
    assert "operational-space inertia" in (tmp_path / "ex" / "task" / "task.tex").read_text()
