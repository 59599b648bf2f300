"""URDF files as they come: bodies outside the chain that are not physical, trees with
hundreds of leaves, angles written as 1.5708, and every file of example-robot-data."""

from __future__ import annotations

import math
import re
import warnings
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA
from robodyn.model.urdf import UrdfWarning, load_urdf

DATA = TEST_DATA / "urdf"
MOVING = ("revolute", "continuous", "prismatic")


def _error(path, **kwargs) -> str:
    with pytest.raises(rd.ModelError) as info:
        rd.load(path, **kwargs)
    return str(info.value)


def _states(n: int, dof: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-math.pi, math.pi, (n, dof)), rng.normal(size=(n, dof)),
            rng.normal(size=(n, dof)))


# -- physics checks only for the bodies of the chain ---------------------------------------
def test_non_physical_bodies_outside_the_chain_give_one_warning():
    with pytest.warns(UrdfWarning) as record:
        robot = rd.load(DATA / "off_chain_bad_bodies.urdf", tip="link2")
    assert len(record) == 1
    message = str(record[0].message)
    # only the antenna is non-physical (indefinite); the planar-style tensors of base_link
    # and arm_b (PSD, triangle inequality broken) are accepted as Pinocchio accepts them
    assert "1 link(s) outside the chain" in message and "antenna" in message
    # the chain is planar_2r.urdf's arm, untouched by the ignored bodies
    reference = rd.load(DATA / "planar_2r.urdf")
    q, qd, qdd = _states(20, 2)
    np.testing.assert_allclose(robot.inverse_dynamics(q, qd, qdd),
                               reference.inverse_dynamics(q, qd, qdd), rtol=1e-12, atol=1e-12)


def test_a_planar_style_body_of_the_chain_warns_once():
    with pytest.warns(rd.PhysicalConsistencyWarning, match=r"0\.01 \+ 0\.01 < 0\.05"):
        assert rd.load(DATA / "off_chain_bad_bodies.urdf", tip="arm_b").dof >= 1


def test_a_non_physical_body_merged_into_the_chain_is_an_error(tmp_path):
    # a camera on a fixed joint of link2 merges into link2: it is part of the chain
    text = (DATA / "off_chain_bad_bodies.urdf").read_text().replace("</robot>", """
  <link name="camera">
    <inertial><mass value="0.1"/>
      <inertia ixx="-1e-3" ixy="0" ixz="0" iyy="1e-3" iyz="0" izz="5e-3"/></inertial>
  </link>
  <joint name="camera_joint" type="fixed">
    <parent link="link2"/><child link="camera"/><origin xyz="0.8 0 0"/>
  </joint>
</robot>""")
    path = tmp_path / "merged_camera.urdf"
    path.write_text(text)
    message = _error(path, tip="link2")
    assert "link 'camera' <inertial> <inertia>" in message
    assert "not positive semi-definite" in message


def test_a_negative_mass_outside_the_chain_is_only_a_warning(tmp_path):
    text = (DATA / "off_chain_bad_bodies.urdf").read_text().replace(
        '<mass value="0.01"/>', '<mass value="-0.01"/>')
    path = tmp_path / "negative_antenna.urdf"
    path.write_text(text)
    with pytest.warns(UrdfWarning, match="antenna"):
        assert rd.load(path, tip="link2").dof == 2


# -- capped lists ------------------------------------------------------------------------------
def _star(tmp_path, leaves: int) -> Path:
    """A base with ``leaves`` one-link arms (a humanoid's hands have dozens of leaves)."""
    body = ('<inertial><mass value="1"/><inertia ixx="0.01" ixy="0" ixz="0" iyy="0.01" '
            'iyz="0" izz="0.01"/></inertial>')
    parts = ['<robot name="star">', '<link name="base_link"/>']
    for i in range(leaves):
        parts.append(f'<link name="leaf_{i}">{body}</link>')
        parts.append(f'<joint name="j{i}" type="revolute"><parent link="base_link"/>'
                     f'<child link="leaf_{i}"/><axis xyz="0 0 1"/></joint>')
    parts.append("</robot>")
    path = tmp_path / "star.urdf"
    path.write_text("\n".join(parts))
    return path


