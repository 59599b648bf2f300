"""URDF reading is linear and bounded (issue 15, section 4).

Reading was quadratic in the number of joints (10,000 joints 8.5 s, 20,000 26.5 s, 100,000
over 120 s) and had no size cap. The walk is now linear, shown by counting the lines
executed in :mod:`robodyn.model.urdf` and :mod:`robodyn.model.urdf_tree` for chains of two
lengths (a count, not a timing), and files over
:data:`~robodyn.model.urdf.MAX_URDF_BYTES` or with more joints or links than the caps are
refused before the tree is walked.
"""

from __future__ import annotations

import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

import robodyn as rd
from conftest import run_bounded
from robodyn.model import urdf, urdf_tree
from robodyn.model.urdf import MAX_URDF_BYTES, MAX_URDF_JOINTS, MAX_URDF_LINKS, load_urdf

BODY = ('<inertial><mass value="1"/><inertia ixx="0.1" iyy="0.1" izz="0.1" ixy="0" ixz="0" '
        'iyz="0"/></inertial>')


def chain_urdf(n: int, reverse: bool = False, fixed_every: int = 0) -> str:
    """A serial chain of ``n`` joints (every ``fixed_every``-th one fixed), links and
    joints in file order from the root, or from the tip with ``reverse``."""
    links = [f'<link name="l{i}">{BODY}</link>' for i in range(n + 1)]
    joints = []
    for i in range(n):
        kind = "fixed" if fixed_every and i % fixed_every == fixed_every - 1 else "revolute"
        joints.append(f'<joint name="j{i}" type="{kind}"><parent link="l{i}"/>'
                      f'<child link="l{i + 1}"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>'
                      '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>')
    if reverse:
        links.reverse()
        joints.reverse()
    return '<robot name="chain">' + "".join(links) + "".join(joints) + "</robot>"


def tree_urdf(n: int, fixed_every: int = 0) -> str:
    """A binary tree of ``n`` joints (joint ``i`` hangs link ``i + 1`` on link ``i // 2``,
    every ``fixed_every``-th joint fixed), listed from the leaves: the loader must order
    the links parents first (its topological sort) and not in file order."""
    links = [f'<link name="l{i}">{BODY}</link>' for i in range(n + 1)]
    joints = []
    for i in range(n):
        kind = "fixed" if fixed_every and i % fixed_every == fixed_every - 1 else "revolute"
        joints.append(f'<joint name="j{i}" type="{kind}"><parent link="l{i // 2}"/>'
                      f'<child link="l{i + 1}"/><origin xyz="0.1 0 0"/><axis xyz="0 0 1"/>'
                      '<limit lower="-1" upper="1" velocity="1" effort="1"/></joint>')
    return ('<robot name="tree">' + "".join(reversed(links)) + "".join(reversed(joints))
            + "</robot>")


def _lines_executed(path) -> int:
    """Lines of robodyn/model/urdf.py and urdf_tree.py executed by ``load_urdf(path)``
    (comprehension loops count each turn): a measure of its work that does not depend on
    the machine."""
    targets = {urdf.__file__, urdf_tree.__file__}
    count = 0

    def local(frame, event, arg):
        nonlocal count
        count += event == "line"
        return local

    def calls(frame, event, arg):
        return local if frame.f_code.co_filename in targets else None

    sys.settrace(calls)
    try:
        load_urdf(path)
    finally:
        sys.settrace(None)
    return count


@pytest.mark.slow
@pytest.mark.parametrize("reverse, fixed_every", [(False, 0), (True, 0), (False, 3)])
def test_reading_does_work_proportional_to_the_joints(tmp_path, reverse, fixed_every):
    counts = []
    for n in (300, 600):
        path = tmp_path / f"chain{n}.urdf"
        path.write_text(chain_urdf(n, reverse, fixed_every))
        counts.append(_lines_executed(path))
    # linear: twice the joints, twice the lines (the quadratic walk made it 2.6 here, and
    # the ratio grows with n)
    assert 1.8 < counts[1] / counts[0] < 2.2, counts


@pytest.mark.slow
@pytest.mark.parametrize("fixed_every", [0, 4])
def test_reading_a_tree_does_work_proportional_to_the_joints(tmp_path, fixed_every):
    """The whole tree (default arguments), its links sorted parents first from a file
    listed leaves first: still linear (the sort's heap is the only n log n part)."""
    counts = []
    for n in (300, 600):
        path = tmp_path / f"tree{n}.urdf"
        path.write_text(tree_urdf(n, fixed_every))
        counts.append(_lines_executed(path))
        chain = load_urdf(path).chain
        assert all(p < i for i, p in enumerate(chain.parents))
    assert 1.8 < counts[1] / counts[0] < 2.2, counts


