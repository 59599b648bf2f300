"""The arm in a browser: a 3D view served on ``127.0.0.1`` with viser (the optional extra
``pip install robodyn[viewer]``, imported only here, only when a view is started).

:func:`show` draws the robot at ``q``: the links as cylinders between consecutive frame
origins (:data:`LINK_COLOR`), every link frame as axes (x red, y green, z blue), each
centre of mass as a sphere (:data:`COM_COLOR`) and each link's *inertia ellipsoid*: the
uniform solid ellipsoid of the link's mass with the same inertia about its centre of
mass. Its principal axes are the eigenvectors of the inertia tensor and, for principal
moments ``I1, I2, I3`` and mass ``m``, its semi-axes are ``a1 = sqrt(5 (I2 + I3 - I1) /
(2 m))`` and so on (from ``I1 = m (a2^2 + a3^2) / 5``). A tensor that breaks the
triangle inequality (a planar model, some published data) has no such ellipsoid: its
imaginary semi-axes are drawn flat. A slider per joint moves the arm; with ``sim`` (a
:class:`~robodyn.Simulation`, anything with ``t`` and ``q``, or the CSV that
``robodyn simulate --save`` writes) a time slider and a play button replay the motion in
real time. Model and joint names appear only as plain text (slider labels, a read-only
text field), never as markup.

A robot loaded from a URDF file also shows the ``<visual>`` meshes of its links where
the file names them and they can be read (:func:`urdf_meshes`: STL, OBJ, DAE, ... through
trimesh, at most :data:`MAX_MESH_BYTES` each; ``package://pkg/path`` is looked for beside
the URDF file and in its parent folders). Mesh files are confined as MJCF includes are: in
the URDF file's folder, or for ``package://pkg/...`` in a parent folder named ``pkg``;
``file:///etc/passwd`` or ``package://pkg/../../..`` is refused, and each is read only if
it is a regular file (never a pipe). What cannot be drawn (trimesh missing, a file not
found, refused or unreadable, a bad ``scale=`` of that mesh alone) is listed in
:attr:`Viewer.notes` and in the page; the rest of the view
is unchanged. Meshes are only read, never run.
"""

from __future__ import annotations

import contextlib
import io
import socket
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ..core.csv_table import read_number_table
from ..core.errors import InputError, RobodynError, excerpt
from ..core.files import read_regular_file
from ..dynamics.kinematics import link_poses, tip_pose
from .loop_geometry import loop_picture
from .viewer_meshes import MAX_MESH_BYTES, urdf_meshes
from .viewer_meshes import plain_text as _text

__all__ = ["show", "Viewer", "read_motion", "LINK_COLOR", "COM_COLOR", "ELLIPSOID_COLOR",
           "HOST", "DEFAULT_PORT", "INSTALL"]

#: Colours (RGB) of the links, the centres of mass and the inertia ellipsoids.
LINK_COLOR = (235, 120, 20)
COM_COLOR = (30, 80, 220)
ELLIPSOID_COLOR = (120, 180, 255)
#: Colour of a closed mechanism's loop closures (the two frames each joins, the gap).
LOOP_COLOR = (150, 60, 180)
#: Colours of the kinematic and dynamic manipulability ellipsoids (``manipulability=True``).
KINEMATIC_COLOR = (31, 119, 180)
DYNAMIC_COLOR = (214, 39, 40)
#: The only address the viewer listens on.
HOST = "127.0.0.1"
DEFAULT_PORT = 8080
#: What to run when viser is missing.
INSTALL = "pip install 'robodyn[viewer]'"
#: Longest motion replayed, in samples (a longer one is thinned evenly).
MAX_PLAYBACK_SAMPLES = 100_000

_OPS = SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, name="numpy")


def _viser():
    """The viser module, or a :class:`~robodyn.RobodynError` that says how to install it."""
    try:
        import viser
    except ImportError:
        raise RobodynError(f"the 3D viewer needs the viser package: {INSTALL}") from None
    return viser


