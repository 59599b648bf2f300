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
        friction: {viscous: Fv1, coulomb: Fs1}   # optional; more keys (all optional):
                                 # coulomb_negative (F_c- for qd < 0; default coulomb),
                                 # offset (tau_0), static (F_st, Stribeck; 0: none),
                                 # stribeck_velocity (v_st > 0), stribeck_exponent
                                 # (delta, default 2), smooth_velocity (v_s: tanh(qd/v_s)
                                 # for sign(qd); 0: sign). docs/friction-and-drives.md
        motor: {inertia: Jm1, gear_ratio: G1}    # optional: adds G^2 Jm to M[i, i];
                                 # efficiency, efficiency_back: the gear's (0, 1], for
                                 # the energy drawn (rd.energy.consumed); stiffness,
                                 # spring_damping: an elastic joint (any joints, the
                                 # others rigid; needs inertia > 0); resistance, torque_constant
                                 # (inductance, back_emf_constant): a DC motor (every
                                 # joint or none). docs/friction-and-drives.md
        point_masses:                            # optional: masses at points of the link
          - {mass: mE, at: [l2, 0, 0]}           # (link frame): a motor, a payload
        limits: {lower: -pi, upper: pi, velocity: 3, effort: 50}   # optional, reported
    values: {m1: 1.0, l1: 0.5, g: 9.81}   # g: 9.81 when not given (as Robot.from_dh)
    configurations:              # optional: named joint values, one per joint, within
      home: [0, pi/2]            # the limits (robot.configurations["home"])
    frames:                      # optional: named frames fixed to a link (or the base):
      left_tip: {link: finger1, xyz: [0, 0, l3], rpy: [0, 0, 0]}   # in its DH frame
    loops:                       # optional: closed chains (docs/closed-chains.md)
      - {name: close, frames: [tip_a, tip_b], type: planar}   # position | planar | pose
    couplings:                   # optional: q_joint = multiplier q_source + offset
      - {joint: link3, source: link2, multiplier: -1, offset: 0}
    actuated: [link1]            # optional: the driven joints (the others are passive)

Numbers may be expressions (:mod:`robodyn.model.expressions`); omitted ``com``
and ``inertia`` are zero; ``mass`` is required. Unknown keys are errors (a typo
must not silently become a zero), and so are duplicate keys (YAML would keep the
last silently).

A model file is untrusted data: the file size, the nesting and the number of
values with aliases expanded (a 483-byte "billion laughs" file expands to 10**9)
are bounded before the data is built, and error messages quote at most a short
excerpt of a value.

This module reads the file (:func:`read_model_file`) and assembles the model
(:func:`parse_model`), with the fields checked against the built chain (configurations,
display names, terms, the potential's zero) and the floating base;
:mod:`robodyn.model.yaml_loader` reads the YAML within the bounds, and
:mod:`robodyn.model.yaml_fields` parses the fields that make the chain's parts (vectors,
inertias, point masses, limits, placements, parents, frames).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import yaml

from ..core.errors import ModelError, excerpt
from ..core.files import file_label, model_name_of, read_model_bytes
from ..core.lazy import sp
from .chain import (
    PRISMATIC,
    REVOLUTE,
    Friction,
    Inertial,
    Motor,
    with_free_base,
)
from .dh import CONVENTIONS, STANDARD, DHRow, dh_chain, dh_frame_offset
from .expressions import RESERVED as RESERVED_NAME
from .expressions import check_parameter_name, parse_expression, symbol
from .friction import FRICTION_FIELDS
from .loops import parse_closures
from .lugre import LuGre
from .names import display_tex_problem
from .source import ModelSource, Provenance
from .transmission import transmission_of, with_transmission
from .yaml_fields import (
    check_keys,
    parse_frames,
    parse_inertia,
    parse_limits,
    parse_parents,
    parse_point_masses,
    parse_tool,
    parse_vector,
)
from .yaml_loader import ModelLoader, YamlLimitError

