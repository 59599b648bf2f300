"""The PUMA's published inertias on the command line (issue 18): each warning is one line
of at most 100 characters that names the link and points to docs/defaults.md."""

from __future__ import annotations

import pytest

from robodyn.cli import main

pytestmark = pytest.mark.usefixtures("numpy_backend")


@pytest.mark.parametrize("command", [
    ["export", "puma560", "--urdf", "{tmp}/p.urdf"],
    ["dataset", "puma560", "--samples", "20", "--out", "{tmp}/d.npz"],
])
def test_the_puma_warns_in_short_lines(command, tmp_path, capsys):
    assert main([part.format(tmp=tmp_path) for part in command]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines()
             if line.startswith("robodyn: warning:")]
    inertia = [line for line in lines if ".inertia: moments" in line]
    assert inertia == [
        "robodyn: warning: puma560: links[0].inertia: moments 0 + 0 < 0.35 (docs/defaults.md)",
        "robodyn: warning: puma560: links[2].inertia: moments 0.0125 + 0.066 < 0.086 "
        "(docs/defaults.md)"]
    assert lines and all(len(line) <= 100 and "docs/defaults.md" in line for line in lines)
    if command[0] == "export":  # the armature and the made-physical link 3, one line each
        assert len(lines) == 4 and any("link3 +0.0075 kg m^2" in line for line in lines)
    (tmp_path / "q").mkdir()
    assert main(["-q", *[part.format(tmp=tmp_path / "q") for part in command]]) == 0
    assert "warning" not in capsys.readouterr().err


def test_export_writes_unlimited_joints_as_asked(capsys):
    assert main(["export", "planar-2r", "--urdf", "-"]) == 0
    out = capsys.readouterr().out
    assert out.count('type="continuous"') == 2 and 'type="revolute"' not in out
    assert main(["export", "planar-2r", "--urdf", "-", "--unlimited", "revolute"]) == 0
    out = capsys.readouterr().out
    assert out.count('type="revolute"') == 2 and 'lower="-1000000000"' in out
    with pytest.raises(SystemExit) as stop:
        main(["export", "planar-2r", "--urdf", "-", "--unlimited", "hinge"])
    assert stop.value.code == 2
    assert "--unlimited: invalid choice: 'hinge'" in capsys.readouterr().err