def _quaternion(rot: np.ndarray) -> np.ndarray:
    """``(w, x, y, z)`` of the rotation matrix ``rot`` (Shepperd's method)."""
    m = rot
    trace = m[0, 0] + m[1, 1] + m[2, 2]
    if trace > 0:
        s = 2.0 * np.sqrt(1.0 + trace)
        q = [s / 4, (m[2, 1] - m[1, 2]) / s, (m[0, 2] - m[2, 0]) / s, (m[1, 0] - m[0, 1]) / s]
    elif m[0, 0] > m[1, 1] and m[0, 0] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[0, 0] - m[1, 1] - m[2, 2])
        q = [(m[2, 1] - m[1, 2]) / s, s / 4, (m[0, 1] + m[1, 0]) / s, (m[0, 2] + m[2, 0]) / s]
    elif m[1, 1] > m[2, 2]:
        s = 2.0 * np.sqrt(1.0 + m[1, 1] - m[0, 0] - m[2, 2])
        q = [(m[0, 2] - m[2, 0]) / s, (m[0, 1] + m[1, 0]) / s, s / 4, (m[1, 2] + m[2, 1]) / s]
    else:
        s = 2.0 * np.sqrt(1.0 + m[2, 2] - m[0, 0] - m[1, 1])
        q = [(m[1, 0] - m[0, 1]) / s, (m[0, 2] + m[2, 0]) / s, (m[1, 2] + m[2, 1]) / s, s / 4]
    q = np.array(q)
    return q / np.linalg.norm(q)


def _z_to(direction: np.ndarray) -> np.ndarray:
    """A rotation matrix that turns the z axis into the unit vector ``direction``."""
    z = direction / np.linalg.norm(direction)
    helper = np.array([1.0, 0.0, 0.0]) if abs(z[0]) < 0.9 else np.array([0.0, 1.0, 0.0])
    x = np.cross(helper, z)
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _bar(handle, a: np.ndarray, b: np.ndarray) -> None:
    """Place a unit-height cylinder ``handle`` between the points ``a`` and ``b`` (hidden
    where they coincide)."""
    length = float(np.linalg.norm(b - a))
    handle.visible = length > 1e-9
    if length > 1e-9:
        handle.position = tuple((a + b) / 2)
        handle.wxyz = tuple(_quaternion(_z_to(b - a)))
        handle.scale = (1.0, 1.0, length)


def inertia_ellipsoid(mass: float, inertia) -> tuple[np.ndarray, np.ndarray]:
    """Semi-axes ``(3,)`` and principal axes (the columns of a rotation ``(3, 3)``, link
    frame) of the uniform solid ellipsoid of ``mass`` with the inertia tensor ``inertia``
    about its centre (module docstring). Semi-axes whose square would be negative (a tensor
    that breaks the triangle inequality) are 0; a massless link has all three 0."""
    inertia = np.asarray(inertia, dtype=float)
    moments, axes = np.linalg.eigh((inertia + inertia.T) / 2)
    if np.linalg.det(axes) < 0:
        axes[:, 2] = -axes[:, 2]
    if not mass > 0:
        return np.zeros(3), axes
    total = moments.sum()
    squares = 5.0 * (total - 2.0 * moments) / (2.0 * mass)  # I2 + I3 - I1 = total - 2 I1
    return np.sqrt(np.clip(squares, 0.0, None)), axes


def read_motion(path, dof: int) -> tuple[np.ndarray, np.ndarray]:
    """``(t (T,), q (T, dof))`` from a CSV with columns ``t, q1..`` (what ``robodyn simulate
    --save run.csv`` writes; other columns are ignored). ``t`` must increase."""
    columns = ["t", *[f"q{j}" for j in range(1, dof + 1)]]
    table = read_number_table(path, columns, label="--sim ",
                              expected="t,q1.." + (f"q{dof}" if dof > 1 else ""))
    values = table.values
    return _motion(values[:, 0], values[:, 1:], dof, "--sim")


