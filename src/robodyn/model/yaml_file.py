"""Model files (YAML): parse, validate, build the chain.

The schema (README, "Model files")::

    name: rp-arm
    dh: standard                 # standard (default) | modified
    gravity: [0, -g, 0]          # base frame; default [0, 0, -g]
    links:                       # base to tip, one per joint
      - joint: revolute          # revolute | prismatic
        a: 0
        alpha: pi/2
        d: 0
        theta: pi/2
        mass: m1
        com: [0, 0, l1]                          # link frame
        inertia: [Ixx1, Iyy1, Izz1, 0, 0, 0]     # about the COM: xx, yy, zz, xy, xz, yz
        friction: {viscous: Fv1, coulomb: Fs1}   # optional
    values: {m1: 1.0, l1: 0.5, g: 9.81}

Numbers may be expressions (:mod:`robodyn.model.expressions`); omitted ``com``
and ``inertia`` are zero; ``mass`` is required. Unknown keys are errors (a typo
must not silently become a zero).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import sympy as sp
import yaml

from ..errors import ModelError
from .chain import JOINT_TYPES, Friction, Inertial
from .dh import CONVENTIONS, STANDARD, DHRow, dh_chain
from .expressions import check_parameter_name, parse_expression, symbol
from .source import ModelSource, Provenance

_TOP_KEYS = {"name", "dh", "gravity", "links", "values", "description"}
_LINK_KEYS = {"joint", "a", "alpha", "d", "theta", "mass", "com", "inertia", "friction", "name"}
_FRICTION_KEYS = {"viscous", "coulomb"}


def read_model_file(path: str | Path) -> ModelSource:
    """Read and validate a YAML model file."""
    path = Path(path)
    try:
        text = path.read_text()
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model file ({exc.strerror})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise ModelError(f"{path}: not valid YAML{where}: {problem}") from None
    return parse_model(data, source=str(path), default_name=path.stem)


def parse_model(data: object, source: str = "model", default_name: str = "robot") -> ModelSource:
    """Validate the mapping of a model file and build its chain."""
    if not isinstance(data, Mapping):
        raise ModelError(f"{source}: a model file must be a mapping with 'links', got "
                         f"{type(data).__name__}")
    _no_unknown(data, _TOP_KEYS, source)

    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise ModelError(f"{source}: name: expected a non-empty string, got {name!r}")
    convention = data.get("dh", STANDARD)
    if convention not in CONVENTIONS:
        raise ModelError(f"{source}: dh: {convention!r} is not a DH convention; use "
                         f"'standard' (Siciliano/Spong) or 'modified' (Craig)")

    gravity = _vector(data.get("gravity", [0, 0, "-g"]), f"{source}: gravity", 3)

    links = data.get("links")
    if not isinstance(links, list) or not links:
        raise ModelError(f"{source}: links: expected a non-empty list of links (base to tip), "
                         f"got {links!r}")
    rows, inertials, frictions, names = [], [], [], []
    for i, entry in enumerate(links):
        field = f"{source}: links[{i}]"
        if not isinstance(entry, Mapping):
            raise ModelError(f"{field}: expected a mapping with joint, mass, ..., got {entry!r}")
        _no_unknown(entry, _LINK_KEYS, field)
        joint = entry.get("joint")
        if joint not in JOINT_TYPES:
            raise ModelError(f"{field}.joint: {joint!r} is not a joint type; use 'revolute' or "
                             "'prismatic'")
        rows.append(DHRow(joint, *(parse_expression(entry.get(k, 0), f"{field}.{k}")
                                   for k in ("a", "alpha", "d", "theta"))))
        if "mass" not in entry:
            raise ModelError(f"{field}.mass: missing; every link needs a mass "
                             "(0 for a massless link)")
        mass = parse_expression(entry["mass"], f"{field}.mass")
        com = _vector(entry.get("com", [0, 0, 0]), f"{field}.com", 3)
        inertia = _inertia(entry.get("inertia", [0, 0, 0, 0, 0, 0]), f"{field}.inertia")
        inertials.append(Inertial(mass, com, inertia))
        friction = entry.get("friction", {}) or {}
        if not isinstance(friction, Mapping):
            raise ModelError(f"{field}.friction: expected a mapping {{viscous: .., coulomb: ..}}, "
                             f"got {friction!r}")
        _no_unknown(friction, _FRICTION_KEYS, f"{field}.friction")
        frictions.append(Friction(
            parse_expression(friction.get("viscous", 0), f"{field}.friction.viscous"),
            parse_expression(friction.get("coulomb", 0), f"{field}.friction.coulomb"),
        ))
        link_name = entry.get("name", f"link{i + 1}")
        if not isinstance(link_name, str):
            raise ModelError(f"{field}.name: expected a string, got {link_name!r}")
        names.append(link_name)

    values = parse_values(data.get("values", {}) or {}, f"{source}: values")
    chain = dh_chain(convention, rows, inertials, frictions, gravity, names)
    for s in sorted(chain.free_symbols(), key=str):
        check_parameter_name(str(s), f"{source}: symbol")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ModelError(f"{source}: description: expected a string")
    provenance = Provenance(loader="yaml", path=source, convention=convention,
                            dh_rows=tuple(rows))
    return ModelSource(name.strip(), chain, values, description.strip(), provenance)


def parse_values(values: object, field: str) -> dict[str, float]:
    """``{name: number}``; a value may be a numeric expression (``pi/2``) without symbols."""
    if not isinstance(values, Mapping):
        raise ModelError(f"{field}: expected a mapping name: number, got {values!r}")
    out = {}
    for key, raw in values.items():
        name = check_parameter_name(key, f"{field}")
        expr = parse_expression(raw, f"{field}.{name}")
        if expr.free_symbols:
            raise ModelError(f"{field}.{name}: {raw!r} must be a number, not depend on "
                             f"{', '.join(sorted(map(str, expr.free_symbols)))}")
        try:
            number = float(expr)
        except TypeError:
            raise ModelError(f"{field}.{name}: {raw!r} is not a real number") from None
        out[name] = number
    return out


def _no_unknown(mapping: Mapping, allowed: set[str], field: str) -> None:
    unknown = [k for k in mapping if k not in allowed]
    if unknown:
        raise ModelError(f"{field}: unknown key(s) {', '.join(map(repr, unknown))}; allowed: "
                         f"{', '.join(sorted(allowed))}")


def _vector(value: object, field: str, n: int) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ModelError(f"{field}: expected a list of {n} numbers, got {value!r}")
    return tuple(parse_expression(v, f"{field}[{k}]") for k, v in enumerate(value))


def _inertia(value: object, field: str) -> tuple:
    """``[xx, yy, zz, xy, xz, yz]`` or a symmetric 3x3 nested list."""
    if isinstance(value, (list, tuple)) and len(value) == 3 and all(
        isinstance(r, (list, tuple)) for r in value
    ):
        rows = [_vector(r, f"{field}[{k}]", 3) for k, r in enumerate(value)]
        for a, b in ((0, 1), (0, 2), (1, 2)):
            if sp.simplify(rows[a][b] - rows[b][a]) != 0:
                raise ModelError(f"{field}: not symmetric: [{a}][{b}] = {rows[a][b]} but "
                                 f"[{b}][{a}] = {rows[b][a]}")
        return tuple(tuple(r) for r in rows)
    if not isinstance(value, (list, tuple)) or len(value) != 6:
        raise ModelError(f"{field}: expected [xx, yy, zz, xy, xz, yz] (6 numbers, about the "
                         f"centre of mass, link frame) or a 3x3 list, got {value!r}")
    xx, yy, zz, xy, xz, yz = _vector(value, field, 6)
    return ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))


__all__ = ["ModelSource", "read_model_file", "parse_model", "parse_values", "symbol"]
