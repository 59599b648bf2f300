"""A drawing of the arm as SVG text, for the HTML page: no plotting library needed.

:func:`arm_svg` places the arm at a generic pose (every joint away from zero, so that no
two links line up) with the model's parameter values, by the forward kinematics of
:mod:`robodyn.dynamics.kinematics`, and draws it in the plane of motion of a planar arm
(seen along its joint axes) or in an oblique view of a spatial one: the links, the joints
(a circle for a revolute joint, a sleeve for a prismatic one), each centre of mass, the
frames (the DH frames ``0..n`` of a standard DH table, where the textbook draws them,
else the link frames) with their axes ``x`` (red), ``y`` (green), ``z`` (blue, a dot or
a cross where it points at or away from the reader), the joint variables and gravity.
Every label is escaped; nothing of the model reaches the SVG as markup.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from html import escape
from types import SimpleNamespace

import sympy as sp

from ...core import linalg3 as la
from ...dynamics.kinematics import link_poses
from ...model.chain import Transform
from ...model.names import visible
from .mathml import GREEK

#: Joint angles of the pose drawn (revolute joints, in turn; radians).
POSE_ANGLES = (0.6, 0.75, -0.65, 0.8, 0.55, -0.7)
#: Extension of a prismatic joint in the pose drawn, as a fraction of the arm's size.
POSE_EXTENSION = 1.35
#: Value given to a parameter the model has no number for (a length of 1, a mass of 1).
STAND_IN = 1.0
#: Width of the drawing, in CSS pixels.
WIDTH = 460
AXIS_COLOURS = ("#c0392b", "#1e8449", "#2563b0")
_FLOAT_OPS = SimpleNamespace(sin=math.sin, cos=math.cos, sqrt=math.sqrt,
                             sign=lambda x: math.copysign(1.0, x) if x else 0.0, name="float")


class FigureError(ValueError):
    """The arm cannot be drawn (a number of the model is not finite with its values)."""


@dataclass(frozen=True)
class Pose:
    """The pose drawn: joint values, and the values used for the parameters."""

    q: tuple[float, ...]
    values: dict
    stand_ins: tuple[str, ...] = ()  # the parameters without a value, drawn as STAND_IN


def _number(x, table) -> float:
    value = x.xreplace(table) if isinstance(x, sp.Basic) else x
    try:
        out = float(value)
    except (TypeError, ValueError):
        raise FigureError(f"{str(x)[:60]} is not a number with the model's values") from None
    if not math.isfinite(out):
        raise FigureError(f"{str(x)[:60]} is not finite with the model's values")
    return out


def numeric_chain(eq):
    """``eq``'s chain with every parameter a float (the model's values, else
    :data:`STAND_IN`) and the values used."""
    values = {}
    for s in eq.chain.free_symbols():
        v = eq.defaults.get(s.name, STAND_IN)
        values[s.name] = float(v) if isinstance(v, (int, float)) else STAND_IN
    table = {sp.Symbol(k): sp.Float(v) for k, v in values.items()}
    return eq.chain.map(lambda x: _number(x, table)), values, table


def _norm(v) -> float:
    return math.sqrt(sum(c * c for c in v))


def _unit(v):
    n = _norm(v)
    return tuple(c / n for c in v) if n > 1e-12 else None


def generic_pose(chain) -> tuple[float, ...]:
    """Joint values away from zero: :data:`POSE_ANGLES` for the revolute joints, and
    :data:`POSE_EXTENSION` of the arm's size for the prismatic ones (most of the travel,
    where that is beyond a joint's limits)."""
    size = sum(_norm(link.joint.placement.translation) + _norm(link.inertial.com)
               for link in chain.links) + _norm(chain.tip.translation)
    size = size if size > 1e-9 else 1.0
    q, k = [], 0
    for link in chain.links:
        if link.joint.type == "revolute":
            q.append(POSE_ANGLES[k % len(POSE_ANGLES)])
            k += 1
        else:
            q.append(POSE_EXTENSION * size)
            limits = link.joint.limits
            if limits is not None and not limits[0] <= q[-1] <= limits[1] \
                    and math.isfinite(limits[0]) and math.isfinite(limits[1]):
                # a short travel (a gripper's finger): most of it, within the limits
                q[-1] = limits[0] + 0.8 * (limits[1] - limits[0])
    return tuple(q)


