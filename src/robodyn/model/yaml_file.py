"""Model files (YAML): parse, validate, build the chain.

The schema (README, "Model files")::

    name: rp-arm
    dh: standard                 # standard (default) | modified
    gravity: [0, -g, 0]          # base frame; default [0, 0, -g]
    planar: false                # true: all revolute axes parallel (checked); planar
                                 # inertias such as [0, 0, I1] then load without a warning
    floating: false              # true: the base is a free-flying body (a 6-DOF free-flyer)
    base: {mass: mB, com: [0, 0, 0], inertia: [IB, IB, IB, 0, 0, 0]}   # its body (floating)
    tool: {xyz: [l2, 0, 0], rpy: [0, 0, 0]}   # end-effector frame in the last link frame
    links:                       # base to tip, one per joint
      - joint: revolute          # revolute | prismatic
        parent: base             # optional: a tree. The name or 1-based number of an
                                 # earlier link, or base; default the link before
                                 # (DH: this row's frame is placed in the parent's frame)
        a: 0
        alpha: pi/2
        d: 0
        theta: pi/2
        mass: m1
        com: [0, 0, l1]                          # link frame
        inertia: [Ixx1, Iyy1, Izz1, 0, 0, 0]     # about the COM: xx, yy, zz, xy, xz, yz
        friction: {viscous: Fv1, coulomb: Fs1}   # optional
        motor: {inertia: Jm1, gear_ratio: G1}    # optional: adds G^2 Jm to M[i, i]
        point_masses:                            # optional: masses at points of the link
          - {mass: mE, at: [l2, 0, 0]}           # (link frame): a motor, a payload
        limits: {lower: -pi, upper: pi, velocity: 3, effort: 50}   # optional, reported
    values: {m1: 1.0, l1: 0.5, g: 9.81}
    configurations:              # optional: named joint values, one per joint, within
      home: [0, pi/2]            # the limits (robot.configurations["home"])
    frames:                      # optional: named frames fixed to a link (or the base):
      left_tip: {link: finger1, xyz: [0, 0, l3], rpy: [0, 0, 0]}   # in its DH frame

Numbers may be expressions (:mod:`robodyn.model.expressions`); omitted ``com``
and ``inertia`` are zero; ``mass`` is required. Unknown keys are errors (a typo
must not silently become a zero), and so are duplicate keys (YAML would keep the
last silently).

A model file is untrusted data: the file size, the nesting and the number of
values with aliases expanded (a 483-byte "billion laughs" file expands to 10**9)
are bounded before the data is built, and error messages quote at most a short
excerpt of a value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import yaml

from ..core.errors import ModelError, excerpt
from .chain import (
    PRISMATIC,
    REVOLUTE,
    Frame,
    Friction,
    Inertial,
    Motor,
    PointMass,
    Transform,
    with_free_base,
)
from .dh import CONVENTIONS, STANDARD, DHRow, dh_chain, dh_frame_offset
from .expressions import RESERVED as RESERVED_NAME
from .expressions import check_parameter_name, parse_expression, symbol
from .names import check_text, display_tex_problem
from .source import ModelSource, Provenance

_TOP_KEYS = {"name", "dh", "gravity", "links", "values", "description", "planar", "tool",
             "display", "configurations", "terms", "potential_zero", "floating", "base",
             "frames"}
_BASE_KEYS = {"mass", "com", "inertia"}
#: A configuration's name: an identifier of at most 40 characters (``qr``, ``home``).
_CONFIGURATION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
#: A display name: a name or a short piece of LaTeX (``theta_1``, ``\\ell_{c_1}``).
_DISPLAY = re.compile(r"^[A-Za-z0-9_{}\\ ^']{1,40}$")
_LINK_KEYS = {"joint", "a", "alpha", "d", "theta", "mass", "com", "inertia", "friction",
              "motor", "limits", "name", "point_masses", "parent"}
_POINT_MASS_KEYS = {"mass", "at"}
#: Most point masses one link may carry (a model file needs a few).
MAX_POINT_MASSES = 100
_LIMIT_KEYS = ("lower", "upper", "velocity", "effort")
_MOTOR_KEYS = {"inertia", "gear_ratio"}
_FRICTION_KEYS = {"viscous", "coulomb"}

#: Largest model file read, in bytes (the built-in PUMA 560 is 4 kB; the pure-Python
#: YAML reader takes about 0.3 s per MB).
MAX_FILE_BYTES = 1_000_000
#: Most values (scalars, lists, mappings) a model file may hold, aliases expanded.
MAX_YAML_NODES = 10_000
#: Deepest nesting of lists and mappings (a model file needs 5).
MAX_YAML_DEPTH = 32


class _LimitError(yaml.MarkedYAMLError):
    """A model file breaks one of robodyn's limits (not a YAML syntax error)."""


