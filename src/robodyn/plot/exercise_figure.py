"""The figure of an exercise sheet: the arm at one pose, as a textbook draws it.

:func:`exercise_figure` draws a Denavit–Hartenberg model (``robot.dh_rows``) at joint values
``q``: the links as thick lines through the DH frame origins ``o_0 .. o_n``, the joints
(a circle for a revolute joint, a square for a prismatic one), every DH frame ``i`` with its
``x_i`` (red), ``y_i`` (green) and ``z_i`` (blue) axes, labelled; each joint variable
(``theta_i`` as an arc from ``x_{i-1}`` to ``x_i`` in a planar drawing, ``d_i`` along its
slider), each link length (``l_i`` beside the link), each centre of mass (a dot ``C_i``)
and each point mass (a dot with its mass's name). Arms whose joint axes ``z_i`` are all
parallel to ``z_0`` and whose points all lie in one plane normal to it are drawn in the
``x_0``-``y_0`` plane (``z`` out of the page, drawn
as a dot in a circle), others in 3D.

The DH frames are those of the table (standard: ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i)
Rx(alpha_i)``; modified: ``Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``), the frames
the model file gives its centres of mass in.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import sympy as sp

from ..core.errors import InputError
from ..model.dh import dh_matrix

__all__ = ["exercise_figure", "dh_frames"]


def _number(expr, values, what: str) -> float:
    table = {sp.Symbol(k): v for k, v in values.items()}
    # model data are SymPy expressions or numbers already: nothing is parsed here
    value = expr.xreplace(table) if isinstance(expr, sp.Basic) else expr
    try:
        return float(value)
    except TypeError:
        raise InputError(f"exercise_figure: {what} = {expr} has no value "
                         f"({', '.join(sorted(map(str, value.free_symbols)))})") from None


def dh_frames(robot, q) -> list[np.ndarray]:
    """``T_0i`` (4x4) of the DH frames ``0 .. n`` of ``robot`` at ``q`` (module docstring)."""
    rows = getattr(robot, "dh_rows", ()) or ()
    if len(rows) != robot.dof:
        raise InputError(f"exercise_figure: {robot.name} has no DH table to draw its frames "
                         "from (a model file with a, alpha, d, theta per link)")
    modified = getattr(robot, "convention", None) == "modified"
    values = robot.values
    out = [np.eye(4)]
    for i, row in enumerate(rows):
        a, alpha, d, theta = (_number(getattr(row, k), values, f"links[{i}].{k}")
                              for k in ("a", "alpha", "d", "theta"))
        if row.joint == "revolute":
            theta += float(q[i])
        else:
            d += float(q[i])
        out.append(out[-1] @ dh_matrix(a, alpha, d, theta, modified))
    return out


def _bodies(robot, q):
    """``(centres of mass, point masses, their links)`` in the base frame: ``[(k, p)]``,
    ``[(name of the mass, p)]`` and ``[k]``, from the chain's link frames."""
    from ..dynamics.kinematics import link_poses
    from ..model.chain import link_bodies

    ops = _NUMPY
    chain = robot.numeric_chain
    symbolic = robot.chain
    coms, points, links = [], [], []
    for k, ((rot, origin), link, sym) in enumerate(zip(link_poses(chain, list(q), ops),
                                                       chain.links, symbolic.links,
                                                       strict=True), start=1):
        rot, origin = np.array(rot, dtype=float), np.array(origin, dtype=float)
        bodies = link_bodies(link)
        coms.append((k, origin + rot @ np.array(bodies[0].com, dtype=float)))
        for body, point in zip(bodies[1:], sym.point_masses, strict=True):
            points.append((str(point.mass), origin + rot @ np.array(body.com, dtype=float)))
            links.append(k)
    return coms, points, links


class _Numpy:
    sin, cos, sqrt, sign = staticmethod(np.sin), staticmethod(np.cos), \
        staticmethod(np.sqrt), staticmethod(np.sign)
    name = "numpy"


_NUMPY = _Numpy()


def _tex(name: str) -> str:
    """A symbol's name as mathtext: ``theta_1`` -> ``\\theta_{1}``, ``lc1`` ->
    ``\\ell_{c_1}``, ``mE`` -> ``m_{E}``, ``l2`` -> ``l_{2}``."""
    import re

    greek = {"theta", "alpha", "phi", "psi", "beta", "gamma"}
    m = re.fullmatch(r"(theta|alpha|phi|psi|beta|gamma)_?(\d+)", name)
    if m:
        return rf"\{m.group(1)}_{{{m.group(2)}}}"
    m = re.fullmatch(r"lc(\d+)", name)
    if m:
        return rf"\ell_{{c_{m.group(1)}}}"
    m = re.fullmatch(r"([A-Za-z])([A-Za-z]*\d*)", name)
    if m and m.group(2) and name not in greek:
        return f"{m.group(1)}_{{{m.group(2)}}}"
    return name