def test_a_long_leaf_list_is_capped(tmp_path):
    path = _star(tmp_path, 300)
    note = load_urdf(path).provenance.notes[0]  # the whole tree: its ends in a capped list
    assert re.findall(r"leaf_\d+", note) == [*(f"leaf_{i}" for i in range(5)), "leaf_299"]
    assert "... and 295 more" in note and "tip=" in note and len(note) < 400
    message = _error(path, tip="hand")
    assert "... and 291 more" in message  # 301 links, 10 shown
    assert len(message) < 400 + len(str(path))


def test_a_huge_name_is_not_quoted_whole(tmp_path):
    path = _star(tmp_path, 2)
    message = _error(path, tip="x" * 100_000)
    assert "100,000 characters" in message and len(message) < 600 + len(str(path))


# -- snap_angles -------------------------------------------------------------------------------
def _entries(chain):
    """Every rotation entry of the joint placements and the tip."""
    rotations = [link.joint.placement.rotation for link in chain.links] + [chain.tip.rotation]
    return [x for rot in rotations for row in rot for x in row]


def _right(x) -> bool:
    return x in (0, 1, -1)


def test_without_snapping_1_5708_is_not_a_right_angle():
    robot = rd.load(DATA / "near_right_angles.urdf")
    rotation = robot.chain.links[1].joint.placement.rotation
    assert float(rotation[1][1]) == pytest.approx(math.cos(1.5708), abs=1e-15)
    assert not _right(rotation[1][1]) and not _right(robot.chain.tip.rotation[0][0])
    assert robot.provenance.notes == ()


def test_snap_angles_makes_right_angles_exact_and_reports_the_change():
    robot = rd.load(DATA / "near_right_angles.urdf", snap_angles=1e-3)
    chain = robot.chain
    # joint2 (roll pi/2) and the tool (yaw -pi/2) have exact rotations, entries 0 and +-1
    assert chain.links[1].joint.placement.rotation == ((1, 0, 0), (0, 0, -1), (0, 1, 0))
    assert chain.tip.rotation == ((0, 1, 0), (-1, 0, 0), (0, 0, 1))
    # exact integers (Python ints, which SymPy takes as Integer), not floats near them
    assert all(type(x) is int for row in chain.tip.rotation for x in row)
    # link2's inertial frame (pitch pi): R diag(Ixx, Iyy, Izz) R^T is the same diagonal, exact
    assert chain.links[1].inertial.inertia[0][2] == 0
    assert [float(chain.links[1].inertial.inertia[i][i]) for i in range(3)] == [0.01, 0.03, 0.025]
    # joint3's yaw 1.5808 is 0.01 from pi/2: kept
    yaw = float(chain.links[2].joint.placement.rotation[1][0])
    assert yaw == pytest.approx(math.sin(1.5808), abs=1e-15)

    notes = robot.provenance.notes
    changes = {"joint 'joint2' rpy roll": 1.5708 - math.pi / 2,
               "link 'link2' inertial rpy pitch": 3.1416 - math.pi,
               "joint 'tool_joint' rpy yaw": -1.5708 + math.pi / 2}
    assert notes[0].startswith("snapped 3 angle(s) to multiples of pi/2")
    largest = max(changes, key=lambda k: abs(changes[k]))
    assert f"largest change {abs(changes[largest]):.2g} rad ({largest})" in notes[0]
    assert len(notes) == 1 + len(changes)
    for label, change in changes.items():
        assert any(line.startswith(label) and f"change {abs(change):.2g} rad" in line
                   for line in notes[1:]), label
    assert "joint3" not in "\n".join(notes)


def test_snapping_changes_the_dynamics_by_the_size_of_the_angles():
    exact = rd.load(DATA / "near_right_angles.urdf", snap_angles=1e-3)
    raw = rd.load(DATA / "near_right_angles.urdf")
    q, qd, qdd = _states(20, 3)
    tau_exact, tau_raw = exact.inverse_dynamics(q, qd, qdd), raw.inverse_dynamics(q, qd, qdd)
    assert not np.array_equal(tau_exact, tau_raw)
    # angles moved by <= 7.4e-6 rad: torques of order 10 N m move by about 1e-4 at most
    np.testing.assert_allclose(tau_exact, tau_raw, rtol=0, atol=2e-4)


