"""Friction models per joint (robodyn.model.friction, robodyn.dynamics.friction): each
model's torque against its closed form written out by hand at chosen velocities, on every
numeric path (kernels, batches, torque parts, forward dynamics, derivatives, closed forms,
exported code); the default fields reproduce ``F_v qd + F_c sign(qd)`` instruction for
instruction; hostile values are refused by name."""

from __future__ import annotations

import importlib.util
import math
import shutil

import numpy as np
import pytest

import robodyn as rd
from conftest import FRICTION_ARM as ARM
from robodyn.codegen.emit import live_ops
from robodyn.codegen.tape import Tape
from robodyn.dynamics.friction import joint_friction
from robodyn.model.friction import Friction


def arm(tmp_path, f1: dict, f2: dict | None = None, name: str = "farm") -> rd.Robot:
    """A spatial 2R arm whose joints have the friction fields ``f1`` and ``f2``."""
    def text(f):
        return "{" + ", ".join(f"{k}: {v}" for k, v in f.items()) + "}"

    path = tmp_path / f"{name}.yaml"
    path.write_text(ARM.format(name=name, f1=text(f1), f2=text(f2 or {})))
    return rd.load(path)


def by_hand(v, Fv=0.0, Fp=0.0, Fn=None, t0=0.0, Fst=0.0, vst=1.0, delta=2.0, vs=0.0):
    """The friction torque at velocity ``v``, written from its definition: the direction's
    Coulomb level, the Stribeck curve falling from ``Fst`` to it, the (smooth) sign."""
    v, Fn = float(v), Fp if Fn is None else Fn
    s = math.tanh(v / vs) if vs > 0 else (v > 0) - (v < 0)
    if vs > 0:  # the smooth model blends the two levels: F_c(v) = a + b s
        level = (Fp + Fn) / 2 + (Fp - Fn) / 2 * s
    else:
        level = Fp if v > 0 else Fn
    hump = (Fst - level) * math.exp(-abs(v / vst) ** delta) if Fst else 0.0
    return Fv * v + (level + hump) * s + t0


#: (YAML fields, by_hand keywords): one model each, then all at once.
MODELS = {
    "viscous": ({"viscous": 0.7}, {"Fv": 0.7}),
    "asymmetric coulomb": ({"coulomb": 0.4, "coulomb_negative": 0.25}, {"Fp": 0.4, "Fn": 0.25}),
    "offset": ({"offset": -0.08}, {"t0": -0.08}),
    "stribeck gaussian": ({"coulomb": 0.3, "static": 0.5, "stribeck_velocity": 0.05},
                          {"Fp": 0.3, "Fst": 0.5, "vst": 0.05}),
    "stribeck exponent": ({"coulomb": 0.3, "static": 0.45, "stribeck_velocity": 0.1,
                           "stribeck_exponent": 0.6},
                          {"Fp": 0.3, "Fst": 0.45, "vst": 0.1, "delta": 0.6}),
    "smooth sign": ({"coulomb": 0.3, "smooth_velocity": 0.02}, {"Fp": 0.3, "vs": 0.02}),
    "everything": ({"viscous": 0.2, "coulomb": 0.3, "coulomb_negative": 0.22, "offset": 0.05,
                    "static": 0.6, "stribeck_velocity": 0.08, "stribeck_exponent": 1.5,
                    "smooth_velocity": 0.01},
                   {"Fv": 0.2, "Fp": 0.3, "Fn": 0.22, "t0": 0.05, "Fst": 0.6, "vst": 0.08,
                    "delta": 1.5, "vs": 0.01}),
}
VELOCITIES = np.array([0.0, 1e-3, -1e-3, 0.05, -0.08, 0.3, -1.7, 12.0])


@pytest.mark.parametrize("model", MODELS)
def test_each_model_equals_its_closed_form_at_chosen_velocities(tmp_path, model):
    fields, hand = MODELS[model]
    robot = arm(tmp_path, fields, {"viscous": 0.1})
    qd = np.stack([VELOCITIES, -VELOCITIES[::-1]], axis=1)  # (8, 2): a batch
    expected = np.array([[by_hand(a, **hand), by_hand(b, Fv=0.1)] for a, b in qd])
    np.testing.assert_allclose(robot.friction_torques(qd), expected, rtol=1e-14, atol=1e-15)
    for row, want in zip(qd, expected, strict=True):  # one state at a time: the same
        np.testing.assert_allclose(robot.friction_torques(row), want, rtol=1e-14, atol=1e-15)
    # at rest only the offset is left; the Stribeck curve starts at the static level
    assert robot.friction_torques([0.0, 0.0])[0] == hand.get("t0", 0.0)
    if "Fst" in hand and hand.get("vs", 0) == 0:
        just_moving = robot.friction_torques([1e-30, 0.0])[0]
        assert just_moving == pytest.approx(hand["Fst"] + hand.get("t0", 0.0), rel=1e-9)


