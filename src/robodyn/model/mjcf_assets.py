"""The ``<mesh>`` assets of an MJCF model (:class:`MeshAssets`) and the solid of a ``mesh``
geom: its mass, centre of mass and inertia in the geom's frame, as MuJoCo's compiler makes
them (:mod:`robodyn.model.mjcf_meshes` reads the file and computes the integrals).

A mesh is named by ``name`` (default: its file's name without the extension); its file is
found under ``<compiler meshdir>`` (else ``assetdir``, else the model's folder), relative
to the main file's folder, and, as ``<include>`` files are, read only if it lies in that
folder or below it (after resolving links), or below the ``asset_root`` the caller names
(:func:`checked_asset_root`: a folder that holds the model file, e.g. the package a model
ships in, as dm_control's ``dog_v2`` names its meshes in ``../../../../suite/dog_assets``).
A mesh may also give its ``vertex`` (and ``face``) numbers inline. ``scale`` stretches the
vertices; ``inertia`` is MuJoCo's mode (``legacy`` by default, as MuJoCo 4.0.1 compiles
it). A mesh file is read at most once, and only when a geom's mass needs it (a visual mesh
of a body with ``<inertial>`` is never opened).

A mesh file's solid is kept for the process (:data:`MAX_CACHED_SOLIDS` of them, the oldest
dropped first), keyed by the file's resolved path, device, inode, size and modification
time, its ``scale`` and ``inertia`` mode, as MuJoCo keeps its compiled assets (``mjCache``):
loading a model again reads none of its meshes, and a changed file is read afresh.
"""

from __future__ import annotations

import os
import stat
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ..core.errors import ModelError
from .file_values import finite as _float
from .file_values import listing as _listing
from .file_values import quote as _q
from .mjcf_meshes import MODES, check_mesh, mesh_inertia, read_mesh
from .mjcf_xml import MjcfElement

#: Attributes of ``<mesh>`` that robodyn reads, or that do not change the mass.
_MESH_ATTRS = {"name", "class", "file", "vertex", "face", "scale", "inertia",
               "content_type", "normal", "texcoord", "smoothnormal", "maxhullvert",
               "material", "refpos", "refquat"}


#: How many mesh files' solids the process keeps (each a few numbers: no mesh is kept).
MAX_CACHED_SOLIDS = 4096
_CACHE: OrderedDict[tuple, tuple[float, np.ndarray, np.ndarray]] = OrderedDict()


