"""Model files that describe trees (issue 21): ``parent:`` per link (a link's name, its
1-based number or ``base``; default the link before), each DH row placed in its parent's
frame; named ``frames:``; ``Robot.from_dh(parents=...)``; and the errors bad values get."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

import robodyn as rd
from conftest import write_model
from robodyn.cli import main
from robodyn.core.errors import ModelError
from robodyn.dynamics.kinematics import link_poses
from robodyn.model.yaml_file import parse_model

#: The scalar operations of the core's recursions, on floats.
FLOATS = SimpleNamespace(sin=math.sin, cos=math.cos, sqrt=math.sqrt, name="floats")

Y_FILE = """\
name: y
dh: standard
gravity: [0, -g, 0]
links:
  - {name: trunk, joint: revolute, a: 1.0, mass: 1}
  - {name: left, parent: trunk, joint: revolute, a: 0.5, mass: 1}
  - {name: right, parent: 1, joint: revolute, a: 0.25, mass: 1}
frames:
  left_tip: {link: left}
  right_mark: {link: 3, xyz: [0.1, 0.2, 0]}
  on_base: {link: base, xyz: [0, 0, 0.3], rpy: [0, 0, pi/2]}
values: {g: 9.81}
"""


def _link(name, joint="revolute", **more):
    return {"name": name, "joint": joint, "a": 1, "mass": 1, **more}


def _model(*links, **top):
    return {"name": "t", "links": list(links), **top}


def _frame_position(robot, q, name):
    chain = robot.numeric_chain
    frame = next(f for f in chain.frames if f.name == name)
    if frame.link < 0:
        return np.array(frame.placement.translation, dtype=float)
    rot, pos = link_poses(chain, list(q), FLOATS)[frame.link]
    return np.array(pos, dtype=float) + np.array(rot, dtype=float) @ np.array(
        frame.placement.translation, dtype=float)


def test_parent_by_name_and_number_fills_chain_parents(tmp_path):
    robot = rd.load(str(write_model(tmp_path, Y_FILE)))
    assert robot.chain.parents == (-1, 0, 0)
    assert robot.chain.children(0) == (1, 2)
    assert [f.name for f in robot.chain.frames] == ["left_tip", "right_mark", "on_base"]
    assert [f.link for f in robot.chain.frames] == [1, 2, -1]


def test_each_dh_row_is_placed_in_its_parents_frame(tmp_path):
    """Standard DH: both branches start at the trunk's DH frame (its tip, at 1.0), so at q
    the left tip is at (cos q1 + 0.5 cos(q1 + q2), ...) and the right branch's tip (the
    chain's tip, the last link) at (cos q1 + 0.25 cos(q1 + q3), ...): closed forms."""
    robot = rd.load(str(write_model(tmp_path, Y_FILE)))
    q = np.array([0.3, -0.7, 1.1])
    trunk = np.array([math.cos(q[0]), math.sin(q[0]), 0])
    left = trunk + 0.5 * np.array([math.cos(q[0] + q[1]), math.sin(q[0] + q[1]), 0])
    right = trunk + 0.25 * np.array([math.cos(q[0] + q[2]), math.sin(q[0] + q[2]), 0])
    np.testing.assert_allclose(_frame_position(robot, q, "left_tip"), left, atol=1e-14)
    np.testing.assert_allclose(robot.forward_kinematics(q)[:3, 3], right, atol=1e-14)
    # a frame 0.1 along x3 and 0.2 along y3 of the right branch's DH frame
    a = q[0] + q[2]
    mark = right + 0.1 * np.array([math.cos(a), math.sin(a), 0]) \
        + 0.2 * np.array([-math.sin(a), math.cos(a), 0])
    np.testing.assert_allclose(_frame_position(robot, q, "right_mark"), mark, atol=1e-14)
    np.testing.assert_allclose(_frame_position(robot, q, "on_base"), [0, 0, 0.3], atol=0)
    base = next(f for f in robot.chain.frames if f.name == "on_base")
    np.testing.assert_allclose(np.array(base.placement.rotation, dtype=float),
                               [[0, -1, 0], [1, 0, 0], [0, 0, 1]], atol=1e-15)


