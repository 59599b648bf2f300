"""Reading a model: what :func:`robodyn.load` and :meth:`robodyn.Robot.from_dh` parse,
as a :class:`~robodyn.model.source.ModelSource` (the robot facade builds the robot)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..core.errors import ModelError, excerpt
from ..core.files import file_label
from ..core.lazy import sp
from .source import ModelSource


def read_source(source: str | os.PathLike[str], *, base: str | None = None,
                tip: str | None = None, allow_massless: bool = False,
                snap_angles: float | None = None, floating: bool = False,
                mimic: str = "coupled", asset_root: str | os.PathLike[str] | None = None
                ) -> ModelSource:
    """The model ``source`` names (:func:`robodyn.load`): a built-in model, a
    ``.yaml``/``.yml`` model file, a ``.urdf`` or an MJCF ``.xml``.

    The keyword options are for URDF files only, but ``mimic`` that MJCF files take too (for
    a built-in model or a YAML file they are an error):

    * ``base``: the link fixed to the world; default: the file's root link.
    * ``tip``: the end-effector link; default: the end of the movable joints when they
      form one chain (links on fixed joints after it are merged bodies, a single path of
      them ends at its leaf). Where the movable joints branch (a gripper's fingers, a
      humanoid's limbs) the default is the whole tree (the end frame is its last link, said
      in ``robot.provenance.notes``); ``tip`` then selects one chain. A link
      behind fixed joints (``tip="tool0"``) puts the end frame of ``forward_kinematics``
      and ``jacobian`` there. Movable joints off the chain are held at zero, merged into
      their parent, and named in ``robot.locked``.
    * ``allow_massless``: accept moving links without ``<inertial>`` as massless
      (otherwise an error names the link).
    * ``snap_angles``: a tolerance in radians; ``<origin rpy>`` angles this close to a
      multiple of pi/2 become that multiple (a file's ``rpy="1.5708"`` then cancels
      exactly, and its derivation stays small), each change listed in
      ``robot.provenance.notes``. Default ``None``: angles as written.
    * ``floating``: the root link's body (with the bodies fixed to it) is a free-flying
      base (a free joint at the root, as Pinocchio's ``JointModelFreeFlyer``;
      :mod:`robodyn.model.joints`), the links hanging from it; a model file says
      ``floating: true`` instead.
    * ``mimic``: ``"coupled"`` (default): ``<mimic>`` joints follow the joint they name
      (``robot.dof`` counts the independent joints, docs/closed-chains.md);
      ``"independent"``: each moves on its own. For an MJCF file the same for
      ``<equality joint>`` with a linear ``polycoef``.
    * ``asset_root`` (MJCF only): a folder that holds the model file, under which its mesh
      files may be read (default: the model's own folder; dm_control's ``dog_v2`` names
      meshes four folders up, ``asset_root`` its package folder). Meshes outside it are
      refused, whatever the file says.
    """
    from . import builtin as models

    options = {name: value for name, value, default in (
        ("base", base, None), ("tip", tip, None), ("allow_massless", allow_massless, False),
        ("snap_angles", snap_angles, None), ("floating", floating, False))
        if value is not default}
    if mimic != "coupled":
        options["mimic"] = mimic
    if asset_root is not None:
        options["asset_root"] = asset_root
    text = str(source)
    path = Path(text)
    if path.suffix.lower() in (".yaml", ".yml"):
        if not path.exists():
            raise ModelError(f"{file_label(text)}: no such model file")
        if options:
            hint = " (a model file says 'floating: true' itself)" if "floating" in options else ""
            raise TypeError(f"load() of a YAML file takes no options, got {sorted(options)}"
                            f"{hint}")
        from .yaml_file import read_model_file  # PyYAML and the expressions: YAML only

        parsed = read_model_file(path)
    elif path.suffix.lower() == ".urdf":
        from .urdf import load_urdf  # only URDF users pay the import

        if "asset_root" in options:
            raise TypeError("load() of a URDF file takes no asset_root= (robodyn reads no "
                            "URDF meshes); it is an MJCF option")
        parsed = load_urdf(path, **options)
    elif path.suffix.lower() == ".xml":
        from .mjcf import load_mjcf  # only MJCF users pay the import

        mjcf_options = {k: options.pop(k) for k in ("mimic", "asset_root") if k in options}
        if options:
            raise TypeError(f"load() of an MJCF file takes only mimic= and asset_root=, got "
                            f"{sorted(options)}")
        parsed = load_mjcf(path, **mjcf_options)
    elif text in models.names():
        if options:
            raise TypeError(f"load() of a built-in model takes no options, got {sorted(options)}")
        builtin = models.path(text)
        if builtin.suffix == ".xml":
            from .mjcf import load_mjcf

            parsed = load_mjcf(builtin)
        else:
            from .yaml_file import read_model_file

            parsed = read_model_file(builtin)
    else:
        close = difflib.get_close_matches(text, models.names(), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ModelError(
            f"cannot load {text!r}: not a built-in model ({', '.join(models.names())}) and not a "
            f".yaml/.yml/.urdf/.xml (MJCF) file{hint}"
        )
    return parsed


def dh_source(rows, joints: str | Sequence[str] | None = None, *, masses, com=None,
              inertia=None, friction=None, motor=None, limits=None, gravity=(0, 0, "-g"),
              values: Mapping[str, float] | None = None, convention: str = "standard",
              name: str = "robot", tool=None, planar: bool = False,
              link_names: Sequence[str] | None = None,
              configurations: Mapping[str, Sequence] | None = None, description: str = "",
              parents: Sequence | None = None) -> ModelSource:
    """The model of a DH table given in Python (:meth:`robodyn.Robot.from_dh`): the fields
    of a model file, read by its reader (:mod:`robodyn.model.yaml_file`), with the same checks
    and errors (which name the fields as the file does: ``links[1].mass`` is ``masses[1]``).

    ``rows``: one ``(a, alpha, d, theta)`` per joint, base to tip (or a mapping with
    those keys), in the DH ``convention`` ``"standard"`` (Siciliano, Spong) or
    ``"modified"`` (Craig); ``theta`` of a revolute and ``d`` of a prismatic joint
    are offsets added to ``q``. ``joints``: ``"RRP"`` or ``["revolute", ...]``
    (default: all revolute). Per link (lists of one entry per joint): ``masses``;
    ``com``, the centre of mass ``[x, y, z]`` in the DH link frame; ``inertia``
    about the centre of mass, ``[xx, yy, zz, xy, xz, yz]`` or 3x3; ``friction``,
    ``{"viscous": Fv, "coulomb": Fs}`` or ``(Fv, Fs)``; ``motor``, ``{"inertia": Jm,
    "gear_ratio": G}`` or ``(Jm, G)``; ``limits``, ``{"lower", "upper", "velocity",
    "effort"}`` or ``(lower, upper)``; an entry ``None`` leaves the default (zero,
    no motor, no limits). ``gravity`` in the base frame (default ``[0, 0, -g]``);
    ``tool``: ``{"xyz": [...], "rpy": [...]}``; ``planar``, ``configurations``,
    ``description``, ``name`` as in a model file; ``parents``: a tree, one parent per
    link as a model file's ``parent:`` writes it (``"base"``, a link's name or its
    1-based number; ``None`` entries: the link before). Every number may be an expression
    (``"l1/2"``, ``"pi/2"``) of parameters, given numbers in ``values`` (``g`` is
    9.81 unless given).
    """
    source = f"Robot.from_dh({name!r})" if isinstance(name, str) else "Robot.from_dh"
    if isinstance(rows, (list, tuple, np.ndarray)) and len(rows) > MAX_DH_ROWS:
        raise ModelError(f"{source}: rows: {len(rows):,} DH rows; at most "
                         f"{MAX_DH_ROWS:,} (a model file holds no more either)")
    rows = _plain(rows)
    if not isinstance(rows, list) or not rows:
        raise ModelError(f"{source}: rows: expected a list of DH rows (a, alpha, d, "
                         f"theta), one per joint, got {excerpt(rows)}")
    n = len(rows)
    kinds = _joint_kinds(joints, n, source)
    links = []
    per_link = {"masses": masses, "com": com, "inertia": inertia, "friction": friction,
                "motor": motor, "limits": limits, "link_names": link_names,
                "parents": parents}
    per_link = {key: _per_link(value, key, n, source) for key, value in per_link.items()}
    for i, row in enumerate(rows):
        entry = {"joint": kinds[i]}
        if isinstance(row, Mapping):
            entry.update(row)  # unknown keys: the reader names them
        elif isinstance(row, list) and len(row) == 4:
            entry.update(zip(("a", "alpha", "d", "theta"), row, strict=True))
        else:
            raise ModelError(f"{source}: rows[{i}]: expected (a, alpha, d, theta), got "
                             f"{excerpt(row)}")
        entry["mass"] = per_link["masses"][i]
        for key, field_name in (("com", "com"), ("inertia", "inertia"),
                                ("link_names", "name"), ("parents", "parent")):
            if per_link[key][i] is not None:
                entry[field_name] = per_link[key][i]
        for key, pair in (("friction", ("viscous", "coulomb")),
                          ("motor", ("inertia", "gear_ratio")),
                          ("limits", ("lower", "upper"))):
            value = per_link[key][i]
            if isinstance(value, list) and len(value) == 2:
                value = dict(zip(pair, value, strict=True))
            if value is not None:
                entry[key] = value
        links.append(entry)
    data = {"name": name, "dh": convention, "gravity": _plain(gravity), "links": links,
            "values": {str(k) if isinstance(k, sp.Symbol) else k: v
                       for k, v in dict(values or {}).items()},
            "planar": planar, "description": description}
    if tool is not None:
        data["tool"] = _plain(tool)
    if configurations is not None:
        data["configurations"] = _plain(configurations)
    from .yaml_file import parse_model

    parsed = parse_model(data, source=source, default_name="robot")  # g = 9.81 by default
    parsed = replace(parsed, provenance=replace(parsed.provenance, loader="python", path=""))
    return parsed


#: Most rows :meth:`~robodyn.Robot.from_dh` takes (a model file's 10,000 values hold about as many).
MAX_DH_ROWS = 1000


def _plain(value):
    """Arrays and tuples as lists, recursively (the shapes a model file's YAML gives)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _joint_kinds(joints, n: int, source: str) -> list[str]:
    """``"RRP"`` or ``["revolute", "prismatic", ...]`` (default all revolute) as ``n``
    joint types."""
    if joints is None:
        return ["revolute"] * n
    letters = {"R": "revolute", "P": "prismatic"}
    if isinstance(joints, str):
        kinds = [letters.get(c.upper(), c) for c in joints]
        if not all(c.upper() in letters for c in joints):
            raise ModelError(f"{source}: joints: {excerpt(joints, 40)} is not a string of R "
                             "(revolute) and P (prismatic), one letter per joint")
    elif isinstance(joints, (list, tuple)):
        kinds = list(joints)
    else:
        raise ModelError(f"{source}: joints: expected a string such as 'RRP' or a list of "
                         f"'revolute'/'prismatic', got {excerpt(joints, 40)}")
    if len(kinds) != n:
        raise ModelError(f"{source}: joints: {len(kinds)} joint type(s) for {n} DH row(s); "
                         "give one per row")
    return kinds


def _per_link(value, key: str, n: int, source: str) -> list:
    """A per-link argument as ``n`` entries (``None``: the default for every link)."""
    if value is None:
        if key == "masses":
            raise ModelError(f"{source}: masses: missing; every link needs a mass (0 for a "
                             "massless link)")
        return [None] * n
    value = _plain(value)
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} entries" if isinstance(value, list) else excerpt(value, 40)
        raise ModelError(f"{source}: {key}: expected a list of one entry per joint ({n}), "
                         f"got {got}")
    return value