def _motion(t, q, dof: int, what: str) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t, dtype=float).reshape(-1)
    q = np.asarray(q, dtype=float)
    if q.ndim != 2 or q.shape != (t.shape[0], dof):
        raise InputError(f"{what}: expected q of shape ({t.shape[0]}, {dof}) for t of "
                         f"{t.shape[0]} samples, got {q.shape}")
    if t.shape[0] < 1 or not (np.isfinite(t).all() and np.isfinite(q).all()):
        raise InputError(f"{what}: expected finite samples (at least one)")
    if np.any(np.diff(t) <= 0):
        k = int(np.argmax(np.diff(t) <= 0))
        raise InputError(f"{what}: the times must increase (sample {k + 2}: t = {t[k + 1]:g} "
                         f"after {t[k]:g})")
    if t.shape[0] > MAX_PLAYBACK_SAMPLES:
        keep = np.linspace(0, t.shape[0] - 1, MAX_PLAYBACK_SAMPLES).astype(int)
        t, q = t[keep], q[keep]
    return t, q


def _check_port(port) -> None:
    if isinstance(port, bool) or not isinstance(port, (int, np.integer)) \
            or not 1 <= int(port) <= 65535:
        raise InputError(f"port: expected a whole number from 1 to 65535, got {excerpt(port)}")


def _free_port(port: int) -> int:
    """``port`` if nothing listens on it at :data:`HOST`, else an error naming it."""
    _check_port(port)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        # as the server binds: a port left in TIME_WAIT by a closed view is free
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((HOST, int(port)))
        except OSError:
            raise InputError(f"port: {port} is in use on {HOST}; choose another "
                             "(--port)") from None
    return int(port)