class _ModelLoader(yaml.SafeLoader):
    """``yaml.SafeLoader`` that rejects duplicate keys, nesting beyond
    :data:`MAX_YAML_DEPTH` and more than :data:`MAX_YAML_NODES` values with aliases
    expanded, all before any Python object is built."""

    def __init__(self, stream):
        super().__init__(stream)
        self._nodes = 0
        self._depth = 0

    def compose_node(self, parent, index):
        self._nodes += 1
        self._depth += 1
        try:
            if self._nodes > MAX_YAML_NODES or self._depth > MAX_YAML_DEPTH:
                too = ("too many values" if self._nodes > MAX_YAML_NODES
                       else "nested too deeply")
                limit = MAX_YAML_NODES if self._nodes > MAX_YAML_NODES else MAX_YAML_DEPTH
                raise _LimitError(problem=f"{too} for a model file (limit {limit:,})",
                                  problem_mark=self.peek_event().start_mark)
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_document(self, node):
        _check_expanded_size(node)
        return super().construct_document(node)

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen: dict = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=True)
                try:
                    first = seen.setdefault(key, key_node)
                except TypeError:  # unhashable: SafeLoader reports it
                    continue
                if first is not key_node:
                    raise _LimitError(
                        problem=f"duplicate key {excerpt(key)} (first at line "
                                f"{first.start_mark.line + 1}); YAML would silently keep "
                                "only the last",
                        problem_mark=key_node.start_mark)
        return super().construct_mapping(node, deep=deep)

    def construct_yaml_int(self, node):
        try:
            return super().construct_yaml_int(node)
        except ValueError:  # Python refuses to convert integers of more than 4300 digits
            raise _LimitError(problem="integer too long", problem_mark=node.start_mark) from None


_ModelLoader.add_constructor("tag:yaml.org,2002:int", _ModelLoader.construct_yaml_int)


def _check_expanded_size(root: yaml.Node) -> None:
    """The number of values with every alias expanded, at most :data:`MAX_YAML_NODES`;
    computed on the graph of composed nodes (shared by aliases) without expanding it."""
    sizes: dict[int, int] = {}
    on_path: set[int] = set()
    stack = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        children = _children(node)
        if done:
            on_path.discard(key)
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_NODES:
                raise _LimitError(
                    problem=f"more than {MAX_YAML_NODES:,} values with aliases expanded; "
                            "a model file needs far fewer",
                    problem_mark=node.start_mark)
            continue
        if key in sizes:
            continue
        if key in on_path:
            raise _LimitError(problem="an alias refers to a value that contains it",
                              problem_mark=node.start_mark)
        on_path.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in children if id(c) not in sizes)


def _children(node: yaml.Node) -> list:
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    return []


