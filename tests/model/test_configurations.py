"""Joint limits and named configurations (issue 18): the built-in PUMA 560 carries the
Robotics Toolbox's ``qlim`` and ``qz``, ``qr``, ``qs``, ``qn`` (checked against the
toolbox in tests/dynamics/test_toolbox.py); a model file's ``configurations:`` is
checked like the rest of the file; ``dataset`` samples within the limits."""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import robodyn as rd
from conftest import GOOD_MODEL as GOOD
from conftest import write_model as write
from robodyn.core.errors import ModelError
from robodyn.motion.dataset import write_dataset


def _puma():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)  # published inertias
        return rd.load("puma560")


def test_configurations_are_copies_and_survive_new_values_and_pickling():
    robot = _puma()
    robot.configurations["qr"][:] = 7.0
    assert robot.configurations["qr"][1] == np.pi / 2
    for other in (robot.with_values(g=9.80665), pickle.loads(pickle.dumps(robot))):
        assert {k: v.tolist() for k, v in other.configurations.items()} == \
            {k: v.tolist() for k, v in robot.configurations.items()}
    assert rd.load("planar-2r").configurations == {}


def test_a_model_file_names_configurations(tmp_path):
    text = GOOD.replace("  - joint: prismatic\n", "  - joint: prismatic\n"
                        "    limits: {lower: 0, upper: 0.4}\n")
    text += "configurations:\n  home: [0, 0.1]\n  up: [pi/2, 0.4]\n"
    robot = rd.load(write(tmp_path, text))
    assert list(robot.configurations) == ["home", "up"]
    np.testing.assert_array_equal(robot.configurations["up"], [np.pi / 2, 0.4])


@pytest.mark.parametrize("entry, message", [
    ("[1, 2]", r"configurations: expected a mapping \{name: \[q1, \.\.\., q2\]\}"),
    ("{home: [0]}", r"configurations\.home: expected a list of 2 numbers \(one per joint\)"),
    ("{home: [0, 0, 0]}", r"configurations\.home: expected a list of 2 numbers"),
    ("{home: 0}", r"configurations\.home: expected a list of 2 numbers"),
    ("{home: [0, l1]}", r"configurations\.home\[1\]: must be a number, not depend on l1"),
    ("{home: [0, .inf]}", r"configurations\.home\[1\]: .* not a finite number"),
    ("{home: [0, 'x + ']}", r"configurations\.home\[1\]"),
    ("{home: [0, 0.5]}", r"configurations\.home\[1\]: 0\.5 is outside joint 2's limits "
                         r"\[0, 0\.4\]"),
    ("{home: [0, -0.1]}", r"outside joint 2's limits"),
    ("{'bad name': [0, 0]}", r"configurations: 'bad name' is not a configuration name"),
    ("{1: [0, 0]}", r"configurations: 1 is not a configuration name"),
    ('{"home\\n": [0, 0]}', r"configurations: 'home\\n' is not a configuration name"),
    ("{" + "q" * 41 + ": [0, 0]}", r"is not a configuration name"),
    ("{home: [0, 0], home: [0, 0]}", r"duplicate key 'home'"),
    ("{home: [0, sqrt(-1)]}", r"configurations\.home\[1\]"),
])
def test_bad_configurations_are_clear_errors(tmp_path, entry, message):
    text = GOOD.replace("  - joint: prismatic\n", "  - joint: prismatic\n"
                        "    limits: {lower: 0, upper: 0.4}\n")
    with pytest.raises(ModelError, match=message):
        rd.load(write(tmp_path, text + f"configurations: {entry}\n"))


def test_dataset_samples_the_puma_within_its_limits(tmp_path, numpy_backend):
    robot = _puma()
    out = tmp_path / "d.npz"
    write_dataset(robot, out, 400, chunk=200, seed=1)
    with np.load(out) as data:
        q = data["q"]
    for j, link in enumerate(robot.links):
        lo, hi = link.joint.limits[:2]
        assert lo <= q[:, j].min() and q[:, j].max() <= hi
        assert q[:, j].max() - q[:, j].min() > 0.9 * (hi - lo)  # the whole range, not [-pi, pi]
    assert q[:, 1].max() > np.pi  # joint 2 reaches 225 degrees
