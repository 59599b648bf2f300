"""The meshes the 3D viewer (:mod:`robodyn.plot.viewer`) draws on a URDF robot's links: the
``<visual>`` meshes the file names, found beside it (``package://pkg/path`` in its parent
folders) and confined there, as MJCF includes are; and the plain text the viewer shows
for a user's names. Meshes are only read, never run."""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from ..core.csv_table import parse_number
from ..core.files import read_regular_file

__all__ = ["urdf_meshes", "plain_text", "MAX_MESH_BYTES", "MAX_MESHES", "MAX_URDF_BYTES",
           "NAME_CHARS"]

#: Longest name shown (a model's or a joint's), in characters.
NAME_CHARS = 60
#: Largest mesh file read, in bytes; most meshes drawn.
MAX_MESH_BYTES = 50_000_000
MAX_MESHES = 200
#: Largest URDF file read for its meshes (as the loader's cap).
MAX_URDF_BYTES = 10_000_000


def plain_text(value, limit: int = NAME_CHARS) -> str:
    """A user's name (or a message naming one) as one line of plain text: printable
    characters, at most ``limit``."""
    text = "".join(c if c.isprintable() else " " for c in str(value)).strip()
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _origin(element) -> np.ndarray:
    """The 4x4 transform of an ``<origin xyz rpy>`` child of ``element`` (URDF's fixed-axis
    roll, pitch, yaw: ``R = Rz(yaw) Ry(pitch) Rx(roll)``)."""
    T = np.eye(4)
    origin = element.find("origin") if element is not None else None
    if origin is None:
        return T
    xyz = [float(v) for v in (origin.get("xyz") or "0 0 0").split()]
    r, p, y = [float(v) for v in (origin.get("rpy") or "0 0 0").split()]
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), \
        math.cos(y), math.sin(y)
    T[:3, :3] = [[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                 [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                 [-sp, cp * sr, cp * cr]]
    T[:3, 3] = xyz
    return T


def _mesh_path(filename: str, folder: Path) -> tuple[Path | None, str]:
    """The file a URDF ``<mesh filename>`` names, looked for beside the URDF file (and for
    ``package://pkg/rest``: ``rest`` and ``pkg/rest`` there and in the parent folders), and
    confined as MJCF includes are: the file must lie in the URDF's folder, or (for
    ``package://pkg/...``) in a parent folder named ``pkg``, the package's root. ``(path,
    "")``, else ``(None, why)``: ``file:///etc/passwd`` and ``package://pkg/../../..``
    are refused, not read."""
    folder = folder.resolve()
    roots = [folder]
    if filename.startswith("file://"):
        pairs = [(folder, Path(filename[len("file://"):]))]  # absolute: must lie in folder
    elif filename.startswith("package://"):
        rest = filename[len("package://"):]
        package, _, tail = rest.partition("/")
        tail = tail or rest
        roots += [p for p in folder.parents if package and p.name == package]
        pairs = [(base, Path(part)) for base in (folder, *folder.parents)
                 for part in (tail, rest)]
    else:
        pairs = [(folder, Path(filename))]
    refused = False
    for base, part in pairs:
        try:
            resolved = (base / part).resolve()
        except (OSError, RuntimeError, ValueError):
            continue
        if not resolved.is_relative_to(base) or not any(resolved.is_relative_to(root)
                                                        for root in roots):
            # an escape (``..``, an absolute path, a link out) is refused; a parent folder
            # searched for package:// that is not the package's is merely skipped
            refused = refused or not resolved.is_relative_to(base) or base == folder
            continue
        if resolved.is_file():
            return resolved, ""
        if resolved.exists():  # a pipe or a device would block the read, a folder is none
            return None, f"mesh {plain_text(filename)} not drawn: not a regular file"
    if refused:
        return None, (f"mesh {plain_text(filename)} refused: outside the folder of the URDF file "
                      "(meshes are read only there, or in the package's folder for "
                      "package://); copy the mesh there")
    return None, f"mesh not found: {plain_text(filename)}"


def urdf_meshes(robot) -> tuple[list[tuple[int, np.ndarray, Path, np.ndarray]], list[str]]:
    """The ``<visual>`` meshes of a robot loaded from a URDF file: ``([(k, T, path,
    scale)], notes)``, each mesh in the frame of chain link ``k`` (-1: the base) at the
    transform ``T``, and what could not be found. A robot from another source has none."""
    source = Path(str(robot.source or ""))
    if getattr(robot.provenance, "loader", None) != "urdf" or not source.is_file():
        return [], []
    try:
        data = read_regular_file(source, MAX_URDF_BYTES)
        root = ET.fromstring(data) if len(data) <= MAX_URDF_BYTES else None
    except (OSError, ET.ParseError) as exc:
        return [], [f"meshes: {source.name} cannot be read again ({exc})"]
    if root is None:
        return [], [f"meshes: {source.name} is over {MAX_URDF_BYTES:,} bytes"]
    try:
        return _meshes_of(robot, root, source)
    except (ValueError, TypeError) as exc:  # the file changed since it was loaded
        return [], [f"meshes: {source.name}: {plain_text(exc)}"]


def _meshes_of(robot, root, source: Path):
    """:func:`urdf_meshes` of the parsed file ``root``."""
    joints = {}
    for j in root.findall("joint"):
        parent, child = j.find("parent"), j.find("child")
        if parent is not None and child is not None:
            joints.setdefault(parent.get("link"), []).append(
                (j.get("name"), child.get("link"), _origin(j)))
    chain = [link.joint.name for link in robot.chain.links]
    first = next((p for p, js in joints.items() for name, _, _ in js if name == chain[0]),
                 None)
    if first is None:
        return [], ["meshes: the chain's joints are not found in the URDF file"]
    index = {name: k for k, name in enumerate(chain)}
    owner, pose, stack = {first: -1}, {first: np.eye(4)}, [first]
    while stack:  # each link once: a link seen before is not walked again
        link = stack.pop()
        for name, child, origin in joints.get(link, ()):
            if child in owner:
                continue
            if name in index:
                owner[child], pose[child] = index[name], np.eye(4)
            else:  # a fixed (or locked) joint: the child rides on the same link
                owner[child], pose[child] = owner[link], pose[link] @ origin
            stack.append(child)
    found, notes = [], []
    for link in root.findall("link"):
        name = link.get("name")
        if name not in owner:
            continue
        for visual in link.findall("visual"):
            mesh = visual.find("geometry/mesh")
            if mesh is None or not mesh.get("filename"):
                continue
            path, why = _mesh_path(mesh.get("filename"), source.parent)
            if path is None:
                notes.append(why)
                continue
            scale = _scale(mesh.get("scale"))
            if isinstance(scale, str):  # this mesh only: the others are still drawn
                notes.append(f"mesh {plain_text(mesh.get('filename'))} not drawn: {scale}")
                continue
            found.append((owner[name], pose[name] @ _origin(visual), path, scale))
    return found[:MAX_MESHES], notes


def _scale(text: str | None) -> np.ndarray | str:
    """A ``<mesh scale>``: 3 numbers (or one for all axes), read by the model files' strict
    number reader; else why not (a string)."""
    parts = (text or "1 1 1").split()
    values = [parse_number(p) for p in parts]
    if len(parts) not in (1, 3) or any(isinstance(v, str) for v in values):
        return f"scale={plain_text(text)} is not 3 numbers"
    return np.broadcast_to(np.array(values, dtype=float), (3,)).copy()
