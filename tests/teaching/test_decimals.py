"""Issue 33 item 1: decimals in a student's answer (the Robotics Toolbox prints ``1.0*``).

The answers are seed 003's planar 2R in the lesson's form (as in ``test_compare``), written
with decimals the way symbolic toolboxes print them; a decimal equal to a fraction within
1e-12 is that fraction, and one that is not is compared numerically.
"""

from __future__ import annotations

import pytest

import robodyn as rd
from robodyn.teaching.compare import NUMERIC_TOLERANCE

M_DECIMAL = ("[[I1 + I2 + 1.0*m1*c1^2 + 1.0*m2*(l1^2 + c2^2 + 2.0*l1*c2*cos(q2)),"
             "  I2 + 1.0*m2*(c2^2 + l1*c2*cos(q2))],"
             " [I2 + m2*(c2^2 + l1*c2*cos(q2)), I2 + 1.0*m2*c2^2]]")
G_SEED = "[(m1*c1 + m2*l1)*g*cos(q1) + m2*c2*g*cos(q1 + q2), m2*c2*g*cos(q1 + q2)]"


@pytest.fixture(scope="module")
def eq():
    return rd.load("planar-2r").equations()


def test_the_issue_case_one_point_zero_is_one(eq):
    result = eq.compare(M=M_DECIMAL)
    assert result.ok, str(result)


@pytest.mark.parametrize("half", ["0.5", "1/2", "0.50000000000000", "5e-1"])
def test_a_half_written_any_way_is_the_same_mistake_or_none(eq, half):
    # the pendulum term m1 c1 g cos q1 written with a factor 2*half (= 1): right
    g = G_SEED.replace("(m1*c1", f"(2*{half}*m1*c1")
    assert eq.compare(g=g).ok
    # and with the factor half alone, the same 'factor' diagnosis as 1/2 gives
    wrong = G_SEED.replace("(m1*c1", f"({half}*m1*c1")
    kinds = sorted(m.kind for m in eq.compare(g=wrong).mistakes)
    assert kinds == sorted(m.kind for m in eq.compare(g=G_SEED.replace("(m1*c1", "(1/2*m1*c1"))
                                                     .mistakes)
    assert kinds and "extra term" not in " ".join(str(m) for m in eq.compare(g=wrong).mistakes)


@pytest.mark.parametrize("p", ["0.1", "0.25", "0.3333333333333333", "1.25", "-2.0", "7.0"])
def test_every_decimal_within_1e12_of_a_fraction_is_exact(eq, p):
    # p*X/p == X for any decimal p that is a fraction: exact equality after reading
    g = G_SEED.replace("m2*c2*g*cos(q1 + q2)]", f"{p}*m2*c2*g*cos(q1 + q2)/{p}]")
    result = eq.compare(g=g)
    assert result.ok and not any("numerically" in n for n in result.notes)


def test_a_decimal_that_is_no_fraction_is_compared_numerically(eq):
    # p cos(q1 + q2) + (1 - p)(cos q1 cos q2 - sin q1 sin q2) = cos(q1 + q2), with p and
    # 1 - p no fraction with a denominator <= 1e6 within 1e-12
    p, rest = "0.1234567891234567", "0.8765432108765433"
    term = (f"m2*c2*g*({p}*cos(q1 + q2) + {rest}*(cos(q1)*cos(q2) - sin(q1)*sin(q2)))")
    right = G_SEED.replace("m2*c2*g*cos(q1 + q2)]", term + "]")
    result = eq.compare(g=right)
    assert result.ok
    assert any("numerically" in n and f"{NUMERIC_TOLERANCE:g}" in n for n in result.notes)
    # off by 1e-6 relative: beyond the stated tolerance, wrong
    off = G_SEED.replace("m2*c2*g*cos(q1 + q2)]", term.replace(rest, "0.8765442108765433") + "]")
    assert not eq.compare(g=off).ok
