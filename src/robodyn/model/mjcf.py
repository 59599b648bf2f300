"""MJCF files (MuJoCo's XML): the kinematic tree of a MuJoCo model, as a model source.

Only what the rigid-body dynamics needs is read: ``<compiler>`` (angle units, Euler
sequence, how inertia is found), ``<option gravity>``, ``<default>`` classes (nested,
``class=``, ``childclass=``), and in ``<worldbody>`` the ``<body>`` tree with its
``pos`` and orientation, ``<joint>`` and ``<freejoint>``, ``<inertial>``, ``<site>``
and ``<frame>``. Geometry, assets, actuators, sensors, contacts, keyframes and visual
settings are never opened (no mesh file has to exist).

* A body with ``hinge`` or ``slide`` joints is a link of the tree (its parent: the
  nearest moving body above it); a body with several such joints becomes one link per
  joint, in file order, the earlier ones massless and named ``body:joint``, composed as
  MuJoCo composes them. A link's frame is its joint's frame: the body frame moved to the
  joint's ``pos``, so ``inertia``, child bodies and sites are placed from there. The joint
  variable is MuJoCo's ``qpos``: a joint's ``ref`` (the value in the file's pose) becomes
  the joint offset ``-ref``.
* A body without joints is welded to the body it hangs from: its ``<inertial>`` is
  merged into that link (masses added, inertias about the common centre of mass,
  parallel-axis theorem) and its name becomes a frame (``Chain.frames``); so do named
  ``<site>`` elements. The chain's ``tip`` is the body frame of the last link's body.
* A ``free`` joint (``<freejoint/>`` or ``<joint type="free"/>``) on a body of
  ``<worldbody>`` makes that body the floating base (``Chain.floating_base``, its inertia in
  its body frame); then the bodies fixed to the world (a floor) are left out, with a note.
  MuJoCo's free-joint coordinates are ``qpos = [x, y, z, qw, qx, qy, qz]`` and ``qvel =
  [v (world frame), omega (body frame)]``; robodyn's floating base uses Pinocchio's.
* ``damping`` is viscous friction, ``frictionloss`` Coulomb friction and ``armature`` the
  motor armature (``Motor(inertia=armature, gear_ratio=1)``, added to ``M[j, j]``); a
  ``range`` of a limited joint is kept in ``Joint.limits``.

Errors name the file, line and element: ``ball`` joints, a ``free`` joint below the
world's bodies or beside other joints, joint springs (``stiffness``, ``springdamper``),
``gravcomp``, fluid forces, mocap bodies, composite or attached bodies; a body with
geoms but no ``<inertial>`` while ``<compiler inertiafromgeom="auto">`` (the default), or
any moving body's geoms with ``inertiafromgeom="true"`` (MuJoCo would derive its inertia
from the geometry, robodyn does not: add ``<inertial>``). ``<equality>`` and ``<tendon>``
are not read: the model is the unconstrained tree and a note in ``provenance.notes`` says
what was left out.

Safety: the XML is read with :mod:`xml.parsers.expat` and any document type declaration
is refused (so no entity is ever defined or expanded, internal or external); only regular
files are opened (a FIFO or device is refused without blocking); a file over
:data:`MAX_MJCF_BYTES`, more than :data:`MAX_MJCF_ELEMENTS` elements or
:data:`MAX_MJCF_DEPTH` levels of nesting, or more than :data:`MAX_MJCF_BODIES` bodies is
rejected. ``<include file>`` is read only for files inside the folder of the main file
(after resolving links), each at most once, at most :data:`MAX_MJCF_INCLUDES` files
:data:`MAX_INCLUDE_DEPTH` deep, and the byte and element limits hold for all files
together.

Numbers are kept as in the file, as in :mod:`robodyn.model.urdf` (whose small number,
merge and message helpers are repeated here: tests/test_layers.py keeps modules off each
other's private names): integers as exact SymPy integers, others as
53-bit ``sp.Float``; gravity ``(0, 0, -g)`` with ``g`` from ``<option gravity>`` when it
points down ``z``, the vector's numbers otherwise.
"""

from __future__ import annotations

import math
import os
import stat
import xml.parsers.expat
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from .chain import (
    PRISMATIC,
    REVOLUTE,
    ROOT_JOINT,
    Chain,
    Frame,
    Friction,
    Inertial,
    Joint,
    Link,
    Motor,
    Transform,
    with_free_base,
)
from .checks import check_inertia
from .expressions import symbol
from .file_values import Body as _Body
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import merge as _merge
from .file_values import number as _number
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .file_values import rotation as _rotation
from .joints import SPHERICAL
from .source import ModelSource, Provenance

#: Largest MJCF input read, in bytes, the main file and its includes together.
MAX_MJCF_BYTES = 10_000_000
#: Most XML elements of a model, its includes counted (MuJoCo Menagerie's largest models
#: have a few thousand).
MAX_MJCF_ELEMENTS = 100_000
#: Deepest nesting of XML elements (a humanoid's body tree is about 15 bodies deep).
MAX_MJCF_DEPTH = 200
#: Most ``<body>`` elements, and most joints.
MAX_MJCF_BODIES = 5_000
#: Most included files, and the deepest chain of includes.
MAX_MJCF_INCLUDES = 100
MAX_INCLUDE_DEPTH = 10

GRAVITY = 9.81
_JOINT_TYPES = {"hinge": REVOLUTE, "slide": PRISMATIC}