def _frame(transform: Transform, table):
    rot = tuple(tuple(_number(x, table) for x in row) for row in transform.rotation)
    return rot, tuple(_number(x, table) for x in transform.translation)


def _compose(a, b):
    (ra, pa), (rb, pb) = a, b
    return la.matmul(ra, rb), la.add(pa, la.matvec(ra, pb))


def frames(eq, chain, poses, table) -> tuple[list, str]:
    """The frames to draw, base first, and what they are: the standard DH frames (link
    frame ``i`` at the distal end of link ``i``, Siciliano) when the model has a standard
    DH table, else the chain's link frames."""
    base = (la.IDENTITY3, (0.0, 0.0, 0.0))
    rows = getattr(eq, "dh_rows", ())
    if rows and getattr(eq, "convention", None) == "standard" and len(rows) == len(poses):
        out = [base]
        for row, pose in zip(rows, poses, strict=True):
            first = Transform.trans(z=row.d) if row.joint == "revolute" else \
                Transform.rot_z(row.theta)
            x = first @ Transform.trans(x=row.a) @ Transform.rot_x(row.alpha)
            out.append(_compose(pose, _frame(x, table)))
        return out, "DH frames"
    return [base, *poses], "link frames"


def _branch_end(chain, poses, drawn, which: str, i: int):
    """Where a tree's branch that ends at link ``i`` (no children, not the last link)
    ends: its DH frame's origin when DH frames are drawn, else its first named frame
    (``chain.frames``), else its link frame's origin."""
    if which == "DH frames":
        return drawn[i + 1][1]
    for frame in chain.frames:
        if frame.link == i:
            rot, pos = poses[i]
            return la.add(pos, la.matvec(rot, tuple(float(x)
                                                    for x in frame.placement.translation)))
    return poses[i][1]


class _View:
    """The projection of base-frame points onto the drawing (screen ``y`` down)."""

    def __init__(self, chain, poses, path=()):
        axes = [_unit(la.matvec(rot, link.joint.axis))
                for link, (rot, _) in zip(chain.links, poses, strict=True)]
        gravity = _unit(chain.gravity)
        revolute = [a for a, link in zip(axes, chain.links, strict=True)
                    if link.joint.type == "revolute" and a]
        normal = None
        if revolute and all(_norm(la.cross(revolute[0], a)) < 1e-6 for a in revolute):
            normal = revolute[0]
            points = [o for _, o in poses]
            if any(abs(la.dot(normal, la.sub(p, points[0]))) > 1e-6 * (1 + _norm(p))
                   for p in points) or any(
                    link.joint.type == "prismatic" and a and abs(la.dot(a, normal)) > 1e-6
                    for a, link in zip(axes, chain.links, strict=True)):
                normal = None
        self.planar = normal is not None
        if self.planar:
            up = None
            if gravity:  # gravity down the page, when it lies in the plane
                g_plane = la.sub(gravity, la.scale(la.dot(gravity, normal), normal))
                up = _unit(la.neg(g_plane))
            if up is None:
                x = (1.0, 0.0, 0.0) if abs(normal[0]) < 0.9 else (0.0, 1.0, 0.0)
                right = _unit(la.sub(x, la.scale(la.dot(x, normal), normal)))
                up = la.cross(normal, right)
            self.u, self.v, self.w = la.cross(up, normal), up, normal
        else:
            up = _unit(la.neg(chain.gravity)) if gravity else (0.0, 0.0, 1.0)
            x = (1.0, 0.0, 0.0) if abs(up[0]) < 0.9 else (0.0, 1.0, 0.0)
            e1 = _unit(la.sub(x, la.scale(la.dot(x, up), up)))
            e2 = la.cross(up, e1)
            el = math.radians(24)

            def toward(az):
                return la.add(la.scale(math.cos(el), la.add(la.scale(math.cos(az), e1),
                                                            la.scale(math.sin(az), e2))),
                              la.scale(math.sin(el), up))

            def spread(az):  # how long the arm's segments look from there
                w = toward(az)
                return sum(_norm(la.cross(w, la.sub(b, a)))
                           for a, b in zip(path, path[1:], strict=False))

            # seen from the side where the arm looks longest (not along its plane)
            az = max((math.radians(a) for a in range(20, 380, 15)), key=spread)
            w = toward(az)
            self.u = _unit(la.cross(up, w))
            self.v = la.cross(w, self.u)
            self.w = w

    def __call__(self, p) -> tuple[float, float]:
        return la.dot(p, self.u), -la.dot(p, self.v)


