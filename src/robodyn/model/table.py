"""A robot as a table, as the Robotics Toolbox prints one: a row per joint (its type, its DH
row or, for a URDF model, its placement, the link's mass, the joint's limits), then gravity,
the tool frame and what else the model carries.

:func:`robot_table` gives the pieces; ``print(robot)`` draws them with box characters and
Jupyter shows them as an HTML table (:mod:`robodyn.core.display`, every user text escaped).
Numbers are the model's default values substituted into its expressions; an expression whose
symbols have no value is shown as the expression.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..core.display import degrees, html_table, number, numbers, text_table
from ..core.errors import ModelError
from ..core.lazy import is_parameter, is_sympy, sp
from .chain import split_free_base
from .dh import dh_frame_offset
from .source import ModelSource
from .urdf_export import matrix_rpy

__all__ = ["RobotTable", "robot_table"]

#: Longest joint name shown in a table (a URDF's names can be long); longer ones are cut.
NAME_CHARS = 24


@dataclass(frozen=True)
class RobotTable:
    """``title``, column ``headers``, one row per joint and the ``notes`` under the table."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...]

    def text(self) -> str:
        """The table drawn with box characters, the title above and the notes below."""
        table = text_table(self.headers, self.rows, left=(0, 1, 2)) if self.rows else []
        return "\n".join([self.title, *table, *self.notes])

    def html(self) -> str:
        """The table as HTML (every cell escaped)."""
        return html_table(self.headers, self.rows, caption=self.title, notes=self.notes)


def _cut(text: str, most: int = NAME_CHARS) -> str:
    return text if len(text) <= most else text[:most - 1] + "…"


class _Values:
    """The model's expressions with its default values substituted."""

    def __init__(self, chain, values):
        self.values = dict(values)
        sympy_numbers = chain.holds_sympy()
        by_name = {str(s): s for s in chain.free_symbols()} if sympy_numbers else {}
        self.mapping = {by_name[k]: sp.Float(v) for k, v in values.items() if k in by_name}

    def __call__(self, expr):
        """A float, or the expression (text) when symbols without a value remain."""
        if is_parameter(expr):
            return expr.value(self.values) if expr.name in self.values else str(expr)
        if not is_sympy(expr):
            return float(expr)
        value = expr.xreplace(self.mapping)
        if value.free_symbols:
            return _cut(str(value), 32)
        try:
            return float(value)
        except (TypeError, ValueError):
            return _cut(str(value), 32)


def _number(value) -> str:
    """A float in 6 significant digits; an expression's text as it is."""
    return f"{value:.6g}" if isinstance(value, float) else str(value)


def _length(value) -> str:
    return number(value)


def _angle(value) -> str:
    return value if isinstance(value, str) else degrees(value)


def _variable(symbol: str, offset, angular: bool) -> str:
    """``q1``, ``q1 + 90°``, ``q2 - 0.1``: the joint variable with its offset."""
    if isinstance(offset, str):
        return f"{symbol} + {offset}"
    if offset == 0:
        return symbol
    shown = degrees(abs(offset)) if angular else number(abs(offset))
    return f"{symbol} {'-' if offset < 0 else '+'} {shown}"


def _limits(joint, value, revolute: bool):
    """``(lower, upper, velocity, effort)`` as text (``-`` where unknown)."""
    lim = joint.limits
    if not lim:
        return ("-",) * 4
    out = []
    for k, x in enumerate(tuple(lim) + (None,) * (4 - len(lim))):
        if x is None:
            out.append("-")
            continue
        x = value(x)
        if isinstance(x, str) or not math.isfinite(x):
            out.append(str(x) if isinstance(x, str) else "-")
        elif k < 2 and revolute:
            out.append(degrees(x))
        else:
            out.append(number(x))
    if out[:2] == ["0", "0"] or out[:2] == ["0°", "0°"]:  # URDF's "no position limits"
        out[:2] = ["-", "-"]
    return tuple(out)


def _transform(transform, value) -> str | None:
    """``xyz [..] m, rpy [..]°`` of a transform, None for the identity."""
    rotation = [[value(x) for x in row] for row in transform.rotation]
    translation = [value(x) for x in transform.translation]
    if any(isinstance(x, str) for row in rotation for x in row) \
            or any(isinstance(x, str) for x in translation):
        return f"rotation {rotation}, translation {translation}"
    rotation, translation = np.array(rotation), np.array(translation)
    if np.allclose(rotation, np.eye(3), atol=1e-12) and np.allclose(translation, 0, atol=1e-12):
        return None
    rpy = np.degrees(matrix_rpy(rotation))
    rpy[np.abs(rpy) < 1e-9] = 0.0
    return f"xyz {numbers(translation)} m, rpy {numbers(rpy)}°"


