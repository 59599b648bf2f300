"""The arm itself (Matplotlib): :func:`arm`, a stick figure through the link frames (2D for
planar arms, 3D otherwise), and :func:`animate`, that stick figure along a simulation,
written as a GIF (Pillow) or MP4 (ffmpeg; :func:`animation_writer` checks for it first).

The figures are built on their own canvas (:func:`robodyn.plot.common.new_figure`), in m
on every axis; given ``path=``, :func:`arm` saves its figure there.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.errors import InputError, excerpt, positive_number
from ..core.progress import ProgressOption, check_progress, tracker
from ..dynamics.kinematics import link_poses, tip_pose
from ..model.checks import PARALLEL_TOL, parallel
from ..motion.trajectory import whole_steps
from .common import finite_array, new_figure, sampled, save_figure
from .loop_geometry import loop_picture

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from ..motion.simulation import Simulation
    from ..motion.trajectory import Motion, Trajectory
    from ..robot import Robot

__all__ = ["arm", "animate", "animation_writer", "MAX_FRAMES"]

#: Default bound on the frames of :func:`animate`.
MAX_FRAMES = 300

#: NumPy functions as the ``ops`` of the scalar kinematics (works on floats and arrays).
_OPS = SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, name="numpy")
_AXIS_COLORS = ("#d62728", "#2ca02c", "#1f77b4")  # frame axes x, y, z: red, green, blue
_COORDS = "xyz"


class _Geometry:
    """Frames of a robot's links for drawing: origins and rotations at many ``q``, and the
    plane of a planar arm (None for a spatial one)."""

    def __init__(self, robot):
        self.robot = robot
        self.chain = robot.numeric_chain
        self.dof = len(self.chain.links)  # frames: the base, one a link, the tip
        self.nq = robot.nq  # values of a configuration (quaternions with ball, free joints)
        tip = self.chain.tip
        self.tip_moves = not (np.allclose(np.array(tip.rotation, dtype=float), np.eye(3))
                              and np.allclose(np.array(tip.translation, dtype=float), 0.0))
        self.plane = _plane(self)
        self.path = _stick_path(self.chain)

    def frames(self, Q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Origins ``(N, K, 3)`` and rotations ``(N, K, 3, 3)`` of the base frame, every link
        frame and the end effector (``K = dof + 2``) at joint values ``Q`` ``(N, dof)``."""
        n = Q.shape[0]
        poses = link_poses(self.chain, [Q[:, j] for j in range(self.nq)], _OPS)
        poses = [(((1, 0, 0), (0, 1, 0), (0, 0, 1)), (0, 0, 0)), *poses,
                 tip_pose(self.chain, poses)]

        def full(x):
            return np.broadcast_to(np.asarray(x, dtype=float), (n,))

        origins = np.stack([np.stack([full(c) for c in p], axis=-1) for _, p in poses], axis=1)
        rotations = np.stack([np.stack([np.stack([full(c) for c in row], axis=-1)
                                        for row in r], axis=-2) for r, _ in poses], axis=1)
        return origins, rotations

    def axes(self, Q: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray]]:
        """World directions ``(N, 3)`` of the revolute and of the prismatic joint axes."""
        _, rotations = self.frames(Q)
        revolute, prismatic = [], []
        for j, link in enumerate(self.chain.links):
            axis = np.array(link.joint.axis, dtype=float)
            direction = rotations[:, j + 1] @ axis
            (revolute if link.joint.type == "revolute" else prismatic).append(direction)
        return revolute, prismatic