def _label(name: str) -> tuple[str, str]:
    """``(head, subscript)`` of a name as a figure writes it: ``theta_1`` as θ with 1
    below, ``\\theta_{1}`` too, ``q1`` as q with 1; else the name whole."""
    name = visible(name)
    m = re.fullmatch(r"\\?([A-Za-z]+)(?:_?\{?([A-Za-z0-9,]+)\}?)?", name.strip())
    if m and (m.group(2) or not name.startswith("\\")):
        head, sub = m.group(1), m.group(2) or ""
        if not sub and not name.startswith("\\"):
            mm = re.fullmatch(r"([A-Za-z]+?)(\d+)", head)
            if mm:
                head, sub = mm.group(1), mm.group(2)
        return GREEK.get(head, head), sub
    return name, ""


def _text(x, y, head, sub="", cls="lbl") -> str:
    body = escape(head, quote=False)
    if sub:
        body += f'<tspan class="sub" dy="0.35em">{escape(sub, quote=False)}</tspan>'
    return (f'<text class="{cls}" x="{x:.1f}" y="{y:.1f}" text-anchor="middle" '
            f'dominant-baseline="middle">{body}</text>')


class _Labels:
    """Places labels near their anchors where they cover no other label and as little
    of the drawing (points sampled along its lines and circles) as they can."""

    def __init__(self):
        self.points: list[tuple[float, float]] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.out: list[str] = []

    def line(self, a, b, step: float = 4.0, width: float = 0.0) -> None:
        """A line from ``a`` to ``b`` (``width``: drawn that thick)."""
        length = math.hypot(b[0] - a[0], b[1] - a[1])
        n = max(1, int(length / step))
        nx, ny = ((a[1] - b[1]) / length, (b[0] - a[0]) / length) if length else (0.0, 0.0)
        for off in ((0.0,) if not width else (-width / 2, 0.0, width / 2)):
            self.points += [(a[0] + (b[0] - a[0]) * k / n + off * nx,
                             a[1] + (b[1] - a[1]) * k / n + off * ny) for k in range(n + 1)]

    def disc(self, c, r: float) -> None:
        self.points += [(c[0] + r * math.cos(t * math.pi / 4),
                         c[1] + r * math.sin(t * math.pi / 4)) for t in range(8)] + [c]

    def add(self, anchor, head: str, sub: str = "", cls: str = "lbl", prefer=None,
            radius: float = 15.0) -> None:
        """A label near ``anchor``; ``prefer``: the direction (on screen) tried first."""
        w = 9.0 * len(head) + 6.5 * len(sub) + 4
        h = 18.0
        directions = [(math.cos(t * math.pi / 8), math.sin(t * math.pi / 8))
                      for t in (4, 12, 8, 0, 6, 10, 14, 2, 5, 11, 9, 3, 7, 13, 15, 1)]
        if prefer is not None:
            n = math.hypot(*prefer) or 1.0
            p = (prefer[0] / n, prefer[1] / n)
            directions.sort(key=lambda d: -(d[0] * p[0] + d[1] * p[1]))
        best, best_cost = None, math.inf
        for k, r in enumerate((radius, radius + 8, radius + 18)):
            for j, (dx, dy) in enumerate(directions):
                cx = anchor[0] + dx * (r + w / 2 - 4)
                cy = anchor[1] + dy * (r + h / 2 - 4)
                box = (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
                covered = sum(box[0] <= x <= box[2] and box[1] <= y <= box[3]
                              for x, y in self.points)
                clash = any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3]
                            and b[1] < box[3] for b in self.boxes)
                cost = covered + 100 * clash + 0.4 * j + 4 * k
                if cost < best_cost:
                    best, best_cost = (cx, cy, box), cost
        cx, cy, box = best
        self.boxes.append(box)
        self.out.append(_text(cx, cy - (3 if sub else 0), head, sub, cls))