def read_model_file(path: str | Path) -> ModelSource:
    """Read and validate a YAML model file."""
    path = Path(path)
    try:
        with path.open("rb") as f:
            text = f.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ModelError(f"{path}: cannot read the model file ({exc.strerror})") from None
    if len(text) > MAX_FILE_BYTES:
        raise ModelError(f"{path}: the file is larger than {MAX_FILE_BYTES:,} bytes; a model "
                         "file is a few kB")
    try:
        data = yaml.load(text, Loader=_ModelLoader)  # a SafeLoader
    except _LimitError as exc:
        mark = exc.problem_mark
        raise ModelError(f"{path}: line {mark.line + 1}: {exc.problem}") from None
    except RecursionError:
        raise ModelError(f"{path}: nested too deeply for a model file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        problem = problem if len(problem) <= 200 else excerpt(problem)
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
        raise ModelError(f"{source}: name: expected a non-empty string, got {excerpt(name)}")
    convention = data.get("dh", STANDARD)
    if convention not in CONVENTIONS:
        raise ModelError(f"{source}: dh: {excerpt(convention)} is not a DH convention; use "
                         f"'standard' (Siciliano/Spong) or 'modified' (Craig)")

    gravity = _vector(data.get("gravity", [0, 0, "-g"]), f"{source}: gravity", 3)

    links = data.get("links")
    if not isinstance(links, list) or not links:
        raise ModelError(f"{source}: links: expected a non-empty list of links (base to tip), "
                         f"got {excerpt(links)}")
    rows, inertials, frictions, names, motors, limits, points = [], [], [], [], [], [], []
    for i, entry in enumerate(links):
        field = f"{source}: links[{i}]"
        if not isinstance(entry, Mapping):
            raise ModelError(f"{field}: expected a mapping with joint, mass, ..., got "
                             f"{excerpt(entry)}")
        _no_unknown(entry, _LINK_KEYS, field)
        joint = entry.get("joint")
        if joint not in (REVOLUTE, PRISMATIC):  # a DH row moves one value
            raise ModelError(f"{field}.joint: {excerpt(joint)} is not a joint type; use "
                             "'revolute' or 'prismatic'")
        rows.append(DHRow(joint, *(parse_expression(entry.get(k, 0), f"{field}.{k}")
                                   for k in ("a", "alpha", "d", "theta"))))
        if "mass" not in entry:
            raise ModelError(f"{field}.mass: missing; every link needs a mass "
                             "(0 for a massless link)")
        mass = parse_expression(entry["mass"], f"{field}.mass")
        com = _vector(entry.get("com", [0, 0, 0]), f"{field}.com", 3)
        inertia = _inertia(entry.get("inertia", [0, 0, 0, 0, 0, 0]), f"{field}.inertia")
        inertials.append(Inertial(mass, com, inertia))
        points.append(_point_masses(entry.get("point_masses"), f"{field}.point_masses"))
        friction = entry.get("friction", {}) or {}
        if not isinstance(friction, Mapping):
            raise ModelError(f"{field}.friction: expected a mapping {{viscous: .., coulomb: ..}}, "
                             f"got {excerpt(friction)}")
        _no_unknown(friction, _FRICTION_KEYS, f"{field}.friction")
        frictions.append(Friction(
            parse_expression(friction.get("viscous", 0), f"{field}.friction.viscous"),
            parse_expression(friction.get("coulomb", 0), f"{field}.friction.coulomb"),
        ))
        motor = entry.get("motor", {}) or {}
        if not isinstance(motor, Mapping):
            raise ModelError(f"{field}.motor: expected a mapping {{inertia: Jm, gear_ratio: G}}, "
                             f"got {excerpt(motor)}")
        _no_unknown(motor, _MOTOR_KEYS, f"{field}.motor")
        limits.append(_limits(entry.get("limits"), f"{field}.limits"))
        motors.append(Motor(
            parse_expression(motor.get("inertia", 0), f"{field}.motor.inertia"),
            parse_expression(motor.get("gear_ratio", 1), f"{field}.motor.gear_ratio"),
        ))
        link_name = entry.get("name", f"link{i + 1}")
        if not isinstance(link_name, str):
            raise ModelError(f"{field}.name: expected a string, got {excerpt(link_name)}")
        names.append(link_name)

    parents = _parents(links, names, source)
    values = parse_values(data.get("values", {}) or {}, f"{source}: values")
    chain = dh_chain(convention, rows, inertials, frictions, gravity, names, motors, limits,
                     points, parents)
    if data.get("frames") is not None:
        frames = _frames(data["frames"], names, [dh_frame_offset(convention, r) for r in rows],
                         f"{source}: frames")
        chain = replace(chain, frames=frames)
    tool = data.get("tool")
    if tool is not None:
        chain = replace(chain, tip=chain.tip @ _tool(tool, f"{source}: tool"))
    planar = data.get("planar", False)
    if not isinstance(planar, bool):
        raise ModelError(f"{source}: planar: expected true or false, got {excerpt(planar)}")
    if planar:
        chain = replace(chain, planar=True)
    chain = _floating_base(data, chain, source)
    for s in sorted(chain.free_symbols(), key=str):
        check_parameter_name(str(s), f"{source}: symbol")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise ModelError(f"{source}: description: expected a string")
    display = _display(data.get("display"), chain, f"{source}: display")
    terms = _terms(data.get("terms"), chain, f"{source}: terms")
    potential_zero = _potential_zero(data.get("potential_zero"), chain,
                                     f"{source}: potential_zero")
    provenance = Provenance(loader="yaml", path=source, convention=convention,
                            dh_rows=tuple(rows), display=display, terms=terms,
                            potential_zero=potential_zero)
    configurations = parse_configurations(data.get("configurations"), chain,
                                          f"{source}: configurations")
    return ModelSource(name.strip(), chain, values, description.strip(), provenance,
                       configurations)


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


def _parents(links: list, names: list[str], source: str) -> tuple[int, ...] | None:
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


def _frames(value: object, names: list[str], offsets: list[Transform],
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
        _no_unknown(entry, {"link", "xyz", "rpy"}, where)
        if "link" not in entry:
            raise ModelError(f"{where}.link: missing; name the link the frame is fixed to "
                             "(its name, its number, or base)")
        link = _link_reference(entry["link"], names, len(names), f"{where}.link", "")
        placement = _tool({k: v for k, v in entry.items() if k != "link"}, where)
        if link >= 0:
            placement = offsets[link] @ placement
        out.append(Frame(name, link, placement))
    return tuple(out)


def parse_configurations(value: object, chain, field: str) -> tuple:
    """``configurations: {qr: [0, pi/2, ...], ...}``: named joint values, ``((name,
    (q1, ..., qn)), ...)`` floats in the file's order. Each name an identifier (at most 40
    characters), each list one number (or constant expression, ``pi/2``) per joint,
    finite and within the joint's limits where the model gives them."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{name: [q1, ..., q{chain.dof}]}}, got "
                         f"{excerpt(value)}")
    out = []
    for key, raw in value.items():
        if not isinstance(key, str) or not _CONFIGURATION_NAME.fullmatch(key):
            raise ModelError(f"{field}: {excerpt(key, 40)} is not a configuration name (a "
                             "letter or _, then letters, digits, _; at most 40 characters)")
        where = f"{field}.{key}"
        if not isinstance(raw, (list, tuple)) or len(raw) != chain.dof:
            raise ModelError(f"{where}: expected a list of {chain.dof} numbers (one per "
                             f"joint), got {excerpt(raw)}")
        q = []
        for j, (item, link) in enumerate(zip(raw, chain.links, strict=True)):
            expr = parse_expression(item, f"{where}[{j}]")
            if expr.free_symbols:
                raise ModelError(f"{where}[{j}]: must be a number, not depend on "
                                 f"{', '.join(sorted(map(str, expr.free_symbols)))}")
            try:
                number = float(expr)
            except TypeError:
                raise ModelError(f"{where}[{j}]: {excerpt(item)} is not a real number") from None
            if not math.isfinite(number):
                raise ModelError(f"{where}[{j}]: {excerpt(item)} is not a finite number")
            limits = link.joint.limits
            if limits is not None and not limits[0] <= number <= limits[1]:
                raise ModelError(f"{where}[{j}]: {number:.6g} is outside joint {j + 1}'s "
                                 f"limits [{limits[0]:.6g}, {limits[1]:.6g}]")
            q.append(number)
        out.append((key, tuple(q)))
    return tuple(out)


def _display(value: object, chain, field: str) -> tuple[tuple[str, str], ...]:
    """``display: {q2: d_2, ml2: "m_{l_2}"}``: how printed derivations name a joint
    variable (``q1``..) or a parameter; each key must be one of the model's, each value
    a name or short LaTeX (at most 40 characters of letters, digits, ``_ { } \\ ^ '``;
    balanced braces; only the commands of
    :data:`~robodyn.model.names.DISPLAY_COMMANDS`, nothing that reads a file)."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{symbol: display name}}, got "
                         f"{excerpt(value)}")
    known = {str(s) for s in chain.free_symbols()} | {f"q{i}" for i in range(1, chain.dof + 1)}
    out = []
    for key, name in value.items():
        if str(key) not in known:
            raise ModelError(f"{field}: {excerpt(key, 40)} is not a joint variable (q1..q"
                             f"{chain.dof}) or a parameter of the model")
        if not isinstance(name, str) or not _DISPLAY.match(name):
            raise ModelError(f"{field}.{key}: {excerpt(name, 40)} is not a display name "
                             "(letters, digits, _ { } \\ ^ ', at most 40 characters)")
        problem = display_tex_problem(name)
        if problem:
            raise ModelError(f"{field}.{key}: {excerpt(name, 40)} {problem}")
        out.append((str(key), name))
    return tuple(sorted(out))


#: Most named terms a model file may declare.
MAX_TERMS = 20


def _terms(value: object, chain, field: str) -> tuple[tuple[str, object], ...]:
    """``terms: {h: m2*l1*c2*sin(q2)}``: recurring terms the printed derivation writes by
    name, with the sign given (the planar-arm notes' ``h = m2 l1 c2 sin q2``, ``C11 = -h qd2``);
    each name an identifier that is not a parameter or a joint variable, each value an
    expression (:func:`~robodyn.model.expressions.parse_expression`) of the model's
    parameters and joint variables ``q1..``, not a number."""
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{name: expression}}, e.g. "
                         f"{{h: m2*l1*c2*sin(q2)}}, got {excerpt(value)}")
    if len(value) > MAX_TERMS:
        raise ModelError(f"{field}: {len(value)} terms; at most {MAX_TERMS}")
    params = {str(s) for s in chain.free_symbols()}
    joints = {f"q{i}" for i in range(1, chain.dof + 1)}
    out = []
    for key, text in value.items():
        name = str(key)
        if not isinstance(key, str) or not name.isidentifier() or len(name) > 40:
            raise ModelError(f"{field}: {excerpt(key, 40)} is not a term name (an identifier "
                             "such as h)")
        if name in params or name in joints or RESERVED_NAME.match(name):
            raise ModelError(f"{field}.{name}: {name!r} is already a parameter or a joint "
                             "variable of the model; give the term another name")
        expr = parse_expression(text, f"{field}.{name}", joints=chain.dof)
        unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in params | joints)
        if unknown:
            raise ModelError(f"{field}.{name}: {', '.join(unknown[:3])} is not a parameter or "
                             f"a joint variable (q1..q{chain.dof}) of the model")
        if expr.is_number:
            raise ModelError(f"{field}.{name}: {excerpt(text, 40)} is a number; name a term "
                             "with symbols")
        out.append((name, expr))
    return tuple(out)