def test_snap_tolerance_decides_which_angles_move():
    notes = rd.load(DATA / "near_right_angles.urdf", snap_angles=0.02).provenance.notes
    assert notes[0].startswith("snapped 4 angle(s)") and "joint 'joint3' rpy yaw" in notes[0]
    tight = rd.load(DATA / "near_right_angles.urdf", snap_angles=1e-6).provenance.notes
    assert tight[0].startswith("snap_angles=1e-06: no angle") and len(tight) == 1


@pytest.mark.parametrize("tol", [-1e-3, math.pi / 4, 1.0, math.nan, "abc", True])
def test_bad_snap_tolerance(tol):
    message = _error(DATA / "near_right_angles.urdf", snap_angles=tol)
    assert "snap_angles=" in message and "tolerance in radians" in message


# -- example-robot-data -----------------------------------------------------------------------
def _example_robot_data_urdfs() -> list[Path]:
    """Every URDF file that the installed example-robot-data package ships."""
    files = rd.models.example_robot_data_urdfs()
    if not files:
        pytest.skip("example-robot-data is not installed or ships no URDF file")
    return files


def _longest_chain(path: Path) -> tuple[str | None, set[str]]:
    """Independently of robodyn: the leaf with the most moving joints above it, and the
    links of the chain from the root to it (every link below its first moving joint: the
    chain's links and all that merges into them)."""
    root = ET.parse(path).getroot()
    parent, children = {}, {}
    for joint in root.findall("joint"):
        p, c = joint.find("parent").get("link"), joint.find("child").get("link")
        parent[c] = (p, joint.get("type"))
        children.setdefault(p, []).append(c)
    best = (-1, None)
    for link in (el.get("name") for el in root.findall("link")):
        if link in children:
            continue
        count, up = 0, link
        while up in parent and count < 10_000:
            up, kind = parent[up]
            count += kind in MOVING
        best = max(best, (count, link), key=lambda b: b[0])
    tip = best[1]
    if tip is None:
        return None, set()
    first, link = None, tip
    while link in parent:
        if parent[link][1] in MOVING:
            first = link
        link = parent[link][0]
    below, stack = set(), [first] if first else []
    while stack:
        link = stack.pop()
        below.add(link)
        stack.extend(children.get(link, ()))
    return tip, below


def test_every_example_robot_data_urdf_loads_or_gives_a_clear_error():
    results = {}
    for path in _example_robot_data_urdfs():
        tip, chain_links = _longest_chain(path)
        with warnings.catch_warnings(record=True) as record:
            warnings.simplefilter("always")
            try:
                source = load_urdf(path, tip=tip)
            except rd.ModelError as exc:
                message = str(exc)
                assert len(message) < 1500, path
                assert str(path) in message
                named = re.findall(r"link '([^']+)' <inertial>", message)
                assert set(named) <= chain_links, (path, named)  # never a body off the chain
                results[f"{path.parent.parent.name}/{path.name}"] = message
                continue
        for warning in record:
            assert issubclass(warning.category, UrdfWarning)
            listed = str(warning.message).split("not used: ")[1].split(" (first")[0]
            names = [n for n in listed.split(", ") if not n.startswith("...")]
            assert not set(names) & chain_links, (path, names)
        results[f"{path.parent.parent.name}/{path.name}"] = source
    # the cases the reliability probe named: placeholder bases of quadrupeds, TIAGo's antennas
    for name in ("anymal_b_simple_description/anymal.urdf", "anymal_b_simple_description/"
                 "anymal-kinova.urdf", "go1_description/go1.urdf", "b1_description/b1.urdf",
                 "tiago_description/tiago.urdf", "tiago_description/tiago_no_hand.urdf"):
        assert isinstance(results.get(name), rd.model.source.ModelSource), (name, results.get(name))


def _movable_ends(path: Path) -> tuple[list[str], int]:
    """Independently of robodyn, for the single root of a file: the ends of its tree of
    movable joints (a movable joint's child with no movable joint below it), and the
    number of movable joints under the root. ``([], 0)`` when the file has no single root."""
    root = ET.parse(path).getroot()
    children: dict[str, list[tuple[str, str]]] = {}
    has_parent = set()
    for joint in root.findall("joint"):
        p, c = joint.find("parent").get("link"), joint.find("child").get("link")
        children.setdefault(p, []).append((c, joint.get("type")))
        has_parent.add(c)
    roots = [el.get("name") for el in root.findall("link") if el.get("name") not in has_parent]
    if len(roots) != 1:
        return [], 0

    def movable_below(link: str) -> int:
        return sum((kind != "fixed") + movable_below(child)
                   for child, kind in children.get(link, ()))

    ends = [child for link in _walk(roots[0], children) for child, kind in children.get(link, ())
            if kind != "fixed" and movable_below(child) == 0]
    return ends, movable_below(roots[0])


