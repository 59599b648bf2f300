"""``robodyn.core.lazy.Parameter``: a model file's ``-g`` before SymPy is imported. It must
behave as SymPy's expression wherever a derivation meets it, and pickle and compare
without SymPy."""

from __future__ import annotations

import copy
import pickle

import sympy as sp

from robodyn.core.lazy import Parameter


def test_it_is_the_sympy_expression_in_every_arithmetic_and_function():
    g = sp.Symbol("g")
    p = -Parameter("g")
    assert sp.sympify(p) == -g
    assert p * 2 == -2 * g and 2 * p == -2 * g
    assert p + 1 == 1 - g and 1 - p == 1 + g
    assert p / 3 == -g / 3 and p**2 == g**2
    assert sp.cos(p) == sp.cos(g)
    assert sp.Matrix([0, 0, p]) == sp.Matrix([0, 0, -g])
    assert sp.Symbol("m") * p == -sp.Symbol("m") * g
    assert p.free_symbols == {g}
    assert p.subs(g, 9.81) == -9.81
    assert str(p) == "-g" and str(Parameter("g")) == "g"


def test_its_value_pickling_and_equality_need_no_sympy_expression():
    p = -Parameter("g")
    assert p.value({"g": 9.81}) == -9.81
    assert p._expr is None  # nothing above made the SymPy expression
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert q == p and hash(q) == hash(p) and q._expr is None
    assert Parameter("g") != p and Parameter("h") != Parameter("g")
