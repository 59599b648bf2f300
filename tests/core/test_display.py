"""Objects that print themselves (issue 18 §4): ``print(robot)`` is a table whose numbers are
the model's (checked against the Robotics Toolbox's PUMA 560, the model files, the URDF);
every result prints a few lines, never raw arrays or ``<object at 0x...>``; Jupyter gets
escaped HTML tables and a PNG."""

from __future__ import annotations

import html
import json
import re
import struct

import numpy as np
import pytest

import robodyn as rd
from conftest import TEST_DATA, write_model
from robodyn.core.display import html_table, text_table
from robodyn.model.chain import with_free_base

HOSTILE = "<script>alert('x')</script> & \"arm\""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip("│").split("│")]


def _rows(text: str) -> dict[str, list[str]]:
    """The table's rows by joint number (the first column)."""
    rows = {}
    for line in text.splitlines():
        if line.startswith("│"):
            cells = _cells(line)
            if cells[0].isdigit():
                rows[cells[0]] = cells
    return rows


def _header(text: str) -> list[str]:
    return _cells(next(line for line in text.splitlines() if line.startswith("│")))


def _length(cell: str) -> float:
    return float(cell)


def _angle(cell: str) -> float:
    assert cell.endswith("°"), cell
    return np.radians(float(cell[:-1]))


def test_text_table_aligns_every_column_and_closes_the_box():
    lines = text_table(["j", "value"], [["1", "0.5"], ["22", "-10"]])
    assert len({len(line) for line in lines}) == 1  # a rectangle
    assert lines[0].startswith("┌") and lines[-1].endswith("┘")
    assert _cells(lines[3]) == ["1", "0.5"] and lines[3].endswith(" 0.5 │")  # right-aligned


@pytest.mark.slow  # importing the Toolbox takes seconds
def test_the_puma_table_shows_the_toolboxs_dh_parameters():
    """The d, a, alpha columns are those of the Toolbox's Puma560 (an independent model),
    the masses those of the model's inertial parameters."""
    rtb = pytest.importorskip("roboticstoolbox")
    reference = rtb.models.DH.Puma560()
    robot = rd.load("puma560")
    text = str(robot)
    assert _header(text)[3:7] == ["θⱼ", "dⱼ", "aⱼ", "⍺ⱼ"]
    rows = _rows(text)
    assert len(rows) == 6
    pi = robot.inertial_parameters().as_dict()
    for j, link in enumerate(reference.links):
        cells = rows[str(j + 1)]
        assert cells[2] == "revolute" and cells[3] == f"q{j + 1}"  # no offsets on the PUMA
        assert _length(cells[4]) == pytest.approx(link.d, abs=5e-5)
        assert _length(cells[5]) == pytest.approx(link.a, abs=5e-5)
        assert _angle(cells[6]) == pytest.approx(link.alpha, abs=1e-9)
        assert float(cells[7]) == pytest.approx(pi[f"m{j + 1}"], rel=1e-3)
    assert "gravity: [0, 0, -9.81] m/s²" in text
    assert "tool: none" in text
    assert text.splitlines()[0].startswith("puma560: 6 joints (RRRRRR), standard DH")


def test_offsets_prismatic_joints_and_modified_dh_read_as_in_the_model_file():
    rp = str(rd.load("rp-arm"))  # theta1 = pi/2, joint 2 prismatic along d
    rows = _rows(rp)
    assert rows["1"][3] == "q1 + 90°" and rows["2"][4] == "q2"
    assert rows["2"][2] == "prismatic"
    md = rd.load("planar-2r-point-mass")
    text = str(md)
    assert _header(text)[3:7] == ["aⱼ₋₁", "⍺ⱼ₋₁", "θⱼ", "dⱼ"]
    assert float(_rows(text)["2"][3]) == pytest.approx(md.values["l1"])  # a_1 = l1
    # its tool frame sits l2 along x of the last frame
    assert f"tool: xyz [{md.values['l2']:g}, 0, 0] m" in text


