"""Issue 30 section 4: ``--values`` names each value once, reads numbers as strictly as the
CSV tables; ``simulate --tau`` with a table that starts after t = 0 is refused (the table
does not say what acts before), and YAML link names are unique and never ``base``."""

from __future__ import annotations

import argparse
import os

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.cli.derive import parse_values
from robodyn.core.errors import InputError, ModelError


@pytest.mark.parametrize("text, message", [("m1=1,m1=2", "given twice"),
                                           ("m1=1_0", "not a number"),
                                           ("m1=\u0661", "not a number"),
                                           ("m1=nan", "not a finite number")])
def test_values_are_refused(text, message):
    with pytest.raises(argparse.ArgumentTypeError, match=message):
        parse_values(text)


def test_values_still_read_integers_exactly():
    assert parse_values("m1=2,g=9.81") == {"m1": 2, "g": 9.81}
    assert isinstance(parse_values("m1=2")["m1"], int)


def test_a_tau_table_starting_after_zero_is_refused(tmp_path, capsys):
    table = tmp_path / "tau.csv"
    table.write_text("t,tau1,tau2\n0.3,1,0\n1,1,0\n")
    assert main(["simulate", "planar-2r", "--q0", "1,0", "--duration", "0.2",
                 "--tau", str(table)]) == 2
    err = capsys.readouterr().err
    assert "starts at t = 0.3, not 0" in err and "0,0,0" in err


def test_the_api_refuses_a_late_table_too():
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match="starts at 0.3"):
        rd.simulate(robot, [1.0, 0.0], duration=0.2, tau=np.zeros((2, 2)),
                    tau_times=[0.3, 1.0])


def test_a_fifo_tau_is_named_a_pipe_not_missing(tmp_path, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    fifo = tmp_path / "tau.csv"
    os.mkfifo(fifo)  # refused before any blocking open
    assert main(["simulate", "planar-2r", "--q0", "1,0", "--duration", "0.2",
                 "--tau", str(fifo)]) == 2
    assert "not a regular file (a named pipe)" in capsys.readouterr().err


LINK = """  - name: {name}
    parent: {parent}
    joint: revolute
    a: 1
    d: 0
    alpha: 0
    mass: 1
    com: [0.1, 0, 0]
    inertia: [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
"""


def model(tmp_path, first, second, parent):
    path = tmp_path / "m.yaml"
    path.write_text("name: t\nlinks:\n" + LINK.format(name=first, parent="base")
                    + LINK.format(name=second, parent=parent))
    return path


def test_two_yaml_links_named_alike_are_refused(tmp_path):
    with pytest.raises(ModelError, match=r"links\[1\].name: 'A' is also the name of links\[0\]"):
        rd.load(model(tmp_path, "A", "A", 1))


def test_a_yaml_link_named_base_is_refused(tmp_path):
    with pytest.raises(ModelError, match="'base' is reserved for the world"):
        rd.load(model(tmp_path, "base", "B", "base"))