# Attributes read or knowingly skipped, per element; anything else is an error (MuJoCo
# rejects unknown attributes too, so a typo such as ``armture`` is named, not ignored).
_ORIENTATION = ("quat", "axisangle", "xyaxes", "zaxis", "euler")
_BODY_ATTRS = {"name", "childclass", "pos", *_ORIENTATION, "user", "gravcomp", "mocap",
               "sleep"}
_FRAME_ATTRS = {"name", "childclass", "pos", *_ORIENTATION}
_JOINT_ATTRS = {"name", "class", "type", "group", "pos", "axis", "springdamper", "solreflimit",
                "solimplimit", "solreffriction", "solimpfriction", "stiffness", "range",
                "limited", "actuatorfrclimited", "actuatorfrcrange", "actuatorgravcomp",
                "margin", "ref", "springref", "armature", "damping", "frictionloss", "user"}
_FREEJOINT_ATTRS = {"name", "group", "align"}
_INERTIAL_ATTRS = {"pos", *_ORIENTATION, "mass", "diaginertia", "fullinertia"}
_COMPILER_ATTRS = {
    # read
    "angle", "eulerseq", "autolimits", "inertiafromgeom", "inertiagrouprange", "boundmass",
    "boundinertia", "settotalmass", "balanceinertia", "coordinate", "alignfree",
    # assets, meshes and compiler switches that do not change the tree's dynamics
    "meshdir", "texturedir", "assetdir", "discardvisual", "strippath", "fitaabb",
    "usethread", "exactmeshinertia", "fusestatic", "saveinertial", "convexhull", "maxhullvert",
}
_TOP_LEVEL = {"compiler", "option", "size", "default", "worldbody", "asset", "visual",
              "statistic", "actuator", "sensor", "contact", "equality", "tendon", "keyframe",
              "custom", "extension"}
_BODY_CHILDREN = {"body", "frame", "joint", "freejoint", "inertial", "geom", "site",
                  "camera", "light"}
_FRAME_CHILDREN = {"body", "frame", "geom", "site", "camera", "light"}


@dataclass(eq=False)
class _Node:
    """One XML element: tag, attributes, children, and where it was written."""

    tag: str
    attrib: dict[str, str]
    source: str
    line: int
    children: list[_Node] = field(default_factory=list)

    def where(self, what: str = "") -> str:
        name = self.attrib.get("name")
        label = f"<{self.tag}{' name=' + _q(name) if name else ''}>"
        return f"{self.source}:{self.line}: {label}{' ' + what if what else ''}"


def load_mjcf(path: str | Path) -> ModelSource:
    """Read the body tree of an MJCF file (``robodyn.load("model.xml")`` makes it a
    :class:`~robodyn.Robot`): links for the bodies with hinge and slide joints, named
    frames for sites and welded bodies, a floating base for a free joint. See the module
    docstring for what is read, merged and refused.

    Raises :class:`ModelError` naming the file, line and element at fault.
    """
    path = Path(path)
    source = str(path)
    reader = _Reader(path)
    root = reader.read(path, depth=0)
    if root.tag != "mujoco":
        raise ModelError(f"{root.where()}: the root element is <{root.tag}>, not <mujoco>; "
                         "not an MJCF file")
    reader.expand_includes(root, depth=0)
    model = _Model(source, root)
    chain = model.chain()
    name = root.attrib.get("model") or path.stem
    kind = ("tree" if chain.parents else "chain") + (", floating base" if chain.floating
                                                       else "")
    description = f"MJCF {path.name}: {chain.dof} joints ({kind})"
    provenance = Provenance(loader="mjcf", path=source, notes=tuple(model.notes))
    return ModelSource(name, chain, model.values, description, provenance)