def test_a_urdf_robot_shows_placements_limits_and_the_tool(tmp_path):
    robot = rd.load(TEST_DATA / "urdf" / "planar_2r.urdf")
    text = str(robot)
    assert "joint placements" in text.splitlines()[0]
    header = _header(text)
    rows = _rows(text)
    lower, upper = (robot.numeric_chain.links[0].joint.limits[k] for k in (0, 1))
    assert _angle(rows["1"][header.index("q⁻")]) == pytest.approx(lower, abs=1e-3)
    assert _angle(rows["1"][header.index("q⁺")]) == pytest.approx(upper, abs=1e-3)
    # the second joint sits 1 m along x of the first link (the file's <origin xyz="1 0 0">)
    assert rows["2"][header.index("xyz [m]")] == "[1, 0, 0]"
    assert rows["1"][header.index("axis")] == "[0, -1, 0]"


def test_a_tree_shows_each_joints_parent_its_frames_and_a_floating_base():
    robot = rd.load("planar-2r-gripper")  # both fingers on the forearm (link 2)
    text = str(robot)
    header, rows = _header(text), _rows(text)
    parents = [rows[str(j + 1)][header.index("parent")] for j in range(robot.dof)]
    assert parents == ["base" if p < 0 else str(p + 1) for p in robot.chain.parent_indices]
    assert parents == ["base", "1", "2", "2"]
    assert "frames: palm" in text
    assert "parent" not in _header(str(rd.load("planar-2r")))  # a chain: no such column
    flying = robot.with_chain(with_free_base(robot.chain, robot.chain.links[0].inertial))
    text = str(flying)
    assert "base: free-flying (6-DOF free-flyer), mass 2 kg" in text
    assert _rows(text)["1"][header.index("parent")] == "base"  # the joints' rows as before
    assert repr(flying) == "Robot('planar-2r-gripper', dof=10, joints=FRRPP, floating base)"


def test_a_symbolic_value_is_shown_as_its_expression(tmp_path):
    robot = rd.load("planar-2r")
    symbolic = robot.with_chain(robot.chain, values={})  # no value for any symbol
    rows = _rows(str(symbolic))
    assert rows["1"][5] == "l1" and rows["2"][7] == "m2"


def test_repr_is_one_short_line():
    robot = rd.load("puma560")
    assert repr(robot) == "Robot('puma560', dof=6, joints=RRRRRR)"


def test_html_escapes_a_hostile_model_name(tmp_path, numpy_backend):
    path = write_model(tmp_path, f"""
        name: {json.dumps(HOSTILE)}
        dh: standard
        gravity: [0, -9.81, 0]
        links:
          - joint: revolute
            a: 1
            mass: 1
            com: [-0.5, 0, 0]
            inertia: [0.1, 0.1, 0.1, 0, 0, 0]
        """)
    robot = rd.load(path)
    assert robot.name == HOSTILE
    page = robot._repr_html_()
    assert "<script>" not in page and html.escape(HOSTILE) in page
    assert page.count("<tr>") == 2  # the header and the one joint
    # the other HTML tables escape the name too
    q, qd, qdd = np.random.default_rng(0).uniform(-1, 1, (3, 40, 1))
    result = rd.identify(robot, q, qd, qdd, robot.inverse_dynamics(q, qd, qdd))
    assert "<script>" not in result._repr_html_()
    assert "<script>" not in robot.base_parameters()._repr_html_()
    assert "<script>" not in html_table(["<b>"], [["<i>"]], caption="<u>", notes=["<s>"])


