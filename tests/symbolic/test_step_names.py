"""Names in ``derive --steps`` (issue 33, item 7): the templates use the model's own names
for masses that the model does not call ``m<k>`` (planar-2r-payload: link 2's body is
``mL2``, its ``m2`` is the motor on link 1), no Given step reads ``m[2] = mL2`` or
``m[1] = m2``, and the notebook display of a step uses the model's display names
(``d_2`` for rp-arm's ``q2``, as ``eq.latex()`` does).

Independent source: the model files themselves (which symbol is which link's mass, the
``display`` table), read as text.
"""

from __future__ import annotations

import re
from pathlib import Path

import robodyn as rd
from robodyn.model.builtin import __file__ as BUILTIN

FOLDER = Path(BUILTIN).parent


def _steps(model):
    return {s.lhs: s for s in rd.load(model).equations().steps}


def test_the_payload_arms_templates_use_its_own_mass_names():
    text = (FOLDER / "planar-2r-payload.yaml").read_text()
    assert "mass: mL2" in text and "{mass: m2, at: [l1, 0, 0]}" in text  # m2: the motor
    steps = _steps("planar-2r-payload")
    k1, k2 = steps["K_1"].formula, steps["K_2"].formula
    assert "1/2 mL1 v_c1^T v_c1" in k1 and "1/2 m2 v_c1,1^T v_c1,1" in k1
    assert "1/2 mL2 v_c2^T v_c2" in k2 and "1/2 mE v_c2,1^T v_c2,1" in k2
    assert not re.search(r"(?<![\w\[])m_\d", k1 + k2 + steps["U_2"].formula)
    assert r"\tfrac12 m_{2}\, v_{c1,1}" in steps["K_1"].latex_formula
    given = [s for s in rd.load("planar-2r-payload").equations().steps if s.section == "Given"]
    assert not any(re.fullmatch(r"m(\[\d+\]|_\d+)", s.lhs) for s in given)
    assert any(s.title.startswith("Link 2 (mass mL2): centre of mass") for s in given)


def test_the_endpoint_arm_has_no_m1_equal_m2():
    steps = rd.load("planar-2r-endpoint").equations().steps
    assert not any(s.lhs in ("m[1]", "m_1") and str(s.expression) == "m2" for s in steps)


def test_a_model_named_like_the_template_keeps_it():
    steps = _steps("planar-2r")
    assert steps["m_1"].expression.name == "m1"
    assert "1/2 m_1 v_c1^T v_c1" in steps["K_1"].formula


def test_the_notebook_display_of_a_step_uses_the_display_names():
    text = (FOLDER / "rp-arm.yaml").read_text()
    assert "display: {q1: theta_1, q2: d_2}" in text
    eq = rd.load("rp-arm").equations()
    step = next(s for s in eq.steps if s.lhs == "p_c2")
    shown = step._repr_latex_()
    assert "d_{2}" in shown and r"\theta_{1}" in shown
    assert "q_{2}" not in shown and "q_{1}" not in shown
    assert "d_{2}" in eq.latex(steps=True)


def test_a_vector_and_a_scalar_never_share_a_name():
    """planar-2r has the scalars c1, c2, I1, I2 (planar-2r.yaml); the COM vectors and the
    inertia tensors are c[k], I[k] in the Given step and in every template after it."""
    text = (FOLDER / "planar-2r.yaml").read_text()
    assert "c1" in text and "I1" in text
    for method in ("lagrange", "newton-euler"):
        steps = rd.load("planar-2r").equations(method=method).steps
        formulas = " ".join(s.formula for s in steps)
        assert not re.search(r"(?<![\w\[])(c|I)_\d(?![\w,])", formulas), method
        assert "c[1]" in formulas and "I[1]" in formulas
        assert {"c[1]", "I[1]"} <= {s.lhs for s in steps if s.section == "Given"}


def test_a_tagged_mass_is_typeset_with_its_tag_in_the_subscript():
    """mL2 (link 2's body, the tutorial's m_2^L) is m_{L_2}, not the product m L_2; mE is
    m_E; a model's own display name still wins (the exercise's mM2: m_{M_2})."""
    import sympy as sp

    from robodyn.symbolic.printing.latex import tex_of

    eq = rd.load("planar-2r-payload").equations()
    assert tex_of(eq, sp.Symbol("mL2")) == "m_{L_{2}}"
    assert tex_of(eq, sp.Symbol("mE")) == "m_{E}"
    assert tex_of(eq, sp.Symbol("m2")) == "m_{2}"
    latex = eq.latex(steps=True)
    assert "m_{L_{2}}" in latex and "mL_{2}" not in latex
