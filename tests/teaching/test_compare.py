"""Checking a student's answer: ``eq.compare(...)`` and ``robodyn check``.

The student's answer is seed 003's planar 2R arm written by hand in the lesson's form
(``M11 = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)``, ``h = m2 l1 c2 sin q2``,
``C = [[-h qd2, -h (qd1 + qd2)], [h qd1, 0]]``), independent of robodyn's printer. Three
mistakes are seeded into it; each must be found in the right entry with the difference
the hand computation gives.
"""

from __future__ import annotations

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError
from robodyn.teaching.compare import parse_matrix

# seed 003 in the lesson's notation (theta for q, thetadot for qd)
M_SEED = ("[[I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(theta2)),"
          "  I2 + m2*(c2^2 + l1*c2*cos(theta2))],"
          " [I2 + m2*(c2^2 + l1*c2*cos(theta2)), I2 + m2*c2^2]]")
H = "m2*l1*c2*sin(theta2)"
C_SEED = f"[[-{H}*thetadot2, -{H}*(thetadot1 + thetadot2)], [{H}*thetadot1, 0]]"
G_SEED = ("[(m1*c1 + m2*l1)*g*cos(theta1) + m2*c2*g*cos(theta1 + theta2),"
          " m2*c2*g*cos(theta1 + theta2)]")
RENAME = {"theta1": "q1", "theta2": "q2"}

q1, q2, qd1, qd2 = sp.symbols("q1 q2 qd1 qd2")
m1, m2, l1, c1, c2, g = sp.symbols("m1 m2 l1 c1 c2 g")


@pytest.fixture(scope="module")
def eq():
    return rd.load("planar-2r").equations()


def test_the_seed_answer_with_renamed_symbols_passes(eq):
    result = eq.compare(M=M_SEED, C=C_SEED, g=G_SEED, symbols=RENAME)
    assert result.ok, str(result)
    assert result.c_form == "christoffel"
    assert "M, C, g correct" in str(result)
    # the rates followed the joint variables
    assert "thetadot1 = qd1" in str(result)


def test_without_the_mapping_the_unknown_names_are_named_with_the_fix(eq):
    result = eq.compare(M=M_SEED)
    assert not result.ok
    unknown = [m for m in result.mistakes if m.quantity == "symbols"]
    assert [str(m.given) for m in unknown] == ["theta2"]
    assert "--symbols theta2=q2" in unknown[0].message


def test_three_seeded_mistakes_are_found_with_their_differences(eq):
    # (1) missing factor 2 in M11; (2) sign of C21; (3) index swapped in g2 (c1 for c2)
    M_bad = M_SEED.replace("2*l1*c2*cos(theta2)),", "l1*c2*cos(theta2)),", 1)
    C_bad = C_SEED.replace(f"[{H}*thetadot1, 0]", f"[-{H}*thetadot1, 0]")
    G_bad = G_SEED.replace(" m2*c2*g*cos(theta1 + theta2)]", " m2*c1*g*cos(theta1 + theta2)]")
    assert (M_bad, C_bad, G_bad) != (M_SEED, C_SEED, G_SEED)
    result = eq.compare(M=M_bad, C=C_bad, g=G_bad, symbols=RENAME, reveal=True)
    assert not result.ok
    found = {(m.quantity, m.index): m for m in result.mistakes}
    assert {k: m.kind for k, m in found.items()} == {
        ("M", (0, 0)): "factor", ("C", (1, 0)): "sign", ("g", (1,)): "index"}
    assert set(found) == {("M", (0, 0)), ("C", (1, 0)), ("g", (1,))}
    # given - expected, by hand
    hand = {("M", (0, 0)): -m2 * l1 * c2 * sp.cos(q2),
            ("C", (1, 0)): -2 * m2 * l1 * c2 * sp.sin(q2) * qd1,
            ("g", (1,)): m2 * (c1 - c2) * g * sp.cos(q1 + q2)}
    for key, want in hand.items():
        m = found[key]
        assert sp.expand(sp.expand_trig(m.difference - want)) == 0, (key, m.difference)
        assert sp.expand(sp.expand_trig(m.given - m.expected - want)) == 0
    assert found[("M", (0, 0))].message.startswith("M11: factor: ")
    assert found[("C", (1, 0))].message.startswith("C21: sign: ")
    assert found[("g", (1,))].message.startswith("g2: index: c1 and c2 look swapped")
    assert result.c_form == "wrong"      # a sign error breaks C qd too
    text = str(result)
    assert "3 mistake(s) in M, C, g" in text