def _stick_path(chain) -> np.ndarray:
    """Indices into the frames of :meth:`_Geometry.frames` (0 the base, ``i + 1`` link
    ``i``, ``dof + 1`` the end effector) that draw the stick figure as one line, ``-1`` a
    break: base, links, tip in a row for a serial chain; for a tree each link from its
    parent's origin, one segment each. A free body (a free joint on the world) is not tied
    to the base by a line."""
    n = chain.dof
    free = [chain.parent(i) < 0 and link.joint.type == "free"
            for i, link in enumerate(chain.links)]
    if chain.is_serial:
        return np.arange(1 if free and free[0] else 0, n + 2)
    path: list[int] = []
    for i in range(n):
        start = i + 1 if free[i] else chain.parent(i) + 1
        if path and path[-1] == start:
            path.append(i + 1)
        else:
            path += ([-1] if path else []) + [start, i + 1]
    path += [-1, n, n + 1]  # the end effector on the last link
    return np.array(path)


def _plane(geometry: _Geometry):
    """``(normal, basis (2, 3), axis names)`` when the arm moves in one plane (every revolute
    axis along the normal, every prismatic axis in the plane, every frame origin on it, at
    generic joint values), else None."""
    if not geometry.chain.single_valued:  # a ball or free joint turns the arm out of any plane
        return None
    dof = geometry.dof
    generic = np.array([[0.0] * dof,
                        [0.37 * (j + 1) for j in range(dof)],
                        [-0.61 + 0.23 * j for j in range(dof)]])
    origins, _ = geometry.frames(generic)
    revolute, prismatic = geometry.axes(generic)
    points = origins.reshape(-1, 3)
    scale = max(1.0, float(np.max(np.abs(points))))
    tol = PARALLEL_TOL

    def fits(n):
        return (all(np.all(parallel(a, n)) for a in revolute)
                and all(np.all(np.abs(a @ n) <= tol) for a in prismatic)
                and np.ptp(points @ n) < tol * scale)

    candidates = []
    if revolute:
        candidates.append(revolute[0][0])
    else:
        dirs = [a[0] for a in prismatic]
        crosses = [np.cross(a, b) for a in dirs for b in dirs]
        crosses = [c for c in crosses if np.linalg.norm(c) > 1e-6]
        if crosses:
            candidates.append(crosses[0])
        else:  # one sliding direction: any plane through it
            candidates += [np.cross(dirs[0], e) for e in np.eye(3)]
            candidates = [c for c in candidates if np.linalg.norm(c) > 1e-6]
    for n in candidates:
        n = n / np.linalg.norm(n)
        if fits(n):
            return _plane_basis(n)
    return None


def _plane_basis(n: np.ndarray):
    k = int(np.argmax(np.abs(n)))
    if abs(abs(n[k]) - 1.0) < 1e-9:  # a coordinate plane: keep the coordinates' names
        i, j = {2: (0, 1), 1: (0, 2), 0: (1, 2)}[k]
        return n, np.eye(3)[[i, j]], (_COORDS[i], _COORDS[j])
    e = np.eye(3)[int(np.argmin(np.abs(n)))]
    u = e - (e @ n) * n
    u /= np.linalg.norm(u)
    return n, np.stack([u, np.cross(n, u)]), ("u", "v")


