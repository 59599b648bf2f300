"""Mesh geoms' inertia as MuJoCo's compiler computes it (issue 31): hand-written meshes (a
non-convex L-shaped prism, so ``convex``, ``exact`` and ``legacy`` differ) in binary STL,
OBJ, MuJoCo ``.msh`` and inline ``vertex``/``face``, each ``inertia`` mode and MuJoCo's
default, a ``scale`` and a placed geom: ``body_mass``, ``body_ipos`` and the inertia tensor
of ``body_inertia``/``body_iquat`` equal MuJoCo's to 1e-9, and so do ``mj_fullM`` and
``qfrc_bias``. An ASCII STL (which MuJoCo does not read) equals its binary twin. Hostile
meshes are refused with a clear error, quickly."""

from __future__ import annotations

import struct
import time

import numpy as np
import pytest
from test_mjcf_export import _full_mass_matrix

import robodyn as rd
from robodyn.model.mjcf_meshes import mesh_inertia

mujoco = pytest.importorskip("mujoco", reason="MuJoCo is the reference (the dev extra)")

_POLY = np.array([[0, 0], [2, 0], [2, 0.5], [0.7, 0.5], [0.7, 1.5], [0, 1.5]])


def _l_prism():
    """A closed, outward-oriented L-shaped prism (non-convex), off the origin."""
    n = len(_POLY)
    vertices = np.array([[x + 0.13, y - 0.21, z + 0.05] for z in (0, 0.8) for x, y in _POLY])
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces += [(i, j, n + j), (i, n + j, n + i)]
    for a, b, c, d in ([0, 1, 2, 3], [0, 3, 4, 5]):
        faces += [(a, c, b), (a, d, c), (n + a, n + b, n + c), (n + a, n + c, n + d)]
    return vertices, faces


def _write_stl(path, vertices, faces):
    with open(path, "wb") as f:
        f.write(b"\0" * 80 + struct.pack("<I", len(faces)))
        for face in faces:
            f.write(struct.pack("<12fH", 0, 0, 0, *vertices[face[0]], *vertices[face[1]],
                                *vertices[face[2]], 0))


def _write_ascii_stl(path, vertices, faces):
    text = "solid l\n" + "".join(
        "facet normal 0 0 0\nouter loop\n" + "".join(
            "vertex {:.9g} {:.9g} {:.9g}\n".format(*vertices[k]) for k in face)
        + "endloop\nendfacet\n" for face in faces) + "endsolid l\n"
    path.write_text(text)


def _write_obj(path, vertices, faces):
    path.write_text("".join("v {:.17g} {:.17g} {:.17g}\n".format(*v) for v in vertices)
                    + "".join("f {} {} {}\n".format(*(k + 1 for k in f)) for f in faces))


def _write_msh(path, vertices, faces):
    path.write_bytes(struct.pack("<4i", len(vertices), 0, 0, len(faces))
                     + np.asarray(vertices, "<f4").tobytes()
                     + np.asarray(faces, "<i4").tobytes())


WRITERS = {"stl": _write_stl, "obj": _write_obj, "msh": _write_msh}


def _model(mesh_attrs: str, geom_attrs: str = "") -> str:
    return (f'<mujoco><compiler meshdir="parts"/><asset><mesh name="m" {mesh_attrs}/></asset>'
            '<worldbody><body name="b" pos="0.1 0.2 0.3"><joint axis="0.3 1 0.2"/>'
            f'<geom type="mesh" mesh="m" {geom_attrs}/>'
            '<body name="c" pos="0 0 1"><joint type="slide" axis="1 0 0"/>'
            '<geom type="box" size="0.1 0.2 0.3"/></body></body></worldbody></mujoco>')


def _inertia_tensor(model, body):
    w, x, y, z = model.body_iquat[body]
    rotation = np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return rotation @ np.diag(model.body_inertia[body]) @ rotation.T


