"""Issue 33 item 4: grading a lecturer can trust (the parts in ``grade`` itself).

Seed 003's planar 2R in the lesson's form (as in ``test_compare``). The other valid
factorisation ``C' = [[-2 h qd2, -h qd2], [h qd1, 0]]`` (by hand: ``C' qd = [-2h qd1 qd2 -
h qd2^2, h qd1^2]``, the same as the Christoffel ``C qd``) is not what a sheet asking for the
Christoffel symbols wants.
"""

from __future__ import annotations

import pytest

import robodyn as rd
from robodyn.teaching.grade import grade

M_SEED = ("[[I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(q2)),"
          "  I2 + m2*(c2^2 + l1*c2*cos(q2))],"
          " [I2 + m2*(c2^2 + l1*c2*cos(q2)), I2 + m2*c2^2]]")
H = "m2*l1*c2*sin(q2)"
C_SEED = f"[[-{H}*qd2, -{H}*(qd1 + qd2)], [{H}*qd1, 0]]"
C_OTHER = f"[[-2*{H}*qd2, -{H}*qd2], [{H}*qd1, 0]]"
G_SEED = "[(m1*c1 + m2*l1)*g*cos(q1) + m2*c2*g*cos(q1 + q2), m2*c2*g*cos(q1 + q2)]"
ASKED = ("M", "C", "g", "tau")


@pytest.fixture(scope="module")
def eq():
    return rd.load("planar-2r").equations()


def _files(tmp_path, **texts):
    out = []
    for name, text in texts.items():
        (tmp_path / name).write_text(text)
        out.append((name, tmp_path / name))
    return out


def _table(rows):
    return {(r.file, r.quantity): (r.right, r.total, r.mistakes) for r in rows}


def test_a_valid_non_christoffel_C_is_flagged_when_christoffel_was_asked(eq, tmp_path):
    files = _files(tmp_path, other=f"M = {M_SEED}\nC = {C_OTHER}\n",
                   right=f"M = {M_SEED}\nC = {C_SEED}\n")
    rows = _table(grade(eq, files, asked=ASKED))
    assert rows[("other", "C")][:2] == (0, 4) and "Christoffel" in rows[("other", "C")][2]
    assert rows[("right", "C")] == (4, 4, "")
    assert rows[("other", "M")] == (4, 4, "")
    # without knowing what was asked the checker's verdict stands: a valid factorisation
    assert _table(grade(eq, files))[("other", "C")][:2] == (4, 4)


def test_an_unanswered_asked_quantity_is_a_zero_row(eq, tmp_path):
    files = _files(tmp_path, only_g=f"g = {G_SEED}\n")
    rows = _table(grade(eq, files, asked=ASKED))
    assert rows[("only_g", "g")] == (2, 2, "")
    assert rows[("only_g", "M")] == (0, 4, "unanswered")
    assert rows[("only_g", "C")] == (0, 4, "unanswered")
    assert rows[("only_g", "tau")] == (0, 2, "unanswered")
    assert ("only_g", "Cqd") not in rows  # not asked
    assert set(_table(grade(eq, files))) == {("only_g", "g")}


def test_one_unreadable_quantity_keeps_the_others(eq, tmp_path):
    files = _files(tmp_path, broken=f"M = {M_SEED}\nC = {C_OTHER}\ng = [1 +* 2, 0]\n")
    rows = {(r.file, r.quantity): r for r in grade(eq, files, asked=ASKED)}
    assert (rows[("broken", "M")].right, rows[("broken", "M")].total) == (4, 4)
    assert rows[("broken", "C")].right == 0 and "Christoffel" in rows[("broken", "C")].mistakes
    assert rows[("broken", "g")].right == 0 and rows[("broken", "g")].error
    assert rows[("broken", "tau")].mistakes == "unanswered"


def test_a_synthetic_class_with_planted_mistakes_gets_the_planted_totals(eq, tmp_path):
    # each student plants k wrong entries of M (diagonal term dropped) and maybe leaves g out;
    # by hand: total = (4 - wrong M) + 4 (C) + (2 if g answered) + 0 (tau unanswered)
    m_wrong = ("[[I1 + I2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(q2)), I2 + m2*(c2^2 + l1*c2*cos(q2))],"
               " [I2 + m2*(c2^2 + l1*c2*cos(q2)), I2 + m2*c2^2]]")  # M11 lacks m1*c1^2
    texts, planted = {}, {}
    for k in range(100):  # a class of 100, as a lecturer grades it
        lines = [f"M = {m_wrong if k % 3 == 0 else M_SEED}", f"C = {C_SEED}"]
        if k % 2:
            lines.append(f"g = {G_SEED}")
        texts[f"s{k}"] = "\n".join(lines) + "\n"
        planted[f"s{k}"] = (4 - (k % 3 == 0)) + 4 + (2 if k % 2 else 0)
    texts["unreadable"] = "M = [[1, 2]\n"  # brackets never close
    planted["unreadable"] = 0
    rows = grade(eq, _files(tmp_path, **texts), asked=ASKED)
    totals = {r.file: (r.right, r.total) for r in rows if r.quantity == "total"}
    assert totals == {name: (score, 4 + 4 + 2 + 2) for name, score in planted.items()}