def test_a_valid_non_christoffel_c_is_recognised(eq):
    # C' = [[-2 h qd2, -h qd2], [h qd1, 0]]: C' qd = C qd, but C' is not Christoffel's
    C_other = f"[[-2*{H}*thetadot2, -{H}*thetadot2], [{H}*thetadot1, 0]]"
    result = eq.compare(C=C_other, symbols=RENAME)
    assert result.c_form == "valid"
    assert result.ok and not result.mistakes   # right, with a note (issue 17)
    assert any("valid factorisation" in n and "not the Christoffel" in n
               and "not skew-symmetric" in n for n in result.notes)
    # a C whose velocity terms are wrong is not a factorisation at all
    assert eq.compare(C=C_other.replace(", 0]]", ", 1]]"), symbols=RENAME).c_form == "wrong"


def test_tau_with_rates_and_accelerations_and_sympy_input(eq):
    tau = list(eq.tau)
    assert eq.compare(tau=tau).ok
    assert eq.compare(g=eq.g.T, M=eq.M).ok   # SymPy matrices, g as a row
    wrong = eq.compare(tau=[tau[0], tau[1] + qd1], reveal=True)
    assert [(m.quantity, m.index, m.difference) for m in wrong.mistakes] == [("tau", (1,), qd1)]
    assert wrong.mistakes[0].kind == "extra term"


@pytest.mark.parametrize("text, words", [
    ("__import__('os').system('true')", "not an allowed function"),
    ("[[1, 2], [3]]", "rows have different lengths"),
    ("9**9**9**9", "exponent"),
    ("[[1, 2], 3]", "mixes rows"),
    ("(lambda: 1)()", "not an allowed function"),
    ("M.__class__", "Attribute"),
    ("[[1, 2], [3, 4]", "cannot parse"),
])
def test_hostile_or_broken_text_is_a_clear_input_error(eq, text, words):
    with pytest.raises(InputError, match="M") as info:
        eq.compare(M=text)
    assert words in str(info.value)


def test_shapes_are_checked(eq):
    with pytest.raises(InputError, match="expected 2x2"):
        eq.compare(M="[1, 2]")
    with pytest.raises(InputError, match="at least one"):
        eq.compare()


def test_parse_matrix_reads_caret_as_power_and_matrix_wrapper():
    assert parse_matrix("Matrix([[l1^2 + 1, 0]])") == sp.Matrix([[l1**2 + 1, 0]])
    assert parse_matrix("[q1, qd1]") == sp.Matrix([q1, qd1])


def test_check_command(capsys):
    argv = ["check", "planar-2r", "--M", M_SEED, "--g", G_SEED, "--symbols", "theta1=q1",
            "--symbols", "theta2=q2"]
    assert main(argv) == 0
    assert "M, g correct" in capsys.readouterr().out
    bad = M_SEED.replace("I2 + m2*c2^2]]", "I2 + m1*c2^2]]")
    assert main(["check", "planar-2r", "--M", bad, "--symbols", "theta2=q2",
                 "--method", "newton-euler"]) == 1
    out = capsys.readouterr().out
    assert "M22: index: m1 and m2 look swapped" in out and "c2**2*(m1 - m2)" not in out
    assert main(["check", "planar-2r", "--M", bad, "--symbols", "theta2=q2", "--reveal"]) == 1
    assert "given - expected = c2**2*(m1 - m2)" in capsys.readouterr().out
    # a broken answer: a message, status 2, nothing evaluated
    assert main(["check", "planar-2r", "--M", "__import__('os')"]) == 2
    assert "not an allowed function" in capsys.readouterr().err


# -- --symbols: what a mapping does, said with the model's real names (issue 15, §6) --------
def _swapped(text: str) -> str:
    """The seed's answer with the joint names swapped: the student calls joint 1 q2
    (its rate qd2) and joint 2 q1; rows and columns stay in the model's joint order."""
    for old, new in (("thetadot1", "qd@2"), ("thetadot2", "qd@1"), ("theta1", "q@2"),
                     ("theta2", "q@1")):
        text = text.replace(old, new)
    return text.replace("@", "")