def _compare(tmp_path, text):
    path = tmp_path / "model.xml"
    path.write_text(text)
    model = mujoco.MjModel.from_xml_path(str(path))
    robot = rd.load(str(path))
    link = robot.numeric_chain.links[0]
    scale = float(np.abs(model.body_inertia[1]).max())
    assert abs(float(link.inertial.mass) - model.body_mass[1]) <= 1e-9 * model.body_mass[1]
    np.testing.assert_allclose(np.array(link.inertial.com, float), model.body_ipos[1],
                               rtol=0, atol=1e-9)
    np.testing.assert_allclose(np.array(link.inertial.inertia, float),
                               _inertia_tensor(model, 1), rtol=0, atol=1e-9 * scale)
    data = mujoco.MjData(model)
    rng = np.random.default_rng(7)
    for _ in range(3):
        q, v = rng.normal(size=2), rng.normal(size=2)
        data.qpos[:], data.qvel[:] = q, v
        mujoco.mj_forward(model, data)
        full = _full_mass_matrix(model, data)
        np.testing.assert_allclose(robot.mass_matrix(q), full, rtol=1e-9,
                                   atol=1e-9 * np.abs(full).max())
        np.testing.assert_allclose(robot.inverse_dynamics(q, v, 0 * v), data.qfrc_bias,
                                   rtol=1e-9, atol=1e-9 * np.abs(data.qfrc_bias).max())
    return model, robot


@pytest.mark.parametrize("kind", ["stl", "obj", "msh"])
@pytest.mark.parametrize("mode", ["", "convex", "exact", "legacy", "shell"])
def test_each_file_kind_and_inertia_mode_equals_mujoco(tmp_path, kind, mode):
    vertices, faces = _l_prism()
    (tmp_path / "parts").mkdir()
    WRITERS[kind](tmp_path / "parts" / f"l.{kind}", vertices, faces)
    attrs = f'file="l.{kind}" scale="0.3 1.7 0.9"' + (f' inertia="{mode}"' if mode else "")
    _compare(tmp_path, _model(attrs, 'pos="0.1 -0.2 0.05" euler="20 -35 60" density="700"'))


def test_the_modes_differ_on_a_non_convex_mesh_and_legacy_is_mujocos_default(tmp_path):
    vertices, faces = _l_prism()
    faces = np.array(faces)
    volumes = {mode: mesh_inertia(vertices, faces, mode, "l")[0]
               for mode in ("convex", "exact", "legacy")}
    # the L's volume: its area (2 x 0.5 + 0.7 x 1) times its height 0.8; its hull is larger
    assert volumes["exact"] == pytest.approx(1.7 * 0.8, rel=1e-12)
    assert volumes["convex"] > volumes["legacy"] > volumes["exact"]
    (tmp_path / "parts").mkdir()
    _write_stl(tmp_path / "parts" / "l.stl", vertices, faces)
    model, _ = _compare(tmp_path, _model('file="l.stl"', 'mass="2.5"'))
    assert model.body_mass[1] == pytest.approx(2.5)


def test_inline_vertices_and_a_mass_equal_mujoco(tmp_path):
    vertices, faces = _l_prism()
    vertex = " ".join(f"{x:.6g}" for x in np.ravel(vertices))
    face = " ".join(str(k) for k in np.ravel(faces))
    _compare(tmp_path, _model(f'vertex="{vertex}" face="{face}" inertia="exact"',
                              'mass="3" quat="0.8 0.1 0.5 -0.3"'))
    _compare(tmp_path, _model(f'vertex="{vertex}" inertia="convex"', 'density="50"'))


def test_an_ascii_stl_equals_its_binary_twin(tmp_path):
    vertices, faces = _l_prism()
    (tmp_path / "parts").mkdir()
    _write_stl(tmp_path / "parts" / "l.stl", vertices, faces)
    model, robot = _compare(tmp_path, _model('file="l.stl" inertia="exact"'))
    _write_ascii_stl(tmp_path / "parts" / "l.stl", vertices, faces)  # MuJoCo reads no ASCII
    ascii_robot = rd.load(str(tmp_path / "model.xml"))
    q = np.array([0.3, -0.2])
    np.testing.assert_allclose(ascii_robot.mass_matrix(q), robot.mass_matrix(q), rtol=1e-12)


def _hostile(tmp_path, data: bytes, name="bad.stl", mode="exact"):
    (tmp_path / "parts").mkdir(exist_ok=True)
    (tmp_path / "parts" / name).write_bytes(data)
    path = tmp_path / "model.xml"
    path.write_text(_model(f'file="{name}" inertia="{mode}"'))
    start = time.perf_counter()
    with pytest.raises(rd.ModelError) as err:
        rd.load(str(path))
    assert time.perf_counter() - start < 2.0
    return str(err.value)