def _potential_zero(value: object, chain, field: str) -> tuple:
    """``potential_zero: [q1, ...]``: the configuration where the potential energy is
    zero (lecture 15's reference ``U_ref``; Siciliano §7.1's ``U = m g l (1 - cos q)``): one
    number or expression of the model's parameters per joint. It changes ``U`` by a
    constant only, never ``tau``."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) != chain.dof:
        raise ModelError(f"{field}: expected a list of {chain.dof} joint values (a "
                         f"configuration, e.g. [{', '.join(['0'] * chain.dof)}]), got "
                         f"{excerpt(value)}")
    params = {str(s) for s in chain.free_symbols()}
    out = []
    for i, x in enumerate(value):
        expr = parse_expression(x, f"{field}[{i}]")
        unknown = sorted(str(s) for s in expr.free_symbols if str(s) not in params)
        if unknown:
            raise ModelError(f"{field}[{i}]: {', '.join(unknown[:3])} is not a parameter of "
                             "the model (a configuration holds numbers or parameters)")
        out.append(expr)
    return tuple(out)


def parse_values(values: object, field: str) -> dict[str, float]:
    """``{name: number}``; a value may be a numeric expression (``pi/2``) without symbols."""
    if not isinstance(values, Mapping):
        raise ModelError(f"{field}: expected a mapping name: number, got {excerpt(values)}")
    out = {}
    for key, raw in values.items():
        name = check_parameter_name(key, f"{field}")
        expr = parse_expression(raw, f"{field}.{name}")
        if expr.free_symbols:
            raise ModelError(f"{field}.{name}: {excerpt(raw)} must be a number, not depend on "
                             f"{', '.join(sorted(map(str, expr.free_symbols)))}")
        try:
            number = float(expr)
        except TypeError:
            raise ModelError(f"{field}.{name}: {excerpt(raw)} is not a real number") from None
        out[name] = number
    return out


def _point_masses(value: object, field: str) -> tuple[PointMass, ...]:
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
        _no_unknown(entry, _POINT_MASS_KEYS, where)
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
        out.append(PointMass(mass, _vector(entry["at"], f"{where}.at", 3)))
    return tuple(out)


def _limits(value: object, field: str) -> tuple | None:
    """``limits: {lower, upper, velocity, effort}`` (numbers or constant expressions such as
    ``-pi/2``; a missing bound is unlimited): ``(lower, upper, velocity, effort)`` floats."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{lower, upper, velocity, effort}}, got "
                         f"{excerpt(value)}")
    _no_unknown(value, set(_LIMIT_KEYS), field)
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