@pytest.mark.slow
def test_a_tree_of_5000_joints_loads_within_a_time_and_memory_bound(tmp_path):
    path = tmp_path / "tree.urdf"
    path.write_text(tree_urdf(5000, fixed_every=10))
    code = textwrap.dedent(f"""\
        import robodyn as rd
        robot = rd.load({str(path)!r})
        print(robot.dof, len(robot.chain.parents), len(robot.chain.frames))
        """)
    done = run_bounded(["-c", code], timeout=180, memory_mb=2048)
    assert done.returncode == 0, done.stderr[-2000:]
    # 500 of the joints are fixed: their links are frames, beside the base's
    assert done.stdout.split() == ["4500", "4500", "501"]


@pytest.mark.slow
def test_a_chain_of_5000_joints_loads_within_a_time_and_memory_bound(tmp_path):
    assert MAX_URDF_JOINTS >= 5000
    path = tmp_path / "long.urdf"
    path.write_text(chain_urdf(5000, reverse=True, fixed_every=10))
    code = textwrap.dedent(f"""\
        import robodyn as rd
        robot = rd.load({str(path)!r})
        print(robot.dof, robot.links[-1].name)
        """)
    done = run_bounded(["-c", code], timeout=180, memory_mb=2048)
    assert done.returncode == 0, done.stderr[-2000:]
    # every 10th joint is fixed, the last one too: l5000 merges into l4999
    assert done.stdout.split() == ["4500", "l4999"]


def test_a_file_over_the_size_cap_is_refused(tmp_path):
    path = tmp_path / "big.urdf"
    head, tail = '<robot name="big"><link name="a"/>', "</robot>"
    path.write_text(head + " " * (MAX_URDF_BYTES + 1 - len(head) - len(tail)) + tail)
    with pytest.raises(rd.ModelError, match=f"larger than {MAX_URDF_BYTES:,} bytes"):
        load_urdf(path)
    path.write_text(head + " " * (MAX_URDF_BYTES - len(head) - len(tail)) + tail)
    with pytest.raises(rd.ModelError, match="no movable joint"):  # at the cap: read, judged
        load_urdf(path)


@pytest.mark.slow
def test_an_endless_file_is_refused_and_a_large_one_read_only_up_to_the_cap(tmp_path):
    # ElementTree read /dev/zero until memory ran out: a device is not read at all now, and
    # a regular file past the cap is read no further than the cap
    done = run_bounded(["-c", "from robodyn.model.urdf import load_urdf; "
                        "load_urdf('/dev/zero')"], timeout=60, memory_mb=1024)
    assert done.returncode == 1
    assert "/dev/zero: cannot read the URDF file (not a regular file (a device))" in \
        done.stderr
    big = tmp_path / "big.urdf"
    with open(big, "wb") as handle:
        handle.truncate(MAX_URDF_BYTES + 1)  # sparse: no disk used
    done = run_bounded(["-c", "from robodyn.model.urdf import load_urdf; "
                        f"load_urdf({str(big)!r})"], timeout=60, memory_mb=1024)
    assert done.returncode == 1
    assert f"the file is larger than {MAX_URDF_BYTES:,} bytes" in done.stderr


def test_more_links_or_joints_than_the_caps_are_refused(tmp_path):
    links = tmp_path / "links.urdf"
    links.write_text('<robot name="x">' + '<link name="l"/>' * (MAX_URDF_LINKS + 1) + "</robot>")
    with pytest.raises(rd.ModelError) as info:
        load_urdf(links)
    assert f"{MAX_URDF_LINKS + 1:,} <link> elements, more than the {MAX_URDF_LINKS:,}" \
        in str(info.value)
    joint = '<joint name="j" type="fixed"><parent link="a"/><child link="b"/></joint>'
    joints = tmp_path / "joints.urdf"
    joints.write_text('<robot name="x"><link name="a"/><link name="b"/>'
                      + joint * (MAX_URDF_JOINTS + 1) + "</robot>")
    with pytest.raises(rd.ModelError) as info:
        load_urdf(joints)
    assert f"{MAX_URDF_JOINTS + 1:,} <joint> elements, more than the {MAX_URDF_JOINTS:,}" \
        in str(info.value)
    assert "MAX_URDF_JOINTS" in str(info.value)


def test_every_example_robot_data_file_is_far_below_the_caps():
    files = rd.models.example_robot_data_urdfs()
    if not files:
        pytest.skip("example-robot-data is not installed or ships no URDF file")
    biggest = max(files, key=lambda p: p.stat().st_size)
    assert biggest.stat().st_size < MAX_URDF_BYTES / 10
    most = max(len(ET.parse(p).getroot().findall("joint")) for p in files)
    assert most < MAX_URDF_JOINTS / 10
    if biggest.name == "tiago_dual.urdf":  # the biggest, 129 joints: loads within the caps
        with pytest.warns(rd.UrdfWarning):
            assert load_urdf(biggest, tip="arm_left_7_link").chain.dof == 8