def test_hostile_meshes_are_refused_clearly_and_quickly(tmp_path):
    vertices, faces = _l_prism()
    _write_stl(tmp_path / "good.stl", vertices, faces)
    good = (tmp_path / "good.stl").read_bytes()
    message = _hostile(tmp_path, good[:-7])
    assert "truncated or not STL" in message and "file=" in message
    huge = good[:80] + struct.pack("<I", 2_000_000_000 // 50) + good[84:]
    assert "truncated or not STL" in _hostile(tmp_path, huge)
    nan = bytearray(good)
    nan[84 + 12:84 + 16] = struct.pack("<f", float("nan"))
    assert "not finite" in _hostile(tmp_path, bytes(nan))
    # a closed tetrahedron, its faces turned alike, flattened: no volume
    flat = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.0]])
    _write_stl(tmp_path / "flat.stl", flat, [(0, 2, 1), (0, 1, 3), (0, 3, 2), (1, 2, 3)])
    flat_bytes = (tmp_path / "flat.stl").read_bytes()
    assert "bounds no solid" in _hostile(tmp_path, flat_bytes, mode="exact")
    assert "span no volume" in _hostile(tmp_path, flat_bytes, mode="convex")
    flipped = [tuple(reversed(faces[0]))] + list(faces[1:])
    _write_stl(tmp_path / "flip.stl", vertices, flipped)
    assert "not all turned the same way" in _hostile(tmp_path,
                                                     (tmp_path / "flip.stl").read_bytes())
    assert "robodyn reads at most" in _hostile(tmp_path, struct.pack("<4i", 500_000_000, 0, 0,
                                                                      1), "bad.msh")
    assert "truncated or not a .msh" in _hostile(tmp_path, struct.pack("<4i", 900_000, 0, 0,
                                                                         1), "bad.msh")
    obj = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 9\n"
    assert "does not exist" in _hostile(tmp_path, obj, "bad.obj")
    assert "reads STL, OBJ and MuJoCo .msh" in _hostile(tmp_path, b"x", "bad.dae")


@pytest.mark.slow
def test_an_oversized_text_mesh_is_refused_at_the_limit(tmp_path):
    """An ASCII STL of more vertices than :data:`MAX_MESH_VERTICES` stops being read there
    (its lists stay bounded), and quickly."""
    from robodyn.model.mjcf_meshes import MAX_MESH_VERTICES
    data = b"solid x\n" + b"vertex 0 0 0\n" * (MAX_MESH_VERTICES + 3)
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "big.stl").write_bytes(data)
    (tmp_path / "model.xml").write_text(_model('file="big.stl"'))
    start = time.perf_counter()
    with pytest.raises(rd.ModelError, match="more than 1,000,000 vertices"):
        rd.load(str(tmp_path / "model.xml"))
    assert time.perf_counter() - start < 10.0


def test_a_mesh_outside_the_models_folder_is_refused(tmp_path):
    vertices, faces = _l_prism()
    _write_stl(tmp_path / "outside.stl", vertices, faces)
    (tmp_path / "model").mkdir()
    path = tmp_path / "model" / "model.xml"
    path.write_text(_model('file="../../outside.stl"'))
    with pytest.raises(rd.ModelError, match="outside the folder of"):
        rd.load(str(path))
    path.write_text(_model('file="missing.stl"'))
    with pytest.raises(rd.ModelError, match="cannot read the mesh file"):
        rd.load(str(path))


def test_a_visual_mesh_beside_an_inertial_is_never_opened(tmp_path):
    text = ('<mujoco><asset><mesh file="absent.stl"/></asset><worldbody><body><joint/>'
            '<inertial pos="0 0 0" mass="1" diaginertia="1 1 1"/>'
            '<geom type="mesh" mesh="absent"/></body></worldbody></mujoco>')
    (tmp_path / "model.xml").write_text(text)
    robot = rd.load(str(tmp_path / "model.xml"))
    assert float(robot.numeric_chain.links[0].inertial.mass) == 1.0


@pytest.mark.parametrize("mode", ["", "legacy", "exact", "shell"])
def test_a_mesh_of_vertices_alone_is_its_convex_hull_in_every_mode(tmp_path, mode):
    """``<mesh vertex=...>`` without ``face``: MuJoCo makes the faces from the convex hull
    whatever the inertia mode (``mujoco/testdata/model.xml``'s icosahedron, under the default
    ``legacy``), so the body's mass and inertia equal MuJoCo's."""
    vertices, _ = _l_prism()
    vertex = " ".join(f"{x:.6g}" for x in np.ravel(vertices))
    _compare(tmp_path, _model(f'vertex="{vertex}"' + (f' inertia="{mode}"' if mode else ""),
                              'density="300" euler="10 20 30"'))