_TOP_KEYS = {"name", "dh", "gravity", "links", "values", "description", "planar", "tool",
             "display", "configurations", "terms", "potential_zero", "floating", "base",
             "frames", "loops", "couplings", "actuated", "transmission", "lugre"}
_BASE_KEYS = {"mass", "com", "inertia"}
#: A configuration's name: an identifier of at most 40 characters (``qr``, ``home``).
_CONFIGURATION_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,39}")
#: A display name: a name or a short piece of LaTeX (``theta_1``, ``\\ell_{c_1}``).
_DISPLAY = re.compile(r"^[A-Za-z0-9_{}\\ ^']{1,40}$")
_LINK_KEYS = {"joint", "a", "alpha", "d", "theta", "mass", "com", "inertia", "friction",
              "motor", "limits", "name", "point_masses", "parent"}
_MOTOR_KEYS = {"inertia", "gear_ratio", "efficiency", "efficiency_back", "stiffness",
               "spring_damping", "resistance", "inductance", "torque_constant",
               "back_emf_constant"}
#: The keys under ``friction:`` (:class:`~robodyn.model.friction.Friction`'s fields).
_FRICTION_KEYS = set(FRICTION_FIELDS)

#: Largest model file read, in bytes (the built-in PUMA 560 is 4 kB; the pure-Python
#: YAML reader takes about 0.3 s per MB).
MAX_FILE_BYTES = 1_000_000


