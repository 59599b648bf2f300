"""Grading intermediate answers (issue 33, "What else a course needs"): ``grade`` scores
``K``, ``U``, Christoffel symbols, Newton-Euler's outward quantities, a link's Jacobian and
the regressor ``Y`` like ``M``, ``C``, ``g``, ``tau``: per-entry partial credit, the kinds of
mistakes, a total over what was asked.

Independent source: the planar 2R arm by hand (link i of length l_i, its centre of mass c_i
from joint i along x_i, gravity g along -y0; s12 = sin(q1 + q2), c12 = cos(q1 + q2)).

* ``K = 1/2 qd^T M qd`` with ``M`` of the course notes (as in ``test_intermediate``).
* Christoffel symbols with ``h = m2 l1 c2 sin q2``: ``c112 = -h``, ``c211 = h``.
* Newton-Euler in frame 2 (x_2 along link 2): ``omega_2 = [0, 0, qd1 + qd2]``; the elbow's
  acceleration ``l1 (qdd1 (-s1, c1) - qd1^2 (c1, s1))`` turned into frame 2 (by -(q1+q2))
  is ``l1 qdd1 (s2, c2) - l1 qd1^2 (c2, -s2)``; the centre adds ``c2 (-(qd1+qd2)^2,
  qdd1+qdd2)``, gravity (as the base's acceleration ``-g0``) ``(g s12, g c12)``: that is
  ``vdot_c2``; ``f_2 = m2 vdot_c2`` (nothing beyond link 2); ``n_2`` (about joint 2) has z
  component ``I2 (qdd1 + qdd2) + m2 c2 vdot_c2,y``, which is ``tau2``.
* Jacobian route: ``p_l1 = c1 (cos q1, sin q1, 0)``, so ``J_P^(l1) = [[-c1 s1, 0], [c1 cos
  q1, 0], [0, 0]]`` and ``J_O^(l1) = [[0, 0], [0, 0], [1, 0]]``.
* The regressor in ``pi = (m1, I1, m2, I2)``: ``tau`` is linear in them, its columns are
  ``d tau / d pi`` read off ``tau = M qdd + C qd + g``.
"""

from __future__ import annotations

import json

import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.teaching.grade import grade, read_submission

H = "m2*l1*c2*sin(q2)"
M11 = "I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(q2))"
M12 = "I2 + m2*(c2^2 + l1*c2*cos(q2))"
M22 = "I2 + m2*c2^2"
K = f"1/2*({M11})*qd1^2 + ({M12})*qd1*qd2 + 1/2*({M22})*qd2^2"
VC2 = ["-c2*(qd1 + qd2)^2 + g*sin(q1 + q2) + l1*qdd1*sin(q2) - l1*qd1^2*cos(q2)",
       "c2*(qdd1 + qdd2) + g*cos(q1 + q2) + l1*qdd1*cos(q2) + l1*qd1^2*sin(q2)"]
F2 = [f"m2*({VC2[0]})", f"m2*({VC2[1]})"]
N2 = f"I2*(qdd1 + qdd2) + m2*c2*({VC2[1]})"
JP1 = "[[-c1*sin(q1), 0], [c1*cos(q1), 0], [0, 0]]"
JO1 = "[[0, 0], [0, 0], [1, 0]]"
PI = ["m1", "I1", "m2", "I2"]
Y_COLS = {  # column of tau = Y pi for each parameter, rows tau1, tau2
    "m1": ["c1^2*qdd1 + g*c1*cos(q1)", "0"],
    "I1": ["qdd1", "0"],
    "m2": ["(l1^2 + c2^2 + 2*l1*c2*cos(q2))*qdd1 + (c2^2 + l1*c2*cos(q2))*qdd2"
           " - l1*c2*sin(q2)*(2*qd1*qd2 + qd2^2) + g*(l1*cos(q1) + c2*cos(q1 + q2))",
           "(c2^2 + l1*c2*cos(q2))*qdd1 + c2^2*qdd2 + l1*c2*sin(q2)*qd1^2"
           " + g*c2*cos(q1 + q2)"],
    "I2": ["qdd1 + qdd2", "qdd1 + qdd2"],
}


