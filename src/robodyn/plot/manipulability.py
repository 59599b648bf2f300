"""The kinematic and dynamic manipulability ellipsoids drawn on the arm (Siciliano §3.9 and
§7.9; the ellipsoids themselves are :mod:`robodyn.dynamics.manipulability`'s)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.errors import InputError
from ..dynamics.manipulability import Ellipsoid, dynamic_ellipsoid, kinematic_ellipsoid
from .arm_figure import arm, drawing_plane
from .common import finite_array, new_figure, save_figure

if TYPE_CHECKING:
    from ..robot import Robot

__all__ = ["manipulability"]


def _draw_2d(ax, centre, ellipse: Ellipsoid, scale: float, color: str, label: str
             ) -> np.ndarray:
    s = np.linspace(0.0, 2 * np.pi, 181)
    unit = np.stack([np.cos(s), np.sin(s)])                                # (2, S)
    points = centre[:, None] + scale * ellipse.axes @ (ellipse.semi_axes[:, None] * unit)
    ax.plot(points[0], points[1], color=color, lw=2, label=label, zorder=6)
    ax.fill(points[0], points[1], color=color, alpha=0.15, zorder=2)
    return points.T


def _draw_3d(ax, centre, ellipse: Ellipsoid, scale: float, color: str, label: str
             ) -> np.ndarray:
    u, v = np.meshgrid(np.linspace(0, 2 * np.pi, 30), np.linspace(0, np.pi, 16))
    sphere = np.stack([np.cos(u) * np.sin(v), np.sin(u) * np.sin(v), np.cos(v)])
    points = centre[:, None, None] + scale * np.einsum(
        "ij,jkl->ikl", ellipse.axes * ellipse.semi_axes, sphere)
    ax.plot_surface(*points, color=color, alpha=0.3, linewidth=0)
    ax.plot([], [], color=color, lw=6, alpha=0.5, label=label)
    return points.reshape(3, -1).T


def _equal_limits(ax, points: np.ndarray) -> None:
    """Equal scale on every axis with every point ``(N, 2 or 3)`` inside."""
    low, high = points.min(axis=0), points.max(axis=0)
    half, centre = max(float(np.max(high - low)) / 2 * 1.1, 0.05), (low + high) / 2
    setters = (ax.set_xlim, ax.set_ylim, getattr(ax, "set_zlim", None))
    for k in range(points.shape[1]):
        setters[k](centre[k] - half, centre[k] + half)
    if points.shape[1] == 2:
        ax.set_aspect("equal", adjustable="box")
    else:
        ax.set_box_aspect((1, 1, 1))


def manipulability(robot: Robot, q: ArrayLike, frame: str | None = None, *,
                   path: str | os.PathLike[str] | None = None) -> Figure:
    """The arm at ``q`` twice, side by side: with its kinematic manipulability ellipse(oid)
    ``v^T (J J^T)^-1 v <= 1`` at ``frame`` (default the end effector) and with its dynamic
    one ``x_dd^T (J M^-1 M^-T J^T)^-1 x_dd <= 1`` (accelerations at rest, gravity aside,
    from torques of unit norm; Siciliano eq. 7.128). Planar arms: ellipses in the arm's
    plane; spatial arms: the ellipsoids of the linear part (``J``'s first three rows). Each
    is scaled to the arm's size (the scale is in the legend); the titles give the measures
    ``w = sqrt(det(J J^T))`` and ``w_d = sqrt(det(J M^-2 J^T))``. Saves to ``path`` when
    given; returns the figure.
    """
    q = finite_array(q, "q")
    if robot.floating or q.shape != (robot.nq,):
        raise InputError(f"q: expected {robot.nq} joint values of a fixed-base arm, got shape "
                         f"{q.shape}")
    plane = drawing_plane(robot)
    planar = plane is not None
    J = robot.jacobian(q, frame)[:3]
    M = robot.mass_matrix(q)
    origins = np.stack([robot.forward_kinematics(q, f)[:3, 3] for f in robot.frames])
    centre = robot.forward_kinematics(q, frame)[:3, 3]
    if planar:
        J, centre, origins = plane @ J, plane @ centre, origins @ plane.T
    reach = float(np.sum(np.linalg.norm(np.diff(origins, axis=0), axis=-1))) or 1.0
    fig = new_figure((11.0, 5.5))
    kinds = (("kinematic", kinematic_ellipsoid(J), "#1f77b4", "m/s", "joint rates"),
             ("dynamic", dynamic_ellipsoid(M, J), "#d62728", "m/s²", "joint torques"))
    for k, (name, ellipse, color, unit, source) in enumerate(kinds):
        ax = fig.add_subplot(1, 2, k + 1, **({} if planar else {"projection": "3d"}))
        arm(robot, q, ax=ax, frames=False)
        biggest = float(np.max(ellipse.semi_axes)) or 1.0
        scale = 0.3 * reach / biggest  # metres drawn per unit
        label = f"{name}: 1 {unit} drawn as {scale:.3g} m"
        drawn = (_draw_2d if planar else _draw_3d)(ax, centre, ellipse, scale, color, label)
        _equal_limits(ax, np.concatenate([origins, drawn]))
        measure = "w" if name == "kinematic" else "w_d"
        ax.set_title(f"{name}, unit-norm {source}: {measure} = {float(ellipse.measure):.4g}",
                     fontsize="medium")
        ax.legend(loc="lower left", fontsize="small")
    shown = np.array2string(q, precision=3, separator=", ", suppress_small=True)
    fig.suptitle(f"{robot.name} at q = {shown}: manipulability ellipsoids")
    save_figure(fig, path)
    return fig