def test_asset_root_lets_meshes_above_the_model_be_read_and_nothing_else(tmp_path):
    """``asset_root`` (a folder holding the model) widens where meshes are read: a mesh in
    the package above the model loads and equals MuJoCo; a mesh outside ``asset_root``, a
    link inside it that leads out, an ``asset_root`` that does not hold the model or is not
    a folder are refused naming the file or the option."""
    vertices, faces = _l_prism()
    package = tmp_path / "package"
    (package / "assets").mkdir(parents=True)
    (package / "models" / "dog").mkdir(parents=True)
    _write_stl(package / "assets" / "l.stl", vertices, faces)
    path = package / "models" / "dog" / "model.xml"
    path.write_text(_model('file="l.stl"').replace('meshdir="parts"',
                                                   'meshdir="../../assets"'))
    with pytest.raises(rd.ModelError, match=r"outside the folder of.*or load with "
                                            r"asset_root='.*package'"):
        rd.load(str(path))
    model = mujoco.MjModel.from_xml_path(str(path))
    robot = rd.load(str(path), asset_root=package)
    assert float(robot.numeric_chain.links[0].inertial.mass) == pytest.approx(
        model.body_mass[1], rel=1e-12)
    # outside asset_root: refused, whatever the file says
    _write_stl(tmp_path / "secret.stl", vertices, faces)
    path.write_text(_model('file="../secret.stl"').replace('meshdir="parts"',
                                                           'meshdir="../../"'))
    with pytest.raises(rd.ModelError, match=r"secret.stl.*is outside asset_root"):
        rd.load(str(path), asset_root=package)
    (package / "assets" / "link.stl").symlink_to(tmp_path / "secret.stl")
    path.write_text(_model('file="link.stl"').replace('meshdir="parts"',
                                                      'meshdir="../../assets"'))
    with pytest.raises(rd.ModelError, match=r"link.stl.*is outside asset_root"):
        rd.load(str(path), asset_root=package)
    other = tmp_path / "other"
    other.mkdir()
    with pytest.raises(rd.ModelError, match=r"asset_root=.*does not hold the model's folder"):
        rd.load(str(path), asset_root=other)
    with pytest.raises(rd.ModelError, match=r"asset_root=.*not a folder"):
        rd.load(str(path), asset_root=tmp_path / "secret.stl")
    with pytest.raises(TypeError, match="asset_root"):
        rd.load(rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf"),
                asset_root=package)


def test_a_mesh_files_solid_is_kept_for_the_process_and_a_changed_file_is_read_again(
        tmp_path, monkeypatch):
    """The second load of a model reads none of its mesh files (their solids are kept, keyed
    by the file's identity, as MuJoCo's ``mjCache``); a file rewritten with another mesh is
    read afresh (its mass the box's, by hand: MuJoCo 4.0.1's own cache, in this process,
    still gives the L it read first)."""
    from robodyn.model import mjcf_assets, mjcf_meshes

    vertices, faces = _l_prism()
    (tmp_path / "parts").mkdir()
    _write_stl(tmp_path / "parts" / "l.stl", vertices, faces)
    text = _model('file="l.stl"', 'density="700"')
    _, first = _compare(tmp_path, text)
    reads = []
    monkeypatch.setattr(mjcf_assets, "read_mesh",
                        lambda *a: reads.append(a) or mjcf_meshes.read_mesh(*a))
    _, again = _compare(tmp_path, text)
    assert reads == []
    assert again.numeric_chain.links[0].inertial.mass == first.numeric_chain.links[0].inertial.mass
    box = np.array([[0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0],
                    [0, 0, 2], [1, 0, 2], [1, 1, 2], [0, 1, 2]], float) * 0.3
    quads = [(0, 3, 2, 1), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)]
    _write_stl(tmp_path / "parts" / "l.stl", box,
               [t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    changed = rd.load(str(tmp_path / "model.xml"))  # MuJoCo's own cache still holds the L
    assert len(reads) == 1
    assert float(changed.numeric_chain.links[0].inertial.mass) == pytest.approx(
        700 * 0.3 * 0.3 * 0.6, rel=1e-6)