class _ArmDrawing:
    """The artists of a stick figure on ``ax`` (2D or 3D) and their update to a new ``q``."""

    def __init__(self, ax, geometry: _Geometry, frames: bool, frame_length: float):
        self.ax, self.geometry, self.length = ax, geometry, frame_length
        self.planar = geometry.plane is not None
        self.links = self._line("-o", color="0.25", lw=3.0, ms=6, mfc="white", zorder=3,
                                label="links")
        self.tip = self._line("*", color="black", ms=11, zorder=4, label="end effector")
        self.frame_lines = []
        if frames:
            count = geometry.dof + 1 + geometry.tip_moves
            for k in range(count):
                self.frame_lines.append([self._line("-", color=c, lw=1.6, zorder=5,
                                                    label=f"_frame{k}{_COORDS[a]}")
                                         for a, c in enumerate(_AXIS_COLORS)])

    def _line(self, style, **kwargs):
        if self.planar:
            return self.ax.plot([], [], style, **kwargs)[0]
        return self.ax.plot([], [], [], style, **kwargs)[0]

    def _set(self, line, points: np.ndarray) -> None:
        if self.planar:
            xy = points @ self.geometry.plane[1].T
            line.set_data(xy[:, 0], xy[:, 1])
        else:
            line.set_data_3d(points[:, 0], points[:, 1], points[:, 2])

    def update(self, origins: np.ndarray, rotations: np.ndarray) -> None:
        """Draw the figure of one configuration: origins ``(K, 3)``, rotations ``(K, 3, 3)``."""
        path = self.geometry.path
        points = origins[path]
        points[path < 0] = np.nan  # a break between a tree's branches
        self._set(self.links, points)
        self._set(self.tip, origins[-1:])
        # frames at the base, each link and (when it is another frame) the end effector
        keep = list(range(self.geometry.dof + 1))
        if self.geometry.tip_moves:
            keep.append(self.geometry.dof + 1)
        for lines, k in zip(self.frame_lines, keep):
            for a, line in enumerate(lines):
                end = origins[k] + self.length * rotations[k][:, a]
                self._set(line, np.stack([origins[k], end]))


def _frame_length(origins: np.ndarray, tree: bool = False) -> float:
    """A tenth of the arm's length along its links (at least 1 mm; 0.1 m for a point); of a
    tree's largest extent (consecutive frames of a tree may lie on different branches)."""
    if tree:
        reach = float(np.max(np.ptp(origins, axis=-2)))
    else:
        reach = float(np.max(np.sum(np.linalg.norm(np.diff(origins, axis=-2), axis=-1),
                                    axis=-1)))
    return 0.1 * reach if reach > 1e-2 else 0.1


def _frame_ends(origins: np.ndarray, rotations: np.ndarray, length: float) -> np.ndarray:
    """The tips of every frame's axes, ``(N, 3 K, 3)``: ``o_k + length R_k e_a``."""
    ends = origins[:, :, None, :] + length * np.swapaxes(rotations, -1, -2)
    return ends.reshape(origins.shape[0], -1, 3)


def _limits(ax, geometry: _Geometry, points: np.ndarray) -> None:
    """Equal scale on every axis, every point of ``points`` ``(..., 3)`` inside."""
    points = points.reshape(-1, 3)
    if geometry.plane is not None:
        xy = points @ geometry.plane[1].T
        low, high = xy.min(axis=0), xy.max(axis=0)
        half = max(float(np.max(high - low)) / 2 * 1.15, 0.05)
        centre = (low + high) / 2
        ax.set_xlim(centre[0] - half, centre[0] + half)
        ax.set_ylim(centre[1] - half, centre[1] + half)
        ax.set_aspect("equal", adjustable="box")
        names = geometry.plane[2]
        ax.set_xlabel(f"{names[0]} [m]")
        ax.set_ylabel(f"{names[1]} [m]")
        ax.grid(True, alpha=0.3)
    else:
        low, high = points.min(axis=0), points.max(axis=0)
        half = max(float(np.max(high - low)) / 2 * 1.1, 0.05)
        centre = (low + high) / 2
        for k, setter in enumerate((ax.set_xlim, ax.set_ylim, ax.set_zlim)):
            setter(centre[k] - half, centre[k] + half)
        ax.set_box_aspect((1, 1, 1))
        ax.set_xlabel("x [m]")
        ax.set_ylabel("y [m]")
        ax.set_zlabel("z [m]")


def drawing_plane(robot: Robot) -> np.ndarray | None:
    """The basis ``(2, 3)`` of the plane :func:`arm` draws a planar arm in, else None."""
    plane = _Geometry(robot).plane
    return None if plane is None else plane[1]


def _new_axes(geometry: _Geometry, figsize=(6.0, 6.0)):
    fig = new_figure(figsize)
    if geometry.plane is not None:
        return fig, fig.add_subplot()
    return fig, fig.add_subplot(projection="3d")