def read_model_file(path: str | Path) -> ModelSource:
    """Read and validate a YAML model file."""
    path = Path(path)
    label = file_label(path)
    text = read_model_bytes(path, MAX_FILE_BYTES, "the model file", "a model file is a few kB")
    try:
        data = yaml.load(text, Loader=ModelLoader)  # a SafeLoader
    except YamlLimitError as exc:
        mark = exc.problem_mark
        raise ModelError(f"{label}: line {mark.line + 1}: {exc.problem}") from None
    except RecursionError:
        raise ModelError(f"{label}: nested too deeply for a model file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc)
        problem = problem if len(problem) <= 200 else excerpt(problem)
        raise ModelError(f"{label}: not valid YAML{where}: {problem}") from None
    parsed = parse_model(data, source=file_label(path), default_name=model_name_of(path))
    # messages show the name escaped; the provenance keeps the path itself
    return replace(parsed, provenance=replace(parsed.provenance, path=str(path)))


def parse_model(data: object, source: str = "model", default_name: str = "robot") -> ModelSource:
    """Validate the mapping of a model file and build its chain."""
    if not isinstance(data, Mapping):
        raise ModelError(f"{source}: a model file must be a mapping with 'links', got "
                         f"{type(data).__name__}")
    check_keys(data, _TOP_KEYS, source)

    name = data.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise ModelError(f"{source}: name: expected a non-empty string, got {excerpt(name)}")
    convention = data.get("dh", STANDARD)
    if convention not in CONVENTIONS:
        raise ModelError(f"{source}: dh: {excerpt(convention)} is not a DH convention; use "
                         f"'standard' (Siciliano/Spong) or 'modified' (Craig)")

    gravity = parse_vector(data.get("gravity", [0, 0, "-g"]), f"{source}: gravity", 3)

    links = data.get("links")
    if links == [] and data.get("floating") is True:
        pass  # a free body alone (a drone, a satellite): the base is the model
    elif not isinstance(links, list) or not links:
        raise ModelError(f"{source}: links: expected a non-empty list of links (base to tip), "
                         f"got {excerpt(links)}")
    rows, inertials, frictions, names, motors, limits, points = [], [], [], [], [], [], []
    for i, entry in enumerate(links):
        field = f"{source}: links[{i}]"
        if not isinstance(entry, Mapping):
            raise ModelError(f"{field}: expected a mapping with joint, mass, ..., got "
                             f"{excerpt(entry)}")
        check_keys(entry, _LINK_KEYS, field)
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
        com = parse_vector(entry.get("com", [0, 0, 0]), f"{field}.com", 3)
        inertia = parse_inertia(entry.get("inertia", [0, 0, 0, 0, 0, 0]), f"{field}.inertia")
        inertials.append(Inertial(mass, com, inertia))
        points.append(parse_point_masses(entry.get("point_masses"), f"{field}.point_masses"))
        friction = entry.get("friction", {}) or {}
        if not isinstance(friction, Mapping):
            raise ModelError(f"{field}.friction: expected a mapping {{viscous: .., coulomb: ..}}, "
                             f"got {excerpt(friction)}")
        check_keys(friction, _FRICTION_KEYS, f"{field}.friction")
        frictions.append(Friction(**{
            key: parse_expression(value, f"{field}.friction.{key}")
            for key, value in friction.items()}))
        motor = entry.get("motor", {}) or {}
        if not isinstance(motor, Mapping):
            raise ModelError(f"{field}.motor: expected a mapping {{inertia: Jm, gear_ratio: G}}, "
                             f"got {excerpt(motor)}")
        check_keys(motor, _MOTOR_KEYS, f"{field}.motor")
        limits.append(parse_limits(entry.get("limits"), f"{field}.limits"))
        motors.append(Motor(**{key: parse_expression(value, f"{field}.motor.{key}")
                               for key, value in motor.items()}))
        link_name = entry.get("name", f"link{i + 1}")
        if not isinstance(link_name, str):
            raise ModelError(f"{field}.name: expected a string, got {excerpt(link_name)}")
        if link_name == "base":  # parent: base and frame="base" mean the world
            raise ModelError(f"{field}.name: 'base' is reserved for the world (parent: base, "
                             "frame='base'); give the link another name")
        if link_name in names:
            first = names.index(link_name)
            raise ModelError(f"{field}.name: {excerpt(link_name, 40)} is also the name of "
                             f"links[{first}]; link names must be unique")
        names.append(link_name)

    parents = parse_parents(links, names, source)
    values = parse_values(data.get("values", {}) or {}, f"{source}: values")
    chain = dh_chain(convention, rows, inertials, frictions, gravity, names, motors, limits,
                     points, parents)
    if data.get("frames") is not None:
        frames = parse_frames(data["frames"], names, [dh_frame_offset(convention, r) for r in rows],
                         f"{source}: frames")
        chain = replace(chain, frames=frames)
    tool = data.get("tool")
    if tool is not None:
        chain = replace(chain, tip=chain.tip @ parse_tool(tool, f"{source}: tool"))
    planar = data.get("planar", False)
    if not isinstance(planar, bool):
        raise ModelError(f"{source}: planar: expected true or false, got {excerpt(planar)}")
    if planar:
        chain = replace(chain, planar=True)
    chain = _floating_base(data, chain, source)
    if "g" not in values and sp.Symbol("g") in chain.free_symbols():
        values = {**values, "g": 9.81}  # standard gravity, as Robot.from_dh, unless given
    closures = parse_closures(data, chain, source)
    if closures is not None:
        chain = replace(chain, closures=closures)
    if "transmission" in data:
        field = f"{source}: transmission"
        chain = with_transmission(chain, transmission_of(data["transmission"], chain.dof, field),
                                  field)
    if "lugre" in data:
        chain = replace(chain, lugre=LuGre.of(data["lugre"], chain.dof, f"{source}: lugre"))
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
    check_keys(base, _BASE_KEYS, field)
    body = Inertial(parse_expression(base["mass"], f"{field}.mass"),
                    parse_vector(base.get("com", [0, 0, 0]), f"{field}.com", 3),
                    parse_inertia(base.get("inertia", [0, 0, 0, 0, 0, 0]), f"{field}.inertia"))
    return with_free_base(chain, body)


__all__ = ["ModelSource", "read_model_file", "parse_model", "parse_values",
           "parse_configurations", "symbol"]