def joint_names(eq) -> list[tuple[str, str]]:
    """The joint variables as the figure labels them (display names, else ``q_i``)."""
    display = getattr(eq, "display", {}) or {}
    return [_label(display.get(f"q{i + 1}", f"q{i + 1}")) for i in range(eq.dof)]


def _com_mark(cx: float, cy: float) -> str:
    return (f'<g class="com"><circle cx="{cx:.1f}" cy="{cy:.1f}" r="6"/>'
            f'<path d="M{cx:.1f},{cy - 6:.1f} A6,6 0 0 1 {cx + 6:.1f},{cy:.1f} '
            f'L{cx:.1f},{cy:.1f} z M{cx:.1f},{cy + 6:.1f} A6,6 0 0 1 {cx - 6:.1f},'
            f'{cy:.1f} L{cx:.1f},{cy:.1f} z"/></g>')


def _axis_mark(ox: float, oy: float, colour: str, toward: bool) -> str:
    """An axis along the line of sight: a dot (towards the reader) or a cross."""
    ring = f'<circle class="axis-end" cx="{ox:.1f}" cy="{oy:.1f}" r="5" stroke="{colour}"/>'
    if toward:
        return ring + f'<circle cx="{ox:.1f}" cy="{oy:.1f}" r="1.6" fill="{colour}"/>'
    return ring + (f'<path d="M{ox - 3.5:.1f},{oy - 3.5:.1f} l7,7 m0,-7 l-7,7" '
                   f'stroke="{colour}"/>')


