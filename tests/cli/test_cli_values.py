"""``--values NAME=NUM,..`` on the motion commands (``simulate``, ``torques``, ``energy``), as
``derive`` takes them: the model's defaults replaced for this run.

Closed form used: a quintic rest-to-rest motion over ``dq`` in ``T`` peaks at the speed
``15/8 dq/T`` (mid-way), so the pendulum's viscous friction ``F qd`` peaks at ``15/8 F dq/T``.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main


def _peak(out: str, term: str) -> float:
    return float(re.search(rf"^\s+{term}\s+(\S+)", out, re.M).group(1))


@pytest.mark.parametrize("F", [0.0, 0.5, 2.0])
def test_torques_uses_the_given_friction(capsys, numpy_backend, F):
    assert main(["torques", "pendulum", "--values", f"F={F}", "--from", "0", "--to", "1",
                 "--duration", "2"]) == 0
    assert _peak(capsys.readouterr().out, "friction") == pytest.approx(15 / 8 * F * 1 / 2,
                                                                        rel=1e-5)


def test_simulate_uses_the_given_values(capsys, numpy_backend):
    assert main(["simulate", "pendulum", "--values", "F=0.5,m=2", "--q0", "1", "--duration",
                 "0.5", "--dt", "0.001"]) == 0
    out = capsys.readouterr().out
    q = float(re.search(r"final state: q = \[(\S+)\]", out).group(1))
    given = rd.simulate(rd.load("pendulum").with_values(F=0.5, m=2), [1.0], duration=0.5,
                        dt=0.001)
    default = rd.simulate(rd.load("pendulum"), [1.0], duration=0.5, dt=0.001)
    assert q == pytest.approx(float(np.asarray(given.q)[-1, 0]), rel=1e-5)
    assert abs(q - float(np.asarray(default.q)[-1, 0])) > 1e-3  # the values made a difference


def test_energy_takes_values_too(capsys, numpy_backend):
    assert main(["energy", "pendulum", "--values", "F=0", "--from", "0", "--to", "1",
                 "--duration", "2"]) == 0


@pytest.mark.parametrize("value, needle", [
    ("bogus=1", "--values: 'bogus' is not a parameter of this model; its parameters are F"),
    ("F=-1", "friction.viscous: -1 is negative"),
])
def test_bad_values_are_one_line_errors(capsys, value, needle):
    assert main(["simulate", "pendulum", "--values", value, "--q0", "1", "--duration",
                 "0.1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robodyn: error: ") and needle in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("value", ["F=abc", "F=inf", "F"])
def test_malformed_values_are_usage_errors(capsys, value):
    with pytest.raises(SystemExit) as stop:
        main(["simulate", "pendulum", "--values", value, "--q0", "1", "--duration", "0.1"])
    assert stop.value.code == 2
    assert "--values" in capsys.readouterr().err