def test_modified_dh_rows_are_placed_in_the_parents_frame():
    """Modified DH: the row's a, alpha are measured from the parent's frame: two fingers
    on link 1 of a 1R arm, both at a = 1 along x1, sliding along +y1 and -y1."""
    parsed = parse_model(_model(
        {"joint": "revolute", "mass": 1, "name": "arm"},
        {"joint": "prismatic", "a": 1, "alpha": "-pi/2", "mass": 1, "parent": "arm"},
        {"joint": "prismatic", "a": 1, "alpha": "pi/2", "mass": 1, "parent": "arm"},
        dh="modified", gravity=[0, 0, 0], values={}))
    chain = parsed.chain.evaluate({})
    q = [0.4, 0.2, 0.3]
    poses = link_poses(chain, q, FLOATS)
    u = np.array([math.cos(0.4), math.sin(0.4), 0])
    w = np.array([-math.sin(0.4), math.cos(0.4), 0])
    np.testing.assert_allclose(poses[1][1], u + 0.2 * w, atol=1e-14)
    np.testing.assert_allclose(poses[2][1], u - 0.3 * w, atol=1e-14)


def test_planar_check_turns_each_link_from_its_parent():
    """A finger turned by alpha = -pi/2 on link 1 does not turn its sibling: the sibling's
    axis stays parallel to joint 1's (planar holds); a revolute joint on the finger does
    not (its axis is y1)."""
    links = [{"joint": "revolute", "mass": 1, "name": "a"},
             {"joint": "prismatic", "mass": 1, "a": 1, "alpha": "-pi/2", "parent": "a",
              "name": "finger"},
             {"joint": "revolute", "mass": 1, "a": 1, "parent": "a"}]
    parsed = parse_model(_model(*links, dh="modified", planar=True, gravity=[0, 0, 0]))
    assert parsed.chain.evaluate({}).parents == (-1, 0, 0)
    links[2] = dict(links[2], parent="finger")
    parsed = parse_model(_model(*links, dh="modified", planar=True, gravity=[0, 0, 0]))
    with pytest.raises(ModelError, match=r"planar: true, but joint 3's axis \[0.0, 1.0, 0.0\]"):
        parsed.chain.evaluate({})


def test_parent_of_the_previous_link_is_a_serial_chain():
    links = [_link("a"), _link("b", parent="a"), _link("c", parent=2)]
    assert parse_model(_model(*links)).chain.parents == ()
    assert parse_model(_model(_link("a", parent="base"))).chain.is_serial


def test_the_y_builtin_is_listed_and_teaches_the_tree(capsys):
    assert {"planar-y", "planar-2r-gripper"} <= set(rd.models.names())
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "planar-y" in out and "planar-2r-gripper" in out
    assert rd.load("planar-y").chain.parents == (-1, 0, 0)
    assert rd.load("planar-2r-gripper").chain.parents == (-1, 0, 1, 1)


def test_from_dh_takes_parents():
    robot = rd.Robot.from_dh([(1, 0, 0, 0), (0.5, 0, 0, 0), (0.25, 0, 0, 0)], masses=[1, 1, 1],
                             link_names=["trunk", "left", "right"],
                             parents=["base", "trunk", "trunk"])
    assert robot.chain.parents == (-1, 0, 0)
    M = robot.mass_matrix(np.array([0.1, 0.2, 0.3]))
    assert M[1, 2] == 0 and M[2, 1] == 0
    with pytest.raises(ModelError, match=r"links\[1\]\.parent: .*'nope'"):
        rd.Robot.from_dh([(1, 0, 0, 0)] * 2, masses=[1, 1], parents=[None, "nope"])
    with pytest.raises(ModelError, match=r"parents: expected a list of one entry per joint"):
        rd.Robot.from_dh([(1, 0, 0, 0)] * 2, masses=[1, 1], parents=["base"])