def test_identification_and_base_parameters_print_short_and_tabulate_in_html(numpy_backend):
    robot = rd.load("planar-2r")
    rng = np.random.default_rng(1)
    q, qd, qdd = (rng.normal(size=(60, 2)) for _ in range(3))
    result = rd.identify(robot, q, qd, qdd, robot.inverse_dynamics(q, qd, qdd))
    base = robot.base_parameters()
    text = repr(result)
    assert text.startswith("Identification('planar-2r', parameters=") and "\n" not in text
    assert f"parameters={base.count}" in text and "samples=60" in text
    assert repr(base) == f"BaseParameters(count={base.count}, standard={len(base.names)}, " \
                         f"symbolic={base.symbolic})"
    page = result._repr_html_()
    assert page.count("<tr>") == base.count + 1
    for name, value in zip(base.base_names, result.estimate):
        assert re.search(rf"<td [^>]*>{name}</td><td [^>]*>{value:.6g}</td>", page)
    assert base._repr_html_().count("<tr>") == base.count + 1
    excitation = rd.excitation.fourier(robot, harmonics=2, period=2.0, samples=50, iterations=2)
    assert "\n" not in repr(excitation) and "array" not in repr(excitation)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_results_print_a_summary_not_arrays(numpy_backend):
    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [0.5, -0.2], duration=0.3, dt=0.01)
    traj = rd.trajectory.quintic([0, 0], [1, -1], 1.0)
    motion = traj.sample(0.01)
    report = rd.energy.consumed(robot, motion)
    parts = robot.torque_parts(motion.q, motion.qd, motion.qdd)
    pd = rd.control.PDGravity(robot, [1, -1], kp=50, kd=[10, 5])
    ct = rd.control.ComputedTorque(robot, traj, kp=100, kd=20)
    balance, standard = sim.info["energy_balance"], robot.inertial_parameters()
    for obj in (sim, motion, report, parts, pd, ct, balance, standard):
        for text in (repr(obj), str(obj)):
            assert "object at 0x" not in text and "array(" not in text, text
            lines = text.splitlines()
            assert len(lines) <= 12 and max(len(line) for line in lines) <= 120, text
        assert "\n" not in repr(obj)
    # the key numbers are the objects' own
    assert repr(sim) == "Simulation(rk4, dof=2, samples=31, t=0 .. 0.3 s)"
    final = re.search(r"final q = \[(.*?)\]", str(sim))[1]
    np.testing.assert_allclose([float(x) for x in final.split(",")], sim.q[-1], rtol=1e-3)
    assert f"positive work {report.positive_work:.6g} J" in str(report)
    assert "samples=101" in repr(motion) and "t=0 .. 1 s" in repr(motion)
    peaks = {c[0]: c[1:] for c in map(_cells, str(parts).splitlines()) if len(c) == 3}
    assert float(peaks["total"][0]) == pytest.approx(np.abs(parts.total[:, 0]).max(), rel=1e-3)
    assert repr(pd) == "PDGravity(model='planar-2r', q_ref=[1, -1], kp=50, kd=[10, 5])"
    assert "kp=100, kd=20" in repr(ct) and "quintic" in repr(ct)
    assert f"friction loss {balance.friction_loss:g} J" in str(balance)
    assert repr(standard).startswith(f"Parameters({len(standard.names)} standard parameters: m1,")
    width, height = _png_size(sim._repr_png_())
    assert 200 <= width <= 800 and 150 <= height <= 600


def test_a_dh_arm_without_a_tool_says_so():
    """The last DH row's ``d``, ``a``, ``alpha`` place DH frame n: that is no tool (the
    summary said ``tool: xyz [0, 0, 0.3]`` for a table with d = 0.3)."""
    arm = rd.Robot.from_dh([[0, 0, 0.4, 0], [0.2, 0, 0.3, 0]], masses=[1.0, 1.0])
    assert "tool: none (the end effector is DH frame 2)" in str(arm)
    tooled = rd.Robot.from_dh([[0, 0, 0.4, 0], [0.2, 0, 0.3, 0]], masses=[1.0, 1.0],
                              tool={"xyz": [0.1, 0, 0]})
    assert "tool: xyz [0.1, 0, 0] m, rpy [0, 0, 0]°" in str(tooled)