def arm_svg(eq, prefix: str = "") -> tuple[str, Pose, str]:
    """The drawing of ``eq``'s arm (see the module docstring): ``(svg, pose, frames)``
    with ``frames`` saying which frames are drawn; ``prefix`` starts the ids of its arrow
    heads. Raises :class:`FigureError` if a number of the model is not finite with its
    values."""
    chain, values, table = numeric_chain(eq)
    q = generic_pose(chain)
    poses = link_poses(chain, q, _FLOAT_OPS)
    drawn, which = frames(eq, chain, poses, table)
    origin = (0.0, 0.0, 0.0)
    # the arm's points: each joint (a prismatic joint's sleeve where its travel starts),
    # each link frame's origin, the tip
    # (a tree: each link drawn from its parent's end; a branch other than the last ends
    # at its DH frame or its first named frame)
    path, joints, pairs, last = [origin], [], [], []
    for i, (link, (rot, pos)) in enumerate(zip(chain.links, poses, strict=True)):
        p = chain.parent(i)
        prev_rot, prev_pos = poses[p] if p >= 0 else (la.IDENTITY3, origin)
        start = la.add(prev_pos, la.matvec(prev_rot, link.joint.placement.translation))
        axis = _unit(la.matvec(rot, link.joint.axis)) or (0.0, 0.0, 1.0)
        joints.append((link.joint.type, start, pos, axis))
        if (last[p] if p >= 0 else origin, start) not in pairs:  # siblings share it
            pairs.append((last[p] if p >= 0 else origin, start))
        path.append(start)
        last.append(start)
        if link.joint.type == "prismatic":
            pairs.append((start, pos))
            path.append(pos)
            last[i] = pos
    tip = la.add(poses[-1][1], la.matvec(poses[-1][0], chain.tip.translation))
    pairs.append((last[-1], tip))
    path.append(tip)
    ends = [tip] * len(poses)  # where each link's body ends: its first child's joint
    for i in range(len(poses)):
        children = chain.children(i)
        if children:
            ends[i] = joints[children[0]][1]
        elif i < len(poses) - 1:
            ends[i] = _branch_end(chain, poses, drawn, which, i)
            pairs.append((last[i], ends[i]))
            path.append(ends[i])
    coms = [la.add(pos, la.matvec(rot, link.inertial.com))
            for link, (rot, pos) in zip(chain.links, poses, strict=True)]
    view = _View(chain, poses, path)
    points = path + coms + [o for _, o in drawn]
    size = max((_norm(la.sub(a, b)) for a in points for b in points), default=0.0)
    size = size if size > 1e-9 else 1.0
    axis_len = 0.2 * size * min(1.0, math.sqrt(4 / len(drawn)))  # shorter where many
    for rot, o in drawn:
        points += [la.add(o, la.scale(axis_len, tuple(rot[r][k] for r in range(3))))
                   for k in range(3)]
    screen = [view(p) for p in points]
    xs, ys = [p[0] for p in screen], [p[1] for p in screen]
    span = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    scale = (WIDTH - 120) / span
    left, top = min(xs) * scale - 60, min(ys) * scale - 50
    width = (max(xs) - min(xs)) * scale + 120
    height = (max(ys) - min(ys)) * scale + 100
    room = 60  # a strip on the right for the gravity arrow

    def at(p):
        x, y = view(p)
        return x * scale - left, y * scale - top

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="arm" role="img" '
           f'viewBox="0 0 {width + room:.0f} {height:.0f}" width="{width + room:.0f}" '
           f'height="{height:.0f}">',
           "<defs>" + "".join(
               f'<marker id="{prefix}ah{k}" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" '
               f'markerHeight="7" orient="auto-start-reverse"><path d="M0,1 L10,5 L0,9 z" '
               f'fill="{c}"/></marker>' for k, c in enumerate(AXIS_COLOURS + ("#444",)))
           + "</defs>"]
    labels = _Labels()
    # the ground under the base
    bx, by = at(origin)
    out.append(f'<path class="ground" d="M{bx - 26:.1f},{by + 12:.1f} h52"/>')
    out += [f'<path class="hatch" d="M{bx - 24 + 8 * k:.1f},{by + 12:.1f} l-6,8"/>'
            for k in range(7)]
    out.append(f'<path class="pedestal" d="M{bx - 9:.1f},{by + 12:.1f} L{bx:.1f},{by:.1f} '
               f'L{bx + 9:.1f},{by + 12:.1f} z"/>')
    labels.line((bx - 30, by + 16), (bx + 26, by + 16), width=10)
    # the links: a thick line through the joints; a prismatic joint's travel thinner
    segs = []
    for a, b in pairs:
        (x1, y1), (x2, y2) = at(a), at(b)
        if math.hypot(x2 - x1, y2 - y1) > 0.5:
            segs.append(f"M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}")
            labels.line((x1, y1), (x2, y2), width=10)
    body_at = len(out)  # where links drawn later go, under the joints
    if segs:
        out.append(f'<path class="link" d="{" ".join(segs)}"/>')
    for kind, start, pos, _ in joints:
        if kind == "prismatic":
            (x1, y1), (x2, y2) = at(start), at(pos)
            out.append(f'<path class="rod" d="M{x1:.1f},{y1:.1f} L{x2:.1f},{y2:.1f}"/>')
    # the centres of mass: a link with no length of its own (a pendulum's rod, pivot to
    # centre of mass) drawn to its centre of mass, else a dashed line from its frame
    com_at = []
    for c, (_, pos), end in zip(coms, poses, ends, strict=True):
        (cx, cy), (ox, oy), (ex, ey) = at(c), at(pos), at(end)
        if math.hypot(ex - ox, ey - oy) < 2 and math.hypot(cx - ox, cy - oy) > 2:
            out.insert(body_at, f'<path class="link" d="M{ox:.1f},{oy:.1f} L{cx:.1f},'
                                f'{cy:.1f}"/>')
            labels.line((ox, oy), (cx, cy), width=10)
        elif math.hypot(cx - ox, cy - oy) > 12:
            out.append(f'<path class="lever" d="M{ox:.1f},{oy:.1f} L{cx:.1f},{cy:.1f}"/>')
            labels.line((ox, oy), (cx, cy), 8.0)
        out.append(_com_mark(cx, cy))
        labels.disc((cx, cy), 7)
        com_at.append((cx, cy))
    # the joints
    names = joint_names(eq)
    joint_labels = []
    circles = []
    for k, (kind, start, pos, axis) in enumerate(joints):
        x, y = at(start)
        ax, ay = view(axis)
        n = math.hypot(ax, ay)
        if kind == "revolute":  # drawn after the sleeves, which may sit on them
            circles.append(f'<circle class="joint" cx="{x:.1f}" cy="{y:.1f}" r="7"/>')
            labels.disc((x, y), 8)
            joint_labels.append(((x, y), names[k], None))
        else:
            ux, uy = (ax / n, ay / n) if n > 0.2 else (1.0, 0.0)
            angle = math.degrees(math.atan2(uy, ux))
            out.append(f'<rect class="sleeve" x="{x - 13:.1f}" y="{y - 7:.1f}" width="26" '
                       f'height="14" rx="2" transform="rotate({angle:.1f} {x:.1f} '
                       f'{y:.1f})"/>')
            labels.line((x - 13 * ux, y - 13 * uy), (x + 13 * ux, y + 13 * uy))
            x2, y2 = at(pos)
            joint_labels.append((((x + x2) / 2, (y + y2) / 2), names[k], (-uy, ux)))
    out += circles
    # the frames: axes as arrows, or marks where they point along the line of sight
    axis_labels: list[list] = []
    for i, (rot, o) in enumerate(drawn):
        ox, oy = at(o)
        for k, letter in enumerate("xyz"):
            direction = tuple(rot[r][k] for r in range(3))
            end = at(la.add(o, la.scale(axis_len, direction)))
            dx, dy = end[0] - ox, end[1] - oy
            if math.hypot(dx, dy) < 0.3 * axis_len * scale:
                out.append(_axis_mark(ox, oy, AXIS_COLOURS[k], la.dot(direction, view.w) > 0))
                labels.disc((ox, oy), 5)
                anchor, prefer = (ox, oy), None
            else:
                out.append(f'<path class="axis" d="M{ox:.1f},{oy:.1f} L{end[0]:.1f},'
                           f'{end[1]:.1f}" stroke="{AXIS_COLOURS[k]}" '
                           f'marker-end="url(#{prefix}ah{k})"/>')
                labels.line((ox, oy), end)
                anchor, prefer = end, (dx, dy)
            same = next((a for a in axis_labels if a[0] == letter
                         and abs(a[2][0] - anchor[0]) < 6 and abs(a[2][1] - anchor[1]) < 6),
                        None)
            if same:  # two frames' axes coincide: one label, x_{0,1}
                same[1].append(str(i))
            else:
                axis_labels.append([letter, [str(i)], anchor, prefer, k])
    # gravity, in the strip on the right
    g = _unit(chain.gravity)
    if g:
        gx, gy = view(g)
        n = math.hypot(gx, gy)
        if n > 0.2:
            x0, y0 = width + room / 2, 46.0
            x1, y1 = x0 + 30 * gx / n, y0 + 30 * gy / n
            out.append(f'<path class="gravity" d="M{x0:.1f},{y0:.1f} L{x1:.1f},{y1:.1f}" '
                       f'marker-end="url(#{prefix}ah3)"/>')
            labels.line((x0, y0), (x1, y1))
            labels.add(((x0 + x1) / 2, (y0 + y1) / 2), "g", "0", "lbl", prefer=(-1, 0),
                       radius=6)
    for letter, subs, anchor, prefer, k in axis_labels:
        labels.add(anchor, letter, ",".join(subs), f"lbl axis-lbl a{k}", prefer=prefer,
                   radius=4 if prefer else 10)
    for anchor, (head, sub), prefer in joint_labels:
        labels.add(anchor, head, sub, "lbl var", prefer=prefer, radius=10)
    for k, c in enumerate(com_at):
        labels.add(c, "C", str(k + 1), "lbl com-lbl", prefer=(1, -1), radius=10)
    out += labels.out
    out.append("</svg>")
    missing = tuple(sorted(k for k in values if k not in eq.defaults))
    return "\n".join(out), Pose(q, values, missing), which


__all__ = ["arm_svg", "FigureError", "generic_pose", "joint_names", "numeric_chain"]
