"""Issue 30, sections 2, 4 and 5: every model reader refuses a FIFO at once (one shared
check, :mod:`robodyn.core.files`), reads numbers as strictly as the CSV tables, refuses
repeated names and impossible limits, and names a file with control characters escaped.

A FIFO test that went wrong would block in ``open``: each runs the load in a subprocess
with a timeout, so a regression fails instead of hanging the suite."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import robodyn as rd
from robodyn.core.errors import ModelError
from robodyn.core.files import NotRegularFile, file_label, read_regular_file

pytestmark = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")

INERTIAL = '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
URDF = """<robot name="r"><link name="base"/>
<link name="l1"><inertial><mass value="MASS"/>
<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
<limit lower="LOWER" upper="UPPER" effort="1" velocity="1"/></joint></robot>"""


def urdf(mass="1", lower="-1", upper="1") -> str:
    return URDF.replace("MASS", mass).replace("LOWER", lower).replace("UPPER", upper)


def mjcf(body: str, compiler: str = "") -> str:
    return f"<mujoco>{compiler}<worldbody>{body}</worldbody></mujoco>"


def error(path) -> str:
    with pytest.raises(ModelError) as info:
        rd.load(path)
    return str(info.value)


@pytest.mark.parametrize("suffix", [".urdf", ".xml", ".yaml"])
def test_a_fifo_model_is_refused_at_once(tmp_path, suffix):
    fifo = tmp_path / f"pipe{suffix}"
    os.mkfifo(fifo)
    code = ("import robodyn as rd, sys\n"
            "try:\n    rd.load(sys.argv[1])\nexcept rd.ModelError as e:\n    print(e)\n")
    run = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True,
                         text=True, timeout=60,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "not a regular file (a named pipe)" in run.stdout, run.stdout + run.stderr
    assert "no such model file" not in run.stdout


def test_the_shared_check_refuses_pipes_and_folders_without_blocking(tmp_path):
    fifo = tmp_path / "p"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFile, match="named pipe"):
        read_regular_file(fifo, 10)  # non-blocking open: returns at once
    with pytest.raises(NotRegularFile, match="folder"):
        read_regular_file(tmp_path, 10)
    (tmp_path / "f").write_bytes(b"abcdef")
    assert read_regular_file(tmp_path / "f", 3) == b"abcd"  # one byte past the limit


def test_a_missing_yaml_file_is_still_no_such_file(tmp_path):
    assert "no such model file" in error(tmp_path / "absent.yaml")


def test_a_fifo_table_is_refused(tmp_path):
    from robodyn.core.csv_table import read_number_table
    from robodyn.core.errors import InputError

    fifo = tmp_path / "tau.csv"
    os.mkfifo(fifo)
    with pytest.raises(InputError, match="not a regular file"):
        read_number_table(fifo, ["t"])


@pytest.mark.parametrize("text", ["1_0", "\u0661", "\uff11", "0x10", "nan", "1e999", "inf"])
def test_urdf_numbers_are_read_as_strictly_as_csv(tmp_path, text):
    path = tmp_path / "r.urdf"
    path.write_text(urdf(mass=text), encoding="utf-8")
    message = error(path)
    assert "<mass value>" in message and "number" in message


def test_urdf_infinite_limits_are_still_read(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(urdf(lower="-inf", upper="inf"), encoding="utf-8")
    assert rd.load(path).dof == 1


@pytest.mark.parametrize("text", ["1_0", "\u0661", "\uff11"])
def test_mjcf_numbers_are_read_as_strictly_as_csv(tmp_path, text):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint type="hinge"/>'
                         f'<inertial pos="0 0 0" mass="{text}" diaginertia="1 1 1"/></body>'),
                    encoding="utf-8")
    assert "is not a number" in error(path)


def test_urdf_limits_upside_down_are_refused_naming_the_joint(tmp_path):
    path = tmp_path / "r.urdf"
    path.write_text(urdf(lower="1", upper="-1"), encoding="utf-8")
    message = error(path)
    assert "joint 'j1' <limit>" in message and "above" in message


def test_mjcf_repeated_body_names_are_refused(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint type="hinge"/>{INERTIAL}'
                         f'<body name="a"><joint type="hinge"/>{INERTIAL}</body></body>'))
    message = error(path)
    assert "a second <body name='a'>" in message and "unique" in message


def test_mjcf_repeated_site_names_are_refused(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint type="hinge"/>{INERTIAL}'
                         '<site name="s"/><site name="s" pos="1 0 0"/></body>'))
    assert "a second <site name='s'>" in error(path)


def test_mjcf_repeated_joint_names_are_refused(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint name="j" type="hinge"/>{INERTIAL}'
                         f'<body name="b"><joint name="j" type="hinge"/>{INERTIAL}</body></body>'))
    assert "a second <joint name='j'>" in error(path)


def test_a_site_named_like_a_body_stays_reachable_by_kind(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint type="hinge"/>{INERTIAL}'
                         '<site name="b" pos="1 0 0"/>'
                         f'<body name="b" pos="0 0 1"><joint type="hinge"/>{INERTIAL}</body>'
                         '</body>'))
    robot = rd.load(path)
    assert "b" in robot.frames and "site:b" in robot.frames
    q = [0.0, 0.0]
    assert robot.forward_kinematics(q, frame="b")[2, 3] == pytest.approx(1.0)
    assert robot.forward_kinematics(q, frame="site:b")[0, 3] == pytest.approx(1.0)
    assert any("site:b" in note for note in robot.provenance.notes)


def test_mjcf_range_without_limited_under_autolimits_false_is_refused(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(mjcf(f'<body name="a"><joint type="hinge" range="-1 1"/>{INERTIAL}</body>',
                         '<compiler autolimits="false"/>'))
    assert "range= without limited=" in error(path)
    path.write_text(mjcf(f'<body name="a"><joint type="hinge" limited="true" range="-1 1"/>'
                         f'{INERTIAL}</body>', '<compiler autolimits="false"/>'))
    assert rd.load(path).dof == 1


@pytest.mark.parametrize("suffix", [".xml", ".urdf"])
def test_an_unknown_xml_encoding_is_a_clear_error(tmp_path, suffix):
    path = tmp_path / f"m{suffix}"
    body = (mjcf(f'<body name="a"><joint type="hinge"/>{INERTIAL}</body>') if suffix == ".xml"
            else urdf())
    path.write_text('<?xml version="1.0" encoding="x-bogus"?>' + body)
    assert "encoding" in error(path)


def test_a_file_name_with_control_characters_is_shown_escaped(tmp_path):
    path = tmp_path / "m\x1b[2J.urdf"
    path.write_text("<robot")
    message = error(path)
    assert "\x1b" not in message and "\\x1b[2J.urdf" in message
    assert file_label("plain.urdf") == "plain.urdf"


def test_with_values_of_a_huge_integer_is_a_clear_error():
    robot = rd.load("planar-2r")
    with pytest.raises(ModelError, match="m1 = .* is not finite"):
        robot.with_values(m1=10**400)


@pytest.mark.parametrize("text", ["1_0", "0x10", "1:30", "1_0.5", "010"])
def test_yaml_numbers_are_plain_decimals(tmp_path, text):
    from conftest import GOOD_MODEL, write_model

    path = write_model(tmp_path, GOOD_MODEL.replace("mass: m1", f"mass: {text}", 1))
    assert "not a plain decimal number" in error(path) or "octal" in error(path)


def test_the_cli_shows_an_escaped_file_name(tmp_path, capsys):
    from robodyn.cli import main

    path = tmp_path / "y\x1b[2J.yaml"
    path.write_text("name: [")
    assert main(["torques", str(path), "--from", "0", "--to", "1", "--duration", "1"]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\\x1b[2J.yaml" in err


def test_the_provenance_keeps_the_real_path_of_an_odd_name(tmp_path):
    for suffix, text in ((".urdf", urdf()), (".xml", mjcf(
            f'<body name="a"><joint type="hinge"/>{INERTIAL}</body>'))):
        path = tmp_path / f"odd\x07name{suffix}"
        path.write_text(text)
        assert rd.load(path).provenance.path == str(path)