class MeshAssets:
    """The model's ``<mesh>`` elements by name; each mesh's solid computed once."""

    def __init__(self, folder: Path, main: str):
        self.folder = folder
        self.root = folder  # meshes are read only below it (checked_asset_root widens it)
        self.main = main
        self.meshdir = ""
        self.strippath = False
        self.meshes: dict[str, tuple[MjcfElement, dict[str, str]]] = {}
        self._solids: dict[str, tuple[float, np.ndarray, np.ndarray]] = {}

    def add(self, node: MjcfElement, attrs: dict[str, str]) -> None:
        """Record the ``<mesh>`` element ``node`` with its attributes (over its default
        class's)."""
        for key in attrs:
            if key not in _MESH_ATTRS:
                raise ModelError(f"{node.where(key)}: not an attribute of <mesh> robodyn "
                                 f"knows; known: {_listing(sorted(_MESH_ATTRS), 40)}")
        for key, neutral in (("refpos", "0 0 0"), ("refquat", "1 0 0 0")):
            if key in attrs and [float(x) for x in attrs[key].split()] != \
                    [float(x) for x in neutral.split()]:
                raise ModelError(f"{node.where(key)}: MuJoCo no longer reads {key}; move the "
                                 "mesh's vertices instead")
        name = attrs.get("name")
        if name is None:
            if "file" not in attrs:
                raise ModelError(f"{node.where()}: a mesh without a file needs a name")
            name = Path(attrs["file"].replace("\\", "/")).name.rsplit(".", 1)[0]
        if name in self.meshes:
            raise ModelError(f"{node.where('name')}: a second <mesh name={_q(name)}>; mesh "
                             "names must be unique, as MuJoCo requires")
        self.meshes[name] = (node, attrs)

    def solid(self, geom: MjcfElement, name: str) -> tuple[float, np.ndarray, np.ndarray, str]:
        """``(volume or area, centre of mass, inertia per unit density, mode)`` of the mesh
        ``name`` that ``geom`` names, in the mesh's (scaled) coordinates."""
        if name not in self.meshes:
            raise ModelError(f"{geom.where('mesh')}: no <mesh name={_q(name)}> in <asset>; "
                             f"meshes: {_listing(self.meshes) or 'none'}")
        node, attrs = self.meshes[name]
        mode = attrs.get("inertia", "legacy")  # MuJoCo 4.0.1's default
        if mode not in MODES:
            raise ModelError(f"{node.where('inertia')}: {_q(mode)} is not one of "
                             f"{', '.join(MODES)}")
        if name not in self._solids:
            scale = None
            if "scale" in attrs:
                scale = [_float(x, node.where("scale")) for x in attrs["scale"].split()]
                if len(scale) != 3:
                    raise ModelError(f"{node.where('scale')}: expected 3 numbers")
            key = path = None
            if "file" in attrs:
                path = self._path(node, attrs["file"])
                try:
                    st = os.stat(path)
                except OSError:  # read_mesh names the problem
                    st = None
                if st is not None and stat.S_ISREG(st.st_mode):
                    key = (str(path), st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns,
                           None if scale is None else tuple(scale), mode)
            if key is not None and key in _CACHE:
                _CACHE.move_to_end(key)
                self._solids[name] = _CACHE[key]
            else:
                vertices, faces = self._geometry(node, attrs, path)
                if scale is not None:
                    vertices = vertices * np.array(scale)
                solid = mesh_inertia(vertices, faces, mode, f"{node.where()} (for {geom.where()})")
                for array in solid[1:]:
                    array.flags.writeable = False  # shared by every load of the file
                self._solids[name] = solid
                if key is not None:
                    _CACHE[key] = self._solids[name]
                    while len(_CACHE) > MAX_CACHED_SOLIDS:
                        _CACHE.popitem(last=False)
        return (*self._solids[name], mode)

    def _geometry(self, node: MjcfElement, attrs: dict[str, str], path: Path | None = None):
        if "file" in attrs:
            return read_mesh(path or self._path(node, attrs["file"]), node.where(
                f"file={_q(attrs['file'])}"))
        if "vertex" not in attrs:
            raise ModelError(f"{node.where()}: a mesh needs file= or vertex=")
        where = node.where("vertex")
        numbers = [_float(x, where) for x in attrs["vertex"].split()]
        if len(numbers) % 3:
            raise ModelError(f"{where}: {len(numbers)} numbers, not a multiple of 3")
        faces = attrs.get("face", "").split()
        if len(faces) % 3:
            raise ModelError(f"{node.where('face')}: {len(faces)} indices, not a multiple of 3")
        try:
            index = [int(x) for x in faces]
        except ValueError:
            raise ModelError(f"{node.where('face')}: the face indices are not integers") from None
        return check_mesh(np.array(numbers), np.array(index), where)

    def _path(self, node: MjcfElement, name: str) -> Path:
        name = name.replace("\\", "/")
        if self.strippath:
            name = Path(name).name
        target = (self.folder / self.meshdir / name).resolve()
        if not target.is_relative_to(self.root):
            common = Path(os.path.commonpath([self.folder, target]))
            # the folder in full (a path the OS bounds, not the file's text): advice to copy
            hint = (f", or load with asset_root={str(common)!r} if you trust that folder"
                    if self.root == self.folder and len(common.parts) > 2 else "")
            raise ModelError(f"{node.where('file')}: {_q(name)} (under meshdir "
                             f"{_q(self.meshdir)}) is outside "
                             + (f"the folder of {self.main} ({self.folder}); robodyn reads "
                                "meshes only in the model's folder or below it"
                                if self.root == self.folder else
                                f"asset_root ({self.root})")
                             + f": copy the mesh there{hint}")
        return target


def checked_asset_root(asset_root, folder: Path) -> Path:
    """``asset_root`` resolved (links followed): an existing folder that holds ``folder``
    (the model's), else a :class:`ModelError` naming the option."""
    root = Path(asset_root).expanduser().resolve()
    if not root.is_dir():
        raise ModelError(f"asset_root={_q(str(asset_root))}: not a folder; name the folder "
                         "that holds the model and its meshes")
    if not folder.is_relative_to(root):
        raise ModelError(f"asset_root={_q(str(asset_root))}: does not hold the model's folder "
                         f"({folder}); asset_root widens the model's own folder to one above "
                         "it (the package it ships in), nothing else")
    return root


__all__ = ["MeshAssets", "checked_asset_root", "MAX_CACHED_SOLIDS"]