@pytest.mark.parametrize("model", ["asymmetric coulomb", "stribeck exponent", "everything"])
def test_inverse_forward_parts_and_closed_forms_agree(tmp_path, model):
    fields, hand = MODELS[model]
    robot = arm(tmp_path, fields, fields)
    rigid = robot.without_friction()
    rng = np.random.default_rng(3)
    q, qd, qdd = rng.normal(size=(3, 6, 2))
    tau = robot.inverse_dynamics(q, qd, qdd)
    friction = np.array([[by_hand(v, **hand) for v in row] for row in qd])
    np.testing.assert_allclose(tau, rigid.inverse_dynamics(q, qd, qdd) + friction,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(robot.forward_dynamics(q, qd, tau), qdd, rtol=1e-10, atol=1e-10)
    parts = robot.torque_parts(q, qd, qdd)
    np.testing.assert_allclose(parts.friction, friction, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(parts.total, tau, rtol=1e-12, atol=1e-12)
    eq = robot.equations()  # the closed form's friction step, evaluated by its own code
    np.testing.assert_allclose(eq.numeric().friction(qd), friction, rtol=1e-12, atol=1e-14)


def test_the_velocity_derivative_is_the_slope_of_the_friction(tmp_path):
    """``dtau/dqd`` of the analytical derivative kernels carries ``d tau_f/d qd`` of the
    smooth models (central differences of the torque, step 1e-6)."""
    fields, _ = MODELS["everything"]
    robot = arm(tmp_path, fields, {"coulomb": 0.3, "static": 0.45, "stribeck_velocity": 0.1})
    q, qd, qdd = np.array([0.3, -0.4]), np.array([0.04, -0.07]), np.array([0.5, 1.0])
    h = 1e-6
    slope = np.stack([(robot.inverse_dynamics(q, qd + h * e, qdd)
                       - robot.inverse_dynamics(q, qd - h * e, qdd)) / (2 * h)
                      for e in np.eye(2)], axis=1)
    _, d_qd, _ = robot.inverse_dynamics_derivatives(q, qd, qdd)
    np.testing.assert_allclose(d_qd, slope, rtol=1e-6, atol=1e-6)


def test_default_fields_record_exactly_the_viscous_and_coulomb_instructions():
    """With every new field at its default the tracer records the same instructions as
    ``F_v qd + F_c sign(qd)`` (so the kernels, and their numbers, are today's), and a zero
    coefficient records nothing."""
    def recorded(build):
        tape = Tape()
        v = tape.input("qd0")
        fv, fc = tape.input("Fv"), tape.input("Fc")
        return build(tape, v, fv, fc), tape.ops

    out, ops = recorded(lambda t, v, fv, fc: fv * v + fc * t.sign(v))
    for fr in (lambda fv, fc: Friction(fv, fc),
               lambda fv, fc: Friction(fv, fc, coulomb_negative=fc, offset=0, static=0.0,
                                       stribeck_velocity=0, smooth_velocity=0)):
        mine, mine_ops = recorded(lambda t, v, fv, fc, fr=fr: joint_friction(fr(fv, fc), v, t))
        assert mine_ops == ops and mine.i == out.i
    tape = Tape()
    v, fv = tape.input("qd0"), tape.input("Fv")
    viscous_only = joint_friction(Friction(fv), v, tape)
    assert [op[0] for op, live in zip(tape.ops, live_ops(tape, [viscous_only]), strict=True)
            if live] == ["in", "in", "mul"]


def test_default_fields_give_todays_numbers_bit_for_bit(tmp_path):
    """Viscous and Coulomb friction only: inverse dynamics is the rigid body's plus
    ``F_v qd + F_c sign(qd)`` to the last bit, and spelling out the new fields' defaults
    changes nothing."""
    f1, f2 = {"viscous": 0.7, "coulomb": 0.4}, {"viscous": 0.3, "coulomb": 0.15}
    spelled = dict(f1, coulomb_negative=0.4, offset=0, static=0, stribeck_velocity=0,
                   stribeck_exponent=2, smooth_velocity=0)
    a, b = arm(tmp_path, f1, f2, name="a"), arm(tmp_path, spelled, f2, name="b")
    rng = np.random.default_rng(1)
    q, qd, qdd = rng.normal(size=(3, 50, 2))
    fv, fc = np.array([0.7, 0.3]), np.array([0.4, 0.15])
    tau = a.inverse_dynamics(q, qd, qdd)
    assert np.array_equal(a.friction_torques(qd), fv * qd + fc * np.sign(qd))
    assert np.array_equal(tau, a.without_friction().inverse_dynamics(q, qd, qdd)
                          + (fv * qd + fc * np.sign(qd)))
    assert np.array_equal(tau, b.inverse_dynamics(q, qd, qdd))
    assert np.array_equal(a.forward_dynamics(q, qd, tau), b.forward_dynamics(q, qd, tau))


def test_exported_code_computes_the_same_friction(tmp_path):
    fields, hand = MODELS["everything"]
    robot = arm(tmp_path, fields, fields)
    qd = np.stack([VELOCITIES, VELOCITIES[::-1]], axis=1)
    expected = np.array([[by_hand(v, **hand) for v in row] for row in qd])
    files = robot.to_code("python", ["friction_torques", "inverse_dynamics"])
    (name, text), = ((n, t) for n, t in files.items() if n.endswith(".py"))
    (tmp_path / name).write_text(text)
    spec = importlib.util.spec_from_file_location("farm_kernels", tmp_path / name)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    np.testing.assert_allclose(module.friction_torques(qd), expected, rtol=1e-13, atol=1e-15)
    for lang in ("c", "cpp", "java", "julia", "matlab"):
        text = "".join(robot.to_code(lang, ["friction_torques"]).values())
        assert "tanh" in text and "exp" in text, lang
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no C compiler")
    kernels = robot.compile_c(["friction_torques"], flags=("-O0",))
    np.testing.assert_allclose(kernels.friction_torques(qd), expected, rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("fields,message", [
    ({"coulomb_negative": -0.1}, r"links\[0\]\.friction\.coulomb_negative: -0\.1 is negative"),
    ({"coulomb": 0.3, "static": 0.2, "stribeck_velocity": 0.1},
     r"links\[0\]\.friction\.static: 0\.2 is below a Coulomb level"),
    ({"coulomb": 0.3, "static": 0.5}, r"links\[0\]\.friction\.stribeck_velocity: 0 must be > 0"),
    ({"coulomb": 0.3, "static": 0.5, "stribeck_velocity": 0.1, "stribeck_exponent": 0},
     r"friction\.stribeck_exponent: 0 must be > 0"),
    ({"smooth_velocity": -1}, r"links\[0\]\.friction\.smooth_velocity: -1 is negative"),
    ({"stribeck": 1}, r"links\[0\]\.friction.*stribeck"),
])
def test_hostile_friction_is_refused_by_name(tmp_path, fields, message):
    with pytest.raises(rd.ModelError, match=message):
        arm(tmp_path, fields).numeric_chain  # noqa: B018


def test_exports_that_cannot_hold_a_term_refuse_instead_of_dropping_it(tmp_path):
    robot = arm(tmp_path, {"viscous": 0.1, "coulomb": 0.2, "offset": 0.3})
    for export in (robot.to_urdf, robot.to_mjcf):
        with pytest.raises(rd.ModelError, match="friction offset has no"):
            export()
    plain = robot.without_friction(viscous=False)
    assert "damping" in plain.to_urdf() and "frictionloss" not in plain.to_mjcf()


def test_time_scaling_refuses_speed_shaped_friction(tmp_path):
    """Slowing a motion k times scales viscous torques by 1/k and leaves Coulomb ones: true
    for asymmetric levels and the offset, checked here; Stribeck friction is refused."""
    from robodyn.motion.time_scaling import torque_coefficients

    fields = {"viscous": 0.3, "coulomb": 0.4, "coulomb_negative": 0.2, "offset": 0.1}
    robot = arm(tmp_path, fields, fields)
    rng = np.random.default_rng(5)
    q, qd, qdd = rng.normal(size=(3, 4, 2))
    a, b, c = torque_coefficients(robot, q, qd, qdd)
    k = 3.0  # the slowed motion: qd / k, qdd / k^2
    np.testing.assert_allclose(a / k**2 + b / k + c,
                               robot.inverse_dynamics(q, qd / k, qdd / k**2), rtol=1e-12)
    stribeck = arm(tmp_path, {"coulomb": 0.3, "static": 0.5, "stribeck_velocity": 0.1},
                   name="s")
    with pytest.raises(rd.InputError, match=r"links\[0\]\.friction\.static"):
        torque_coefficients(stribeck, q, qd, qdd)


def test_the_printed_model_names_the_friction_terms_it_has(tmp_path):
    fields, _ = MODELS["everything"]
    assert ("friction model (asymmetric Coulomb, Stribeck, friction offset, smooth sign)"
            in str(arm(tmp_path, fields)))
    assert "friction model" not in str(arm(tmp_path, {"viscous": 0.1, "coulomb": 0.2},
                                           name="plain"))


def test_the_autodiff_exports_walk_the_friction_with_any_library(tmp_path):
    """JAX and CasADi (not needed here) walk the traced program with their operations
    (robodyn.codegen.export.autodiff.evaluate): walked with NumPy it is the friction; walked
    with SymPy it is a formula whose derivative in qd is the slope, and whose parameters
    (argument mode) enter as the model's levels."""
    import types

    import sympy as sp

    from robodyn.codegen.export.autodiff import build_program, evaluate

    fields, hand = MODELS["everything"]
    robot = arm(tmp_path, fields, fields)
    qd = np.array([0.04, -0.3])
    program = build_program(robot.runner, "friction_torques", "baked")
    lib = types.SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, exp=np.exp,
                                tanh=np.tanh, pow=np.power)
    out = evaluate(program, {"qd": qd}, lib)
    np.testing.assert_allclose(out, [by_hand(v, **hand) for v in qd], rtol=1e-14)
    x = sp.Symbol("x", positive=True)  # a speed > 0: sign(x) = 1, d sign/dx = 0 there
    symbolic = types.SimpleNamespace(sin=sp.sin, cos=sp.cos, sqrt=sp.sqrt, sign=sp.sign,
                                     exp=sp.exp, tanh=sp.tanh, pow=lambda a, c: a**c)
    formula = evaluate(program, {"qd": [x, sp.Float(-0.3)]}, symbolic)[0]
    slope = float(sp.diff(formula, x).subs(x, 0.04))
    h = 1e-6
    assert slope == pytest.approx((by_hand(0.04 + h, **hand) - by_hand(0.04 - h, **hand))
                                  / (2 * h), rel=1e-7)
    # levels as symbols of the model: in argument mode they are inputs p, so the walk is
    # linear in them (what identification differentiates)
    text = ARM.format(name="symfarm", f1="{viscous: Fv, coulomb: Fc, static: Fst, "
                      "stribeck_velocity: 0.1}", f2="{}") + "values: {Fv: 0.2, Fc: 0.3, Fst: 0.5}\n"
    (tmp_path / "symfarm.yaml").write_text(text)
    symbolic_robot = rd.load(tmp_path / "symfarm.yaml")
    argument = build_program(symbolic_robot.runner, "friction_torques", "argument")
    assert set(argument.parameters) == {"Fv", "Fc", "Fst"}
    levels = sp.symbols(argument.parameters)
    tau = evaluate(argument, {"p": levels, "qd": [x, sp.Float(0.0)]}, symbolic)[0]
    at = dict(zip(levels, (symbolic_robot.values[str(s)] for s in levels), strict=True))
    assert float(tau.subs(at).subs(x, 0.04)) == pytest.approx(
        by_hand(0.04, Fv=0.2, Fp=0.3, Fst=0.5, vst=0.1), rel=1e-13)
    assert all(sp.diff(tau, level, 2) == 0 for level in levels)


def test_the_derivation_s_friction_step_states_the_model_it_uses(tmp_path):
    fields, _ = MODELS["everything"]
    rich = {s.title: s for s in arm(tmp_path, fields).equations().steps}["Friction torques"]
    assert "exp(-|qd/v_st|^delta)" in rich.formula and "F_{st}" in rich.latex_formula
    plain = {s.title: s for s in arm(tmp_path, {"viscous": 0.1}, name="p").equations().steps}
    assert plain["Friction torques"].formula == "F_v qd + F_s sign(qd)"
