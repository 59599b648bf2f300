"""MJCF files (MuJoCo's XML): the kinematic tree of a MuJoCo model, as a model source.

Only what the rigid-body dynamics needs is read: ``<compiler>`` (angle units, Euler
sequence, how inertia is found), ``<option gravity>``, ``<default>`` classes (nested,
``class=``, ``childclass=``), and in ``<worldbody>`` the ``<body>`` tree with its
``pos`` and orientation, ``<joint>`` and ``<freejoint>``, ``<inertial>``, ``<site>``
and ``<frame>``, and the geoms (and ``<mesh>`` assets, :mod:`robodyn.model.mjcf_assets`)
whose solids give a body its inertia where MuJoCo's compiler derives it from them
(``boundmass``, ``boundinertia``, ``balanceinertia`` and ``settotalmass`` applied as MuJoCo
applies them). Sensors, contacts, keyframes and visual settings are never read (actuators
only for the joints they drive, ``actuated:`` of a closed mechanism); a mesh file is opened
only when a geom's mass needs it. ``<custom><text name="description" data="...">`` is the
model's description (``robot.description``).

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
* ``damping`` is viscous friction, ``frictionloss`` Coulomb friction (a ball joint's on
  each of its 3 dofs, as MuJoCo's friction rows) and ``armature`` the motor armature
  (``Motor(inertia=armature, gear_ratio=1)``, added to ``M[j, j]``); a ``range`` of a
  limited joint is kept in ``Joint.limits``.
* ``<replicate>`` is expanded into placed copies first (:mod:`robodyn.model.mjcf_replicate`).

Errors name the file, line and element: a ``free`` joint below the world's bodies or
beside other joints, mocap bodies, composite or attached bodies, height-field and plane
geoms that would give a body its inertia, hostile mesh files
(:mod:`robodyn.model.mjcf_meshes`). ``<equality>``: ``<connect>`` and ``<weld>`` between
two sites are loop closures (``Chain.closures``, for ``robot.closed_chain()``;
:mod:`robodyn.model.mjcf_equality`) and ``<joint joint1 joint2>`` with a linear ``polycoef``
a joint coupling (``Closures.couplings``); the rest of ``<equality>``, ``<tendon>`` and
``<deformable>``, joint springs, fluid forces and ``gravcomp`` are not read: the robot's own
methods are the unconstrained tree's (as MuJoCo's ``M`` and bias) and a note in
``provenance.notes`` says what was left out.

Safety: the XML is read with :mod:`xml.parsers.expat` and any document type declaration
is refused (so no entity is ever defined or expanded, internal or external); only regular
files are opened (a FIFO or device is refused without blocking); a file over
:data:`~robodyn.model.mjcf_xml.MAX_MJCF_BYTES`, more than
:data:`~robodyn.model.mjcf_xml.MAX_MJCF_ELEMENTS` elements or
:data:`~robodyn.model.mjcf_xml.MAX_MJCF_DEPTH` levels of nesting, or more than
:data:`~robodyn.model.mjcf_bodies.MAX_MJCF_BODIES` bodies is rejected. ``<include file>`` is
read only for files inside the folder of the main file (after resolving links), each at
most once, at most :data:`~robodyn.model.mjcf_xml.MAX_MJCF_INCLUDES` files
:data:`~robodyn.model.mjcf_xml.MAX_INCLUDE_DEPTH` deep, and the byte and element limits hold
for all files together.

Numbers are kept as in the file, as in :mod:`robodyn.model.urdf` (both read them with
:mod:`robodyn.model.file_values`): integers as exact SymPy integers, others as
53-bit ``sp.Float``; gravity ``(0, 0, -g)`` with ``g`` from ``<option gravity>`` when it
points down ``z``, the vector's numbers otherwise.

This module holds :func:`load_mjcf`; :mod:`robodyn.model.mjcf_xml` reads the XML and its
includes safely, :mod:`robodyn.model.mjcf_compiler` the numbers and orientations of an
element under ``<compiler>``'s settings, and :mod:`robodyn.model.mjcf_bodies` the model
from the elements (the ``<default>`` classes, ``<option>``, the body tree, its joints and
inertials).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ..core.errors import ModelError
from ..core.files import file_label, model_name_of
from .mjcf_assets import checked_asset_root
from .mjcf_bodies import MjcfModel
from .mjcf_equality import equality_closures
from .mjcf_xml import MjcfReader
from .source import ModelSource, Provenance


def load_mjcf(path: str | Path, mimic: str = "coupled",
              asset_root: str | Path | None = None) -> ModelSource:
    """Read the body tree of an MJCF file (``robodyn.load("model.xml")`` makes it a
    :class:`~robodyn.Robot`): links for the bodies with hinge and slide joints, named
    frames for sites and welded bodies, a floating base for a free joint. See the module
    docstring for what is read, merged and refused.

    ``mimic``: ``"coupled"`` (default) reads ``<equality joint>`` with a linear ``polycoef``
    as a joint coupling (``robot.dof`` counts the independent joints);
    ``"independent"`` keeps MuJoCo's tree (its ``mj_fullM``), the coupling in a note.
    ``asset_root``: a folder holding the model file under which its meshes may be read
    (default: the model's folder); it widens where meshes are looked for, never includes.

    Raises :class:`ModelError` naming the file, line and element at fault.
    """
    if mimic not in ("coupled", "independent"):
        raise ModelError(f"mimic={str(mimic)[:40]!r}: use 'coupled' (<equality joint> couples "
                         "the joints) or 'independent' (MuJoCo's tree)")
    path = Path(path)
    source = file_label(path)
    reader = MjcfReader(path)
    root = reader.read(path, depth=0)
    if root.tag != "mujoco":
        raise ModelError(f"{root.where()}: the root element is <{root.tag}>, not <mujoco>; "
                         "not an MJCF file")
    reader.expand_includes(root, depth=0)
    model = MjcfModel(source, root, reader.folder, mimic)
    if asset_root is not None:
        model.meshes.root = checked_asset_root(asset_root, reader.folder)
    chain = model.chain()
    # <connect|weld site1 site2>, <joint joint1 joint2 polycoef>
    closures, notes, frames = equality_closures(root, chain, source, model.defaults, mimic,
                                                model.body_frames)
    model.notes.extend(notes)
    if closures is not None:
        chain = replace(chain, frames=(*chain.frames, *frames), closures=closures)
    name = root.attrib.get("model") or model_name_of(path)
    kind = ("tree" if chain.parents else "chain") + (", floating base" if chain.floating
                                                       else "")
    description = (_custom_description(root)
                   or f"MJCF {file_label(path.name)}: {chain.dof} joint"
                   f"{'' if chain.dof == 1 else 's'} ({kind})")
    provenance = Provenance(loader="mjcf", path=str(path), notes=tuple(model.notes))
    return ModelSource(name, chain, model.values, description, provenance)


__all__ = ["load_mjcf"]


#: Longest description read from ``<custom><text name="description">``, in characters.
MAX_DESCRIPTION = 2000


def _custom_description(root) -> str | None:
    """The model's description in MuJoCo's own place for a model's text data,
    ``<custom><text name="description" data="..."/></custom>`` (None: none), its white
    space collapsed, at most :data:`MAX_DESCRIPTION` characters."""
    for section in root.children:
        if section.tag != "custom":
            continue
        for node in section.children:
            if node.tag == "text" and node.attrib.get("name") == "description":
                text = " ".join(node.attrib.get("data", "").split())
                return text[:MAX_DESCRIPTION] or None
    return None