# -- reading XML safely --------------------------------------------------------------------
class _Reader:
    """Parses the main file and its includes under shared byte, element and depth budgets."""

    def __init__(self, main: Path):
        self.main = main
        self.folder = main.resolve().parent
        self.bytes = 0
        self.elements = 0
        self.included: set[Path] = set()

    def read(self, path: Path, depth: int, origin: str = "") -> _Node:
        source = str(path)
        try:
            # non-blocking: a FIFO must not hang the open; only regular files are read
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
        except OSError as exc:
            raise ModelError(f"{origin or source}: cannot read the MJCF file "
                             f"({exc.strerror or exc})") from None
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            os.close(fd)
            raise ModelError(f"{origin or source}: not a regular file (a device, pipe or "
                             "folder); an MJCF model is a file")
        with os.fdopen(fd, "rb") as f:
            data = f.read(MAX_MJCF_BYTES - self.bytes + 1)
        self.bytes += len(data)
        if self.bytes > MAX_MJCF_BYTES:
            raise ModelError(f"{source}: the model (with its includes) is larger than "
                             f"{MAX_MJCF_BYTES:,} bytes; an MJCF model is well under 1 MB "
                             "(meshes are separate files)")
        return self._parse(data, source)

    def _parse(self, data: bytes, source: str) -> _Node:
        parser = xml.parsers.expat.ParserCreate()
        parser.SetParamEntityParsing(xml.parsers.expat.XML_PARAM_ENTITY_PARSING_NEVER)
        stack: list[_Node] = []
        top: list[_Node] = []

        def refuse(*_args):
            raise ModelError(f"{source}:{parser.CurrentLineNumber}: a document type "
                             "declaration (<!DOCTYPE ...>, entities); MJCF has none and "
                             "robodyn reads none (no entity is expanded): remove it")

        def start(tag, attrib):
            self.elements += 1
            if self.elements > MAX_MJCF_ELEMENTS:
                raise ModelError(f"{source}:{parser.CurrentLineNumber}: more than "
                                 f"{MAX_MJCF_ELEMENTS:,} XML elements; a robot's MJCF has a "
                                 "few thousand at most")
            if len(stack) >= MAX_MJCF_DEPTH:
                raise ModelError(f"{source}:{parser.CurrentLineNumber}: <{tag}> is nested "
                                 f"more than {MAX_MJCF_DEPTH} elements deep")
            node = _Node(tag, dict(attrib), source, parser.CurrentLineNumber)
            (stack[-1].children if stack else top).append(node)
            stack.append(node)

        parser.StartDoctypeDeclHandler = refuse
        parser.EntityDeclHandler = refuse
        parser.ExternalEntityRefHandler = refuse
        parser.StartElementHandler = start
        parser.EndElementHandler = lambda tag: stack.pop()
        try:
            parser.Parse(data, True)
        except xml.parsers.expat.ExpatError as exc:
            raise ModelError(f"{source}: not valid XML ({exc}); an MJCF file is an XML "
                             "document with a <mujoco> element") from None
        return top[0]

    def expand_includes(self, node: _Node, depth: int, level: int = 1) -> None:
        """Replace each ``<include file>`` below ``node`` (nested ``level`` deep) by the
        children of the included file's root element (MuJoCo's rule), recursively; the
        nesting limit holds for the files together."""
        out: list[_Node] = []
        for child in node.children:
            if level + 1 > MAX_MJCF_DEPTH:
                raise ModelError(f"{child.where()}: is nested more than {MAX_MJCF_DEPTH} "
                                 "elements deep (with the files that include it)")
            if child.tag != "include":
                self.expand_includes(child, depth, level + 1)
                out.append(child)
                continue
            included = self._include(child, depth + 1)
            self.expand_includes(included, depth + 1, level)  # its root is dropped
            out.extend(included.children)
        node.children = out

    def _include(self, node: _Node, depth: int) -> _Node:
        name = node.attrib.get("file")
        if not name:
            raise ModelError(f"{node.where()}: no file attribute")
        if depth > MAX_INCLUDE_DEPTH:
            raise ModelError(f"{node.where()}: includes nested more than {MAX_INCLUDE_DEPTH} "
                             "deep")
        target = (self.folder / name).resolve()
        if not target.is_relative_to(self.folder):
            raise ModelError(f"{node.where()}: file={_q(name)} is outside the folder of "
                             f"{self.main.name} ({self.folder}); robodyn includes only files "
                             "in the model's folder or below it: copy the file there")
        if target in self.included or target == self.main.resolve():
            raise ModelError(f"{node.where()}: file={_q(name)} is included twice (or "
                             "includes itself); MuJoCo includes a file once")
        if len(self.included) >= MAX_MJCF_INCLUDES:
            raise ModelError(f"{node.where()}: more than {MAX_MJCF_INCLUDES} included files")
        self.included.add(target)
        return self.read(target, depth, origin=node.where(f"file={_q(name)}"))


# -- numbers and orientations ----------------------------------------------------------------
def _floats(node: _Node, key: str, n: int | tuple[int, ...], attrib=None) -> np.ndarray:
    """The attribute ``key`` as ``n`` numbers (``n`` a tuple: any of those counts)."""
    text = (attrib if attrib is not None else node.attrib)[key]
    parts = text.split()
    counts = (n,) if isinstance(n, int) else n
    where = node.where(key)
    if len(parts) not in counts:
        expected = " or ".join(str(c) for c in counts)
        raise ModelError(f"{where}: expected {expected} numbers separated by spaces, got "
                         f"{_q(text)}")
    return np.array([_float(p, where) for p in parts])


def _unit(v: np.ndarray, where: str) -> np.ndarray:
    norm = float(np.linalg.norm(v))
    if not norm > 1e-14:
        raise ModelError(f"{where}: the vector {v.tolist()} has no direction (length 0)")
    return v / norm


def _quat_matrix(w, x, y, z) -> np.ndarray:
    """The rotation matrix of the unit quaternion ``w + x i + y j + z k``."""
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


def _quat_mul(a, b):
    aw, ax, ay, az = a
    bw, bx, by, bz = b
    return (aw * bw - ax * bx - ay * by - az * bz, aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx, aw * bz + ax * by - ay * bx + az * bw)