def test_a_swap_of_joint_names_is_read_with_the_rates_following(eq):
    swap = {"q1": "q2", "q2": "q1"}
    result = eq.compare(M=_swapped(M_SEED), C=_swapped(C_SEED), g=_swapped(G_SEED),
                        symbols=swap)
    assert result.ok, str(result)
    assert result.c_form == "christoffel"   # C uses qd1, qd2: they followed q1, q2
    note = next(n for n in result.notes if n.startswith("symbols read as"))
    assert "q1 = q2" in note and "qd1 = qd2" in note and "qd2 = qd1" in note
    assert "rows and columns stay in the model's joint order" in note
    # without the mapping the same answer is wrong where cos(q2) became cos(q1)
    assert not eq.compare(M=_swapped(M_SEED)).ok


def test_half_a_renumbering_is_an_error_saying_what_to_map(eq):
    with pytest.raises(InputError) as info:
        eq.compare(M="[[q1 + q2, 0], [0, 1]]", symbols={"q1": "q2"})
    message = str(info.value)
    assert "q1 and q2 would both read as q2" in message
    assert "--symbols q1=q2,q2=q1" in message
    # the same mapping is fine when the answer has no q2 of its own
    assert eq.compare(M="[[q1, 0], [0, 1]]", symbols={"q1": "q2"}).mistakes


def test_a_mapping_to_a_name_the_model_lacks_is_an_error(eq):
    with pytest.raises(InputError) as info:
        eq.compare(M=M_SEED, symbols={"theta2": "q9"})
    message = str(info.value)
    assert message.startswith("symbols['theta2']: q9 is not a symbol of planar-2r")
    assert "joint variables q1, q2" in message and "l1" in message


def test_unused_symbols_are_named_not_an_empty_note(eq):
    result = eq.compare(M="[[q99, 0], [0, 1]]", symbols={"q1": "q2", "q2": "q1"})
    assert "symbols read as " not in " ".join(result.notes)
    assert "symbols q1, q2 given but not in the answer (not used)" in result.notes


@pytest.mark.parametrize("name, hint", [
    ("q99", "it has 2 joint(s), q1, q2; if the answer numbers them differently, map them, "
            "e.g. symbols={'q99': 'q2'} (robodyn check --symbols q99=q2)"),
    ("qd7", "e.g. symbols={'qd7': 'qd2'}"),
    ("theta1", "map it, e.g. symbols={'theta1': 'q1'} (robodyn check --symbols theta1=q1)"),
    ("L2", "e.g. symbols={'L2': 'l2'}"),
    ("theta3", "(parameters I1, I2, c1, c2, g, l1, l2, m1, m2; joint variables q1, q2"),
    ("foo", "map it with symbols={'foo': ...} (robodyn check --symbols foo=...)"),
])
def test_an_unknown_name_gets_a_hint_with_the_model_s_real_names(eq, name, hint):
    result = eq.compare(M=f"[[{name}, 0], [0, 1]]")
    message = next(m.message for m in result.mistakes if m.quantity == "symbols")
    assert message.startswith(f"{name} is not a symbol of planar-2r")
    assert hint in message
    assert f"'{name}': '{name}'" not in message and "q3" not in message


def test_check_command_symbols_messages(capsys):
    assert main(["check", "planar-2r", "--M", "[[q99, 0], [0, 1]]", "--symbols",
                 "q1=q2,q2=q1"]) == 1
    out = capsys.readouterr().out
    assert "symbols={'q99': 'q2'}" in out and "'q99': 'q99'" not in out
    assert "note: symbols q1, q2 given but not in the answer" in out
    assert main(["check", "planar-2r", "--M", "[[q1 + q2, 0], [0, 1]]", "--symbols",
                 "q1=q2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("robodyn: error: symbols: q1=q2 renumbers")


def test_a_key_used_only_through_its_rates_is_not_called_unused(eq):
    result = eq.compare(C="[[0, 0], [0, thetadot1]]", symbols={"theta1": "q1"})
    assert "symbols read as thetadot1 = qd1" in result.notes
    assert not any("not used" in n for n in result.notes)
    # a parameter mapped to a joint variable is a plain substitution, not a renumbering
    result = eq.compare(M="[[q1 + l1, 0], [0, 1]]", symbols={"l1": "q1"})
    assert result.notes == ("symbols read as l1 = q1",)
