"""Checking intermediate answers (issue 33, "What else a course needs"): the kinetic and
potential energies (``--K``, ``--U``) and single Christoffel symbols (``--c112``), with
the same diagnoses as ``M``, ``C``, ``g``.

Independent source: the planar 2R arm of the course notes by hand, gravity along -y0:
``K = 1/2 qd^T M qd`` with ``M11 = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)``,
``M12 = I2 + m2 (c2^2 + l1 c2 cos q2)``, ``M22 = I2 + m2 c2^2``;
``U = m1 g c1 sin q1 + m2 g (l1 sin q1 + c2 sin(q1 + q2))``; with ``h = m2 l1 c2 sin q2``
the Christoffel symbols ``c_112 = c_121 = c_122 = -h``, ``c_211 = h``, the others 0.
"""

from __future__ import annotations

import itertools

import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError

M11 = "I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(q2))"
M12 = "I2 + m2*(c2^2 + l1*c2*cos(q2))"
M22 = "I2 + m2*c2^2"
K = f"1/2*({M11})*qd1^2 + ({M12})*qd1*qd2 + 1/2*({M22})*qd2^2"
U = "m1*g*c1*sin(q1) + m2*g*(l1*sin(q1) + c2*sin(q1 + q2))"
H = "m2*l1*c2*sin(q2)"
C_BY_HAND = {"c112": f"-{H}", "c121": f"-{H}", "c122": f"-{H}", "c211": H}


@pytest.fixture(scope="module")
def eq():
    return rd.load("planar-2r").equations()


def test_hand_derived_energies_and_christoffel_symbols_are_right(eq):
    every = {f"c{i}{j}{k}": C_BY_HAND.get(f"c{i}{j}{k}", "0")
             for i, j, k in itertools.product((1, 2), repeat=3)}
    result = eq.compare(K=K, U=U, christoffel=every)
    assert result.ok, result
    assert set(result.checked) == {"K", "U", *every}


def test_intermediate_mistakes_are_diagnosed(eq):
    half = eq.compare(K=K.replace(f"1/2*({M22})", f"({M22})"))  # 1/2 forgotten on qd2^2
    assert [(m.entry, m.kind) for m in half.mistakes] == [("K", "factor")] * 2
    assert all("2 times the right one" in m.hint for m in half.mistakes)
    coriolis = eq.compare(K=K.replace("2*l1*c2*cos(q2)", "l1*c2*cos(q2)", 1))
    assert [(m.entry, m.kind) for m in coriolis.mistakes] == [("K", "factor")]
    assert "1/2 of the right one" in coriolis.mistakes[0].hint
    sign = eq.compare(christoffel={"c211": f"-{H}"})
    assert [(m.entry, m.kind) for m in sign.mistakes] == [("c211", "sign")]
    flipped = eq.compare(U=f"-({U})")
    assert [(m.entry, m.kind) for m in flipped.mistakes] == [("U", "sign")]


def test_u_is_right_up_to_its_zero(eq):
    result = eq.compare(U=f"{U} + 3*m1*g")
    assert result.ok and any("constant" in n for n in result.notes)
    assert not eq.compare(U=f"{U} + m1*g*q1").ok      # not a constant


def test_bad_christoffel_names_are_errors(eq):
    with pytest.raises(InputError, match="outside 1..2"):
        eq.compare(christoffel={"c113": "0"})
    with pytest.raises(InputError, match="c_ijk"):
        eq.compare(christoffel={"gamma": "0"})


def test_the_command_line_checks_them(capsys):
    assert main(["check", "planar-2r", f"--c112=-{H}", "--K", K, "--U", U]) == 0
    assert "K, U, c112 correct" in capsys.readouterr().out
    assert main(["check", "planar-2r", "--c211", f"-{H}".replace("-", "0-", 1)]) == 1
    assert "c211: sign" in capsys.readouterr().out


def test_newton_euler_quantities_by_step_name(capsys):
    """A planar arm's joint axes are parallel (z_0 = z_1 = z_2): by hand, in every frame,
    w_1 = [0, 0, qd1], w_2 = [0, 0, qd1 + qd2], wd_2 = [0, 0, qdd1 + qdd2]."""
    ne = rd.load("planar-2r").equations(method="newton-euler")
    right = ne.compare(steps={"w_1": "[0, 0, qd1]", "w_2": "[0, 0, qd1 + qd2]",
                              "wd_2": "[0, 0, qdd1 + qdd2]"})
    assert right.ok, right
    wrong = ne.compare(steps={"wd_2": "[0, 0, qdd1]"})
    assert [(m.entry, m.kind) for m in wrong.mistakes] == [("wd_2[3]", "missing term")]
    with pytest.raises(InputError, match="not a step"):
        ne.compare(steps={"omega_9": "[0, 0, 0]"})
    assert main(["check", "planar-2r", "--method", "newton-euler",
                 "--step", "w_2=[0, 0, qd1 + qd2]"]) == 0
    assert "w_2 correct" in capsys.readouterr().out
