"""The mass, centre of mass and inertia of an MJCF ``mesh`` geom, read from the mesh file the
model names and computed as MuJoCo's compiler computes them (``mjCMesh``): the vertices
(single precision, as MuJoCo stores them) times the mesh ``scale``, then one of the mesh's
``inertia`` modes:

* ``convex``: the solid convex hull of the vertices (Qhull, through
  :class:`scipy.spatial.ConvexHull`, as MuJoCo calls Qhull);
* ``exact``: the solid the closed, outward-oriented triangles bound (signed volumes, so a
  non-convex mesh is right);
* ``legacy`` (MuJoCo 4.0.1's default; the dm_control dog's bones need it): MuJoCo's former
  rule, each triangle's tetrahedron counted with a positive volume (right for convex meshes
  only), the apex first the area-weighted centre of the faces (for the centre of mass), then
  the centre of mass (for the inertia);
* ``shell``: a thin surface of uniform density per area (``density`` kg/m^2).

A solid is the sum of the tetrahedra that join each triangle ``(a, b, c)`` to an apex
``o``: volume ``V_t = (c_t - o) . n_t A_t / 3`` (``c_t`` the triangle's centroid, ``n_t``
its unit normal, ``A_t`` its area), centre of mass ``o + 3/4 (c_t - o)``, and second moments
about the apex ``int x_i x_j dV = V_t / 20 (sum_k a_i a_j + s_i s_j)`` with ``a`` running over
the three corners relative to ``o`` and ``s = a + b + c`` (Tonon, "Explicit exact formulas for
the 3-D tetrahedron inertia tensor", J. Math. Stat. 2005); a thin triangle's are ``A_t / 12
(sum_k a_i a_j + s_i s_j)``. The inertia is ``I = tr(P) 1 - P`` of the second moments ``P``
about the centre of mass. MuJoCo then moves and turns the mesh to its principal axes and
the geom's frame with it; the solid stays where the file put it, so here the geom's part is
that solid in the geom's frame.

Files (:func:`read_mesh`): binary STL, ASCII STL (MuJoCo reads binary only), Wavefront OBJ
(``v`` and ``f`` lines, polygons split in fans) and MuJoCo's binary ``.msh``; each bounded by
:data:`MAX_MESH_BYTES`, :data:`MAX_MESH_VERTICES` and :data:`MAX_MESH_FACES`; a count in a
header that the file's size does not hold, a face index out of range, a coordinate that is
not finite and a mesh without volume are :class:`~robodyn.core.errors.ModelError`.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import ModelError
from ..core.files import NotRegularFile, read_regular_file

#: Largest mesh file read, in bytes.
MAX_MESH_BYTES = 100_000_000
#: Most vertices and triangles of one mesh (MuJoCo refuses STL files over 200,000 faces);
#: text files (ASCII STL, OBJ) are parsed into Python lists first, a few hundred MB at most.
MAX_MESH_VERTICES = 1_000_000
MAX_MESH_FACES = 1_000_000
#: MuJoCo's ``inertia`` modes of ``<mesh>``.
MODES = ("convex", "exact", "legacy", "shell")
#: A volume (or area) below this is no solid (MuJoCo's ``mjMINVAL``).
MIN_MEASURE = 1e-15


# -- files -------------------------------------------------------------------------------
def read_mesh(path, where: str) -> tuple[np.ndarray, np.ndarray]:
    """``(vertices (n, 3) float64 of single-precision values, faces (m, 3) int)`` of the
    mesh file ``path``; ``where`` starts any error message."""
    try:
        data = read_regular_file(path, MAX_MESH_BYTES + 1)
    except NotRegularFile as exc:
        raise ModelError(f"{where}: {exc.strerror}; a mesh is a file") from None
    except OSError as exc:
        raise ModelError(f"{where}: cannot read the mesh file ({exc.strerror or exc})") from None
    if len(data) > MAX_MESH_BYTES:
        raise ModelError(f"{where}: the mesh file is larger than {MAX_MESH_BYTES:,} bytes")
    suffix = str(path).lower().rsplit(".", 1)[-1]
    if suffix == "stl":
        vertices, faces = _stl(data, where)
    elif suffix == "obj":
        vertices, faces = _obj(data, where)
    elif suffix == "msh":
        vertices, faces = _msh(data, where)
    else:
        raise ModelError(f"{where}: robodyn reads STL, OBJ and MuJoCo .msh meshes, not "
                         f".{suffix}; convert the mesh or give the body an <inertial>")
    return check_mesh(vertices, faces, where)


def check_mesh(vertices: np.ndarray, faces: np.ndarray, where: str):
    """The mesh's arrays after the checks every source shares (sizes, finite coordinates,
    face indices in range)."""
    vertices = np.asarray(vertices, dtype=np.float32).astype(float).reshape(-1, 3)
    faces = np.asarray(faces, dtype=np.int64).reshape(-1, 3)
    if len(vertices) > MAX_MESH_VERTICES or len(faces) > MAX_MESH_FACES:
        raise ModelError(f"{where}: {len(vertices):,} vertices and {len(faces):,} triangles; "
                         f"robodyn reads at most {MAX_MESH_VERTICES:,} and {MAX_MESH_FACES:,}")
    if len(vertices) < 4:
        raise ModelError(f"{where}: {len(vertices)} vertices; a mesh that bounds a solid has "
                         "at least 4")
    if not np.all(np.isfinite(vertices)):
        raise ModelError(f"{where}: vertex coordinates that are not finite numbers (NaN or "
                         "infinite); fix the mesh file")
    if len(faces) and (faces.min() < 0 or faces.max() >= len(vertices)):
        raise ModelError(f"{where}: a face names a vertex that does not exist (indices "
                         f"{int(faces.min())}..{int(faces.max())} of {len(vertices)} vertices)")
    return vertices, faces


def _stl(data: bytes, where: str):
    if len(data) >= 84:
        count = int(np.frombuffer(data, "<u4", 1, 80)[0])
        if len(data) == 84 + 50 * count:
            if count == 0 or count > MAX_MESH_FACES:
                raise ModelError(f"{where}: the STL header says {count:,} triangles; robodyn "
                                 f"reads 1 to {MAX_MESH_FACES:,}")
            rows = np.frombuffer(data, np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                 ("a", "<u2")]), count, 84)
            vertices = rows["v"].reshape(-1, 3)
            return vertices, np.arange(len(vertices)).reshape(-1, 3)
    if data.lstrip()[:5].lower() == b"solid":
        return _stl_ascii(data, where)
    count = int(np.frombuffer(data, "<u4", 1, 80)[0]) if len(data) >= 84 else 0
    raise ModelError(f"{where}: not an STL file: a binary STL of {count:,} triangles has "
                     f"{84 + 50 * count:,} bytes, this one {len(data):,} (truncated or not "
                     "STL), and it does not start with 'solid' (ASCII STL)")


def _stl_ascii(data: bytes, where: str):
    vertices = []
    for number, line in enumerate(data.decode("ascii", "replace").splitlines(), 1):
        parts = line.split()
        if parts and parts[0] == "vertex":
            if len(parts) != 4:
                raise ModelError(f"{where}: line {number}: 'vertex' takes 3 numbers")
            vertices.append(_floats(parts[1:], where, number))
            if len(vertices) > MAX_MESH_VERTICES:
                raise ModelError(f"{where}: more than {MAX_MESH_VERTICES:,} vertices (an ASCII "
                                 "STL repeats each triangle's three)")
    if not vertices or len(vertices) % 3:
        raise ModelError(f"{where}: an ASCII STL file with {len(vertices)} vertices; each "
                         "facet has 3 (truncated file?)")
    return np.array(vertices), np.arange(len(vertices)).reshape(-1, 3)


def _floats(parts, where: str, number: int) -> list[float]:
    try:
        return [float(p) for p in parts]
    except ValueError:
        raise ModelError(f"{where}: line {number}: {' '.join(parts)[:60]!r} are not "
                         "numbers") from None


def _obj(data: bytes, where: str):
    vertices, faces = [], []
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            if len(parts) < 4:
                raise ModelError(f"{where}: line {number}: 'v' takes 3 numbers")
            vertices.append(_floats(parts[1:4], where, number))
            if len(vertices) > MAX_MESH_VERTICES:
                raise ModelError(f"{where}: more than {MAX_MESH_VERTICES:,} vertices")
        elif parts[0] == "f":
            try:
                corner = [int(p.split("/")[0]) for p in parts[1:]]
            except ValueError:
                raise ModelError(f"{where}: line {number}: a face's vertex indices are not "
                                 "integers") from None
            if len(corner) < 3:
                raise ModelError(f"{where}: line {number}: a face has at least 3 vertices")
            # 1-based, negative counting back from the last vertex read so far
            corner = [c - 1 if c > 0 else len(vertices) + c for c in corner]
            faces.extend([corner[0], corner[k], corner[k + 1]] for k in range(1, len(corner) - 1))
            if len(faces) > MAX_MESH_FACES:
                raise ModelError(f"{where}: more than {MAX_MESH_FACES:,} triangles")
    return np.array(vertices).reshape(-1, 3), np.array(faces, dtype=np.int64).reshape(-1, 3)


def _msh(data: bytes, where: str):
    """MuJoCo's binary mesh: four int32 counts (vertices, normals, texture coordinates,
    faces), then float32 vertices (3 each), normals (3), texture coordinates (2) and int32
    faces (3)."""
    if len(data) < 16:
        raise ModelError(f"{where}: a .msh file starts with 4 counts (16 bytes); this one has "
                         f"{len(data)} bytes")
    nv, nn, nt, nf = (int(x) for x in np.frombuffer(data, "<i4", 4))
    if min(nv, nn, nt, nf) < 0 or nv > MAX_MESH_VERTICES or nf > MAX_MESH_FACES:
        raise ModelError(f"{where}: the .msh header says {nv:,} vertices and {nf:,} faces; "
                         f"robodyn reads at most {MAX_MESH_VERTICES:,} and {MAX_MESH_FACES:,}")
    size = 16 + 4 * (3 * nv + 3 * nn + 2 * nt + 3 * nf)
    if len(data) != size:
        raise ModelError(f"{where}: the .msh header's counts make {size:,} bytes, the file has "
                         f"{len(data):,} (truncated or not a .msh file)")
    vertices = np.frombuffer(data, "<f4", 3 * nv, 16).reshape(-1, 3)
    faces = np.frombuffer(data, "<i4", 3 * nf, size - 12 * nf).reshape(-1, 3)
    return vertices, faces


# -- inertia -------------------------------------------------------------------------------
def _triangles(vertices, faces):
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    cross = np.cross(b - a, c - a)
    return a, b, c, cross / 2  # area-weighted normals


def _moments(a, b, c, weights, per) -> np.ndarray:
    """``sum_t w_t / per (sum_k a_k a_k^T + s s^T)`` over the triangles (corners relative to
    the apex)."""
    corners = np.concatenate([a, b, c, a + b + c])  # (4 t, 3): one product, through BLAS
    return (np.tile(weights, 4)[:, None] * corners).T @ corners / per


def hull_faces(vertices: np.ndarray, where: str) -> np.ndarray:
    """The triangles of the convex hull of ``vertices``, turned outward (their normal
    ``(b - a) x (c - a)`` along the facet's outer normal) so that ``exact`` reads them too
    (scipy's Qhull, imported here: only ``convex`` meshes and meshes without faces need it)."""
    try:
        from scipy.spatial import ConvexHull, QhullError
    except ImportError:  # pragma: no cover - SciPy is a core dependency
        raise ModelError(f"{where}: the convex hull needs SciPy") from None
    try:
        hull = ConvexHull(vertices)
    except (QhullError, ValueError):
        raise ModelError(f"{where}: the vertices span no volume (all on one plane or line), so "
                         "their convex hull is no solid; fix the mesh or give the body an "
                         "<inertial>") from None
    faces = hull.simplices.copy()
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    inward = np.einsum("ij,ij->i", np.cross(b - a, c - a), hull.equations[:, :3]) < 0
    faces[inward] = faces[inward][:, [0, 2, 1]]
    return faces


def _check_orientation(vertices: np.ndarray, faces: np.ndarray, where: str) -> None:
    """MuJoCo's refusal of an ``exact`` mesh whose triangles are not turned alike: an edge
    run twice in the same direction (vertices merged where they coincide)."""
    _, index = np.unique(vertices, axis=0, return_inverse=True)
    f = index.reshape(-1)[faces]
    edges = np.concatenate([f[:, [0, 1]], f[:, [1, 2]], f[:, [2, 0]]])
    if len(np.unique(edges, axis=0)) < len(edges):
        raise ModelError(f"{where}: the mesh's triangles are not all turned the same way (an "
                         "edge is run twice in one direction), so inertia=\"exact\" has no "
                         "inside; fix the mesh's faces, or use inertia=\"convex\"")


def mesh_inertia(vertices: np.ndarray, faces: np.ndarray, mode: str,
                 where: str) -> tuple[float, np.ndarray, np.ndarray]:
    """``(volume (area for shell), centre of mass, inertia about it per unit density
    (3, 3))`` of the mesh under MuJoCo's ``inertia`` mode (module docstring)."""
    if mode == "convex" or len(faces) == 0:  # a mesh given by vertices alone: MuJoCo
        faces = hull_faces(vertices, where)     # makes its faces from the convex hull
    if len(faces) == 0:
        raise ModelError(f"{where}: the mesh has no faces; give it faces (or use the default "
                         "inertia=\"convex\")")
    if mode == "exact":
        _check_orientation(vertices, faces, where)
    a, b, c, normal = _triangles(vertices, faces)
    centre = (a + b + c) / 3
    area = np.linalg.norm(normal, axis=1)
    if mode == "shell":
        measure = float(area.sum())
        if not measure > MIN_MEASURE:
            raise ModelError(f"{where}: the mesh's surface has no area")
        com = area @ centre / measure
        moments = _moments(a - com, b - com, c - com, area, 12)
    else:
        if mode == "convex":  # Qhull's triangles are not oriented: the apex is inside
            inside = vertices[np.unique(faces)].mean(axis=0)
            volume = np.abs(np.einsum("ti,ti->t", centre - inside, normal)) / 3
            apex = inside
        else:
            apex = area @ centre / area.sum() if area.sum() > 0 else np.zeros(3)
            volume = np.einsum("ti,ti->t", centre - apex, normal) / 3
            if mode == "legacy":
                volume = np.abs(volume)
        measure = float(volume.sum())
        if not measure > MIN_MEASURE:
            raise ModelError(f"{where}: the mesh's volume is {measure:.3g}: "
                             + ("it bounds no solid (flat, open or turned inside out: its "
                                "triangles must face outwards)" if mode == "exact" else
                                "it bounds no solid") + "; fix the mesh or give the body an "
                             "<inertial>")
        com = volume @ (apex + 0.75 * (centre - apex)) / measure
        if mode == "legacy":  # MuJoCo recounts the volumes about the centre of mass
            volume = np.abs(np.einsum("ti,ti->t", centre - com, normal)) / 3
            measure = float(volume.sum())
        elif mode == "convex":
            volume = np.abs(np.einsum("ti,ti->t", centre - com, normal)) / 3
        else:
            volume = np.einsum("ti,ti->t", centre - com, normal) / 3
        moments = _moments(a - com, b - com, c - com, volume, 20)
    inertia = np.trace(moments) * np.eye(3) - moments
    return measure, com, (inertia + inertia.T) / 2


__all__ = ["MAX_MESH_BYTES", "MAX_MESH_VERTICES", "MAX_MESH_FACES", "MODES", "read_mesh",
           "check_mesh", "hull_faces", "mesh_inertia"]