def _joint_vector(q, robot) -> np.ndarray:
    arr = finite_array(q, "q")
    if arr.shape != (robot.nq,):
        raise InputError(f"q: expected {robot.nq} joint values, got shape {arr.shape}")
    return arr if robot.chain.single_valued else robot.chain.normalized(arr)


def arm(robot: Robot, q: ArrayLike, ax: Axes | None = None, frames: bool = True, *,
        path: str | os.PathLike[str] | None = None, title: str | None = None) -> Figure:
    """A stick figure of ``robot`` at joint values ``q`` ``(dof,)``: a line through the base
    origin, every link frame origin ``o_i`` of ``T_0i = T_0,i-1 P_i J_i(q_i)``
    (:func:`~robodyn.dynamics.kinematics.link_poses`) and the end effector (a star), and,
    with ``frames``, each frame's axes (x red, y green, z blue; a tenth of the arm long).

    Planar arms (every revolute axis normal to one plane, every prismatic axis in it, every
    origin on it) are drawn in 2D in that plane's coordinates; others in 3D. Equal scale on
    every axis, in m. ``ax``: draw into this Axes (2D or 3D to match) instead of a new
    figure. Saves to ``path`` when given; returns the figure.
    """
    q = _joint_vector(q, robot)
    geometry = _Geometry(robot)
    if ax is None:
        fig, ax = _new_axes(geometry)
    else:
        fig = ax.figure
        if (ax.name == "3d") == (geometry.plane is not None):
            want = "a 2D Axes" if geometry.plane is not None else "a 3D Axes (projection='3d')"
            raise InputError(f"ax: {robot.name} is drawn on {want}, got a {ax.name!r} Axes")
    origins, rotations = geometry.frames(q[None, :])
    length = _frame_length(origins, bool(robot.chain.parents))
    drawing = _ArmDrawing(ax, geometry, frames, length)
    drawing.update(origins[0], rotations[0])
    loops = _draw_loops(drawing, robot, q)
    points = (np.concatenate([origins, _frame_ends(origins, rotations, length)], axis=1)
              if frames else origins)
    _limits(ax, geometry, np.concatenate([points, loops[None]], axis=1))
    shown = np.array2string(q, precision=3, separator=", ", suppress_small=True)
    ax.set_title(title or f"{robot.name} at q = {shown}", fontsize="medium")
    save_figure(fig, path)
    return fig


def _draw_loops(drawing: _ArmDrawing, robot, q: np.ndarray) -> np.ndarray:
    """A closed mechanism's loop closures (:func:`~robodyn.plot.loop_geometry.loop_picture`):
    the parts of links that carry a closure frame, a triangle where a frame is fixed to the
    base (a ground pivot), and a dashed line between the two frames of each loop (a point
    where the loop is closed, the gap where it is not)."""
    picture = loop_picture(robot, q)
    if picture is None:
        return np.zeros((0, 3))
    for start, point in picture.parts:
        drawing._set(drawing._line("-", color="0.25", lw=3.0, zorder=3, label="_link part"),
                     np.stack([start, point]))
    for k, (ends, grounded) in enumerate(zip(picture.ends, picture.on_base, strict=True)):
        drawing._set(drawing._line("--", color="tab:purple", lw=1.4, zorder=6,
                                   label="loop closure" if k == 0 else "_loop"), ends)
        for point, on_base in zip(ends, grounded, strict=True):
            style = "^" if on_base else "o"
            drawing._set(drawing._line(style, color="tab:purple", ms=10 if style == "^" else 8,
                                       mfc="none", mew=1.6, zorder=6, label="_end"),
                         point[None, :])
    return np.concatenate(picture.ends)


