"""The registry of functions (``dynamics/registry.py``) that the Robot, the exporters and
the printed forms read: each entry's closed form is the same function as its kernel.

Oracles: the numeric kernels (the closed form of an entry, evaluated at a state, equals the
kernel of the same entry there), the equation of motion (each printed closed form gives
its term: ``M qdd`` the inertial torques, ``J^T h_e`` the external ones) and the Jacobian
(an ``h_e`` variant adds ``J^T h_e``).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.dynamics.registry import (
    CLOSED_FORMS,
    KERNELS,
    TORQUE_PARTS,
    output_shape,
    printed_forms,
)

#: a 1-DOF model with friction and a motor, a revolute-prismatic arm
MODELS = ("pendulum", "rp-arm")


def _state(robot, seed=0):
    rng = np.random.default_rng(seed)
    n = robot.dof
    return {"q": rng.normal(size=n), "qd": rng.normal(size=n), "qdd": rng.normal(size=n),
            "tau": rng.normal(size=n), "h_e": rng.normal(size=6)}


def _value(eq, attribute, state) -> np.ndarray:
    """The closed form ``eq.<attribute>`` at ``state`` (floats)."""
    subs = {}
    for name in ("q", "qd", "qdd", "h_e"):
        subs.update(zip(getattr(eq, name), map(float, state[name]), strict=False))
    expr = getattr(eq, attribute)
    if isinstance(expr, sp.MatrixBase):
        return np.array(expr.xreplace(subs).evalf(), dtype=float)
    return np.array(float(sp.sympify(expr).xreplace(subs).evalf()))


@pytest.fixture(scope="module", params=MODELS)
def derived(request):
    """A model and its closed forms, derived with the end-effector wrench."""
    robot = rd.load(request.param)
    return robot, robot.equations(values=True, h_e=True)


def test_each_closed_form_is_the_kernel_of_its_entry(derived, numpy_backend):
    robot, eq = derived
    state = _state(robot)
    checked = []
    for name, spec in KERNELS.items():
        form = spec.closed_form
        if form is None or form.computed:
            continue
        inputs = [state[i] for i in spec.inputs]
        if spec.contact:  # the equations were derived with the wrench: the h_e variant
            inputs.append(state["h_e"])
        kernel = getattr(robot, name)(*inputs)
        assert kernel.ndim == form.rank == len(output_shape(spec, robot.chain)), name
        if name == "potential_energy" and eq.potential_zero:
            # the model sets U's zero (potential_zero); the kernel's is the base frame's
            kernel = kernel - robot.potential_energy(np.array(eq.potential_zero, float))
        closed = _value(eq, form.attribute, state).reshape(kernel.shape)
        np.testing.assert_allclose(closed, kernel, rtol=1e-9, atol=1e-9, err_msg=name)
        checked.append(name)
    assert {"inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
            "friction_torques", "kinetic_energy", "potential_energy"} <= set(checked)


def test_each_printed_closed_form_gives_its_term_of_the_equation(derived, numpy_backend):
    robot, eq = derived
    state = _state(robot, seed=1)
    parts = robot.torque_parts(state["q"], state["qd"], state["qdd"], h_e=state["h_e"])
    # what multiplies each matrix in the equation of motion: M qdd, C qd
    factor = {"inertial": state["qdd"], "coriolis": state["qd"]}
    forms = printed_forms(h_e=True)
    assert [f.shown.term for f in forms] == list(TORQUE_PARTS)
    for form in forms:
        value = _value(eq, form.attribute, state)
        term = form.shown.term
        torque = value @ factor[term] if term in factor else value.reshape(-1)
        np.testing.assert_allclose(torque, getattr(parts, term), rtol=1e-9, atol=1e-9,
                                   err_msg=term)
    assert [f.shown.term for f in printed_forms(h_e=False)] == \
        [t for t in TORQUE_PARTS if t != "external"]


def test_every_closed_form_of_the_equations_has_its_rank(derived):
    _, eq = derived
    n = eq.dof
    for form in CLOSED_FORMS:
        value = getattr(eq, form.attribute)
        expected = {0: None, 1: (n, 1), 2: (n, n)}[form.rank]
        if expected is None:
            assert not isinstance(value, sp.MatrixBase), form.attribute
        else:
            assert value.shape == expected, form.attribute
    assert len({f.key for f in CLOSED_FORMS}) == len(CLOSED_FORMS)


def test_an_h_e_variant_is_its_entry_with_the_wrench_added(numpy_backend):
    robot = rd.load("rp-arm")
    s = _state(robot, seed=2)
    jt_h = robot.jacobian(s["q"]).T @ s["h_e"]
    variants = {name: spec for name, spec in KERNELS.items() if spec.contact}
    assert set(variants) >= {"inverse_dynamics", "forward_dynamics", "torque_parts"}
    for spec in variants.values():
        variant = KERNELS[spec.contact]
        assert variant.inputs == (*spec.inputs, "h_e") and variant.algorithm is spec.algorithm
        assert output_shape(variant, robot.chain) == output_shape(spec, robot.chain)
        assert variant.contact is None and variant.closed_form is None
    with_wrench = robot.inverse_dynamics(s["q"], s["qd"], s["qdd"], s["h_e"])
    np.testing.assert_allclose(with_wrench - robot.inverse_dynamics(s["q"], s["qd"], s["qdd"]),
                               jt_h, rtol=1e-12, atol=1e-12)


def test_the_torque_parts_are_named_once():
    assert tuple(f.name for f in dataclasses.fields(rd.TorqueParts)) == TORQUE_PARTS
    assert rd.TorqueParts.NAMES == TORQUE_PARTS[:-1]
    assert KERNELS["torque_parts"].shape(4, 4) == (len(TORQUE_PARTS), 4)


def test_every_entry_names_itself_and_says_what_it_computes():
    for name, spec in KERNELS.items():
        assert spec.name == name
        assert spec.doc and "\n" not in spec.doc, name
        assert set(spec.inputs) <= {"q", "qd", "qdd", "tau", "h_e"}, name