def _tool(value: object, field: str) -> Transform:
    """``tool: {xyz: [..], rpy: [..]}``: the end-effector frame in the last link frame
    (URDF convention, ``R = Rz(yaw) Ry(pitch) Rx(roll)``; expressions allowed)."""
    if not isinstance(value, Mapping):
        raise ModelError(f"{field}: expected a mapping {{xyz: [x, y, z], rpy: [roll, pitch, "
                         f"yaw]}}, got {excerpt(value)}")
    _no_unknown(value, {"xyz", "rpy"}, field)
    xyz = _vector(value.get("xyz", [0, 0, 0]), f"{field}.xyz", 3)
    rpy = _vector(value.get("rpy", [0, 0, 0]), f"{field}.rpy", 3)
    return Transform.from_rpy(xyz, rpy)


def _no_unknown(mapping: Mapping, allowed: set[str], field: str) -> None:
    unknown = [k for k in mapping if k not in allowed]
    if unknown:
        shown = ", ".join(excerpt(k, 40) for k in unknown[:5])
        if len(unknown) > 5:
            shown += f" and {len(unknown) - 5} more"
        raise ModelError(f"{field}: unknown key(s) {shown}; allowed: "
                         f"{', '.join(sorted(allowed))}")


def _floating_base(data: Mapping, chain, source: str):
    """``floating: true`` with the base body ``base: {mass, com, inertia}`` (com and inertia
    about it in the base frame, default zero): the chain on a free-flying base."""
    floating = data.get("floating", False)
    if not isinstance(floating, bool):
        raise ModelError(f"{source}: floating: expected true or false, got {excerpt(floating)}")
    base = data.get("base")
    if not floating:
        if base is not None:
            raise ModelError(f"{source}: base: the base body is for a free-flying base; add "
                             "'floating: true' (or remove 'base')")
        return chain
    field = f"{source}: base"
    if not isinstance(base, Mapping) or "mass" not in base:
        raise ModelError(f"{field}: a floating base needs its body, a mapping {{mass, com, "
                         f"inertia}} (base frame, inertia about the com), got {excerpt(base)}")
    _no_unknown(base, _BASE_KEYS, field)
    body = Inertial(parse_expression(base["mass"], f"{field}.mass"),
                    _vector(base.get("com", [0, 0, 0]), f"{field}.com", 3),
                    _inertia(base.get("inertia", [0, 0, 0, 0, 0, 0]), f"{field}.inertia"))
    return with_free_base(chain, body)


def _vector(value: object, field: str, n: int) -> tuple:
    if not isinstance(value, (list, tuple)) or len(value) != n:
        raise ModelError(f"{field}: expected a list of {n} numbers, got {excerpt(value)}")
    return tuple(parse_expression(v, f"{field}[{k}]") for k, v in enumerate(value))


def _inertia(value: object, field: str) -> tuple:
    """``[xx, yy, zz, xy, xz, yz]`` or a symmetric 3x3 nested list."""
    if isinstance(value, (list, tuple)) and len(value) == 3 and all(
        isinstance(r, (list, tuple)) for r in value
    ):
        rows = [_vector(r, f"{field}[{k}]", 3) for k, r in enumerate(value)]
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
    xx, yy, zz, xy, xz, yz = _vector(value, field, 6)
    return ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))


__all__ = ["ModelSource", "read_model_file", "parse_model", "parse_values",
           "parse_configurations", "symbol"]