def exercise_figure(robot, q, path, *, names=None, title: str | None = None) -> Path:
    """Draw ``robot`` at ``q`` as the module describes and save it to ``path`` (PNG);
    ``names``: how to label joint ``i``'s variable (``{"q1": "theta_1"}``, default the
    model's ``display`` names). Returns the path written."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    q = np.asarray(q, dtype=float).reshape(-1)
    if q.shape != (robot.dof,) or not np.isfinite(q).all():
        raise InputError(f"q: expected {robot.dof} finite joint values, got {q.tolist()}")
    frames = dh_frames(robot, q)
    coms, points, point_links = _bodies(robot, q)
    display = dict(getattr(getattr(robot, "provenance", None), "display", ()) or ())
    names = dict(display, **(names or {}))
    origins = np.array([T[:3, 3] for T in frames])
    tip = np.asarray(robot.forward_kinematics(q), dtype=float)[:3, 3]
    drawn = np.vstack([origins, tip[None, :], *(p[None, :] for _, p in coms + points)])
    span = max(float(np.ptp(drawn, axis=0).max()), 0.3)
    axis_len = 0.18 * span
    # drawn in the x0-y0 plane when every joint axis is normal to it and every point on it
    planar = (all(abs(abs(T[2, 2]) - 1) < 1e-9 for T in frames)
              and float(np.ptp(drawn[:, 2])) < 1e-9 * span)
    fig = Figure(figsize=(7.5, 6.0), dpi=130)
    FigureCanvasAgg(fig)
    ax = fig.add_subplot(111) if planar else fig.add_subplot(111, projection="3d")
    dims = 2 if planar else 3

    def P(p):
        return tuple(p[:dims])

    def text(p, s, **kw):
        ax.text(*P(p), s, **{"fontsize": 11, **kw})

    # links. Standard DH: joint i on z_{i-1} at o_{i-1}, then d_i along z_{i-1} and a_i
    # along x_i to o_i. Modified: a_{i-1} along x_{i-1} to joint i, d_i along z_i to o_i.
    rows = robot.dh_rows
    modified = getattr(robot, "convention", None) == "modified"
    for i in range(1, len(frames)):
        before, after = frames[i - 1], frames[i]
        a, b = before[:3, 3], after[:3, 3]
        if modified:
            joint_at = a + before[:3, 0] * float(np.dot(b - a, before[:3, 0]))
            pts, axis_frame, length_seg = [a, joint_at, b], after, (a, joint_at)
        else:
            z = before[:3, 2]
            mid = a + z * float(np.dot(b - a, z))
            joint_at, pts, axis_frame, length_seg = a, [a, mid, b], before, (mid, b)
        pts = np.array(pts)
        ax.plot(*pts[:, :dims].T, color="0.25", lw=5, solid_capstyle="round", zorder=2)
        kind = rows[i - 1].joint
        marker = "o" if kind == "revolute" else "s"
        ax.plot(*P(joint_at), marker=marker, ms=13, mfc="white", mec="black", mew=2, zorder=4)
        var = names.get(f"q{i}", f"q{i}")
        p0, p1 = length_seg
        if np.linalg.norm(p1 - p0) > 1e-9:  # a link length
            normal = np.cross(axis_frame[:3, 2], (p1 - p0) / np.linalg.norm(p1 - p0))
            # beside the link's outer part, on the side away from the centre-of-mass label
            text(p0 + 0.7 * (p1 - p0) - 0.08 * span * normal, f"${_tex(str(rows[i - 1].a))}$",
                 color="0.2", ha="center", va="center")
        if kind == "revolute":
            _angle(ax, before, after, joint_at, planar, 0.22 * span, f"${_tex(var)}$")
        else:
            slide = axis_frame[:3, 2]
            side = np.cross(slide, axis_frame[:3, 0])
            text(joint_at + 0.5 * float(np.dot(b - joint_at, slide)) * slide
                 + 0.07 * span * side, f"${_tex(var)}$", color="purple", ha="center",
                 va="center")
    if modified:  # the end effector, past the last frame
        seg = np.array([frames[-1][:3, 3], tip])
        ax.plot(*seg[:, :dims].T, color="0.25", lw=5, solid_capstyle="round", zorder=2)
    # frames
    colors = ("tab:red", "tab:green", "tab:blue")
    for k, T in enumerate(frames):
        o = T[:3, 3]
        for c, (name, color) in enumerate(zip("xyz", colors, strict=True)):
            d = T[:3, c]
            if planar and c == 2:
                ax.plot(*P(o), marker="o", ms=7, mfc="white", mec=color, zorder=6)
                ax.plot(*P(o), marker=".", ms=3, color=color, zorder=7)
                continue
            end = o + axis_len * d
            if planar:
                ax.annotate("", xy=P(end), xytext=P(o),
                            arrowprops=dict(arrowstyle="->", color=color, lw=1.5), zorder=5)
            else:
                ax.quiver(*o, *(axis_len * d), color=color, lw=1.5, arrow_length_ratio=0.2)
            text(end + 0.03 * span * d, f"${name}_{{{k}}}$", color=color, ha="center",
                 va="center")
        same = [j for j in range(k) if np.linalg.norm(frames[j][:3, 3] - o) < 1e-9 * span]
        if not same:  # coincident origins get one label, O_1 = O_2
            twins = [j for j in range(k, len(frames))
                     if np.linalg.norm(frames[j][:3, 3] - o) < 1e-9 * span]
            label = " = ".join(f"O_{{{j}}}" for j in twins)
            text(o - 0.08 * span * (T[:3, 0] + T[:3, 1]) / 2, f"${label}$", color="0.3",
                 ha="center", va="center", fontsize=9)
    # labels beside the link, along +y_k (centres of mass) and -y_k (point masses)
    for k, p in coms:
        ax.plot(*P(p), marker="o", ms=8, color="tab:orange", mec="black", zorder=8)
        text(p + 0.08 * span * frames[k][:3, 1], f"$C_{{{k}}}$", color="tab:orange",
             ha="center", va="center")
    for (mass, p), k in zip(points, point_links, strict=True):
        ax.plot(*P(p), marker="o", ms=12, color="black", zorder=8)
        text(p - 0.1 * span * frames[k][:3, 1], f"${_tex(mass)}$", ha="center",
             va="center")
    if planar:
        ax.set_aspect("equal")
        lo, hi = drawn[:, :2].min(axis=0) - 0.3 * span, drawn[:, :2].max(axis=0) + 0.3 * span
        ax.set_xlim(lo[0], hi[0])
        ax.set_ylim(lo[1], hi[1])
        ax.set_xlabel("$x_0$")
        ax.set_ylabel("$y_0$")
    else:
        center = (drawn.min(axis=0) + drawn.max(axis=0)) / 2
        for setter, c in zip((ax.set_xlim, ax.set_ylim, ax.set_zlim), center, strict=True):
            setter(c - 0.7 * span, c + 0.7 * span)
        ax.set_xlabel("$x_0$")
        ax.set_ylabel("$y_0$")
        ax.set_zlabel("$z_0$")
    gravity = np.array(robot.numeric_chain.gravity, dtype=float)
    if np.linalg.norm(gravity) > 0:
        g = gravity / np.linalg.norm(gravity)
        start = origins[0] + np.array([-0.25 * span, 0.25 * span, 0.0])
        if planar and abs(g[2]) < 1e-9:
            ax.annotate("", xy=P(start + 0.2 * span * g), xytext=P(start),
                        arrowprops=dict(arrowstyle="-|>", color="black", lw=1.2))
            text(start + 0.1 * span * g + np.array([0.04 * span, 0, 0]), "$g$")
        elif not planar:
            ax.quiver(*start, *(0.2 * span * g), color="black", arrow_length_ratio=0.25)
            text(start + 0.22 * span * g, "$g$")
    ax.grid(alpha=0.2)
    ax.set_title(title or robot.name, fontsize="medium")
    path = Path(path)
    fig.tight_layout()
    fig.savefig(path)
    return path


def _angle(ax, before, after, o, planar, radius, label):
    """The arc of a revolute joint's angle from ``x_{i-1}`` to ``x_i`` about the joint's
    axis at ``o`` (planar), or the label beside the joint (3D)."""
    if not planar:
        ax.text(*(o + 0.5 * radius * (before[:3, 0] + before[:3, 1])), label, color="purple",
                fontsize=11)
        return
    x0, x1 = before[:3, 0], after[:3, 0]
    start = np.arctan2(x0[1], x0[0])
    sweep = np.arctan2(np.cross(x0, x1)[2], float(np.dot(x0, x1)))
    t = np.linspace(start, start + sweep, 40)
    ax.plot(o[0] + radius * np.cos(t), o[1] + radius * np.sin(t), color="purple", lw=1.2)
    ax.plot([o[0], o[0] + 1.3 * radius * np.cos(start)],
            [o[1], o[1] + 1.3 * radius * np.sin(start)], color="purple", lw=0.8, ls="--")
    mid = start + sweep / 2
    ax.text(o[0] + 1.35 * radius * np.cos(mid), o[1] + 1.35 * radius * np.sin(mid), label,
            color="purple", fontsize=12, ha="center", va="center")
