"""The semantic pass over an MJCF file's elements (:class:`MjcfModel`): the ``<default>``
classes, ``<option>``, and the ``<worldbody>`` tree, each body's joints made links, its
``<inertial>`` read and merged, its sites and welded bodies made frames; then the chain.
:func:`robodyn.model.mjcf.load_mjcf` runs it on the elements :mod:`robodyn.model.mjcf_xml`
reads; its docstring says what is read, merged and refused.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from ..core.lazy import Parameter
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
)
from .checks import check_inertia
from .file_values import Body as _Body
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import merge as _merge
from .file_values import number as _number
from .file_values import numbers as _numbers
from .file_values import quote as _q
from .joints import FREE, SPHERICAL
from .mjcf_assets import MeshAssets
from .mjcf_compiler import (
    ORIENTATION_ATTRS,
    Compiler,
    as_transform,
    attribute_bool,
    attribute_floats,
    translation,
    unit_vector,
)
from .mjcf_equality import is_read
from .mjcf_geoms import PRIMITIVES, check_size, combined, solid, z_to
from .mjcf_replicate import expand_replicates
from .mjcf_xml import MjcfElement

#: Most ``<body>`` elements, and most joints.
MAX_MJCF_BODIES = 5_000

GRAVITY = 9.81
_JOINT_TYPES = {"hinge": REVOLUTE, "slide": PRISMATIC}

# Attributes read or knowingly skipped, per element; anything else is an error (MuJoCo
# rejects unknown attributes too, so a typo such as ``armture`` is named, not ignored).
_BODY_ATTRS = {"name", "childclass", "pos", *ORIENTATION_ATTRS, "user", "gravcomp", "mocap",
               "sleep"}
_FRAME_ATTRS = {"name", "childclass", "pos", *ORIENTATION_ATTRS}
_JOINT_ATTRS = {"name", "class", "type", "group", "pos", "axis", "springdamper", "solreflimit",
                "solimplimit", "solreffriction", "solimpfriction", "stiffness", "range",
                "limited", "actuatorfrclimited", "actuatorfrcrange", "actuatorgravcomp",
                "margin", "ref", "springref", "armature", "damping", "frictionloss", "user"}
_FREEJOINT_ATTRS = {"name", "group", "align"}
_INERTIAL_ATTRS = {"pos", *ORIENTATION_ATTRS, "mass", "diaginertia", "fullinertia"}
_TOP_LEVEL = {"compiler", "option", "size", "default", "worldbody", "asset", "visual",
              "statistic", "actuator", "sensor", "contact", "equality", "tendon", "keyframe",
              "custom", "extension", "deformable"}
_BODY_CHILDREN = {"body", "frame", "joint", "freejoint", "inertial", "geom", "site",
                  "camera", "light"}
_FRAME_CHILDREN = {"body", "frame", "geom", "site", "camera", "light"}


# -- the model -------------------------------------------------------------------------------
@dataclass
class _LinkDraft:
    name: str
    joint: Joint
    parent: int
    bodies: list = field(default_factory=list)  # (pose in the link frame, _Body)
    friction: tuple[float, float] = (0.0, 0.0)
    armature: float = 0.0


class MjcfModel:
    """The semantic pass over the parsed (and include-expanded) ``<mujoco>`` tree."""

    def __init__(self, source: str, root: MjcfElement, folder: Path | None = None,
                 mimic: str = "coupled"):
        self.source = source
        self.mimic = mimic  # "coupled": <equality joint> read (mjcf_equality)
        self.root = root
        self.compiler = Compiler()
        self.meshes = MeshAssets(folder if folder is not None else Path.cwd(), source)
        self.defaults: dict[str, dict[str, dict[str, str]]] = {}
        self.notes: list[str] = []
        self.values: dict[str, float] = {}
        self.links: list[_LinkDraft] = []
        self.frames: list[Frame] = []
        self.tip = np.eye(4)
        self.bodies = 0
        self.static_mass = 0.0  # of the bodies welded to the world (settotalmass counts it)
        self.springs: list[str] = []  # joints with springs (passive forces, not modelled)
        self.joints = 0
        self.body_names: dict[str, str] = {}  # name -> where, for a repeated name
        self.site_names: dict[str, str] = {}
        self.joint_names: dict[str, str] = {}
        self.site_frames: set[int] = set()  # positions in frames that are sites
        #: each named body: its link (-1: the base), its frame in that link's frame, and its
        #: pose in the world as written (MuJoCo's qpos0), for <connect|weld body1 body2>
        self.body_frames: dict[str, tuple[int, np.ndarray, np.ndarray]] = {}

    def chain(self) -> Chain:
        """The model's chain, from the sections of ``<mujoco>``; fills :attr:`notes` (what
        was left out) and :attr:`values` (``g``) on the way."""
        worldbodies, assets = [], []
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
            elif node.tag == "asset":
                assets.append(node)
            elif node.tag == "deformable" and node.children:
                counts = Counter(c.tag for c in node.children)
                self.notes.append("not read: <deformable> (" + ", ".join(
                    f"{n} <{tag}>" for tag, n in sorted(counts.items())) + "): skins are "
                    "drawn, flexes add passive forces beside M and the bias; the rigid bodies "
                    "are read")
            elif node.tag in ("equality", "tendon") and any(
                    not is_read(c, self.mimic) for c in node.children):
                counts = Counter(c.tag for c in node.children if not is_read(c, self.mimic))
                ignored.append(f"<{node.tag}> (" + ", ".join(
                    f"{n} <{tag}>" for tag, n in sorted(counts.items())) + ")")
            elif node.tag == "extension" and node.children:
                raise ModelError(f"{node.where()}: plugins are not read by robodyn; remove "
                                 "<extension> (and the plugins it declares)")
        self.defaults.setdefault("main", {})
        self.meshes.meshdir, self.meshes.strippath = (self.compiler.meshdir,
                                                      self.compiler.strippath)
        for node in assets:
            for child in node.children:
                if child.tag == "mesh":
                    self.meshes.add(child, self._attributes(child, None))
        if ignored:
            self.notes.append(
                "not read: " + "; ".join(ignored) + ": robodyn's model is the unconstrained "
                "tree (coupled or tendon-driven joints move independently)")
        self._world(worldbodies)
        if not self.links:
            raise ModelError(f"{self.source}: no body has a joint (hinge, slide, ball or free); "
                             "robodyn needs at least one moving body")
        return self._assemble(gravity)

    # -- sections ------------------------------------------------------------------------
    def _option(self, node: MjcfElement, gravity: np.ndarray) -> np.ndarray:
        a = node.attrib
        if "gravity" in a:
            gravity = attribute_floats(node, "gravity", 3)
        fluid = [key for key in ("density", "viscosity")
                 if key in a and _float(a[key], node.where(key)) != 0]
        if "wind" in a and np.any(attribute_floats(node, "wind", 3) != 0):
            fluid.append("wind")
        if fluid:  # MuJoCo adds them to qfrc_passive: M and qfrc_bias are without them
            self.notes.append(f"not read: <option {' '.join(fluid)}> (fluid forces, passive "
                              "forces MuJoCo adds beside M and the bias; a simulation here "
                              "has none)")
        for child in node.children:
            if child.tag == "flag" and child.attrib.get("gravity") == "disable":
                gravity = np.zeros(3)
        return gravity

    def _read_defaults(self, node: MjcfElement, parent: str | None) -> None:
        name = node.attrib.get("class", "main" if parent is None else None)
        if name is None:
            raise ModelError(f"{node.where()}: a nested <default> needs class=...")
        if name in self.defaults and not (parent is None and name == "main"):
            raise ModelError(f"{node.where('class')}: class {_q(name)} is defined twice")
        # a second top-level <default> adds to the main class, as MuJoCo reads it: the
        # classes nested in it inherit the main class as it then stands
        inherited = self.defaults[parent] if parent is not None else self.defaults.get(name, {})
        own = {tag: dict(attrs) for tag, attrs in inherited.items()}
        for child in node.children:
            if child.tag != "default":
                own.setdefault(child.tag, {}).update(child.attrib)
        self.defaults[name] = own
        for child in node.children:
            if child.tag == "default":
                self._read_defaults(child, name)

    def _attributes(self, node: MjcfElement, classname: str | None) -> dict[str, str]:
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
    def _world(self, worldbodies: list[MjcfElement]) -> None:
        roots: list[tuple[MjcfElement, np.ndarray, str | None]] = []  # (body, pose, childclass)
        statics: list[tuple[MjcfElement, np.ndarray]] = []  # sites of the world

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
            expand_replicates(node, self.compiler)  # copies placed by <frame> elements
            visit(node, np.eye(4), None)
        for node, pose in statics:
            self._site(node, -1, pose, None)
        for node, pose, cls in roots:
            self._body(node, -1, pose, cls, root=True)

    def _is_free(self, node: MjcfElement, cls) -> bool:
        if node.tag == "freejoint":
            return True
        return self._attributes(node, cls).get("type", "hinge") == "free"

    def _check_attrs(self, node: MjcfElement, allowed: set[str], attrib=None) -> None:
        for key in (attrib if attrib is not None else node.attrib):
            if key not in allowed:
                raise ModelError(f"{node.where(key)}: not an attribute of <{node.tag}> robodyn "
                                 f"knows; known: {_listing(sorted(allowed), 40)}")

    def _body(self, node: MjcfElement, owner: int, pose: np.ndarray, cls, root: bool = False,
              world: np.ndarray | None = None):
        """Add the body ``node``, placed by ``pose`` in link ``owner``'s frame (-1: the
        base; ``world``: where that places it in the world as written, default ``pose``),
        and its subtree."""
        self.bodies += 1
        if self.bodies > MAX_MJCF_BODIES:
            raise ModelError(f"{node.where()}: more than {MAX_MJCF_BODIES:,} bodies")
        a = node.attrib
        self._check_attrs(node, _BODY_ATTRS)
        if "mocap" in a and attribute_bool(node, "mocap"):
            raise ModelError(f"{node.where('mocap')}: mocap bodies are not read by robodyn")
        if "gravcomp" in a and _float(a["gravcomp"], node.where("gravcomp")) != 0:
            # MuJoCo adds it to qfrc_passive: M and qfrc_bias are without it
            self.notes.append(f"not read: {node.where('gravcomp')} (gravity compensation, a "
                              "passive force MuJoCo adds beside M and the bias; a simulation "
                              "here has none)")
        children_cls = a.get("childclass", cls)
        if children_cls is not None and children_cls not in self.defaults:
            raise ModelError(f"{node.where('childclass')}: no <default class="
                             f"{_q(children_cls)}>; classes: {_listing(self.defaults) or 'none'}")
        name = a.get("name") or f"body{self.bodies}"
        self._claim_name(node, "body", self.body_names)
        joints, inertial, geoms, items = [], [], [], []
        self._gather(node, children_cls, np.eye(4), joints, inertial, geoms, items)
        if len(inertial) > 1:
            raise ModelError(f"{inertial[1].where()}: a second <inertial> in the body")
        for joint in joints:
            self._claim_name(joint, "joint", self.joint_names)
        free = [j for j in joints if self._is_free(j, children_cls)]
        if free:
            if not root or len(joints) > 1:
                why = ("is not a body of <worldbody>" if not root
                       else "has other joints beside it")
                raise ModelError(f"{free[0].where()}: a free joint in body {_q(name)}, which "
                                 f"{why}; a free joint moves a whole body of the world, alone")
            self._free(free[0], children_cls)
            # a free joint: the body's pose in the world is its configuration (MuJoCo's
            # qpos; the file's pos and quat are only its qpos0), so the link frame is the
            # body frame, placed at the world's origin
            self.joints += 1
            first = not any(d.joint.type == FREE for d in self.links)
            joint_name = free[0].attrib.get("name") or (ROOT_JOINT if first
                                                        else f"joint{self.joints}")
            self.links.append(_LinkDraft(name=name, joint=Joint(FREE, name=joint_name),
                                         parent=owner))
            owner = len(self.links) - 1
            joints = []
            local = np.eye(4)
        else:
            local = pose @ self.compiler.pose(node)
        body = self._inertial(node, name, inertial, geoms, children_cls)
        if body is None:  # MuJoCo leaves a massless body's inertial frame at the body's own
            # pos and orientation as written (its frame in its parent's): boundmass puts the
            # mass there
            written = self.compiler.pose(node)
            body = _Body(0.0, written[:3, 3], np.zeros((3, 3)))
        body = _Body(*self.compiler.bounded(body.mass, body.com, body.inertia))
        if body.mass == 0 and not np.any(body.inertia):
            body = None

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
            at = attribute_floats(joint, "pos", 3, attrs) if "pos" in attrs else np.zeros(3)
            placement = frame @ translation(at)
            link_name = name if k == len(joints) - 1 else \
                f"{name}:{joint.attrib.get('name') or k + 1}"
            self.links.append(self._ball(joint, attrs, link_name, owner, placement)
                              if kind == "ball" else
                              self._link(joint, attrs, kind, link_name, owner, placement))
            owner = len(self.links) - 1
            frame = translation(-at)  # the body frame in the new link frame
        if body is not None and owner >= 0:
            self.links[owner].bodies.append((frame, body))
        elif body is not None:  # a body welded to the world moves nothing
            self.static_mass += body.mass
        if not joints and not free and a.get("name"):
            self.frames.append(Frame(a["name"], owner, as_transform(frame)))
        if joints:
            self.tip = frame
        world = (pose if world is None else world) @ self.compiler.pose(node)
        if a.get("name"):
            self.body_frames[a["name"]] = (owner, frame, world)
        for item, item_pose, item_cls in items:
            if item.tag == "site":
                self._site(item, owner, frame @ item_pose, item_cls)
            else:
                self._body(item, owner, frame @ item_pose, item_cls, world=world @ item_pose)

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
                geoms.append((child, cls, pose))
            elif child.tag in ("site", "body"):
                items.append((child, pose, cls))
            elif child.tag == "frame":
                self._check_attrs(child, _FRAME_ATTRS)
                self._gather(child, child.attrib.get("childclass", cls),
                             pose @ self.compiler.pose(child), joints, inertial, geoms, items)

    def _free(self, joint: MjcfElement, cls) -> None:
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

    def _ball(self, joint: MjcfElement, attrs, name: str, parent: int,
              placement: np.ndarray) -> _LinkDraft:
        """A ``ball`` joint: a spherical joint about its ``pos`` (``q`` its quaternion, stored
        ``(x, y, z, w)`` as Pinocchio does, where MuJoCo's ``qpos`` is ``(w, x, y, z)``; ``v``
        the angular velocity in the body frame, as MuJoCo's ``qvel``). ``armature`` and
        ``damping`` act on each of its 3 dofs, as in MuJoCo (``dof_armature``,
        ``dof_damping``), and so does ``frictionloss`` (MuJoCo's ``dof_frictionloss``: a
        friction row per dof, ``-frictionloss sign(qvel_k)`` while it slides), robodyn's
        Coulomb friction on each dof. ``stiffness`` is a spring MuJoCo adds to
        ``qfrc_passive`` (``qfrc_spring``), beside ``M`` and the bias: read past with the
        hinges' springs, in one note."""
        if "stiffness" in attrs and _float(attrs["stiffness"], joint.where("stiffness")) != 0:
            self.springs.append(joint.attrib.get("name") or name)
        values = {}
        for key in ("armature", "damping", "frictionloss"):
            values[key] = _float(attrs.get(key, "0"), joint.where(key))
            if values[key] < 0:
                raise ModelError(f"{joint.where(key)}: {values[key]:g} is negative; it must "
                                 "be >= 0")
        return _LinkDraft(
            name=name,
            joint=Joint(type=SPHERICAL, placement=as_transform(placement),
                        name=joint.attrib.get("name") or f"joint{self.joints}"),
            parent=parent, friction=(values["damping"], values["frictionloss"]),
            armature=values["armature"])

    def _link(self, joint: MjcfElement, attrs, kind: str, name: str, parent: int,
              placement: np.ndarray) -> _LinkDraft:
        axis = unit_vector(attribute_floats(joint, "axis", 3, attrs), joint.where("axis")) \
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
                attribute_floats(joint, "springdamper", 2, attrs) != 0)):
            self.springs.append(joint.attrib.get("name") or name)
        if "actuatorgravcomp" in attrs and attribute_bool(joint, "actuatorgravcomp", attrs):
            raise ModelError(f"{joint.where('actuatorgravcomp')}: gravity compensation is not "
                             "modelled by robodyn; remove it")
        limits = None
        limited = attrs.get("limited", "auto")
        if limited not in ("true", "false", "auto"):
            raise ModelError(f"{joint.where('limited')}: {_q(limited)} is not true, false or "
                             "auto")
        if limited == "auto" and not self.compiler.autolimits and "range" in attrs:
            # MuJoCo refuses this too: with autolimits off, range= alone means nothing
            raise ModelError(f"{joint.where('range')}: range= without limited= while "
                             "<compiler autolimits=\"false\">; add limited=\"true\" (or "
                             "\"false\" to drop the range), or remove autolimits=\"false\"")
        if limited == "true" or (limited == "auto" and self.compiler.autolimits
                                 and "range" in attrs):
            if "range" not in attrs:
                raise ModelError(f"{joint.where('limited')}: a limited joint needs range=...")
            lo, hi = (self.compiler.angle(x) if revolute else x
                      for x in attribute_floats(joint, "range", 2, attrs))
            if not lo < hi:
                raise ModelError(f"{joint.where('range')}: the lower limit is not below the "
                                 "upper one")
            effort = math.inf
            if "actuatorfrcrange" in attrs and attrs.get("actuatorfrclimited", "auto") != "false":
                effort = float(np.max(np.abs(attribute_floats(joint, "actuatorfrcrange", 2,
                                                              attrs))))
            limits = (lo, hi, math.inf, effort)
        ref = number("ref", angle=True)
        draft = _LinkDraft(
            name=name,
            joint=Joint(type=_JOINT_TYPES[kind], axis=_numbers(axis), offset=_number(-ref),
                        placement=as_transform(placement),
                        name=joint.attrib.get("name") or f"joint{self.joints}",
                        limits=limits),
            parent=parent,
            friction=(number("damping", nonnegative=True),
                      number("frictionloss", nonnegative=True)),
            armature=number("armature", nonnegative=True),
        )
        return draft

    def _inertial(self, node: MjcfElement, name: str, inertial: list[MjcfElement], geoms, cls):
        """The body's :class:`_Body` in its body frame (``None``: massless): its
        ``<inertial>``, or with ``inertiafromgeom`` true (auto: without ``<inertial>``) the
        solids of its geoms (:mod:`robodyn.model.mjcf_geoms`)."""
        from_geom = self.compiler.inertiafromgeom
        massive = [(g, g_cls, pose) for g, g_cls, pose in geoms
                   if self._geom_has_mass(g, g_cls)]
        if massive and (from_geom == "true" or (from_geom == "auto" and not inertial)):
            return self._geom_body(name, massive)
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
            if "diaginertia" in el.attrib or any(k in el.attrib for k in ORIENTATION_ATTRS):
                raise ModelError(f"{el.where('fullinertia')}: fullinertia is given in the "
                                 "body's axes; it takes no diaginertia or orientation")
            xx, yy, zz, xy, xz, yz = attribute_floats(el, "fullinertia", 6)
            inertia = np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
        elif "diaginertia" in el.attrib:
            rot = pose[:3, :3]
            inertia = rot @ np.diag(attribute_floats(el, "diaginertia", 3)) @ rot.T
        else:
            raise ModelError(f"{el.where()}: no diaginertia or fullinertia; an inertial needs "
                             "one")
        inertia = (inertia + inertia.T) / 2
        check_inertia(mass, inertia, mass_field=f"{el.where('mass')} of body {_q(name)}",
                      inertia_field=f"{el.where()} of body {_q(name)}")
        return _Body(mass, pose[:3, 3].copy(), inertia)

    def _geom_body(self, name: str, geoms) -> _Body | None:
        """The body of the solids of ``geoms`` (``(geom, class, frame pose)``), as MuJoCo's
        compiler makes it: each geom's mass (or density times volume) at its centre, its
        inertia turned into the body frame, all about the common centre of mass."""
        parts = []
        for geom, g_cls, frame in geoms:
            attrs = self._attributes(geom, g_cls)
            kind = attrs.get("type", "mesh" if "mesh" in attrs else "sphere")
            if kind == "mesh":
                parts.append(self._mesh_part(geom, attrs, frame))
                continue
            if kind not in PRIMITIVES:
                raise ModelError(f"{geom.where('type')}: MuJoCo derives body {_q(name)}'s "
                                 f"inertia from this {kind} geom, robodyn from sphere, capsule, "
                                 "ellipsoid, cylinder, box and mesh geoms only; add <inertial "
                                 "pos mass diaginertia> to the body")
            if "mesh" in attrs:
                raise ModelError(f"{geom.where('mesh')}: a {kind} fitted to a mesh is not "
                                 "read; add <inertial> to the body")
            if attrs.get("shellinertia", "false") == "true":
                raise ModelError(f"{geom.where('shellinertia')}: shell inertia is not read; "
                                 "add <inertial> to the body")
            size = (attribute_floats(geom, "size", (1, 2, 3), attrs) if "size" in attrs
                    else np.zeros(0))
            if "fromto" in attrs:
                if kind == "sphere":
                    raise ModelError(f"{geom.where('fromto')}: a sphere has no fromto")
                ends = attribute_floats(geom, "fromto", 6, attrs)
                axis = ends[3:] - ends[:3]
                half = float(np.linalg.norm(axis)) / 2
                if not half > 0:
                    raise ModelError(f"{geom.where('fromto')}: the two ends are one point")
                size = np.resize(np.concatenate([size, np.zeros(3)]), 3)
                if kind in ("capsule", "cylinder"):
                    size[1] = half
                else:  # a box or ellipsoid along fromto is as wide in y as in x (MuJoCo)
                    size[1:] = size[0], half
                rotation, centre = z_to(axis / (2 * half)), (ends[:3] + ends[3:]) / 2
                check_size(kind, size, geom.where("size"), True)
            else:
                check_size(kind, size, geom.where("size"), False)
                pose = self.compiler.pose(geom, attrs)
                rotation, centre = pose[:3, :3], pose[:3, 3]
            volume, unit = solid(kind, size)
            mass = (_float(attrs["mass"], geom.where("mass")) if "mass" in attrs
                    else _float(attrs.get("density", "1000"), geom.where("density")) * volume)
            if mass < 0:
                raise ModelError(f"{geom.where('mass')}: the geom's mass {mass:g} is negative")
            rotation = frame[:3, :3] @ rotation
            parts.append((mass, frame[:3, :3] @ centre + frame[:3, 3],
                          rotation @ np.diag(mass * unit) @ rotation.T))
        body = combined(parts)
        if body is None:
            return None
        mass, com, inertia = body
        check_inertia(mass, inertia, mass_field=f"the geoms of body {_q(name)}",
                      inertia_field=f"the geoms of body {_q(name)}")
        return _Body(mass, com, inertia)

    def _mesh_part(self, geom: MjcfElement, attrs, frame: np.ndarray):
        """``(mass, centre, inertia)`` of a ``mesh`` geom in the body frame: the mesh's solid
        (:class:`~robodyn.model.mjcf_assets.MeshAssets`) placed by the geom's pose, its mass
        ``mass`` or ``density`` times its volume (area for a shell)."""
        if "mesh" not in attrs:
            raise ModelError(f"{geom.where()}: a mesh geom needs mesh=...")
        if "fromto" in attrs:
            raise ModelError(f"{geom.where('fromto')}: a mesh geom has no fromto")
        measure, com, unit, _ = self.meshes.solid(geom, attrs["mesh"])
        mass = (_float(attrs["mass"], geom.where("mass")) if "mass" in attrs
                else _float(attrs.get("density", "1000"), geom.where("density")) * measure)
        if mass < 0:
            raise ModelError(f"{geom.where('mass')}: the geom's mass {mass:g} is negative")
        pose = frame @ self.compiler.pose(geom, attrs)
        rotation = pose[:3, :3]
        return (mass, rotation @ com + pose[:3, 3],
                rotation @ (mass / measure * unit) @ rotation.T)

    def _geom_has_mass(self, geom: MjcfElement, cls) -> bool:
        """Whether MuJoCo would count the geom in its body's inertia: a group within
        ``inertiagrouprange`` and a mass (or density) that is not 0."""
        attrs = self._attributes(geom, cls)
        group = _float(attrs.get("group", "0"), geom.where("group"))
        if not self.compiler.groups[0] <= group <= self.compiler.groups[1]:
            return False
        if "mass" in attrs:
            return _float(attrs["mass"], geom.where("mass")) != 0
        return _float(attrs.get("density", "1000"), geom.where("density")) != 0

    def _site(self, node: MjcfElement, owner: int, pose: np.ndarray, cls) -> None:
        name = node.attrib.get("name")
        if not name:
            return  # an unnamed site cannot be asked for
        self._claim_name(node, "site", self.site_names)
        attrs = self._attributes(node, cls)
        self.site_frames.add(len(self.frames))
        self.frames.append(Frame(name, owner, as_transform(pose @ self.compiler.pose(node,
                                                                                    attrs))))

    @staticmethod
    def _claim_name(node: MjcfElement, kind: str, seen: dict[str, str]) -> None:
        """Record the ``name`` of ``node`` (a body, joint or site) among those of its kind;
        a second one is refused, as MuJoCo refuses it ("repeated name")."""
        name = node.attrib.get("name")
        if not name:
            return
        if name in seen:
            raise ModelError(f"{node.where('name')}: a second <{kind} name={_q(name)}> (the "
                             f"first at {seen[name]}); {kind} names must be unique, as "
                             "MuJoCo requires")
        seen[name] = node.where()

    def _name_sites_by_kind(self) -> None:
        """A site named like a body (legal in MuJoCo, whose names are per kind) becomes the
        frame ``site:NAME``, so ``frame="NAME"`` has one answer (the body) and the site
        stays reachable; a note says so."""
        for k in sorted(self.site_frames):
            frame = self.frames[k]
            if frame.name in self.body_names:
                renamed = f"site:{frame.name}"
                self.frames[k] = replace(frame, name=renamed)
                self.notes.append(f"<site name={_q(frame.name)}> ({self.site_names[frame.name]}) "
                                  f"shares its name with a body ({self.body_names[frame.name]}); "
                                  f"frame={_q(frame.name)} is the body, frame={_q(renamed)} "
                                  "the site")

    def _assemble(self, gravity: np.ndarray) -> Chain:
        if self.springs:  # MuJoCo adds them to qfrc_passive: M and qfrc_bias are without them
            shown = ", ".join(map(_q, self.springs[:6])) + (" ..." if len(self.springs) > 6
                                                            else "")
            self.notes.append(f"not read: the springs (stiffness) of joint(s) {shown}: passive "
                              "forces MuJoCo adds beside M and the bias; a simulation here has "
                              "none")
        merged = [_merge(draft.bodies) if draft.bodies
                  else (0.0, np.zeros(3), np.zeros((3, 3))) for draft in self.links]
        if self.compiler.total_mass is not None:
            # MuJoCo's settotalmass: every body's mass and inertia scaled by one factor
            total = sum(mass for mass, _, _ in merged) + self.static_mass
            if not total > 0:
                raise ModelError(f"{self.source}: <compiler settotalmass> scales the bodies' "
                                 "masses, and they are all 0")
            scale = self.compiler.total_mass / total
            merged = [(mass * scale, com, inertia * scale) for mass, com, inertia in merged]
            self.notes.append(f"settotalmass: every body's mass and inertia scaled by "
                              f"{scale:.6g} (total {self.compiler.total_mass:g} kg)")
        links = []
        for draft, (mass, com, inertia) in zip(self.links, merged, strict=True):
            links.append(Link(
                name=draft.name, joint=draft.joint,
                inertial=Inertial(_number(mass), _numbers(com), _numbers(inertia)),
                friction=Friction(*(_number(x) for x in draft.friction)),
                motor=Motor(inertia=_number(draft.armature), gear_ratio=1),
            ))
        self._name_sites_by_kind()
        if gravity[0] == 0 and gravity[1] == 0 and gravity[2] < 0:
            self.values["g"] = float(-gravity[2])
            g = (0, 0, -Parameter("g"))
        else:
            g = _numbers(gravity)
        return Chain(links=tuple(links), gravity=g, tip=as_transform(self.tip),
                     parents=tuple(d.parent for d in self.links), frames=tuple(self.frames))


def _has_joints(node: MjcfElement) -> bool:
    """Whether a joint is in the subtree of the element ``node``."""
    stack = [node]
    while stack:
        item = stack.pop()
        for child in item.children:
            if child.tag in ("joint", "freejoint"):
                return True
            stack.append(child)
    return False