class _Compiler:
    """What ``<compiler>`` says about units and inertia."""

    def __init__(self):
        self.degrees = True  # MuJoCo's default
        self.eulerseq = "xyz"
        self.autolimits = True
        self.inertiafromgeom = "auto"
        self.groups = (0, 5)

    def angle(self, value: float) -> float:
        return math.radians(value) if self.degrees else value

    def read(self, node: _Node) -> None:
        a = node.attrib
        for key in a:
            if key not in _COMPILER_ATTRS:
                raise ModelError(f"{node.where(key)}: not a <compiler> attribute robodyn "
                                 f"knows; known: {_listing(sorted(_COMPILER_ATTRS), 40)}")
        if "angle" in a:
            if a["angle"] not in ("degree", "radian"):
                raise ModelError(f"{node.where('angle')}: {_q(a['angle'])} is not degree or "
                                 "radian")
            self.degrees = a["angle"] == "degree"
        if "eulerseq" in a:
            seq = a["eulerseq"]
            if len(seq) != 3 or any(c not in "xyzXYZ" for c in seq):
                raise ModelError(f"{node.where('eulerseq')}: {_q(seq)} is not three of "
                                 "x, y, z (rotating axes) or X, Y, Z (fixed axes)")
            self.eulerseq = seq
        if "autolimits" in a:
            self.autolimits = _boolean(node, "autolimits")
        if "inertiafromgeom" in a:
            value = a["inertiafromgeom"]
            if value not in ("true", "false", "auto"):
                raise ModelError(f"{node.where('inertiafromgeom')}: {_q(value)} is not true, "
                                 "false or auto")
            self.inertiafromgeom = value
        if "inertiagrouprange" in a:
            lo, hi = _floats(node, "inertiagrouprange", 2)
            self.groups = (lo, hi)
        for key in ("boundmass", "boundinertia", "settotalmass"):
            if key in a and _float(a[key], node.where(key)) > 0:
                raise ModelError(f"{node.where(key)}: robodyn does not change the file's "
                                 "masses and inertias; remove it and write the values you "
                                 "want in each <inertial>")
        if "balanceinertia" in a and _boolean(node, "balanceinertia"):
            raise ModelError(f"{node.where('balanceinertia')}: robodyn does not change the "
                             "file's inertias; remove it and fix each <inertial>")
        if a.get("coordinate", "local") != "local":
            raise ModelError(f"{node.where('coordinate')}: only local coordinates are read "
                             "(MuJoCo removed global ones)")
        if "alignfree" in a and _boolean(node, "alignfree"):
            raise ModelError(f"{node.where('alignfree')}: robodyn keeps a free body's frame "
                             "as written; remove alignfree")

    def rotation(self, node: _Node, attrib=None) -> np.ndarray:
        """The rotation of the element's orientation attribute (identity if none)."""
        a = attrib if attrib is not None else node.attrib
        given = [key for key in _ORIENTATION if key in a]
        if len(given) > 1:
            raise ModelError(f"{node.where()}: orientation given twice ({', '.join(given)}); "
                             "give one of quat, axisangle, xyaxes, zaxis, euler")
        if not given:
            return np.eye(3)
        key = given[0]
        where = node.where(key)
        if key == "quat":
            q = _floats(node, key, 4, a)
            norm = float(np.linalg.norm(q))
            if not norm > 1e-14:
                raise ModelError(f"{where}: the quaternion is zero; give w x y z, e.g. "
                                 "\"1 0 0 0\"")
            return _quat_matrix(*(q / norm))
        if key == "axisangle":
            v = _floats(node, key, 4, a)
            axis = _unit(v[:3], where)
            half = self.angle(v[3]) / 2
            return _quat_matrix(math.cos(half), *(math.sin(half) * axis))
        if key == "xyaxes":
            v = _floats(node, key, 6, a)
            x = _unit(v[:3], where)
            y = _unit(v[3:] - (x @ v[3:]) * x, where + " (y along x)")
            return np.column_stack([x, y, np.cross(x, y)])
        if key == "zaxis":
            z = _unit(_floats(node, key, 3, a), where)
            axis = np.cross([0.0, 0.0, 1.0], z)
            s = float(np.linalg.norm(axis))
            if s < 1e-10:  # MuJoCo's mjuu_z2quat: along z, or opposite (half turn about x)
                return np.eye(3) if z[2] > 0 else _quat_matrix(0.0, 1.0, 0.0, 0.0)
            half = math.atan2(s, z[2]) / 2
            return _quat_matrix(math.cos(half), *(math.sin(half) * axis / s))
        angles = _floats(node, key, 3, a)
        quat = (1.0, 0.0, 0.0, 0.0)
        for c, angle in zip(self.eulerseq, angles):
            half = self.angle(angle) / 2
            turn = [math.cos(half), 0.0, 0.0, 0.0]
            turn["xyz".index(c.lower()) + 1] = math.sin(half)
            # rotating axes (xyz) turn after, fixed axes (XYZ) before, as MuJoCo composes
            quat = _quat_mul(quat, turn) if c.islower() else _quat_mul(turn, quat)
        return _quat_matrix(*quat)

    def pose(self, node: _Node, attrib=None) -> np.ndarray:
        """The 4x4 transform of the element's ``pos`` and orientation."""
        a = attrib if attrib is not None else node.attrib
        out = np.eye(4)
        out[:3, :3] = self.rotation(node, a)
        if "pos" in a:
            out[:3, 3] = _floats(node, "pos", 3, a)
        return out


def _boolean(node: _Node, key: str, attrib=None) -> bool:
    value = (attrib if attrib is not None else node.attrib)[key]
    if value not in ("true", "false"):
        raise ModelError(f"{node.where(key)}: {_q(value)} is not true or false")
    return value == "true"


def _translation(v) -> np.ndarray:
    out = np.eye(4)
    out[:3, 3] = v
    return out


def _transform(pose: np.ndarray) -> Transform:
    return Transform(_rotation(pose[:3, :3]), _numbers(pose[:3, 3]))


