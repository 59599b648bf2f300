"""Elastic joints and DC motors in model files (``motor: {stiffness, spring_damping,
resistance, inductance, torque_constant, back_emf_constant}``): parsed onto
:class:`~robodyn.model.chain.Motor` as expressions (a stiffness may be a parameter given
under ``values:``), read back by ``springs_of`` / ``motors_of`` as the numbers written in
the file, and every hostile value refused with its field named."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.core.errors import ModelError
from robodyn.motion.elastic import springs_of
from robodyn.motion.electrics import motors_of

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "yaml" / "elastic_2r.yaml"

#: A planar 2R arm; ``{m1}``, ``{m2}``: the two joints' motor mappings.
ARM = """\
name: drives
planar: true
gravity: [0, -g, 0]
links:
  - {{joint: revolute, a: 1.0, mass: 1.0, com: [-0.5, 0, 0], inertia: [0, 0, 0.08, 0, 0, 0],
     motor: {m1}}}
  - {{joint: revolute, a: 0.8, mass: 0.6, com: [-0.4, 0, 0], inertia: [0, 0, 0.03, 0, 0, 0],
     motor: {m2}}}
values: {{K2: 3000}}
"""

GOOD = "{inertia: 1.0e-4, gear_ratio: 50, stiffness: 4000, resistance: 1.0, torque_constant: 0.05}"
GOOD2 = "{inertia: 2.0e-4, gear_ratio: 30, stiffness: K2, resistance: 2.0, torque_constant: 0.04}"


def _load(tmp_path, m1=GOOD, m2=GOOD2):
    return rd.load(str(write_model(tmp_path, ARM.format(m1=m1, m2=m2))))


def test_the_fixture_reads_back_as_written():
    """The numbers of tests/data/yaml/elastic_2r.yaml, by hand: ``B = G^2 J_m``
    (``50^2 1e-4 = 0.25``, ``40^2 5e-5 = 0.08``), K1 from ``values:``, D, R, L, k_t, k_b."""
    robot = rd.load(str(FIXTURE))
    springs = springs_of(robot.numeric_chain)
    np.testing.assert_allclose(springs.stiffness, [5000.0, 3000.0], rtol=1e-15)
    np.testing.assert_allclose(springs.motor_inertia, [0.25, 0.08], rtol=1e-12)
    np.testing.assert_allclose(springs.damping, [2.0, 1.0], rtol=1e-15)
    one, two = motors_of(robot.numeric_chain)
    assert (one.resistance, one.inductance, one.torque_constant, one.k_b) == (1.2, 1e-3, 0.05,
                                                                              0.05)
    assert (two.resistance, two.inductance, two.torque_constant, two.k_b) == (2.0, 0.0, 0.04,
                                                                              0.04)
    assert "K1" in robot.symbols
    stiffer = springs_of(robot.with_values(K1=8000.0).numeric_chain)
    assert stiffer.stiffness[0] == 8000.0
    text = str(robot)
    assert ("elastic joints K = [5000, 3000] N m/rad, DC motors R = [1.2, 2] ohm, "
            "k_t = [0.05, 0.04] N m/A") in text


def test_a_model_without_them_has_none(tmp_path):
    robot = rd.load("planar-2r")
    assert springs_of(robot.numeric_chain) is None and motors_of(robot.numeric_chain) is None
    assert "elastic joints" not in str(robot)


@pytest.mark.parametrize("m1, m2, message", [
    ("{inertia: 1.0e-4, stiffness: -3}", GOOD2,
     r"links\[0\]\.motor\.stiffness: -3; give a number > 0"),
    ("{inertia: 1.0e-4, stiffness: 0}", GOOD2,
     r"links\[0\]\.motor\.stiffness: 0; give a number > 0"),
    ("{inertia: 1.0e-4, stiffness: 10, spring_damping: -1}", "{inertia: 1, stiffness: 5}",
     r"links\[0\]\.motor\.spring_damping: -1; give a number >= 0"),
    (GOOD, "{inertia: 1, stiffness: 5, resistance: -2, torque_constant: 0.1}",
     r"links\[1\]\.motor\.resistance: -2; give a number >= 0"),
    (GOOD, "{inertia: 1, stiffness: 5, resistance: 2, torque_constant: 0}",
     r"links\[1\]\.motor\.torque_constant: 0; give a number > 0"),
    (GOOD, "{inertia: 1, stiffness: 5, resistance: 2, torque_constant: 0.1, inductance: -1}",
     r"links\[1\]\.motor\.inductance: -1; give a number >= 0"),
    (GOOD, "{inertia: 1, stiffness: 5, inductance: 0.001, torque_constant: 0.1}",
     r"links\[1\]\.motor\.resistance: missing; a DC motor \(torque_constant, inductance "
     r"given\) needs its resistance and torque_constant"),
    (GOOD, "{inertia: 1, stiffness: 5, resistance: 1}",
     r"links\[1\]\.motor\.torque_constant: missing"),
    ("{inertia: 1.0e-4, stiffness: 10}", "{inertia: 1.0e-4, stiffness: 10, resistance: 1, "
     "torque_constant: 0.1}", r"links\[0\]\.motor\.resistance: missing, and links\[1\]\.motor "
     r"has one; DC motors are all or none"),
    ("{stiffness: 10}", "{inertia: 1.0e-4, stiffness: 10}",
     r"links\[0\]\.motor\.inertia: 0 \(gear_ratio 1\); an elastic joint's motor side needs a "
     r"rotor inertia > 0"),
    ("{inertia: 1.0e-4, spring_damping: 1}", "{}",
     r"links\[0\]\.motor\.spring_damping: a damping without a stiffness"),
    ("{inertia: 1.0e-4, stifness: 10}", "{}", r"links\[0\]\.motor.*stifness"),
    ("{inertia: 1.0e-4, stiffness: K2}", "{inertia: 1.0e-4, stiffness: -K2}",
     r"links\[1\]\.motor\.stiffness: -3000; give a number > 0"),
])
def test_hostile_drive_values_are_refused_with_the_field_named(tmp_path, m1, m2, message):
    with pytest.raises(ModelError, match=message):
        _load(tmp_path, m1, m2).numeric_chain  # noqa: B018 (the checks run on evaluation)


def test_springs_on_some_joints_load_and_the_others_are_rigid(tmp_path):
    """Elastic joints are no longer all or none: joint 2 without a stiffness is rigid."""
    robot = _load(tmp_path, GOOD, "{inertia: 1.0e-4, resistance: 1, torque_constant: 0.1}")
    springs = springs_of(robot.numeric_chain)
    assert springs.joints == (0,) and springs.stiffness.tolist() == [4000.0]
    assert "elastic joints K = [4000, rigid] N m/rad" in str(robot)


def test_a_parameter_stiffness_is_checked_with_its_value(tmp_path):
    robot = _load(tmp_path)
    assert springs_of(robot.numeric_chain).stiffness[1] == 3000.0
    with pytest.raises(ModelError, match=r"links\[1\]\.motor\.stiffness: -1; give a number > 0"):
        robot.with_values(K2=-1.0).numeric_chain  # noqa: B018


def test_springs_and_motors_need_one_value_joints(tmp_path):
    text = """\
        name: floating-drive
        floating: true
        base: {mass: 1.0, com: [0, 0, 0], inertia: [0.1, 0.1, 0.1, 0, 0, 0]}
        links:
          - {joint: revolute, a: 1.0, mass: 1.0, inertia: [0.1, 0.1, 0.1, 0, 0, 0],
             motor: {inertia: 1.0e-4, stiffness: 100}}
        """
    with pytest.raises(ModelError, match=r"links\[0\]\.motor\.stiffness: elastic joints need "
                                         r"revolute or prismatic joints only"):
        rd.load(str(write_model(tmp_path, text))).numeric_chain  # noqa: B018


def test_exports_say_that_they_leave_the_springs_and_electrics_out():
    import warnings

    robot = rd.load(str(FIXTURE))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # URDF's armature warning, said elsewhere
        for text in (robot.to_urdf(), robot.to_mjcf()):
            assert "the elastic joints (motor stiffness, spring_damping) are left out" in text
            assert "the DC motors' electrics (resistance, inductance, torque and back-EMF" in text