BAD_PARENTS = [
    ("nope", r"links\[1\]\.parent: 'nope' is not the name of a link"),
    ("c", r"links\[1\]\.parent: link 3 \('c'\) is not listed before link 2; a parent must "
          r"come before its child"),
    ("b", r"links\[1\]\.parent: link 2 \('b'\) is not listed before link 2"),
    (2, r"links\[1\]\.parent: link 2 \('b'\) is not listed before link 2"),
    (3, r"links\[1\]\.parent: link 3 \('c'\) is not listed before"),
    (0, r"links\[1\]\.parent: 0 is not a link number; the links are numbered 1 to 3"),
    (4, r"links\[1\]\.parent: 4 is not a link number"),
    (-1, r"links\[1\]\.parent: -1 is not a link number"),
    (True, r"links\[1\]\.parent: True is not a link; give 'base'"),
    (1.5, r"links\[1\]\.parent: 1.5 is not a link"),
    ([1], r"links\[1\]\.parent: \[1\] is not a link"),
    (None, r"links\[1\]\.parent: None is not a link"),
    ("Base", r"links\[1\]\.parent: 'Base' is not the name of a link"),
]


@pytest.mark.parametrize(("parent", "message"), BAD_PARENTS)
def test_bad_parent_is_named(parent, message):
    links = [_link("a"), _link("b", parent=parent), _link("c")]
    with pytest.raises(ModelError, match=message):
        parse_model(_model(*links))


def test_a_cycle_is_a_forward_reference():
    """a -> c -> b -> a cannot be written: some parent comes after its child."""
    links = [_link("a", parent="c"), _link("b", parent="a"), _link("c", parent="b")]
    with pytest.raises(ModelError, match=r"links\[0\]\.parent: link 3 \('c'\) is not listed "
                                         r"before link 1"):
        parse_model(_model(*links))


def test_two_links_of_one_name_are_an_error():
    # issue 30: refused at the name, not only when a parent names it (no shadowed link)
    links = [_link("a"), _link("a"), _link("c", parent="a")]
    with pytest.raises(ModelError, match=r"links\[1\]\.name: 'a' is also the name of "
                                         r"links\[0\]; link names must be unique"):
        parse_model(_model(*links))


BAD_FRAMES = [
    ([1], r"frames: expected a mapping"),
    ({"f": {"xyz": [0, 0, 0]}}, r"frames\.f\.link: missing"),
    ({"f": {"link": "zz"}}, r"frames\.f\.link: 'zz' is not the name of a link"),
    ({"f": {"link": 9}}, r"frames\.f\.link: 9 is not a link number"),
    ({"f": {"link": "a", "xzy": [0, 0, 0]}}, r"frames\.f: unknown key\(s\) 'xzy'"),
    ({"f": {"link": "a", "xyz": [0, 0]}}, r"frames\.f\.xyz: expected a list of 3 numbers"),
    ({"f": {"link": "a", "rpy": [0, 0, "x +"]}}, r"frames\.f\.rpy\[2\]"),
    ({"a": {"link": "b"}}, r"frames\.a: 'a' is already the name of a link"),
    ({"base": {"link": "b"}}, r"frames\.base: 'base' is already the name of a link"),
    ({"f": "a"}, r"frames\.f: expected a mapping"),
    ({"x\ny": {"link": "a"}}, r"frames: a frame name: contains"),
    ({1: {"link": "a"}}, r"frames: 1 is not a frame name"),
    ({f"f{k}": {"link": "a"} for k in range(101)}, r"frames: 101 frames; at most 100"),
]


@pytest.mark.parametrize(("frames", "message"), BAD_FRAMES)
def test_bad_frames_are_named(frames, message):
    with pytest.raises(ModelError, match=message):
        parse_model(_model(_link("a"), _link("b"), frames=frames))


def test_cli_reports_a_bad_parent_in_one_line(tmp_path, capsys):
    path = write_model(tmp_path, Y_FILE.replace("parent: 1,", "parent: right,"))
    assert main(["derive", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("robodyn: error: ")
    assert "links[2].parent: link 3 ('right') is not listed before link 3" in err[0]