# -- the model -------------------------------------------------------------------------------
@dataclass
class _LinkDraft:
    name: str
    joint: Joint
    parent: int
    bodies: list = field(default_factory=list)  # (pose in the link frame, _Body)
    friction: tuple[float, float] = (0.0, 0.0)
    armature: float = 0.0


class _Model:
    """The semantic pass over the parsed (and include-expanded) ``<mujoco>`` tree."""

    def __init__(self, source: str, root: _Node):
        self.source = source
        self.root = root
        self.compiler = _Compiler()
        self.defaults: dict[str, dict[str, dict[str, str]]] = {}
        self.notes: list[str] = []
        self.values: dict[str, float] = {}
        self.links: list[_LinkDraft] = []
        self.frames: list[Frame] = []
        self.base_bodies: list = []  # (pose in the base frame, _Body) of a floating base
        self.floating = False
        self.base_name, self.free_joint_name = "base", ROOT_JOINT  # of a floating base
        self.tip = np.eye(4)
        self.bodies = 0
        self.joints = 0

    def chain(self) -> Chain:
        worldbodies = []
        gravity = np.array([0.0, 0.0, -GRAVITY])
        ignored = []
        for node in self.root.children:
            if node.tag not in _TOP_LEVEL:
                raise ModelError(f"{node.where()}: not an MJCF section robodyn knows; known: "
                                 f"{_listing(sorted(_TOP_LEVEL), 40)}")
        for node in self.root.children:  # compiler first: its units apply to the whole file
            if node.tag == "compiler":
                self.compiler.read(node)
        for node in self.root.children:
            if node.tag == "default":
                self._read_defaults(node, None)
            elif node.tag == "option":
                gravity = self._option(node, gravity)
            elif node.tag == "worldbody":
                worldbodies.append(node)
            elif node.tag in ("equality", "tendon") and node.children:
                counts = Counter(c.tag for c in node.children)
                ignored.append(f"<{node.tag}> (" + ", ".join(
                    f"{n} <{tag}>" for tag, n in sorted(counts.items())) + ")")
            elif node.tag == "extension" and node.children:
                raise ModelError(f"{node.where()}: plugins are not read by robodyn; remove "
                                 "<extension> (and the plugins it declares)")
        self.defaults.setdefault("main", {})
        if ignored:
            self.notes.append(
                "not read: " + "; ".join(ignored) + ": robodyn's model is the unconstrained "
                "tree (coupled or tendon-driven joints move independently)")
        self._world(worldbodies)
        if not self.links:
            raise ModelError(f"{self.source}: no body has a hinge or slide joint; robodyn "
                             "needs at least one joint (a lone free body has no joints)")
        return self._assemble(gravity)

    # -- sections ------------------------------------------------------------------------
    def _option(self, node: _Node, gravity: np.ndarray) -> np.ndarray:
        a = node.attrib
        if "gravity" in a:
            gravity = _floats(node, "gravity", 3)
        for key in ("density", "viscosity"):
            if key in a and _float(a[key], node.where(key)) != 0:
                raise ModelError(f"{node.where(key)}: fluid forces are not modelled by "
                                 f"robodyn; set {key}=\"0\" or remove it")
        if "wind" in a and np.any(_floats(node, "wind", 3) != 0):
            raise ModelError(f"{node.where('wind')}: fluid forces are not modelled by robodyn")
        for child in node.children:
            if child.tag == "flag" and child.attrib.get("gravity") == "disable":
                gravity = np.zeros(3)
        return gravity

    def _read_defaults(self, node: _Node, parent: str | None) -> None:
        name = node.attrib.get("class", "main" if parent is None else None)
        if name is None:
            raise ModelError(f"{node.where()}: a nested <default> needs class=...")
        if name in self.defaults:
            raise ModelError(f"{node.where('class')}: class {_q(name)} is defined twice")
        inherited = self.defaults[parent] if parent is not None else {}
        own = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in node.children:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrib)
        self.defaults[name] = own
        for child in node.children:
            if child.tag == "default":
                self._read_defaults(child, name)

    def _attributes(self, node: _Node, classname: str | None) -> dict[str, str]:
        """The element's attributes over those of its default class (``class=``, else the
        enclosing ``childclass``, else ``main``)."""
        name = node.attrib.get("class", classname)
        if name is None:
            name = "main"
        elif name not in self.defaults:
            raise ModelError(f"{node.where('class')}: no <default class={_q(name)}>; classes: "
                             f"{_listing(self.defaults) or 'none'}")
        out = dict(self.defaults.get(name, {}).get(node.tag, {}))
        out.update(node.attrib)
        out.pop("class", None)
        return out

    # -- the body tree ---------------------------------------------------------------------
    def _world(self, worldbodies: list[_Node]) -> None:
        roots: list[tuple[_Node, np.ndarray, str | None]] = []  # (body, pose, childclass)
        statics: list[tuple[_Node, np.ndarray]] = []  # sites of the world

        def visit(node, pose, cls):  # in file order; the world's frames only place things
            for child in node.children:
                if child.tag == "body":
                    roots.append((child, pose, cls))
                elif child.tag == "frame":
                    self._check_attrs(child, _FRAME_ATTRS)
                    visit(child, pose @ self.compiler.pose(child),
                          child.attrib.get("childclass", cls))
                elif child.tag == "site":
                    statics.append((child, pose))
                elif child.tag not in ("geom", "camera", "light"):
                    raise ModelError(f"{child.where()}: not an element of <worldbody> robodyn "
                                     "reads (body, frame, geom, site, camera, light)")

        for node in worldbodies:
            visit(node, np.eye(4), None)
        free = [r for r in roots if any(
            self._is_free(j, r[0].attrib.get("childclass", r[2])) for j in r[0].children
            if j.tag in ("joint", "freejoint"))]
        if free:
            body = free[0][0]
            moving = [r[0] for r in roots if r[0] is not body and _has_joints(r[0])]
            if len(free) > 1 or moving:
                others = [r[0] for r in free if r[0] is not body] + moving
                raise ModelError(
                    f"{body.where()}: has a free joint, and other bodies of the world move "
                    f"({_listing(_q(b.attrib.get('name', f'line {b.line}')) for b in others)});"
                    " robodyn models one robot with one floating base: keep one in the file")
            self.floating = True
            self.base_name = body.attrib.get("name") or "base"
            joint = next(j for j in body.children if j.tag in ("joint", "freejoint")
                         and self._is_free(j, body.attrib.get("childclass", free[0][2])))
            self.free_joint_name = joint.attrib.get("name") or ROOT_JOINT
            left_out = len(roots) - 1 + len(statics)
            if left_out:
                self.notes.append(f"{left_out} body(ies) or site(s) fixed to the world left "
                                  "out: with a floating base, robodyn's base is the free body")
            self._body(body, -1, np.eye(4), free[0][2], root=True)
            return
        for node, pose in statics:
            self._site(node, -1, pose, None)
        for node, pose, cls in roots:
            self._body(node, -1, pose, cls, root=True)

    def _is_free(self, node: _Node, cls) -> bool:
        if node.tag == "freejoint":
            return True
        return self._attributes(node, cls).get("type", "hinge") == "free"

    def _check_attrs(self, node: _Node, allowed: set[str], attrib=None) -> None:
        for key in (attrib if attrib is not None else node.attrib):
            if key not in allowed:
                raise ModelError(f"{node.where(key)}: not an attribute of <{node.tag}> robodyn "
                                 f"knows; known: {_listing(sorted(allowed), 40)}")

    def _body(self, node: _Node, owner: int, pose: np.ndarray, cls, root: bool = False):
        """Add the body ``node``, placed by ``pose`` in link ``owner``'s frame (-1: the
        base), and its subtree."""
        self.bodies += 1
        if self.bodies > MAX_MJCF_BODIES:
            raise ModelError(f"{node.where()}: more than {MAX_MJCF_BODIES:,} bodies")
        a = node.attrib
        self._check_attrs(node, _BODY_ATTRS)
        if "mocap" in a and _boolean(node, "mocap"):
            raise ModelError(f"{node.where('mocap')}: mocap bodies are not read by robodyn")
        if "gravcomp" in a and _float(a["gravcomp"], node.where("gravcomp")) != 0:
            raise ModelError(f"{node.where('gravcomp')}: gravity compensation forces are not "
                             "modelled by robodyn; remove gravcomp")
        children_cls = a.get("childclass", cls)
        if children_cls is not None and children_cls not in self.defaults:
            raise ModelError(f"{node.where('childclass')}: no <default class="
                             f"{_q(children_cls)}>; classes: {_listing(self.defaults) or 'none'}")
        name = a.get("name") or f"body{self.bodies}"
        joints, inertial, geoms, items = [], [], [], []
        self._gather(node, children_cls, np.eye(4), joints, inertial, geoms, items)
        if len(inertial) > 1:
            raise ModelError(f"{inertial[1].where()}: a second <inertial> in the body")
        free = [j for j in joints if self._is_free(j, children_cls)]
        if free:
            if not root or len(joints) > 1:
                why = ("is not a body of <worldbody>" if not root
                       else "has other joints beside it")
                raise ModelError(f"{free[0].where()}: a free joint in body {_q(name)}, which "
                                 f"{why}; a free joint moves a whole body of the world, alone")
            self._free(free[0], children_cls)
            joints = []
            local = np.eye(4)  # the free body's frame is the floating base frame
            if a.get("name"):
                self.frames.append(Frame(a["name"], -1, Transform()))
        else:
            local = pose @ self.compiler.pose(node)
        body = self._inertial(node, name, inertial, geoms, children_cls)

        frame = local
        for k, joint in enumerate(joints):
            attrs = self._attributes(joint, children_cls)
            self._check_attrs(joint, _JOINT_ATTRS, attrs)
            kind = attrs.get("type", "hinge")
            if kind not in _JOINT_TYPES and kind != "ball":
                raise ModelError(f"{joint.where('type')}: {_q(kind)} is not a joint type "
                                 "(hinge, slide, ball, free)")
            self.joints += 1
            if self.joints > MAX_MJCF_BODIES:
                raise ModelError(f"{joint.where()}: more than {MAX_MJCF_BODIES:,} joints")
            at = _floats(joint, "pos", 3, attrs) if "pos" in attrs else np.zeros(3)
            placement = frame @ _translation(at)
            link_name = name if k == len(joints) - 1 else \
                f"{name}:{joint.attrib.get('name') or k + 1}"
            self.links.append(self._ball(joint, attrs, link_name, owner, placement)
                              if kind == "ball" else
                              self._link(joint, attrs, kind, link_name, owner, placement))
            owner = len(self.links) - 1
            frame = _translation(-at)  # the body frame in the new link frame
        if body is not None:
            (self.base_bodies if owner < 0 and self.floating else
             self.links[owner].bodies if owner >= 0 else []).append((frame, body))
        if not joints and not free and a.get("name"):
            self.frames.append(Frame(a["name"], owner, _transform(frame)))
        if joints:
            self.tip = frame
        for item, item_pose, item_cls in items:
            if item.tag == "site":
                self._site(item, owner, frame @ item_pose, item_cls)
            else:
                self._body(item, owner, frame @ item_pose, item_cls)

    def _gather(self, node, cls, pose, joints, inertial, geoms, items):
        """Sort the children of a body (and of its ``<frame>`` elements, which only place
        what they hold) into joints, inertials, geoms and placed items (sites, bodies)."""
        allowed = _BODY_CHILDREN if node.tag == "body" else _FRAME_CHILDREN
        for child in node.children:
            if child.tag not in allowed:
                raise ModelError(f"{child.where()}: not an element of <{node.tag}> robodyn "
                                 f"reads ({', '.join(sorted(allowed))})")
            if child.tag in ("joint", "freejoint"):
                joints.append(child)
            elif child.tag == "inertial":
                inertial.append(child)
            elif child.tag == "geom":
                geoms.append((child, cls))
            elif child.tag in ("site", "body"):
                items.append((child, pose, cls))
            elif child.tag == "frame":
                self._check_attrs(child, _FRAME_ATTRS)
                self._gather(child, child.attrib.get("childclass", cls),
                             pose @ self.compiler.pose(child), joints, inertial, geoms, items)

    def _free(self, joint: _Node, cls) -> None:
        if joint.tag == "freejoint":
            self._check_attrs(joint, _FREEJOINT_ATTRS)
            return
        attrs = self._attributes(joint, cls)
        self._check_attrs(joint, _JOINT_ATTRS, attrs)
        for key in ("armature", "damping", "frictionloss", "stiffness"):
            if key in attrs and _float(attrs[key], joint.where(key)) != 0:
                raise ModelError(f"{joint.where(key)}: {key} on a free joint is not modelled "
                                 "by robodyn's floating base; set it to 0 (or override it in "
                                 "this joint: the default class may set it)")

    def _ball(self, joint: _Node, attrs, name: str, parent: int,
              placement: np.ndarray) -> _LinkDraft:
        """A ``ball`` joint: a spherical joint about its ``pos`` (``q`` its quaternion, stored
        ``(x, y, z, w)`` as Pinocchio does, where MuJoCo's ``qpos`` is ``(w, x, y, z)``; ``v``
        the angular velocity in the body frame, as MuJoCo's ``qvel``)."""
        for key in ("armature", "damping", "frictionloss", "stiffness"):
            if key in attrs and _float(attrs[key], joint.where(key)) != 0:
                raise ModelError(f"{joint.where(key)}: {key} on a ball joint is not modelled by "
                                 "robodyn yet; set it to 0 (or override it in this joint: the "
                                 "default class may set it)")
        return _LinkDraft(
            name=name,
            joint=Joint(type=SPHERICAL, placement=_transform(placement),
                        name=joint.attrib.get("name") or f"joint{self.joints}"),
            parent=parent, friction=(0.0, 0.0), armature=0.0)

    def _link(self, joint: _Node, attrs, kind: str, name: str, parent: int,
              placement: np.ndarray) -> _LinkDraft:
        axis = _unit(_floats(joint, "axis", 3, attrs), joint.where("axis")) \
            if "axis" in attrs else np.array([0.0, 0.0, 1.0])
        revolute = kind == "hinge"

        def number(key, default=0.0, angle=False, nonnegative=False):
            if key not in attrs:
                return default
            value = _float(attrs[key], joint.where(key))
            if nonnegative and value < 0:
                raise ModelError(f"{joint.where(key)}: {value:g} is negative; it must be >= 0")
            return self.compiler.angle(value) if angle and revolute else value

        if number("stiffness") != 0 or ("springdamper" in attrs and np.any(
                _floats(joint, "springdamper", 2, attrs) != 0)):
            raise ModelError(f"{joint.where('stiffness')}: joint springs are not modelled by "
                             "robodyn; set stiffness (and springdamper) to 0")
        if "actuatorgravcomp" in attrs and _boolean(joint, "actuatorgravcomp", attrs):
            raise ModelError(f"{joint.where('actuatorgravcomp')}: gravity compensation is not "
                             "modelled by robodyn; remove it")
        limits = None
        limited = attrs.get("limited", "auto")
        if limited not in ("true", "false", "auto"):
            raise ModelError(f"{joint.where('limited')}: {_q(limited)} is not true, false or "
                             "auto")
        if limited == "true" or (limited == "auto" and self.compiler.autolimits
                                 and "range" in attrs):
            if "range" not in attrs:
                raise ModelError(f"{joint.where('limited')}: a limited joint needs range=...")
            lo, hi = (self.compiler.angle(x) if revolute else x
                      for x in _floats(joint, "range", 2, attrs))
            if not lo < hi:
                raise ModelError(f"{joint.where('range')}: the lower limit is not below the "
                                 "upper one")
            effort = math.inf
            if "actuatorfrcrange" in attrs and attrs.get("actuatorfrclimited", "auto") != "false":
                effort = float(np.max(np.abs(_floats(joint, "actuatorfrcrange", 2, attrs))))
            limits = (lo, hi, math.inf, effort)
        ref = number("ref", angle=True)
        draft = _LinkDraft(
            name=name,
            joint=Joint(type=_JOINT_TYPES[kind], axis=_numbers(axis), offset=_number(-ref),
                        placement=_transform(placement),
                        name=joint.attrib.get("name") or f"joint{self.joints}",
                        limits=limits),
            parent=parent,
            friction=(number("damping", nonnegative=True),
                      number("frictionloss", nonnegative=True)),
            armature=number("armature", nonnegative=True),
        )
        return draft

    def _inertial(self, node: _Node, name: str, inertial: list[_Node], geoms, cls):
        """The body's :class:`_Body` in its body frame (``None``: massless); geometry-derived
        inertia is an error."""
        from_geom = self.compiler.inertiafromgeom
        massive = [g for g, g_cls in geoms if self._geom_has_mass(g, g_cls)]
        if massive and (from_geom == "true" or (from_geom == "auto" and not inertial)):
            why = ("<compiler inertiafromgeom=\"true\">" if from_geom == "true"
                   else "it has no <inertial>")
            raise ModelError(f"{node.where()}: MuJoCo derives this body's inertia from its "
                             f"geoms ({why}; first geom at line {massive[0].line}), robodyn "
                             "does not; add <inertial pos mass diaginertia> to the body (and "
                             "set inertiafromgeom=\"auto\" or \"false\")")
        if not inertial:
            return None
        el = inertial[0]
        self._check_attrs(el, _INERTIAL_ATTRS)
        for key in ("pos", "mass"):
            if key not in el.attrib:
                raise ModelError(f"{el.where()}: no {key}=...; an inertial needs pos and mass")
        mass = _float(el.attrib["mass"], el.where("mass"))
        pose = self.compiler.pose(el)
        if "fullinertia" in el.attrib:
            if "diaginertia" in el.attrib or any(k in el.attrib for k in _ORIENTATION):
                raise ModelError(f"{el.where('fullinertia')}: fullinertia is given in the "
                                 "body's axes; it takes no diaginertia or orientation")
            xx, yy, zz, xy, xz, yz = _floats(el, "fullinertia", 6)
            inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        elif "diaginertia" in el.attrib:
            rot = pose[:3, :3]
            inertia = rot @ np.diag(_floats(el, "diaginertia", 3)) @ rot.T
        else:
            raise ModelError(f"{el.where()}: no diaginertia or fullinertia; an inertial needs "
                             "one")
        inertia = (inertia + inertia.T) / 2
        check_inertia(mass, inertia, mass_field=f"{el.where('mass')} of body {_q(name)}",
                      inertia_field=f"{el.where()} of body {_q(name)}")
        return _Body(mass, pose[:3, 3].copy(), inertia)

    def _geom_has_mass(self, geom: _Node, cls) -> bool:
        """Whether MuJoCo would count the geom in its body's inertia: a group within
        ``inertiagrouprange`` and a mass (or density) that is not 0."""
        attrs = self._attributes(geom, cls)
        group = _float(attrs.get("group", "0"), geom.where("group"))
        if not self.compiler.groups[0] <= group <= self.compiler.groups[1]:
            return False
        if "mass" in attrs:
            return _float(attrs["mass"], geom.where("mass")) != 0
        return _float(attrs.get("density", "1000"), geom.where("density")) != 0

    def _site(self, node: _Node, owner: int, pose: np.ndarray, cls) -> None:
        name = node.attrib.get("name")
        if not name:
            return  # an unnamed site cannot be asked for
        attrs = self._attributes(node, cls)
        self.frames.append(Frame(name, owner, _transform(pose @ self.compiler.pose(node,
                                                                                  attrs))))

    def _assemble(self, gravity: np.ndarray) -> Chain:
        links = []
        for draft in self.links:
            if draft.bodies:
                mass, com, inertia = _merge(draft.bodies)
            else:
                mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
            links.append(Link(
                name=draft.name, joint=draft.joint,
                inertial=Inertial(_number(mass), _numbers(com), _numbers(inertia)),
                friction=Friction(*(_number(x) for x in draft.friction)),
                motor=Motor(inertia=_number(draft.armature), gear_ratio=1),
            ))
        if gravity[0] == 0 and gravity[1] == 0 and gravity[2] < 0:
            self.values["g"] = float(-gravity[2])
            g = (0, 0, -symbol("g"))
        else:
            g = _numbers(gravity)
        chain = Chain(links=tuple(links), gravity=g, tip=_transform(self.tip),
                      parents=tuple(d.parent for d in self.links), frames=tuple(self.frames))
        if not self.floating:
            return chain
        if self.base_bodies:
            mass, com, inertia = _merge(self.base_bodies)
        else:
            mass, com, inertia = 0.0, np.zeros(3), np.zeros((3, 3))
        return with_free_base(chain, Inertial(_number(mass), _numbers(com), _numbers(inertia)),
                              name=self.base_name, joint_name=self.free_joint_name)


def _has_joints(node: _Node) -> bool:
    """Whether a joint is in the subtree of the element ``node``."""
    stack = [node]
    while stack:
        item = stack.pop()
        for child in item.children:
            if child.tag in ("joint", "freejoint"):
                return True
            stack.append(child)
    return False


__all__ = ["MAX_MJCF_BYTES", "MAX_MJCF_DEPTH", "MAX_MJCF_ELEMENTS", "MAX_MJCF_BODIES",
           "load_mjcf"]
