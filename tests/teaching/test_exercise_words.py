"""Issue 33 item 2: the sheet's words for each centre of mass agree with the solution's
geometry, for every kind of link.

The words say ``C_i = O_k +- lci u_i`` (and ``u_i = +-v_{i-1}`` where the axis is fixed in
frame ``i-1``). The test reads them and checks them against frames built here by hand from
the exercise's DH rows (standard DH, Siciliano (2.52): ``A_i = R_z(theta) T_z(d) T_x(a)
R_x(alpha)``) at random joint values, with the centre of mass placed by the model's ``com``
in frame ``i``: the words must give the same point and the same axis.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest
import sympy as sp

from robodyn.teaching.exercise import centre_of_mass_words, make_exercise

WORDS = re.compile(r"C_(\d+) = O_(\d+) ([+-]) lc(\d+) ([xyz])_(\d+)"
                   r"(?:; ([xyz])_\d+ = (-?)([xyz])_(\d+))?$")
AXIS = {"x": 0, "y": 1, "z": 2}


def _A(a, alpha, d, theta):
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    Rz = np.array([[ct, -st, 0, 0], [st, ct, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]])
    Tz = np.eye(4); Tz[2, 3] = d  # noqa: E702
    Tx = np.eye(4); Tx[0, 3] = a  # noqa: E702
    Rx = np.array([[1, 0, 0, 0], [0, ca, -sa, 0], [0, sa, ca, 0], [0, 0, 0, 1]])
    return Rz @ Tz @ Tx @ Rx


def _number(text, values):
    return float(sp.sympify(text).subs({sp.Symbol(k): v for k, v in values.items()}))


def check_words(ex, rng):
    q = rng.uniform(-1.5, 1.5, ex.dof)
    frames = [np.eye(4)]
    for (kind, a, alpha, d, theta), qi in zip(ex.dh, q, strict=True):
        a_, al_ = _number(a, ex.values), _number(alpha, ex.values)
        if kind == "R":
            A = _A(a_, al_, _number(d, ex.values), qi)
        else:
            A = _A(a_, al_, qi, _number(theta, ex.values))
        frames.append(frames[-1] @ A)
    meanings = dict(ex.symbols)
    checked = 0
    for i in range(1, ex.dof + 1):
        if f"lc{i}" not in meanings:
            continue
        com = np.array([_number(str(x), ex.values) for x in ex.links[i - 1][1]] + [1.0])
        c_true = (frames[i] @ com)[:3]  # the solution's geometry: com in frame i
        m = WORDS.search(meanings[f"lc{i}"])
        assert m, meanings[f"lc{i}"]
        ci, k, sign, li, u, ui, u2, neg, v, vi = m.groups()
        assert int(ci) == int(li) == int(ui) == i
        axis = frames[i][:3, AXIS[u]]
        lc = ex.values[f"lc{i}"]
        c_words = frames[int(k)][:3, 3] + (lc if sign == "+" else -lc) * axis
        np.testing.assert_allclose(c_words, c_true, atol=1e-12, err_msg=meanings[f"lc{i}"])
        if v:
            assert u2 == u and int(vi) == i - 1
            other = frames[i - 1][:3, AXIS[v]] * (-1 if neg else 1)
            np.testing.assert_allclose(axis, other, atol=1e-12, err_msg=meanings[f"lc{i}"])
        else:  # no claim made: then the axis really is not fixed in frame i-1
            R = np.linalg.inv(frames[i - 1][:3, :3]) @ axis
            assert not np.isclose(np.abs(R).max(), 1.0) or kind_moves(ex, i)
        checked += 1
    return checked


def kind_moves(ex, i):
    return ex.dh[i - 1][0] == "R"  # x_i of a revolute link turns with q_i


def test_the_issue_case_prismatic_twisted_link_is_along_z1_not_z0():
    ex = make_exercise(3, seed=12)
    assert ex.dh[0][:3] == ("P", "0", "pi/2")
    words = dict(ex.symbols)["lc1"]
    assert "along z_1" in words and "along z_0" not in words
    # the solution has p_c1 = [-lc1, 0, q1]: C_1 = O_1 - lc1 z_1 with O_1 = q1 z_0, z_1 = x_0
    assert words.endswith("C_1 = O_1 - lc1 z_1; z_1 = x_0")
    assert check_words(ex, np.random.default_rng(0)) >= 1


_KINDS = [("R", a_d) for a_d in (("0", "0"), ("l1", "0"), ("0", "d1"), ("l1", "d1"))] + [
    ("P", ("0", "0")), ("P", ("l1", "0"))]  # a prismatic link's d is its joint variable


@pytest.mark.parametrize("kind, a_d", _KINDS)
@pytest.mark.parametrize("alpha", ["0", "pi/2", "-pi/2", "pi"])
@pytest.mark.parametrize("theta", ["0", "pi/2"])
def test_every_kind_of_link(kind, alpha, theta, a_d):
    a, d = a_d
    if kind == "P":
        com = sp.Matrix([0, 0, -sp.Symbol("lc1")])
    else:  # lc1 along x_1 from O_0: com = C_1 - O_1 = lc1 x_1 - (a x_1 + d z_0), z_0 in frame 1
        al = sp.sympify(alpha)
        com = (sp.Matrix([sp.Symbol("lc1"), 0, 0]) - sp.Matrix([sp.sympify(a), 0, 0])
               - sp.sympify(d) * sp.Matrix([0, sp.sin(al), sp.cos(al)]))
    row = (kind, a, alpha, d, theta)
    words = centre_of_mass_words(1, row, com)
    values = {"l1": 0.7, "d1": 0.3, "lc1": 0.2, "g": 9.81}

    class One:  # the fields check_words reads
        dof, dh, links = 1, (row,), ((sp.Symbol("m1"), com, None),)
    One.values = values
    One.symbols = (("lc1", words),)
    assert check_words(One, np.random.default_rng(1)) == 1


def _patterns(dofs):
    for n in dofs:
        for joints in itertools.product("RP", repeat=n):
            yield "".join(joints)


@pytest.mark.parametrize("joints", list(_patterns((1, 2, 3))))
def test_exercise_words_agree_with_geometry_seeds_0_to_19(joints):
    rng = np.random.default_rng(2)
    for seed in range(20):
        check_words(make_exercise(len(joints), joints, seed=seed), rng)


@pytest.mark.slow
def test_exercise_words_agree_with_geometry_seeds_20_to_99():
    """The seeds after the fast test's 0-19 (80 more exercises of each of the 14 patterns)."""
    rng = np.random.default_rng(3)
    scanned = 0
    for joints in _patterns((1, 2, 3)):
        for seed in range(20, 100):
            scanned += check_words(make_exercise(len(joints), joints, seed=seed), rng)
    assert scanned > 1000