def _walk(link: str, children) -> list[str]:
    out = [link]
    for child, _ in children.get(link, ()):
        out += _walk(child, children)
    return out


#: Arms that load with default arguments (issue 8): the chain ends at the last movable
#: joint, whatever frames hang on fixed joints after it.
ARMS_BY_DEFAULT = ("ur5_robot.urdf", "ur10_robot.urdf", "ur3_robot.urdf", "kinova.urdf",
                   "talos_left_arm.urdf", "xarm7.urdf", "z1.urdf", "so100.urdf")
#: Files with movable joints that do not load with default arguments, and why (the error
#: names the link): human.urdf composes its hips, shoulders and neck of revolute joints
#: through massless "virtual" links without <inertial> (allow_massless=True loads it);
#: romeo_laas_small.urdf's LHipPitch_link has an indefinite inertia tensor (eigenvalue
#: -0.0027), no rigid body.
DEFAULT_LOAD_DEFECTS = {"human.urdf": "allow_massless=True",
                        "romeo_laas_small.urdf": "not positive semi-definite"}


def test_every_example_robot_data_urdf_loads_with_default_arguments_or_says_why():
    """Default base and tip: a file whose movable joints form one chain loads it, with every
    movable joint in it (nothing locked); one whose movable joints branch loads the whole
    tree, every movable joint a link and the ends named in the first note; the few other
    errors name a defect of the file. Never another exception."""
    loaded, trees, defects = {}, {}, {}
    for path in _example_robot_data_urdfs():
        ends, movable = _movable_ends(path)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UrdfWarning)
            try:
                robot = rd.load(path, mimic="independent")  # coupled: test_mimic.py
                robot.numeric_chain  # noqa: B018 - evaluated and checked
            except rd.ModelError as exc:
                message = str(exc)
                assert str(path) in message and len(message) < 1500, path
                defects[path.name] = message
                continue
        assert robot.dof == movable and robot.locked == (), path
        if len(ends) == 1:
            assert robot.chain.is_serial and robot.links[-1].name == ends[0], path
        else:
            note = robot.provenance.notes[0]
            assert f"branch into {len(ends)} chains (ending at " in note, path
            shown = note.split("(ending at ")[1].split("): the whole tree")[0]
            assert shown.split(", ")[:5] == ends[:5], path
            assert robot.chain.parents and f"last link {robot.links[-1].name!r}" in note, path
            trees[path.name] = ends
        loaded[path.name] = robot.dof
    for name in ARMS_BY_DEFAULT:
        assert name in loaded, (name, defects.get(name))
    assert trees["panda.urdf"] == ["panda_leftfinger", "panda_rightfinger"]
    assert loaded["panda.urdf"] == 9 and loaded["solo12.urdf"] == 12
    # the file starts at arm_left_1_link: joints arm_left_2..7 and the gripper joint
    assert loaded["talos_left_arm.urdf"] == 7
    # the only defects: a file without links, robots with nothing that moves, and the two
    # files named above
    for name, message in defects.items():
        expected = DEFAULT_LOAD_DEFECTS.get(name)
        assert ("has no <link>" in message or "no movable joint" in message
                or (expected is not None and expected in message)), (name, message)


def test_the_xarm7_snaps_its_six_right_angles():
    path = next((p for p in _example_robot_data_urdfs() if p.name == "xarm7.urdf"), None)
    if path is None:
        pytest.skip("example-robot-data has no xarm7.urdf")
    robot = rd.load(path, snap_angles=1e-3)
    assert robot.dof == 7
    assert robot.provenance.notes[0].startswith("snapped 6 angle(s)")
    assert all(_right(x) for x in _entries(robot.chain))
    assert not all(_right(x) for x in _entries(rd.load(path).chain))
