"""Issue 30 section 4: URDF mesh paths are confined to the model's folder (or its ROS
package) as MJCF includes are, and one bad ``scale=`` drops only that mesh. Needs neither
viser nor trimesh: :func:`urdf_meshes` only finds the files."""

from __future__ import annotations

import robodyn as rd
from robodyn.plot.viewer_meshes import urdf_meshes

URDF = """<robot name="r"><link name="base"/>
<link name="l1"><inertial><mass value="1"/>
<inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial>
VISUALS</link>
<joint name="j1" type="revolute"><parent link="base"/><child link="l1"/><axis xyz="0 0 1"/>
<limit lower="-1" upper="1" effort="1" velocity="1"/></joint></robot>"""


def visual(filename, scale=None) -> str:
    extra = f' scale="{scale}"' if scale is not None else ""
    return f'<visual><geometry><mesh filename="{filename}"{extra}/></geometry></visual>'


def meshes(folder, *visuals):
    path = folder / "r.urdf"
    path.write_text(URDF.replace("VISUALS", "".join(visuals)))
    return urdf_meshes(rd.load(path))


def test_escaping_mesh_paths_are_refused(tmp_path):
    secret = tmp_path / "secret.stl"
    secret.write_text("solid x\nendsolid x\n")
    model = tmp_path / "pkg" / "urdf"
    model.mkdir(parents=True)
    found, notes = meshes(model, visual(f"file://{secret}"),
                          visual("package://pkg/../../secret.stl"),
                          visual("../../secret.stl"))
    assert found == []
    assert len(notes) == 3 and all("refused: outside the folder" in n for n in notes)


def test_meshes_in_the_folder_and_the_package_are_found(tmp_path):
    model = tmp_path / "pkg" / "urdf"
    (tmp_path / "pkg" / "meshes").mkdir(parents=True)
    model.mkdir()
    (tmp_path / "pkg" / "meshes" / "a.stl").write_text("solid a\nendsolid a\n")
    (model / "b.stl").write_text("solid b\nendsolid b\n")
    found, notes = meshes(model, visual("package://pkg/meshes/a.stl"), visual("b.stl"),
                          visual(f"file://{model / 'b.stl'}"), visual("missing.stl"))
    assert [p.name for _, _, p, _ in found] == ["a.stl", "b.stl", "b.stl"]
    assert notes == ["mesh not found: missing.stl"]


def test_one_bad_scale_drops_only_that_mesh(tmp_path):
    (tmp_path / "b.stl").write_text("solid b\nendsolid b\n")
    found, notes = meshes(tmp_path, visual("b.stl", "a b"), visual("b.stl", "2 2 2"),
                          visual("b.stl", "1_0 1 1"))
    assert len(found) == 1 and list(found[0][3]) == [2.0, 2.0, 2.0]
    assert len(notes) == 2 and all("is not 3 numbers" in n for n in notes)


def test_a_fifo_mesh_is_a_note_and_never_opened(tmp_path):
    import os

    import pytest

    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    os.mkfifo(tmp_path / "pipe.stl")
    found, notes = meshes(tmp_path, visual("pipe.stl"))
    assert found == [] and notes == ["mesh pipe.stl not drawn: not a regular file"]