def _y(wrong: int = 0) -> str:
    """Y with its first ``wrong`` entries (row-major) given a planted extra term."""
    rows = [[Y_COLS[p][r] for p in PI] for r in range(2)]
    for k in range(wrong):
        rows[k // 4][k % 4] = f"({rows[k // 4][k % 4]}) + qd1"
    return "[" + ", ".join("[" + ", ".join(row) + "]" for row in rows) + "]"


def _vec(entries) -> str:
    return "[" + ", ".join(entries) + "]"


@pytest.fixture(scope="module")
def ne():
    return rd.load("planar-2r").equations(method="newton-euler")


def _table(rows):
    return {(r.file, r.quantity): (r.right, r.total, r.mistakes) for r in rows}


def test_hand_derived_intermediate_answers_score_full_marks(ne, tmp_path):
    text = (f"K = {K}\nc_112 = -{H}\nc211 = {H}\nomega_2 = [0, 0, qd1 + qd2]\n"
            f"vdot_c2 = {_vec([*VC2, '0'])}\nf_2 = {_vec([*F2, '0'])}\n"
            f"n_2 = [0, 0, {N2}]\nY = {_y()}\n")
    (tmp_path / "a.txt").write_text(text)
    rows = _table(grade(ne, [("a", tmp_path / "a.txt")], pi=PI))
    assert rows == {("a", "K"): (1, 1, ""), ("a", "c112"): (1, 1, ""),
                    ("a", "c211"): (1, 1, ""), ("a", "w_2"): (3, 3, ""),
                    ("a", "pddc_2"): (3, 3, ""), ("a", "f_2"): (3, 3, ""),
                    ("a", "mu_2"): (3, 3, ""), ("a", "Y"): (8, 8, "")}


def test_a_links_jacobians_on_the_jacobian_route(tmp_path):
    eq = rd.load("planar-2r").equations(route="jacobian")
    (tmp_path / "j.txt").write_text(f"J_P^(l1) = {JP1}\nJ_O^(l1) = {JO1}\n"
                                    "J_P^(l2) = [[0, 0], [0, 0], [0, 0]]\n")
    rows = _table(grade(eq, [("j", tmp_path / "j.txt")]))
    assert rows[("j", "J_P^(l1)")] == (6, 6, "")
    assert rows[("j", "J_theta^(l1)")] == (6, 6, "")
    # link 2's Jacobian is not zero: its first two rows (4 entries) are wrong, the z row right
    right, total, kinds = rows[("j", "J_P^(l2)")]
    assert (right, total) == (2, 6) and kinds.count("J_P^(l2)[") == 4


def test_a_synthetic_class_with_planted_intermediate_mistakes(ne, tmp_path):
    # student k plants: K's 1/2 forgotten on qd2^2 (k % 2), c112's sign (k % 3 == 0), a wrong
    # z in omega_2 (k % 4 == 1), gravity dropped from f_2's x (k % 5 == 2; one entry), n_2
    # unanswered (k % 7 == 3), k % 9 wrong entries of Y; by hand the total over the asked
    # K, c112, w_2, f_2, mu_2, Y (1 + 1 + 3 + 3 + 3 + 8 = 19) is 19 minus what was planted
    files, planted = [], {}
    for k in range(30):
        kk = K.replace(f"1/2*({M22})", f"({M22})") if k % 2 else K
        c112 = H if k % 3 == 0 else f"-{H}"
        w2 = "[0, 0, qd1]" if k % 4 == 1 else "[0, 0, qd1 + qd2]"
        f2 = [F2[0].replace("+ g*sin(q1 + q2)", ""), F2[1]] if k % 5 == 2 else F2
        text = (f"K = {kk}\nc_112 = {c112}\nomega_2 = {w2}\nf_2 = {_vec([*f2, '0'])}\n"
                + ("" if k % 7 == 3 else f"n_2 = [0, 0, {N2}]\n") + f"Y = {_y(k % 9)}\n")
        (tmp_path / f"s{k}.txt").write_text(text)
        files.append((f"s{k}", tmp_path / f"s{k}.txt"))
        planted[f"s{k}"] = 19 - (k % 2) - (k % 3 == 0) - (k % 4 == 1) - (k % 5 == 2) \
            - 3 * (k % 7 == 3) - k % 9
    rows = grade(ne, files, asked=["K", "c_112", "omega_2", "f_2", "n_2", "Y"], pi=PI)
    totals = {r.file: (r.right, r.total) for r in rows if r.quantity == "total"}
    assert totals == {name: (score, 19) for name, score in planted.items()}
    table = _table(rows)
    assert table[("s1", "K")] == (0, 1, "K factor")
    assert table[("s0", "c112")] == (0, 1, "c112 sign")
    assert table[("s2", "f_2")][:2] == (2, 3) and "f_2[1]" in table[("s2", "f_2")][2]
    assert table[("s3", "mu_2")] == (0, 3, "unanswered")
    assert table[("s5", "Y")][:2] == (3, 8) and "extra term" in table[("s5", "Y")][2]


def test_an_unknown_step_is_an_error_row_and_the_rest_is_graded(ne, tmp_path):
    (tmp_path / "x.txt").write_text("omega_2 = [0, 0, qd1 + qd2]\nJ_P^(l1) = [0]\n")
    rows = {r.quantity: r for r in grade(ne, [("x", tmp_path / "x.txt")])}
    assert (rows["w_2"].right, rows["w_2"].total) == (3, 3)
    assert "not a step of this derivation" in rows["J_P^(l1)"].error
    with pytest.raises(Exception, match="given twice"):
        read_submission("omega_2 = [0, 0, 0]\nw_2 = [0, 0, 0]\n", "f")
    with pytest.raises(Exception, match="not a step"):
        grade(ne, [], asked=["w_9"])


def test_grade_cli_asks_intermediates_and_reads_pi(ne, tmp_path, capsys):
    answer = json.loads(ne.json())
    answer.update(asked=["M", "regressor"], pi=PI)
    (tmp_path / "answer.json").write_text(json.dumps(answer))
    (tmp_path / "s.txt").write_text(f"M = [[{M11}, {M12}], [{M12}, {M22}]]\nY = {_y(2)}\n"
                                    "omega_2 = [0, 0, qd1 + qd2]\n")
    assert main(["grade", str(tmp_path / "answer.json"), str(tmp_path / "s.txt"),
                 "--model", "planar-2r", "--ask", "K,omega_2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = {line.split(",")[1]: line.split(",")[2:4] for line in lines[1:]}
    assert rows["M"] == ["4", "4"] and rows["Y"] == ["6", "8"] and rows["w_2"] == ["3", "3"]
    assert rows["K"] == ["0", "1"]          # asked, unanswered
    assert rows["total"] == ["13", "16"]    # 4 + 6 + 3 + 0 of 4 + 8 + 3 + 1
