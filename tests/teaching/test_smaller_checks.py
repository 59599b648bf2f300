"""Issue 33, item 8 (smaller): half-angle identities are right, a transposed C is named
as a transposition, Greek names such as θ1 are read (``--symbols θ1=q1``), and two
factors side by side (``m1 c1``) get "write m1*c1".

Independent source: the planar 2R arm of the course notes written by hand,
``M22 = I2 + m2 c2^2``, ``M12 = I2 + m2 (c2^2 + l1 c2 cos q2)``, ``h = m2 l1 c2 sin q2``,
``C = [[-h qd2, -h (qd1 + qd2)], [h qd1, 0]]`` and ``g2 = m2 g c2 cos(q1 + q2)``, with
the half-angle identity ``cos q = 2 cos(q/2)^2 - 1``.
"""

from __future__ import annotations

import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError

M11 = "I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*{c})"
M12 = "I2 + m2*(c2^2 + l1*c2*{c})"
M22 = "I2 + m2*c2^2"
H = "m2*l1*c2*sin(q2)"


@pytest.fixture(scope="module")
def eq():
    return rd.load("planar-2r").equations()


def _M(c):
    return f"[[{M11.format(c=c)}, {M12.format(c=c)}], [{M12.format(c=c)}, {M22}]]"


def test_the_hand_derived_answer_is_right(eq):
    assert eq.compare(M=_M("cos(q2)")).ok
    h = f"({H})"
    assert eq.compare(C=f"[[-{h}*qd2, -{h}*(qd1 + qd2)], [{h}*qd1, 0]]").ok


def test_half_angle_identities_are_right(eq):
    result = eq.compare(M=_M("(2*cos(q2/2)^2 - 1)"))
    assert result.ok, result
    assert any("compared numerically" in n for n in result.notes)
    assert eq.compare(M=_M("(1 - 2*sin(q2/2)^2)")).ok
    # the identity without its -1 is wrong, in M11 and M12 alone
    wrong = eq.compare(M=_M("2*cos(q2/2)^2"))
    assert not wrong.ok
    assert {m.entry for m in wrong.mistakes} == {"M11", "M12", "M21"}


def test_a_transposed_c_is_named_as_a_transposition(eq):
    h = f"({H})"
    transposed = f"[[-{h}*qd2, {h}*qd1], [-{h}*(qd1 + qd2), 0]]"
    result = eq.compare(C=transposed)
    assert [(m.entry, m.kind) for m in result.mistakes] == [("C", "transposed")]
    assert "transposed" in str(result) and "C_ji" in str(result)
    # a C wrong in one entry is not called transposed
    other = f"[[-{h}*qd2, -{h}*(qd1 + qd2)], [-{h}*qd1, 0]]"
    assert all(m.kind != "transposed" for m in eq.compare(C=other).mistakes)


def test_greek_names_are_read(eq, capsys):
    g2 = "m2*g*c2*cos(θ1 + θ2)"
    result = eq.compare(g=f"[0, {g2}]", symbols={"θ1": "q1", "θ2": "q2"})
    assert [m.entry for m in result.mistakes] == ["g1"]       # g2 right, g1 missing
    assert not any("not used" in n for n in result.notes)
    code = main(["check", "planar-2r", "--g", f"[0, {g2}]", "--symbols", "θ1=q1,θ2=q2"])
    out = capsys.readouterr().out
    assert code == 1 and "g1" in out and "g2" not in out


def test_side_by_side_factors_say_write_a_star(eq):
    with pytest.raises(InputError, match=r"write m1\*c1"):
        eq.compare(M="[[m1 c1, 0], [0, 0]]")
    with pytest.raises(InputError, match=r"write 2\*m2"):
        eq.compare(g="[2 m2, 0]")


def test_the_given_step_says_the_rp_arms_inertia_names_are_permuted():
    """rp-arm.yaml lists each tensor as [Iyy, Izz, Ixx] (the lecture's names, its own
    frames); the Given step says which name sits on which axis of the DH frame."""
    from robodyn.model.builtin import __file__ as builtin

    text = (__import__("pathlib").Path(builtin).parent / "rp-arm.yaml").read_text()
    assert "inertia: [Iyy1, Izz1, Ixx1, 0, 0, 0]" in text
    eq = rd.load("rp-arm").equations()
    titles = [s.title for s in eq.steps if s.section == "Given" and s.lhs.startswith("I")]
    assert len(titles) == 2
    assert "on x, y, z of this frame sit the yy, zz, xx names" in titles[0]
    assert "on x, y, z of this frame sit the yy, zz, xx names" in titles[1]
    plain = rd.load("planar-2r-dh").equations()
    assert not any("another frame's axes" in s.title for s in plain.steps)


def test_the_given_step_says_the_pendulums_izz_is_about_the_centre_of_mass():
    """The seed's I is about the pivot: I = Izz + m l^2 (parallel axes at distance l); the
    Given step says Izz is about the centre of mass and what to add."""
    import sympy as sp

    eq = rd.load("pendulum").equations()
    (title,) = [s.title for s in eq.steps if s.section == "Given" and s.lhs.startswith("I")]
    assert "about the centre of mass, not the joint" in title and "m times r squared" in title
    Izz, m, l = sp.symbols("Izz m l")
    assert sp.expand(eq.M[0, 0] - (Izz + m * l**2)) == 0