def animation_writer(path: str | os.PathLike[str], option: str = "path"):
    """The Matplotlib writer class for an animation file ``path`` (``.gif``: Pillow;
    ``.mp4``: ffmpeg, which must be on the PATH), else an :class:`InputError` naming
    ``option``: callers check before the work whose result they animate."""
    from matplotlib import animation  # only animations pay this import

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix == ".gif":
        return animation.PillowWriter
    if suffix == ".mp4":
        if not animation.FFMpegWriter.isAvailable():
            raise InputError(f"{option}: {excerpt(path.name)}: writing .mp4 needs ffmpeg on the "
                             "PATH, which was not found; install ffmpeg or write a .gif")
        return animation.FFMpegWriter
    raise InputError(f"{option}: {excerpt(path.name)}: use a .gif or .mp4 file name")


def animate(robot: Robot, sim: Simulation | Motion | Trajectory, path: str | os.PathLike[str],
            fps: float = 30, *, max_frames: int = MAX_FRAMES, frames: bool = True,
            dpi: float = 80, title: str | None = None,
            progress: ProgressOption = None) -> Figure:
    """The stick figure of :func:`arm` moving along ``sim`` (a Simulation, Motion or
    Trajectory), written to ``path``: ``.gif`` (Pillow) or ``.mp4`` (needs ``ffmpeg``).

    Frames are ``1/fps`` apart in simulated time, ``q`` linearly interpolated between the
    samples, and play in real time. A motion longer than ``max_frames / fps`` gets
    ``max_frames`` frames spread evenly (a lower frame rate, still real time). Returns the
    figure (showing the last frame). ``progress`` counts the frames written
    (:mod:`robodyn.core.progress`: a bar on a terminal by default, ``False`` for none, or a
    callable ``(done, total, label)``).
    """
    check_progress(progress)
    path = Path(path)
    writer_class = animation_writer(path)
    fps = positive_number(fps, "fps")
    if isinstance(max_frames, bool) or not isinstance(max_frames, (int, np.integer)) \
            or max_frames < 1:
        raise InputError(f"max_frames: expected a positive whole number, got "
                         f"{excerpt(max_frames)}")
    s = sampled(sim, need=("q",))
    if s.dof != robot.nq:
        raise InputError(f"sim: has {s.dof} joint values a sample, the robot {robot.name!r} "
                         f"{robot.nq}")
    duration = float(s.t[-1] - s.t[0])
    count = min(whole_steps(duration, 1.0 / fps) + 1, int(max_frames))
    times = np.linspace(s.t[0], s.t[-1], count) if count > 1 else s.t[:1]
    play_fps = (count - 1) / duration if count > 1 else fps
    Q = np.stack([np.interp(times, s.t, s.q[:, j]) for j in range(s.dof)], axis=-1)
    if not robot.chain.single_valued:  # quaternions interpolated: unit again for drawing
        Q = robot.chain.normalized(Q)

    geometry = _Geometry(robot)
    origins, rotations = geometry.frames(Q)
    fig, ax = _new_axes(geometry, (5.0, 5.0))
    length = _frame_length(origins, bool(robot.chain.parents))
    drawing = _ArmDrawing(ax, geometry, frames, length)
    _limits(ax, geometry, np.concatenate([origins, _frame_ends(origins, rotations, length)],
                                         axis=1) if frames else origins)
    ax.set_title(title or robot.name, fontsize="medium")
    if geometry.plane is not None:
        clock = ax.text(0.02, 0.97, "", transform=ax.transAxes, va="top")
    else:
        clock = ax.text2D(0.02, 0.97, "", transform=ax.transAxes, va="top")
    writer = writer_class(fps=play_fps)
    # the layout of the first frame serves every frame: constrained layout solved once, not
    # again for each of them (it was half of each frame's drawing)
    fig.canvas.draw()
    fig.set_layout_engine("none")
    with writer.saving(fig, str(path), dpi), tracker(progress, count, "animating") as bar:
        for k in range(count):
            drawing.update(origins[k], rotations[k])
            clock.set_text(f"t = {times[k]:.2f} s")
            writer.grab_frame()
            bar.advance()
    return fig
