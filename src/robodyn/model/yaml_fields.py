"""The fields of a model file that make the parts of its chain: 3-vectors and inertias
(numbers or expressions), point masses, joint limits, the tool's (and a frame's) placement,
the tree's ``parent:`` links and the named ``frames:``. Each checks its field and names it
in its errors (``links[1].inertia``: not symmetric ...);
:func:`robodyn.model.yaml_file.parse_model` assembles the model from them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from ..core.errors import ModelError, excerpt
from .chain import Frame, PointMass, Transform
from .expressions import parse_expression
from .names import check_text

_POINT_MASS_KEYS = {"mass", "at"}
#: Most point masses one link may carry (a model file needs a few).
MAX_POINT_MASSES = 100
_LIMIT_KEYS = ("lower", "upper", "velocity", "effort")


#: ``parent:`` (and a frame's ``link:``) naming the base.
BASE = "base"
#: Most named frames a model file may declare.
MAX_FRAMES = 100


def _link_reference(value: object, names: list[str], before: int, field: str,
                    what: str) -> int:
    """The 0-based index (``-1``: the base) of the link ``value`` names: ``base``, a link's
    ``name`` or its 1-based number, among the first ``before`` links (``before =
    len(names)``: any link)."""
    if value == BASE:
        return -1
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ModelError(f"{field}: {excerpt(value)} is not a link; give 'base', a link's "
                         f"name or its number (1 to {len(names)})")
    if isinstance(value, int):
        index = value - 1
        if not 0 <= index < len(names):
            raise ModelError(f"{field}: {value} is not a link number; the links are numbered "
                             f"1 to {len(names)} in the order listed (or give 'base')")
    else:
        matches = [k for k, name in enumerate(names) if name == value]
        if not matches:
            raise ModelError(f"{field}: {excerpt(value, 40)} is not the name of a link; the "
                             f"links are {', '.join(excerpt(n, 20) for n in names[:8])}"
                             f"{' ...' if len(names) > 8 else ''} (or give 'base')")
        if len(matches) > 1:
            raise ModelError(f"{field}: {excerpt(value, 40)} names links "
                             f"{', '.join(str(k + 1) for k in matches[:5])}; give the link's "
                             "number instead, or give the links distinct names")
        index = matches[0]
    if index >= before:
        raise ModelError(f"{field}: link {index + 1} ({excerpt(names[index], 40)}) is not "
                         f"listed before link {before + 1}; {what}")
    return index


def parse_parents(links: list, names: list[str], source: str) -> tuple[int, ...] | None:
    """``parent:`` of each link (:func:`_link_reference`), 0-based; ``None`` when no link
    gives one (a serial chain). A parent must be listed before its child, which also rules
    out cycles."""
    if not any("parent" in entry for entry in links):
        return None
    out = []
    for i, entry in enumerate(links):
        if "parent" not in entry:
            out.append(i - 1)
            continue
        out.append(_link_reference(
            entry["parent"], names, i, f"{source}: links[{i}].parent",
            "a parent must come before its child in 'links' (list the parent first; a link "
            "cannot be its own ancestor)"))
    return tuple(out)


def parse_frames(value: object, names: list[str], offsets: list[Transform],
            field: str) -> tuple[Frame, ...]:
    """``frames: {name: {link: .., xyz: [..], rpy: [..]}}``: named frames fixed to a link
    (``base``, a link's name or 1-based number), placed by ``xyz``/``rpy`` (URDF
    convention, as ``tool``) in that link's DH frame (``offsets[i]``: DH frame ``i`` in
    the chain's link frame ``i``)."""
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{name: {{link: .., xyz: [x, y, z], "
                         f"rpy: [r, p, y]}}}}, got {excerpt(value)}")
    if len(value) > MAX_FRAMES:
        raise ModelError(f"{field}: {len(value):,} frames; at most {MAX_FRAMES}")
    out = []
    for key, entry in value.items():
        if not isinstance(key, str) or not key.strip():
            raise ModelError(f"{field}: {excerpt(key, 40)} is not a frame name (a string)")
        name = check_text(key, f"{field}: a frame name", "a frame name")
        where = f"{field}.{name}"
        if name in names or name == BASE:
            raise ModelError(f"{where}: {name!r} is already the name of a link (or the base); "
                             "give the frame another name")
        if not isinstance(entry, Mapping):
            raise ModelError(f"{where}: expected a mapping {{link: .., xyz: [x, y, z], rpy: "
                             f"[r, p, y]}}, got {excerpt(entry)}")
        check_keys(entry, {"link", "xyz", "rpy"}, where)
        if "link" not in entry:
            raise ModelError(f"{where}.link: missing; name the link the frame is fixed to "
                             "(its name, its number, or base)")
        link = _link_reference(entry["link"], names, len(names), f"{where}.link", "")
        placement = parse_tool({k: v for k, v in entry.items() if k != "link"}, where)
        if link >= 0:
            placement = offsets[link] @ placement
        out.append(Frame(name, link, placement))
    return tuple(out)


def parse_point_masses(value: object, field: str) -> tuple[PointMass, ...]:
    """``point_masses: [{mass: mE, at: [l2, 0, 0]}, ...]``: masses at points of the link,
    ``at`` in the link frame (the frame the link's ``com`` is given in); a mass that is a
    number must be ``>= 0`` (a symbolic one is checked when values are given)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ModelError(f"{field}: expected a list of {{mass: .., at: [x, y, z]}}, got "
                         f"{excerpt(value)}")
    if len(value) > MAX_POINT_MASSES:
        raise ModelError(f"{field}: {len(value):,} point masses; at most {MAX_POINT_MASSES} "
                         "per link")
    out = []
    for k, entry in enumerate(value):
        where = f"{field}[{k}]"
        if not isinstance(entry, Mapping):
            raise ModelError(f"{where}: expected a mapping {{mass: .., at: [x, y, z]}}, got "
                             f"{excerpt(entry)}")
        check_keys(entry, _POINT_MASS_KEYS, where)
        for key in ("mass", "at"):
            if key not in entry:
                raise ModelError(f"{where}.{key}: missing; a point mass needs its mass and "
                                 "where it sits (at: [x, y, z] in the link frame)")
        mass = parse_expression(entry["mass"], f"{where}.mass")
        if not mass.free_symbols:
            try:
                number = float(mass)
            except (TypeError, ValueError):  # complex, infinite or undefined
                number = math.nan
            if not (math.isfinite(number) and number >= 0):
                raise ModelError(f"{where}.mass: {excerpt(entry['mass'])} is not a mass "
                                 "(a finite number >= 0)")
        out.append(PointMass(mass, parse_vector(entry["at"], f"{where}.at", 3)))
    return tuple(out)


def parse_limits(value: object, field: str) -> tuple | None:
    """``limits: {lower, upper, velocity, effort}`` (numbers or constant expressions such as
    ``-pi/2``; a missing bound is unlimited): ``(lower, upper, velocity, effort)`` floats."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{lower, upper, velocity, effort}}, got "
                         f"{excerpt(value)}")
    check_keys(value, set(_LIMIT_KEYS), field)
    out = []
    for key, default in zip(_LIMIT_KEYS, (-math.inf, math.inf, math.inf, math.inf), strict=True):
        if key not in value:
            out.append(default)
            continue
        expr = parse_expression(value[key], f"{field}.{key}")
        if expr.free_symbols:
            raise ModelError(f"{field}.{key}: must be a number, not depend on "
                             f"{', '.join(sorted(map(str, expr.free_symbols)))}")
        out.append(float(expr))
    lower, upper, velocity, effort = out
    if not lower <= upper:
        raise ModelError(f"{field}: lower {lower:g} is above upper {upper:g}")
    if not (velocity > 0 and effort > 0):
        raise ModelError(f"{field}: velocity and effort limits must be positive")
    return tuple(out)


def parse_tool(value: object, field: str) -> Transform:
    """``tool: {xyz: [..], rpy: [..]}``: the end-effector frame in the last link frame
    (URDF convention, ``R = Rz(yaw) Ry(pitch) Rx(roll)``; expressions allowed)."""
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{xyz: [x, y, z], rpy: [roll, pitch, "
                         f"yaw]}}, got {excerpt(value)}")
    check_keys(value, {"xyz", "rpy"}, field)
    xyz = parse_vector(value.get("xyz", [0, 0, 0]), f"{field}.xyz", 3)
    rpy = parse_vector(value.get("rpy", [0, 0, 0]), f"{field}.rpy", 3)
    return Transform.from_rpy(xyz, rpy)


def check_keys(mapping: Mapping, allowed: set[str], field: str) -> None:
    """Every key of ``mapping`` is in ``allowed``, else a :class:`ModelError` at ``field``
    naming the unknown keys (the first five) and the allowed ones."""
    unknown = [k for k in mapping if k not in allowed]
    if unknown:
        shown = ", ".join(excerpt(k, 40) for k in unknown[:5])
        if len(unknown) > 5:
            shown += f" and {len(unknown) - 5} more"
        hints = "".join(f"; {_ELSEWHERE[k]}" for k in unknown if k in _ELSEWHERE)
        raise ModelError(f"{field}: unknown key(s) {shown}; allowed: "
                         f"{', '.join(sorted(allowed))}{hints}")


#: Keys a model file takes at its top level (one value for every joint, or one per joint),
#: named where a user put them on a link.
_ELSEWHERE = {
    "lugre": "lugre: is a key of the file's top level (one set of parameters for every "
             "joint, or lists of one per joint)",
    "transmission": "transmission: is a key of the file's top level (the matrix of all the "
                    "joints' motors)",
}


def parse_vector(value: object, field: str, n: int) -> tuple:
    """A list of ``n`` numbers or expressions as a tuple of SymPy expressions
    (:func:`~robodyn.model.expressions.parse_expression`, each named ``field[k]``)."""
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ModelError(f"{field}: expected a list of {n} numbers, got {excerpt(value)}")
    return tuple(parse_expression(v, f"{field}[{k}]") for k, v in enumerate(value))


def parse_inertia(value: object, field: str) -> tuple:
    """``[xx, yy, zz, xy, xz, yz]`` or a symmetric 3x3 nested list."""
    if isinstance(value, (list, tuple)) and len(value) == 3 and all(
        isinstance(r, (list, tuple)) for r in value
    ):
        rows = [parse_vector(r, f"{field}[{k}]", 3) for k, r in enumerate(value)]
        for a, b in ((0, 1), (0, 2), (1, 2)):
            # SymPy's canonical forms, compared without simplify (which can take
            # seconds on a few hundred bytes): m*l**2/12 and l**2*m/12 are equal,
            # m*(a + b) and m*a + m*b are not.
            if rows[a][b] != rows[b][a] and rows[a][b] - rows[b][a] != 0:
                raise ModelError(f"{field}: not symmetric: [{a}][{b}] = {excerpt(rows[a][b])} "
                                 f"but [{b}][{a}] = {excerpt(rows[b][a])}; write the same "
                                 "expression in both places")
        return tuple(tuple(r) for r in rows)
    if not isinstance(value, (list, tuple)) or len(value) != 6:
        raise ModelError(f"{field}: expected [xx, yy, zz, xy, xz, yz] (6 numbers, about the "
                         f"centre of mass, link frame) or a 3x3 list, got {excerpt(value)}")
    xx, yy, zz, xy, xz, yz = parse_vector(value, field, 6)
    return ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))