class Viewer:
    """A running view of a robot (:func:`show`): ``url``, ``port``, ``notes`` (what could
    not be drawn); :meth:`set_q` moves the arm, :meth:`wait` blocks until ``timeout`` or
    Ctrl-C, :meth:`close` stops the server (a ``with`` block does)."""

    def __init__(self, robot, q, motion, port: int, frames: bool, inertia: bool,
                 manipulability: bool = False):
        viser = _viser()
        self.robot = robot
        self.chain = robot.numeric_chain
        self.dof = robot.dof
        self.nq = robot.nq  # values of q: quaternions of ball and free joints too
        self.port = _free_port(port)
        self.url = f"http://{HOST}:{self.port}"
        self._stop = threading.Event()
        self._player = None
        self.notes: list[str] = []
        self._manipulability = manipulability and not robot.floating
        #: the manipulability ellipsoids drawn (``kinematic``, ``dynamic``; ``scale``)
        self.manipulability: dict = {}
        with _quiet():  # viser prints a banner; robodyn says the URL itself
            self.server = viser.ViserServer(host=HOST, port=self.port, verbose=False)
        try:
            self._build(q, motion, frames, inertia)
        except BaseException:
            self.close()
            raise

    # -- the scene ----------------------------------------------------------------------
    def _poses(self, q: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
        """``(R, o)`` of the base frame, every link frame and the end effector at ``q``."""
        tree_q = _unit(self.chain, _lifted(self.robot, np.asarray(q, dtype=float)))
        poses = link_poses(self.chain, [float(x) for x in tree_q], _OPS)
        poses = [(np.eye(3), np.zeros(3)), *poses, tip_pose(self.chain, poses)]
        return [(np.array(r, dtype=float), np.array(o, dtype=float)) for r, o in poses]

    def _build(self, q, motion, frames: bool, inertia: bool) -> None:
        scene = self.server.scene
        self.q = np.array(q, dtype=float)
        poses = self._poses(self.q)
        points = np.array([o for _, o in poses])
        if self.chain.parents:  # consecutive frames of a tree may sit on different branches
            reach = max(float(np.ptp(points, axis=0).max()), 0.1)
        else:
            reach = max(sum(np.linalg.norm(b[1] - a[1]) for a, b in zip(poses, poses[1:])), 0.1)
        self.radius = 0.025 * reach
        scene.set_up_direction("+z")
        centre = (points.min(axis=0) + points.max(axis=0)) / 2
        self.server.initial_camera.look_at = tuple(centre)
        self.server.initial_camera.position = tuple(centre + reach * np.array([1.1, -1.3, 0.7]))
        scene.add_grid("/ground", width=2.5 * reach, height=2.5 * reach,
                       cell_size=reach / 10, position=(0.0, 0.0, min(0.0, min(
                           o[2] for _, o in poses) - 0.01 * reach)))
        self._links = [scene.add_cylinder(f"/robot/link_{k}", radius=self.radius, height=1.0,
                                          color=LINK_COLOR, radial_segments=16)
                       for k in range(len(poses) - 1)]
        self._frames = [scene.add_frame(f"/robot/frame_{k}", axes_length=0.12 * reach,
                                        axes_radius=0.15 * self.radius, visible=frames)
                        for k in range(len(poses))]
        self._coms, self._ellipsoids = [], []
        for k, link in enumerate(self.chain.links):
            mass = float(link.inertial.mass)
            self._coms.append(scene.add_icosphere(
                f"/robot/com_{k}", radius=1.6 * self.radius, color=COM_COLOR,
                visible=mass > 0))
            axes_len, axes = inertia_ellipsoid(mass, link.inertial.inertia)
            flat = 0.05 * self.radius  # an imaginary semi-axis is drawn this thin
            self._ellipsoids.append((scene.add_icosphere(
                f"/robot/inertia_{k}", radius=1.0, color=ELLIPSOID_COLOR, opacity=0.35,
                scale=tuple(np.maximum(axes_len, flat)), visible=inertia and mass > 0),
                axes))
        self._meshes = self._add_meshes()
        self._add_loops()
        self.reach = reach
        self._manip = {name: scene.add_icosphere(f"/robot/manipulability_{name}", radius=1.0,
                                                 color=color, opacity=0.3)
                       for name, color in (("kinematic", KINEMATIC_COLOR),
                                           ("dynamic", DYNAMIC_COLOR))
                       } if self._manipulability else {}
        self._place(poses)
        self._gui(motion)

    def _add_loops(self) -> None:
        """A closed mechanism's loops (:func:`~robodyn.plot.loop_geometry.loop_picture`):
        the link parts that carry closure frames (as links), a sphere at each loop's two
        frames and a thin bar between them (the gap, where a loop is open)."""
        self._closed = None
        picture = loop_picture(self.robot, self.q)
        if picture is None:
            self._loop_parts, self._loop_ends, self._loop_gaps = [], [], []
            return
        scene, r = self.server.scene, self.radius
        self._closed = self.robot.closed_chain()
        self._loop_parts = [scene.add_cylinder(f"/robot/loop_part_{k}", radius=r, height=1.0,
                                               color=LINK_COLOR, radial_segments=16)
                            for k in range(len(picture.parts))]
        self._loop_ends = [scene.add_icosphere(f"/robot/loop_{k}_{side}", radius=1.4 * r,
                                               color=LOOP_COLOR)
                           for k in range(len(picture.ends)) for side in (0, 1)]
        self._loop_gaps = [scene.add_cylinder(f"/robot/loop_gap_{k}", radius=0.4 * r,
                                              height=1.0, color=LOOP_COLOR)
                           for k in range(len(picture.ends))]

    def _place_loops(self) -> None:
        picture = loop_picture(self.robot, self.q)
        if picture is None:
            return
        for handle, (a, b) in zip(self._loop_parts, picture.parts, strict=True):
            _bar(handle, a, b)
        for k, ends in enumerate(picture.ends):
            for side in (0, 1):
                self._loop_ends[2 * k + side].position = tuple(ends[side])
            _bar(self._loop_gaps[k], ends[0], ends[1])

    def _add_meshes(self) -> list:
        """The URDF file's visual meshes, as ``(k, T, handle)``; notes for the rest."""
        meshes, self.notes = urdf_meshes(self.robot)
        if not meshes:
            return []
        try:
            import trimesh
        except ImportError:
            self.notes.append(f"{len(meshes)} meshes not drawn: they need the trimesh "
                              "package (pip install trimesh)")
            return []
        out = []
        for i, (k, T, path, scale) in enumerate(meshes):
            try:
                data = read_regular_file(path, MAX_MESH_BYTES)  # never a pipe
                if len(data) > MAX_MESH_BYTES:
                    raise ValueError(f"over {MAX_MESH_BYTES:,} bytes")
                mesh = trimesh.load(io.BytesIO(data), file_type=path.suffix.lstrip(".").lower(),
                                    force="mesh")
                if len(mesh.faces) == 0 or not np.isfinite(mesh.vertices).all():
                    raise ValueError("no faces with finite vertices")
                mesh.apply_scale(scale)
            except Exception as exc:  # whatever the file is, it is not a mesh we can draw
                self.notes.append(f"mesh {_text(path.name)} not drawn: {_text(exc)}")
                continue
            out.append((k, T, self.server.scene.add_mesh_trimesh(f"/robot/mesh_{i}", mesh)))
        return out

    def _place(self, poses) -> None:
        """Move every drawn thing to the frames ``poses``."""
        dof = self.chain.dof
        for k, handle in enumerate(self._links):
            # link k from its parent's origin (a tree's branches), the tip from the last link
            _bar(handle, poses[self.chain.parent(k) + 1 if k < dof else dof][1], poses[k + 1][1])
        self._place_loops()
        for handle, (rot, origin) in zip(self._frames, poses):
            handle.position = tuple(origin)
            handle.wxyz = tuple(_quaternion(rot))
        for k, T, handle in self._meshes:
            rot, origin = poses[k + 1]
            handle.position = tuple(origin + rot @ T[:3, 3])
            handle.wxyz = tuple(_quaternion(rot @ T[:3, :3]))
        if self._manip:
            self._place_manipulability()
        for k, link in enumerate(self.chain.links):
            rot, origin = poses[k + 1]
            centre = origin + rot @ np.array(link.inertial.com, dtype=float)
            self._coms[k].position = tuple(centre)
            ellipsoid, axes = self._ellipsoids[k]
            ellipsoid.position = tuple(centre)
            ellipsoid.wxyz = tuple(_quaternion(rot @ axes))

    def _place_manipulability(self) -> None:
        """The kinematic and dynamic manipulability ellipsoids of the end effector's
        velocity at ``self.q`` (Siciliano eqs. 3.81, 7.128; the numbers of
        :func:`robodyn.plot.manipulability`), each scaled so that its largest semi-axis is
        0.3 of the arm's reach (``self.manipulability["scale"]``)."""
        from ..dynamics.manipulability import dynamic_ellipsoid, kinematic_ellipsoid

        q = np.asarray(self.q, dtype=float)
        J = self.robot.jacobian(q)[:3]
        centre = self.robot.forward_kinematics(q)[:3, 3]
        ellipsoids = {"kinematic": kinematic_ellipsoid(J),
                      "dynamic": dynamic_ellipsoid(self.robot.mass_matrix(q), J)}
        scales = {}
        for name, ellipsoid in ellipsoids.items():
            biggest = float(np.max(ellipsoid.semi_axes)) or 1.0
            scales[name] = 0.3 * self.reach / biggest
            axes = ellipsoid.axes.copy()
            if np.linalg.det(axes) < 0:  # eigenvectors as a rotation
                axes[:, -1] *= -1
            handle = self._manip[name]
            handle.position = tuple(centre)
            handle.wxyz = tuple(_quaternion(axes))
            # a zero semi-axis (a planar arm's normal) drawn thin, not as nothing
            handle.scale = tuple(np.maximum(ellipsoid.semi_axes * scales[name],
                                            0.05 * self.radius))
        self.manipulability = {**ellipsoids, "scale": scales}

    # -- the controls --------------------------------------------------------------------
    def _gui(self, motion) -> None:
        gui = self.server.gui
        self._name_field = gui.add_text("model", initial_value=_text(self.robot.name),
                                        disabled=True)
        if self.notes:
            gui.add_text("not drawn", initial_value=_text("; ".join(self.notes)),
                         disabled=True)
        self._sliders = []
        # a closed mechanism moves by its actuated joints; the passive ones follow the loops
        passive = set() if self._closed is None else set(self._closed.passive.tolist())
        if passive:
            self._loop_note = gui.add_text("loops", initial_value="the passive joints follow "
                                           "the actuated ones", disabled=True)
        with gui.add_folder("joints"):
            for j, (low, high, label) in enumerate(_sliders(self.robot, self.q)):
                slider = gui.add_slider(label, min=low, max=high, step=(high - low) / 1000,
                                        initial_value=float(self.q[j]), disabled=j in passive)
                slider.on_update(lambda _: self._from_sliders())
                self._sliders.append(slider)
        self._motion = motion
        if motion is not None:
            t, _ = motion
            with gui.add_folder("playback"):
                self._time = gui.add_slider("t [s]", min=float(t[0]),
                                            max=float(max(t[-1], t[0] + 1e-9)),
                                            step=max(float(t[-1] - t[0]) / 1000, 1e-6),
                                            initial_value=float(t[0]))
                self._playing = gui.add_checkbox("play", initial_value=False)
                self._time.on_update(lambda _: self._at_time(self._time.value))
            self._player = threading.Thread(target=self._play, name="robodyn-viewer-play",
                                            daemon=True)
            self._player.start()

    def _from_sliders(self) -> None:
        q = np.array([s.value for s in self._sliders], dtype=float)
        if self._closed is not None:
            if np.array_equal(q[self._closed.actuated], self.q[self._closed.actuated]):
                return  # a passive slider set by the assembly below
            try:  # Newton from the last pose: the branch the mechanism is on
                q = self._closed.assemble(q[self._closed.actuated], self.q).q
            except RobodynError as exc:
                self._loop_note.value = _text(f"not assembled: {exc}", 200)
                return
            self._loop_note.value = "the passive joints follow the actuated ones"
            self.set_q(q)
            return
        self.q = q
        self._place(self._poses(self.q))

    def _at_time(self, when: float) -> None:
        t, q = self._motion
        # quaternions interpolated value by value and made unit again (drawn, not integrated)
        self.set_q(_unit(self.chain, [np.interp(when, t, q[:, j]) for j in range(self.nq)]))

    def _play(self) -> None:
        """Advance the time slider in real time while ``play`` is ticked (30 frames a
        second), from the start again at the end."""
        t, _ = self._motion
        last = time.monotonic()
        while not self._stop.wait(1 / 30):
            now = time.monotonic()
            if self._playing.value:
                when = self._time.value + (now - last)
                self._time.value = float(t[0] if when > t[-1] else when)
            last = now

    def set_q(self, q) -> None:
        """Show the arm at ``q`` (and set the joint sliders to it)."""
        q = np.asarray(q, dtype=float).reshape(-1)
        if q.shape != (self.nq,) or not np.isfinite(q).all():
            raise InputError(f"q: expected {self.nq} finite joint values, got {excerpt(q)}")
        self.q = q
        with self.server.atomic():
            for slider, value in zip(self._sliders, q):
                slider.value = float(np.clip(value, slider.min, slider.max))
            self._place(self._poses(q))

    def wait(self, timeout: float | None = None) -> None:
        """Block until ``timeout`` seconds have passed (None: until Ctrl-C), then return."""
        deadline = None if timeout is None else time.monotonic() + float(timeout)
        try:
            while deadline is None or time.monotonic() < deadline:
                left = 1.0 if deadline is None else min(1.0, deadline - time.monotonic())
                if self._stop.wait(max(left, 0.0)):
                    return
        except KeyboardInterrupt:
            return

    def close(self) -> None:
        """Stop the playback and the server (the port is free again)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._player is not None:
            self._player.join(timeout=5)
        with _quiet():
            self.server.stop()

    def __enter__(self) -> Viewer:
        return self

    def __exit__(self, *_) -> None:
        self.close()

    def __repr__(self) -> str:
        state = "stopped" if self._stop.is_set() else "running"
        return f"<robodyn Viewer of {_text(self.robot.name)!r} at {self.url} ({state})>"


@contextlib.contextmanager
def _quiet():
    """Standard output swallowed (viser's banner and its "server stopped")."""
    with contextlib.redirect_stdout(io.StringIO()):
        yield


def _home(robot) -> np.ndarray:
    """Where the view opens: the neutral configuration (zeros, identity quaternions), each
    one-value joint whose limits exclude 0 at the middle of its limits (the Panda's elbow
    cannot be at 0); a closed mechanism's ``home`` configuration where its model has one
    (assembled by :func:`_assembled`)."""
    closures = robot.chain.closures
    if closures is not None and closures.loops and "home" in robot.configurations:
        return np.array(robot.configurations["home"], dtype=float)
    q = robot.neutral()
    for link, k in _coordinates(robot):
        limits = link.joint.limits
        if link.joint.nq != 1 or limits is None or len(limits) < 2 or None in limits[:2]:
            continue
        lo, hi = float(limits[0]), float(limits[1])
        if np.isfinite(lo) and np.isfinite(hi) and lo < hi and not lo <= q[k] <= hi:
            q[k] = 0.5 * (lo + hi)
    return q


def _assembled(robot, q: np.ndarray) -> np.ndarray:
    """``q`` of a closed mechanism with its loops closed (its passive joints solved for its
    actuated ones, from ``q``); unchanged where it is closed already, or where no assembly
    is found (the view then shows the loops' gaps)."""
    closures = robot.chain.closures
    if closures is None or not closures.loops:
        return q
    chain = robot.closed_chain()
    if np.abs(chain.residual(q)).max() <= 1e-9:
        return q
    try:
        return chain.assemble(q[chain.actuated], q).q
    except RobodynError:
        return q


def _coordinates(robot) -> list:
    """``(link, k)``: each joint that has values in the robot's ``q`` and where they start.
    A model with coupled joints (URDF mimic, MJCF ``<equality joint>``) has values of its
    independent joints only; the others follow (:func:`_lifted`)."""
    chain = robot.numeric_chain
    independent = getattr(robot.runner, "independent", None)
    if independent is None:
        return list(zip(chain.links, chain.q_offsets(), strict=True))
    return [(chain.links[i], k) for k, i in enumerate(independent)]


def _lifted(robot, q: np.ndarray) -> np.ndarray:
    """The tree's ``q`` of the robot's: ``G y + b`` for coupled joints, else ``q``."""
    runner = robot.runner
    G = getattr(runner, "G", None)
    return q if G is None else G @ q + runner.b


def _unit(chain, q) -> np.ndarray:
    """``q`` with each quaternion made unit (the identity where a slider set it to 0)."""
    q = np.array(q, dtype=float)
    if chain.single_valued:
        return q
    for link, k in zip(chain.links, chain.q_offsets(), strict=True):
        start = link.joint.model.quaternion
        if start is not None and np.linalg.norm(q[k + start:k + start + 4]) < 1e-9:
            q[k + start:k + start + 4] = (0.0, 0.0, 0.0, 1.0)
    return chain.normalized(q)


def _sliders(robot, q) -> list[tuple[float, float, str]]:
    """``(low, high, label)`` of a slider per value of ``q``: a one-value joint's range
    (:func:`_slider_range`); a free joint's ``x, y, z`` in ``[-1, 1]`` m and a quaternion's
    ``qx .. qw`` in ``[-1, 1]`` (made unit when drawn), each widened to hold its value."""
    out = []
    for j, (link, k) in enumerate(_coordinates(robot)):
        name = _text(link.joint.name)
        label = f"q{j + 1}" + (f" {name}" if name else "")
        if link.joint.nq == 1:
            out.append((*_slider_range(link.joint, q[k]), label))
            continue
        parts = (["x", "y", "z"] if link.joint.type == "free" else []) + ["qx", "qy", "qz", "qw"]
        for i, part in enumerate(parts):
            value = float(q[k + i])
            out.append((min(-1.0, value), max(1.0, value), f"{label} {part}"))
    return out


def _slider_range(joint, value: float) -> tuple[float, float]:
    """The joint's limits where the model has finite ones, else ``[-pi, pi]`` (revolute)
    or ``[-1, 1]`` m (prismatic); widened to hold ``value``."""
    low, high = (-np.pi, np.pi) if joint.type == "revolute" else (-1.0, 1.0)
    limits = joint.limits
    if limits is not None and len(limits) >= 2 and limits[0] is not None \
            and limits[1] is not None:
        lo, hi = float(limits[0]), float(limits[1])
        if np.isfinite(lo) and np.isfinite(hi) and lo < hi:
            low, high = lo, hi
    return min(low, float(value)), max(high, float(value))


def show(robot, q=None, sim=None, *, port: int = DEFAULT_PORT, frames: bool = True,
         inertia: bool = True, manipulability: bool = False) -> Viewer:
    """Serve a 3D view of ``robot`` at ``q`` (``nq`` values; default the neutral configuration,
    zeros and identity quaternions, a joint whose limits exclude 0 at their middle; the first
    sample of ``sim``)
    on ``http://127.0.0.1:port`` and return the running :class:`Viewer` (module
    docstring): open its ``url`` in a browser. ``sim``: a motion to replay (anything with
    ``t`` and ``q``, e.g. a :class:`~robodyn.Simulation`, or the path of a CSV with
    columns ``t, q1..``). ``frames``, ``inertia``: draw the link frames and the inertia
    ellipsoids; ``manipulability``: the kinematic (blue) and dynamic (red) manipulability
    ellipsoids of the end effector's velocity, moving with the sliders (a fixed base).
    The server runs in the background until :meth:`Viewer.close`; a script calls
    :meth:`Viewer.wait` to keep it up. Needs viser (:data:`INSTALL`)."""
    from ..robot import Robot

    if not isinstance(robot, Robot):
        raise InputError(f"robot: expected a robodyn Robot (rd.load(...)), got "
                         f"{type(robot).__name__}")
    dof = robot.nq  # values of q (quaternions x y z w of ball and free joints)
    motion = None
    if sim is not None:
        if isinstance(sim, (str, Path)):
            motion = read_motion(sim, dof)
        elif hasattr(sim, "t") and hasattr(sim, "q"):
            motion = _motion(sim.t, sim.q, dof, "sim")
        else:
            raise InputError(f"sim: expected a Simulation (anything with t and q) or a CSV "
                             f"path, got {type(sim).__name__}")
    if q is None:
        q = motion[1][0] if motion is not None else _home(robot)
    q = np.asarray(q, dtype=float)
    if q.ndim == 0:
        q = np.full(dof, float(q))
    if q.shape != (dof,) or not np.isfinite(q).all():
        raise InputError(f"q: expected {dof} finite joint values, got {excerpt(q.tolist())}")
    q = _assembled(robot, q)
    _check_port(port)  # before viser is imported: a bad argument is named first
    return Viewer(robot, q, motion, port, bool(frames), bool(inertia), bool(manipulability))
