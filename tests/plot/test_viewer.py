"""rd.plot.show / robodyn view: the inertia ellipsoid against its closed form, the rotations
against SciPy, the motion read back from ``simulate --save``, the server on 127.0.0.1 only
(stopped, its port free again) and, in headless Chromium, the arm drawn in the page."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

import robodyn as rd
from robodyn.core.errors import InputError, RobodynError
from robodyn.plot import viewer as V
from robodyn.plot.viewer_meshes import NAME_CHARS

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _has_viser() -> bool:
    try:
        import viser  # noqa: F401
    except ImportError:
        return False
    return True


needs_viser = pytest.mark.skipif(not _has_viser(), reason="viser (robodyn[viewer]) is not "
                                 "installed")


def free_port() -> int:
    with socket.socket() as s:
        s.bind((V.HOST, 0))
        return s.getsockname()[1]


def port_is_free(port: int) -> bool:
    """Nothing listens on ``port`` any more: a connection is refused."""
    with socket.socket() as s:
        s.settimeout(2)
        try:
            s.connect((V.HOST, port))
        except OSError:
            return True
    return False


def _wait_free(port: int, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if port_is_free(port):
            return True
        time.sleep(0.05)
    return False


# -- geometry ----------------------------------------------------------------------------------
def test_the_inertia_ellipsoid_of_a_uniform_ellipsoid_is_itself():
    a = np.array([0.3, 0.2, 0.1])
    m = 2.0
    # a solid ellipsoid: I_x = m (b^2 + c^2) / 5, ...
    diag = m / 5 * np.array([a[1]**2 + a[2]**2, a[0]**2 + a[2]**2, a[0]**2 + a[1]**2])
    R = Rotation.from_euler("xyz", [0.3, -0.7, 1.1]).as_matrix()
    axes_len, axes = V.inertia_ellipsoid(m, R @ np.diag(diag) @ R.T)
    order = np.argsort(-axes_len)
    assert np.allclose(axes_len[order], a)
    # each principal axis is (up to sign) the rotated body axis of that semi-axis
    for k, body in zip(order, range(3)):
        assert abs(abs(axes[:, k] @ R[:, body]) - 1) < 1e-12
    assert np.isclose(np.linalg.det(axes), 1.0)


def test_an_inertia_that_breaks_the_triangle_inequality_is_drawn_flat():
    axes_len, _ = V.inertia_ellipsoid(1.0, np.diag([0.0, 0.0, 0.35]))  # the PUMA's link 1
    assert axes_len[2] == 0 and np.allclose(axes_len[:2], np.sqrt(5 * 0.35 / 2))
    assert np.all(V.inertia_ellipsoid(0.0, np.eye(3))[0] == 0)


def test_the_quaternions_are_those_of_scipy():
    rng = np.random.default_rng(4)
    for R in Rotation.random(40, random_state=rng).as_matrix():
        w, x, y, z = V._quaternion(R)
        assert np.allclose(Rotation.from_quat([x, y, z, w]).as_matrix(), R, atol=1e-12)
    for d in ([0, 0, 1], [0, 0, -1], [1, 2, 3], [1, 0, 0]):
        d = np.array(d, dtype=float)
        R = V._z_to(d)
        assert np.allclose(R @ [0, 0, 1], d / np.linalg.norm(d)) and np.isclose(
            np.linalg.det(R), 1)


# -- the motion --------------------------------------------------------------------------------
def test_the_csv_of_simulate_save_is_read_back(tmp_path, numpy_backend):
    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [0.4, -0.2], duration=0.3, dt=0.01)
    path = sim.save(tmp_path / "run.csv")
    t, q = V.read_motion(path, 2)
    assert np.allclose(t, sim.t) and np.allclose(q, sim.q)
    bad = tmp_path / "bad.csv"
    bad.write_text("t,q1,q2\n0,0,0\n0.2,0,0\n0.1,0,0\n")
    with pytest.raises(InputError, match="times must increase .sample 3: t = 0.1 after 0.2"):
        V.read_motion(bad, 2)
    short = tmp_path / "short.csv"
    short.write_text("t,q1\n0,0\n0.1,0\n")
    with pytest.raises(InputError, match="q2"):
        V.read_motion(short, 2)


@pytest.mark.slow
def test_import_robodyn_loads_no_viser():
    code = "import robodyn, robodyn.plot, sys; print('viser' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    assert out.stdout.strip() == "False", out.stderr


def test_without_viser_the_error_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "viser", None)  # import viser raises ImportError
    with pytest.raises(RobodynError, match=r"pip install 'robodyn\[viewer\]'"):
        rd.view(rd.load("planar-2r"), port=free_port())


def test_bad_arguments_are_refused_before_any_server_starts():
    robot = rd.load("planar-2r")
    with pytest.raises(InputError, match="q: expected 2 finite joint values"):
        V.show(robot, [0, 0, 0])
    with pytest.raises(InputError, match="sim: expected a Simulation"):
        V.show(robot, sim=42)
    with pytest.raises(InputError, match="port: expected a whole number from 1 to 65535"):
        V.show(robot, port=70000)
    with pytest.raises(InputError, match="robot: expected a robodyn Robot"):
        V.show("planar-2r")


# -- the server --------------------------------------------------------------------------------
@needs_viser
def test_the_viewer_serves_on_localhost_moves_and_stops(numpy_backend):
    robot = rd.load("planar-2r")
    sim = rd.simulate(robot, [0.4, -0.2], duration=0.3, dt=0.01)
    before = set(threading.enumerate())
    port = free_port()
    with V.show(robot, sim=sim, port=port) as view:
        assert view.url == f"http://127.0.0.1:{port}" and not port_is_free(port)
        with pytest.raises(InputError, match=f"port: {port} is in use"):
            V.show(robot, port=port)
        view.set_q([0.5, 0.25])
        assert np.allclose([s.value for s in view._sliders], [0.5, 0.25])
        # link 2 runs from the elbow to the tip: its cylinder sits at their midpoint
        poses = view._poses(np.array([0.5, 0.25]))
        assert np.allclose(view._links[1].position, (poses[1][1] + poses[2][1]) / 2)
        view._at_time(0.3)
        assert np.allclose(view.q, sim.q[-1])
    assert _wait_free(port)
    deadline = time.monotonic() + 5
    while set(threading.enumerate()) - before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [t for t in set(threading.enumerate()) - before if t.is_alive()]


@needs_viser
def test_names_are_shown_as_plain_text():
    import dataclasses

    hostile = "<img src=x onerror=alert(1)> **arm** [x](javascript:alert(1))"
    robot = dataclasses.replace(rd.load("planar-2r"), name=hostile)
    with V.show(robot, port=free_port()) as view:
        # a read-only text field holds the name as its value: text, never markup
        assert view._name_field.value == hostile[:NAME_CHARS - 1] + "…"
        assert type(view._name_field).__name__ == "GuiTextHandle"
    assert V._text("tab\there\x07") == "tab here"


@pytest.mark.slow
@needs_viser
def test_robodyn_view_serves_until_its_timeout(tmp_path):
    port = free_port()
    out = subprocess.run([sys.executable, "-m", "robodyn", "view", "planar-2r", "--port",
                          str(port), "--timeout", "0.5", "--q", "0.5,0.2"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert f"viewing planar-2r at http://127.0.0.1:{port} (for 0.5 s)" in out.stderr
    assert "viser" not in out.stdout  # viser's banner is not shown
    assert _wait_free(port)
    bad = subprocess.run([sys.executable, "-m", "robodyn", "view", "planar-2r", "--q", "1"],
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 2
    assert bad.stderr.strip().endswith("--q: expected 2 numbers (one per joint of planar-2r), "
                                       "got 1")


# -- in a browser ------------------------------------------------------------------------------
def _screenshot(url: str, path, seconds: float = 45.0) -> None:
    """Headless Chromium's screenshot of ``url``, its whole process group killed at the end
    (or after ``seconds``: it takes 5-8 s; a Chromium that waits on the page's socket past
    its virtual time can hang, and the test then skips instead of holding the suite)."""
    command = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu-sandbox",
               "--use-gl=swiftshader", "--enable-unsafe-swiftshader", "--hide-scrollbars",
               "--no-first-run", "--disable-extensions", f"--user-data-dir={path.parent}/c",
               f"--screenshot={path}", "--window-size=800,600",
               "--virtual-time-budget=3000", url]
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        proc.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        pytest.skip(f"headless Chromium took more than {seconds:g} s")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


@pytest.mark.slow
@needs_viser
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed")
def test_the_arm_is_drawn_in_headless_chromium(tmp_path):
    from PIL import Image

    robot = rd.load("puma560")
    port = free_port()
    with V.show(robot, [0, 0.5, -0.5, 0, 0.3, 0], port=port):
        _screenshot(f"http://127.0.0.1:{port}", tmp_path / "view.png")
    assert _wait_free(port)
    image = np.asarray(Image.open(tmp_path / "view.png").convert("RGB")).astype(int)
    assert image.shape[:2] == (600, 800) and image.std() > 10  # not a uniform page
    # the scene left of the control panel and below the renderer's notice: the links are
    # lit shades of LINK_COLOR (red well above blue), the centres of mass of COM_COLOR
    scene = image[160:, :460]
    r, g, b = scene[..., 0], scene[..., 1], scene[..., 2]
    link = (r - b > 40) & (r > 150) & (g < r - 15) & (g > b)
    com = (b - r > 40) & (b > 150)
    assert link.sum() > 200, f"{link.sum()} pixels of the link colour"
    assert com.sum() > 50, f"{com.sum()} pixels of the centre-of-mass colour"


# -- URDF meshes -------------------------------------------------------------------------------
@needs_viser
def test_urdf_meshes_ride_on_their_links_and_a_missing_one_is_a_note(tmp_path):
    trimesh = pytest.importorskip("trimesh")
    from tests.conftest import TEST_DATA

    (tmp_path / "meshes").mkdir()
    trimesh.creation.box(extents=(0.1, 0.05, 0.05)).export(tmp_path / "meshes" / "box.stl")
    text = (TEST_DATA / "urdf" / "planar_2r.urdf").read_text()
    text = text.replace('<mesh filename="package://nowhere/link2.stl"/></geometry></visual>',
                        '<mesh filename="package://arm/meshes/box.stl"/></geometry>'
                        '<origin xyz="0.4 0 0"/></visual>'
                        '<visual><geometry><mesh filename="missing.stl"/></geometry></visual>')
    text = text.replace('<link name="tool"/>', '<link name="tool"><visual><geometry><mesh '
                        'filename="meshes/box.stl"/></geometry></visual></link>')
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    robot = rd.load(path)
    q1, q2 = 0.3, 0.5
    with V.show(robot, [q1, q2], port=free_port()) as view:
        assert view.notes == ["mesh not found: missing.stl"]
        (k1, _, on_link2), (k2, _, on_tool) = view._meshes
        assert k1 == k2 == 1
        # closed form of the URDF's arm: joints about -y, so q > 0 lifts the arm to +z
        elbow = np.array([np.cos(q1), 0.0, np.sin(q1)])
        along = np.array([np.cos(q1 + q2), 0.0, np.sin(q1 + q2)])
        assert np.allclose(on_link2.position, elbow + 0.4 * along)
        assert np.allclose(on_tool.position, elbow + 0.8 * along)
        w, x, y, z = on_tool.wxyz  # turned by q1 + q2 about -y
        assert np.isclose(abs(w), np.cos((q1 + q2) / 2)) and np.isclose(abs(y), np.sin(
            (q1 + q2) / 2)) and np.sign(w) * y < 0


@needs_viser
def test_a_mesh_file_that_is_no_mesh_is_a_note_not_an_error(tmp_path):
    pytest.importorskip("trimesh")
    from tests.conftest import TEST_DATA

    (tmp_path / "junk.stl").write_bytes(b"\x00not a mesh\xff" * 10)
    text = (TEST_DATA / "urdf" / "planar_2r.urdf").read_text().replace(
        "package://nowhere/link2.stl", "junk.stl")
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    with V.show(rd.load(path), port=free_port()) as view:
        assert len(view.notes) == 1 and view.notes[0].startswith("mesh junk.stl not drawn: ")
        assert view._meshes == []


@pytest.mark.parametrize("words, message", [
    (["--port", "0"], "argument --port: 0 is not a port from 1 to 65535"),
    (["--timeout", "-1"], "argument --timeout: '-1' is not a positive number of seconds"),
    (["--sim", "nowhere.csv"], "--sim nowhere.csv: cannot be read"),
])
def test_robodyn_view_refuses_bad_options_in_one_line(words, message, capsys):
    from robodyn.cli.app import main

    if "--sim" in words and not _has_viser():
        pytest.skip("viser (robodyn[viewer]) is not installed")
    try:
        code = main(["view", "planar-2r", *words])
    except SystemExit as exit_:
        code = exit_.code
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()[-1]) < 200


def test_robot_show_is_the_viewer_and_checks_q_before_serving():
    import robodyn as rd

    robot = rd.load("planar-2r")
    assert robot.show.__func__.__name__ == "show"
    with pytest.raises(rd.InputError, match="q: expected 2 finite joint values"):
        robot.show([0.0, float("nan")])


@needs_viser
def test_a_floating_model_is_viewed_at_its_nq_values(tmp_path, numpy_backend):
    """A free base and a joint: ``q`` of ``nq`` values, a slider per value (the quaternion's
    four made unit when drawn), the base frame drawn where ``q`` puts it: position
    ``(x, y, z)`` and rotation that of the quaternion (SciPy's, scalar last)."""
    from scipy.spatial.transform import Rotation

    from conftest import write_model
    from robodyn.cli import main

    model = write_model(tmp_path, """
        name: satellite
        floating: true
        gravity: [0, 0, -9.81]
        base: {mass: 10, com: [0, 0, 0.1], inertia: [0.5, 0.6, 0.7, 0, 0, 0]}
        links:
          - {joint: revolute, a: 0.4, mass: 1.5, com: [-0.2, 0, 0],
             inertia: [0.01, 0.02, 0.02, 0, 0, 0]}
        """)
    robot = rd.load(str(model))
    sim = rd.simulate(robot, [0.1, 0.2, 1.0, 0, 0, 0, 1.0, 0.3], duration=0.2, dt=0.01)
    quat = np.array([0.2, -0.3, 0.1, 0.9]) / np.linalg.norm([0.2, -0.3, 0.1, 0.9])
    q = np.array([0.5, -0.2, 1.5, *quat, 0.7])
    with V.show(robot, sim=sim, port=free_port()) as view:
        labels = [s.label for s in view._sliders]
        assert labels[:7] == [f"q1 root_joint {p}" for p in ("x", "y", "z", "qx", "qy", "qz",
                                                            "qw")] and len(labels) == 8
        np.testing.assert_allclose(view.q, sim.q[0])
        view.set_q(q)
        rot, origin = view._poses(q)[1]
        np.testing.assert_allclose(origin, q[:3], atol=1e-12)
        np.testing.assert_allclose(rot, Rotation.from_quat(quat).as_matrix(), atol=1e-12)
        for slider in view._sliders[3:7]:
            slider.value = 0.0  # every quaternion slider at 0: drawn as the identity
        view._from_sliders()
        np.testing.assert_allclose(view._poses(view.q)[1][0], np.eye(3), atol=1e-12)
        view._at_time(0.2)
        np.testing.assert_allclose(view.q, sim.q[-1], atol=1e-12)
        with pytest.raises(InputError, match="expected 8 finite joint values"):
            view.set_q(q[:7])
    assert main(["view", str(model), "--q", "0,0,1", "--timeout", "0.1"]) == 2


@needs_viser
def test_the_view_opens_within_the_joint_limits(numpy_backend):
    """The Panda's fourth joint has limits [-3.0718, -0.0698]: the view opens at their
    middle there and at 0 elsewhere, not at a pose the arm cannot take."""
    try:
        urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    except rd.ModelError as exc:
        pytest.skip(str(exc))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        panda = rd.load(urdf, tip="panda_hand")
    with V.show(panda, port=free_port()) as view:
        lower, upper = panda.numeric_chain.links[3].joint.limits[:2]
        assert view.q[3] == pytest.approx(0.5 * (lower + upper))
        assert lower <= view.q[3] <= upper
        others = [j for j in range(7) if j != 3]
        np.testing.assert_array_equal(view.q[others], 0.0)


@needs_viser
def test_a_coupled_panda_opens_with_a_slider_per_independent_joint_and_its_meshes(tmp_path):
    """The Panda's second finger mimics the first (URDF <mimic>, coupled by default): the
    view has a slider per independent joint (8), draws the mimic finger where the mimic
    relation puts it (finger2 = 1 * finger1 + 0: the uncoupled tree's pose there), and
    draws every visual mesh of the file (its .dae meshes need pycollada)."""
    import importlib.metadata

    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    path = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    coupled, tree = rd.load(path), rd.load(path, mimic="independent")
    q = np.array([0.1, -0.4, 0.2, -1.8, 0.3, 1.2, 0.5, 0.03])
    with V.show(coupled, q, port=free_port()) as view:
        assert len(view._sliders) == coupled.dof == 8
        assert [s.value for s in view._sliders] == pytest.approx(q)
        drawn = view._poses(q)
        meshes, notes = len(view._meshes), view.notes
    with V.show(tree, np.r_[q, q[-1]], port=free_port()) as view:
        expected = view._poses(np.r_[q, q[-1]])
    for (r1, o1), (r2, o2) in zip(drawn, expected, strict=True):
        np.testing.assert_allclose(r1, r2, atol=1e-14)
        np.testing.assert_allclose(o1, o2, atol=1e-14)
    visuals = len(V.urdf_meshes(coupled)[0])
    try:
        import collada  # noqa: F401  (trimesh reads .dae through it)
    except ImportError:
        assert any(".dae" in note or "not drawn" in note for note in notes)
    else:
        assert meshes == visuals > 0 and notes == []


@needs_viser
def test_the_manipulability_ellipsoids_follow_the_arm_with_the_books_axes():
    """planar-2r, by hand: J = [[-l1 s1 - l2 s12, -l2 s12], [l1 c1 + l2 c12, l2 c12]] in
    the arm's plane (x, y): the kinematic ellipse's semi-axes are sqrt(eig(J J^T)) along
    its eigenvectors; the dynamic one's those of J M^-2 J^T (Siciliano eq. 7.128); each
    drawn at the end effector, its largest semi-axis 0.3 of the reach, and moved by
    set_q."""
    robot = rd.load("planar-2r")
    l1, l2 = robot.values["l1"], robot.values["l2"]
    for q in (np.array([0.3, 0.9]), np.array([-0.7, 1.6])):
        s1, c1 = np.sin(q[0]), np.cos(q[0])
        s12, c12 = np.sin(q.sum()), np.cos(q.sum())
        J = np.array([[-l1 * s1 - l2 * s12, -l2 * s12], [l1 * c1 + l2 * c12, l2 * c12]])
        Minv = np.linalg.inv(robot.mass_matrix(q))
        with V.show(robot, [0.0, 0.0], port=free_port(), manipulability=True) as view:
            view.set_q(q)
            drawn = view.manipulability
            handle = view._manip["kinematic"]
            np.testing.assert_allclose(handle.position, [l1 * c1 + l2 * c12,
                                                         l1 * s1 + l2 * s12, 0.0], atol=1e-12)
            scale = drawn["scale"]["kinematic"]
            assert max(handle.scale) == pytest.approx(0.3 * view.reach, rel=1e-12)
        for name, Q in (("kinematic", J @ J.T), ("dynamic", J @ Minv @ Minv.T @ J.T)):
            values, vectors = np.linalg.eigh(Q)
            ellipsoid = drawn[name]
            # the plane's two semi-axes (the normal's is zero), ascending
            np.testing.assert_allclose(ellipsoid.semi_axes[1:], np.sqrt(values), rtol=1e-10)
            for k in range(2):  # each axis along its eigenvector (up to sign)
                axis = ellipsoid.axes[:2, k + 1]
                assert abs(abs(axis @ vectors[:, k]) - 1) < 1e-10
        np.testing.assert_allclose(sorted(handle.scale)[1:],
                                   drawn["kinematic"].semi_axes[1:] * scale, rtol=1e-12)


@needs_viser
@pytest.mark.parametrize("name", ["four-bar", "delta"])
def test_a_closed_mechanism_opens_assembled_and_its_actuated_sliders_keep_the_loops(name):
    """The view of a model with loops opens on an assembled pose, draws each loop's two
    frames (together where closed), and moves by its actuated sliders: the passive joints
    are solved for them (their sliders disabled), so the loops stay closed."""
    robot = rd.load(name)
    chain = robot.closed_chain()
    with V.show(robot, port=free_port()) as view:
        assert np.abs(chain.residual(view.q)).max() < 1e-9
        assert [s.disabled for s in view._sliders] == [
            j not in chain.actuated for j in range(robot.dof)]
        k = chain.actuated[0]
        slider = view._sliders[k]
        slider.value = float(view.q[k] + 0.1)
        view._from_sliders()
        assert view.q[k] == pytest.approx(slider.value)
        assert np.abs(chain.residual(view.q)).max() < 1e-9
        for loop, (a, b) in enumerate(zip(view._loop_ends[::2], view._loop_ends[1::2])):
            frame = chain.loops[loop].frame_a
            np.testing.assert_allclose(a.position, robot.forward_kinematics(view.q, frame)[:3, 3],
                                       atol=1e-12)
            np.testing.assert_allclose(a.position, b.position, atol=1e-9)
        # a value no assembly reaches leaves the last pose and says why
        before = view.q.copy()
        slider.value = float(slider.max)
        view._from_sliders()
        assert np.array_equal(view.q, before) or np.abs(chain.residual(view.q)).max() < 1e-9