#: The letter of each joint type in the table's title (``RRP``; ``S`` a ball joint).
_KIND_LETTERS = {"revolute": "R", "prismatic": "P", "spherical": "S", "free": "F"}


def robot_table(model: ModelSource) -> RobotTable:
    """The :class:`RobotTable` of a robot's ``model`` (``robot.model``; module docstring)."""
    provenance = model.provenance
    try:  # a free-flying base: a note below the table, not a row
        free_base, chain = split_free_base(model.chain)
    except ModelError:
        free_base, chain = None, model.chain
    value = _Values(model.chain, model.values)
    links = chain.links
    kinds = "".join(_KIND_LETTERS[link.joint.type] for link in links)
    dh_rows = provenance.dh_rows
    rows_dh = dh_rows if provenance.convention and len(dh_rows) == len(links) else ()
    if rows_dh:
        geometry = f"{provenance.convention} DH parameters"
        if provenance.convention == "modified":
            geometry_headers = ("aⱼ₋₁", "⍺ⱼ₋₁", "θⱼ", "dⱼ")
        else:
            geometry_headers = ("θⱼ", "dⱼ", "aⱼ", "⍺ⱼ")
    else:
        geometry = "joint placements (parent frame)"
        geometry_headers = ("axis", "xyz [m]", "rpy [°]")
    limits = [_limits(link.joint, value, link.joint.type == "revolute") for link in links]
    show_rates = any(lim[2] != "-" or lim[3] != "-" for lim in limits)
    tree = not chain.is_serial  # a tree: which link each joint hangs from
    headers = ("j", "joint", *(("parent",) if tree else ()), "type", *geometry_headers,
               "m [kg]", "q⁻", "q⁺")
    if show_rates:
        headers += ("qd max", "tau max")
    rows = []
    for j, link in enumerate(links):
        joint = link.joint
        revolute = joint.type == "revolute"
        symbol = f"q{j + 1}"
        if rows_dh:
            row = rows_dh[j]
            a, alpha, d, theta = (value(x) for x in (row.a, row.alpha, row.d, row.theta))
            if revolute:
                theta_cell, d_cell = _variable(symbol, theta, True), _length(d)
            else:
                theta_cell, d_cell = _angle(theta), _variable(symbol, d, False)
            if provenance.convention == "modified":
                cells = (_length(a), _angle(alpha), theta_cell, d_cell)
            else:
                cells = (theta_cell, d_cell, _length(a), _angle(alpha))
        else:
            place = joint.placement
            xyz = [value(x) for x in place.translation]
            rot = [[value(x) for x in r] for r in place.rotation]
            axis = [value(x) for x in joint.axis]
            numeric = not any(isinstance(x, str) for x in [*xyz, *axis, *sum(rot, [])])
            if numeric:
                rpy = np.degrees(matrix_rpy(np.array(rot)))
                rpy[np.abs(rpy) < 1e-9] = 0.0
                cells = (numbers(axis), numbers(xyz), numbers(rpy))
            else:
                cells = (str(axis), str(xyz), str(rot))
            offset = value(joint.offset)
            if offset != 0:
                symbol = _variable(symbol, offset, revolute)
        mass = value(link.inertial.mass)
        name = _cut(joint.name or link.name or f"joint{j + 1}")
        kind = joint.type if rows_dh or symbol == f"q{j + 1}" else f"{joint.type} {symbol}"
        parent = chain.parent(j)
        hangs = (("base" if parent < 0 else str(parent + 1)),) if tree else ()
        rows.append((str(j + 1), name, *hangs, kind,
                     *cells, number(mass), *limits[j][:2],
                     *(limits[j][2:] if show_rates else ())))
    origin = (f", from {provenance.path}"
              if provenance.path and provenance.path != model.name else "")
    title = (f"{model.name}: {len(links)} joints ({kinds}), {geometry}{origin}" if links
             else f"{model.name}: a free-flying body, no joints{origin}")
    if model.description:
        title += "\n" + _cut(" ".join(model.description.split()), 100)
    gravity = [value(x) for x in chain.gravity]
    shown = numbers(gravity) if not any(isinstance(x, str) for x in gravity) else str(gravity)
    notes = [f"gravity: {shown} m/s²"]
    if free_base is not None:
        body = free_base.inertial
        notes.append(f"base: free-flying (6-DOF free-flyer), mass {number(value(body.mass))} kg; "
                     f"q = [x, y, z, quaternion x y z w"
                     + (f", q1..q{len(links)}]" if links else "]"))
    tip = chain.tip
    if rows_dh:  # a DH arm's end effector is DH frame n; the tool is what lies beyond it
        tip = dh_frame_offset(provenance.convention, rows_dh[-1]).inverse() @ tip
    tool = _transform(tip, value)
    frame = f"DH frame {len(links)}" if rows_dh else f"frame {len(links)}"
    notes.append(f"tool: {tool}" if tool
                 else f"tool: none (the end effector is {frame})" if links
                 else "tool: none (the end effector is the body's frame)")
    if chain.frames:
        named = [f.name for f in chain.frames]
        notes.append(f"frames: {', '.join(_cut(n) for n in named[:8])}"
                     + (f", ... ({len(named)} in all)" if len(named) > 8 else ""))
    closures = chain.closures
    if closures is not None and closures.loops:
        loops = [f"{loop.kind} {_cut(loop.frame_a)} = {_cut(loop.frame_b)}"
                 for loop in closures.loops[:4]]
        actuated = ", ".join(_cut(n) for n in closures.actuated[:8]) or "none"
        notes.append(f"loops: {'; '.join(loops)}"
                     + (f"; ... ({len(closures.loops)} in all)" if len(closures.loops) > 4
                        else "")
                     + f" (robot.closed_chain()); actuated: {actuated}")
    extras = []
    if any(value(link.friction.viscous) != 0 or value(link.friction.coulomb) != 0
           for link in links):
        extras.append("friction")
    frictions = [link.friction for link in links]
    kinds = [name for name, present in (
        ("asymmetric Coulomb", any(not f.symmetric for f in frictions)),
        ("Stribeck", any(f.static != 0 for f in frictions)),
        ("friction offset", any(f.offset != 0 for f in frictions)),
        ("smooth sign", any(f.smooth_velocity != 0 for f in frictions))) if present]
    if kinds:
        extras.append(f"friction model ({', '.join(kinds)})")
    if any(value(link.motor.inertia) != 0 for link in links):
        extras.append("motor inertia")
    etas = [(value(m.efficiency), value(m.back)) for m in (link.motor for link in links)]
    if any(e != (1.0, 1.0) for e in etas):  # the energy's losses: printed, not only stored
        extras.append(f"gear efficiency = [{_cut(', '.join(_number(e) for e, _ in etas), 60)}]"
                      f" (back [{_cut(', '.join(_number(b) for _, b in etas), 60)}])")
    tr = getattr(model.chain, "transmission", None)
    if tr is not None:
        extras.append(f"coupled transmission theta = N q (N {len(tr.matrix)} x "
                      f"{len(tr.matrix)}, robot.chain.transmission)")
    if getattr(model.chain, "lugre", None) is not None:
        extras.append("LuGre friction (robot.chain.lugre)")
    types = {link.joint.type for link in links}
    spring_unit = " N m/rad" if types == {"revolute"} else " N/m" if types == {"prismatic"} \
        else " N m/rad or N/m"
    for key, what, unit in (("stiffness", "elastic joints K", spring_unit),
                            ("resistance", "DC motors R", " ohm"),
                            ("torque_constant", "k_t", " N m/A")):
        if any(getattr(link.motor, key) is not None for link in links):
            shown = ", ".join(str(_number(value(getattr(link.motor, key))))
                              if getattr(link.motor, key) is not None else "rigid"
                              for link in links
                              if getattr(link.motor, key) is not None or key == "stiffness")
            extras.append(f"{what} = [{_cut(shown, 60)}]{unit}")
    tr = getattr(chain, "transmission", None)
    if tr is not None:   # a coupled one (a diagonal one is the links' motors)
        springs = "" if tr.stiffness is None else ", ".join(
            "rigid" if k is None else f"{k:g}" for k in tr.stiffness)
        extras.append("coupled transmission" + (
            f" with elastic drives K_m = [{_cut(springs, 60)}] N m/rad" if springs else ""))
    if extras:
        notes.append("also: " + ", ".join(extras))
    if provenance.locked:
        notes.append(f"locked at q = 0: {', '.join(_cut(n) for n in provenance.locked)}")
    if model.configurations:
        names = (name for name, _ in model.configurations)
        notes.append(f"configurations: {', '.join(map(str, names))}")
    return RobotTable(title, headers, tuple(rows), tuple(notes))
