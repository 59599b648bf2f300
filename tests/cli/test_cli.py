"""The command line: ``robodyn models``, ``robodyn demo``, the URDF options of ``demo`` and
``derive``, and the errors bad arguments get."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import TEST_DATA
from robodyn.cli import main


def test_models_lists_every_builtin(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in rd.models.names():
        assert name in out
    assert "puma560" in out and "6 DOF" in out


def test_help_opens_with_what_robodyn_does(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    description = out.split("\n\n")[1]
    assert " ".join(description.split()) == (
        "Rigid-body dynamics of serial robot arms: equations of motion in closed form, "
        "simulation, torques and energy along a motion, identification, code export.")
    assert "``" not in out


def test_demo_prints_the_inverse_dynamics_of_the_motion(capsys):
    assert main(["demo", "planar-2r", "--samples", "3"]) == 0
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines() if line.startswith("  0.") or
            line.startswith("  1.")]
    assert len(rows) == 3
    # t = 0: at rest at q = 0 with qdd = A pi^2 / 2 (the demo's motion)
    robot = rd.load("planar-2r")
    amplitude = np.array([0.5, 0.2])
    tau0 = robot.inverse_dynamics(np.zeros(2), np.zeros(2), amplitude * np.pi**2 / 2)
    np.testing.assert_allclose([float(x) for x in rows[0][1:]], tau0, atol=1e-4)


@pytest.mark.slow
def test_errors_are_reported_without_a_traceback():
    result = subprocess.run([sys.executable, "-m", "robodyn.cli", "demo", "no-such-arm"],
                            capture_output=True, text=True)
    assert result.returncode == 2
    assert "robodyn: error: cannot load 'no-such-arm'" in result.stderr
    assert "Traceback" not in result.stderr


# -- URDF chains from the command line ---------------------------------------------------
DATA = TEST_DATA / "urdf"


def _rows(out: str) -> list[list[float]]:
    return [[float(x) for x in line.split()] for line in out.splitlines()
            if line.startswith("  0.") or line.startswith("  1.")]


def test_demo_takes_the_tip_of_a_urdf(capsys):
    path = str(DATA / "two_leaves.urdf")
    assert main(["demo", path, "--tip", "right_finger", "--samples", "2"]) == 0
    rows = _rows(capsys.readouterr().out)
    robot = rd.load(path, tip="right_finger")
    # t = 0: at rest at q = 0 with qdd = A pi^2 / 2, A = linspace(0.5, 0.2, dof)
    tau0 = robot.inverse_dynamics(np.zeros(2), np.zeros(2), np.array([0.5, 0.2]) * np.pi**2 / 2)
    np.testing.assert_allclose(rows[0][1:], tau0, atol=1e-4)
    # without --tip the movable joints branch: the whole tree of 3 joints, said in a note
    assert main(["demo", path, "--samples", "2"]) == 0
    captured = capsys.readouterr()
    assert "tau3" in captured.out and "tau4" not in captured.out
    assert "ending at left_finger, right_finger" in captured.err
    assert "--tip loads one chain" in captured.err and "tip=" not in captured.err  # CLI spelling


def test_derive_takes_base_and_tip_of_a_urdf(capsys):
    # from link1 to the tool, planar_2r.urdf is a pendulum about -y: link2 of mass 1.5,
    # centre of mass 0.3 from the axis, inertia 0.07 about it:
    # tau = (0.07 + 1.5 * 0.3^2) qdd + 1.5 * 0.3 * g cos q
    path = str(DATA / "planar_2r.urdf")
    assert main(["derive", path, "--base", "link1", "--tip", "tool", "--values",
                 "--format", "json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["dof"] == 1
    q1, qdd1 = sp.symbols("q1 qdd1")
    tau = sp.parse_expr(data["tau"][0]).subs({"qd1": 0})
    expected = (0.07 + 1.5 * 0.3**2) * qdd1 + 1.5 * 0.3 * 9.81 * sp.cos(q1)
    for q, qdd in [(0.3, -1.2), (2.0, 0.5)]:
        assert float(tau.subs({q1: q, qdd1: qdd})) == pytest.approx(
            float(expected.subs({q1: q, qdd1: qdd})), rel=1e-12)


def test_derive_snaps_angles_and_says_so(capsys):
    path = str(DATA / "near_right_angles.urdf")
    assert main(["derive", path, "--snap-angles", "1e-3", "--values", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert "robodyn: note: snapped 3 angle(s) to multiples of pi/2" in captured.err
    assert "joint 'joint2' rpy roll: 1.5708 -> pi/2" in captured.err
    data = json.loads(captured.out)
    # the same closed form as robodyn.load(..., snap_angles=1e-3) gives
    eq = rd.load(path, snap_angles=1e-3).equations(values=True)
    values = {"q1": 0.4, "q2": -0.7, "q3": 1.1, "qd1": 0.3, "qd2": -0.2, "qd3": 0.5,
              "qdd1": 1.0, "qdd2": 0.1, "qdd3": -0.4}
    for ours, text in zip(eq.tau, data["tau"], strict=True):
        table = {sp.Symbol(k): v for k, v in values.items()}
        assert float(sp.parse_expr(text).subs(values)) == pytest.approx(
            float(ours.subs(table)), rel=1e-12)


@pytest.mark.parametrize("argv", [
    ["derive", "planar-2r", "--tip", "tool"],
    ["derive", "planar-2r", "--snap-angles", "1e-3"],
    ["demo", "planar-2r", str(DATA / "planar_2r.urdf"), "--base", "link1"],
    ["demo", "--allow-massless"],
])
def test_urdf_options_for_other_models_are_an_error(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "to URDF files only" in err and "'planar-2r'" in err


# -- bad arguments: one clear line, no traceback --------------------------------------------
@pytest.mark.parametrize(("argv", "words"), [
    (["demo", "--samples", "0"], ["--samples", "0 is not between 1 and"]),
    (["demo", "--samples", "-3"], ["--samples", "-3 is not between 1 and"]),
    (["demo", "--samples", "many"], ["--samples", "'many' is not an integer"]),
    (["derive", "planar-2r", "--values", "m1=1e999"], ["--values", "m1 = '1e999'",
                                                       "not a finite number"]),
    (["derive", "planar-2r", "--values", "m1=nan"], ["m1 = 'nan'", "not a finite number"]),
    (["derive", "planar-2r", "--values", "m1=abc"], ["m1 = 'abc' is not a number"]),
    (["derive", "planar-2r", "--values", "m1"], ["'m1' is not NAME=NUMBER"]),
    (["derive", "planar-2r", "--values", "=2"], ["'=2' is not NAME=NUMBER"]),
    (["derive", str(DATA / "planar_2r.urdf"), "--snap-angles", "1"],
     ["--snap-angles", "tolerance in radians"]),
    (["derive", str(DATA / "planar_2r.urdf"), "--snap-angles", "x"],
     ["--snap-angles", "'x' is not a number"]),
])
def test_bad_arguments_are_clear_errors(capsys, argv, words):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    for word in words:
        assert word in err


@pytest.mark.slow
def test_a_bad_thread_count_is_a_clear_error():
    env = dict(os.environ, ROBODYN_NUM_THREADS="abc")
    result = subprocess.run([sys.executable, "-m", "robodyn.cli", "demo", "planar-2r",
                             "--samples", "2"], capture_output=True, text=True, env=env)
    assert result.returncode == 2
    assert "robodyn: error: ROBODYN_NUM_THREADS='abc' is not a positive integer" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_thread_count_through_main(capsys, monkeypatch):
    monkeypatch.setenv("ROBODYN_NUM_THREADS", "0")
    assert main(["demo", "planar-2r", "--samples", "2"]) == 2
    assert "robodyn: error: ROBODYN_NUM_THREADS='0'" in capsys.readouterr().err


# -- the command line as people expect it ------------------------------------------------
def test_version_is_the_installed_distributions(capsys):
    import importlib.metadata

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0
    assert capsys.readouterr().out.strip() == f"robodyn {importlib.metadata.version('robodyn')}"
    assert rd.__version__ == importlib.metadata.version("robodyn")


def test_models_is_one_short_line_per_model_and_no_warning(capsys):
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert main(["models"]) == 0
    captured = capsys.readouterr()
    assert caught == [] and captured.err == ""  # the PUMA's inertias warn when used, not listed
    lines = captured.out.splitlines()
    assert [line.split()[0] for line in lines] == rd.models.names()
    assert all(len(line) <= 100 for line in lines)
    for line in lines:  # the DOF and joint letters are the model's own
        robot = rd.load(line.split()[0])
        letters = "".join(j.joint.type[0].upper() for j in robot.links)
        closures = robot.chain.closures
        if closures is None or not closures.loops:
            assert line.split()[1:4] == [str(robot.dof), "DOF", letters]
            continue
        # a closed mechanism: its actuated joints move it; a long run of joints counted
        letters = f"{len(letters)}R" if letters == "R" * 15 else letters
        loops = len(closures.loops)
        assert line.split()[1:6] == [str(len(closures.actuated)), "DOF", letters + ",",
                                     str(loops), "loop" + ("s" if loops > 1 else "")]


def test_models_name_prints_the_details(capsys):
    assert main(["models", "planar-2r"]) == 0
    out = capsys.readouterr().out
    robot = rd.load("planar-2r")
    assert out.startswith("planar-2r: 2 DOF (standard frames)")
    assert all(f"{k} = {v:g}" in " ".join(out.split()) for k, v in robot.values.items())
    assert str(rd.models.path("planar-2r")) in out


@pytest.mark.parametrize("argv, expected", [
    (["simulat", "planar-2r"], "unknown command 'simulat'; did you mean 'simulate'?"),
    (["models", "planar2r"], "'planar2r' is not a built-in model; did you mean 'planar-2r'?"),
    (["derive", "puma-560"], "did you mean 'puma560'?"),
])
def test_a_mistyped_command_or_model_gets_the_closest_name(capsys, argv, expected):
    try:
        code = main(argv)
    except SystemExit as done:
        code = done.code
    assert code == 2
    assert expected in capsys.readouterr().err


def test_a_closed_pipe_ends_quietly():
    """robodyn models | head -1: the reader leaves after one line; no traceback."""
    child = subprocess.Popen([sys.executable, "-m", "robodyn", "models"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    child.stdout.readline()
    child.stdout.close()
    err = child.stderr.read().decode()
    child.wait(timeout=60)
    assert "Traceback" not in err and "BrokenPipe" not in err


def test_counts_may_be_written_as_people_write_them(capsys, numpy_backend):
    assert main(["demo", "planar-2r", "--samples", "1e1"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines()
            if line.strip()[:1].isdigit() and "." in line.split()[0]]
    assert len(rows) == 10  # t = 0.00, 0.11, ..., 1.00
    for bad in ("1.5", "1_0", "1e400", "nan", "ten"):
        with pytest.raises(SystemExit):
            main(["demo", "planar-2r", "--samples", bad])
        assert "--samples: " in capsys.readouterr().err


def test_quiet_hides_warnings_and_each_is_printed_once(capsys, numpy_backend):
    assert main(["demo", "puma560", "--samples", "2"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("robodyn: warning: ") for line in err)
    assert len(err) == len(set(err))  # the PUMA's two inconsistent inertias, once each
    assert main(["-q", "demo", "puma560", "--samples", "2"]) == 0
    assert capsys.readouterr().err == ""


def test_urdf_errors_name_the_command_line_options(capsys):
    # (a branching file is no error now: it loads as the whole tree)
    assert main(["derive", str(TEST_DATA / "urdf" / "no_inertial.urdf")]) == 2
    err = capsys.readouterr().err
    assert "pass --allow-massless to treat it as massless" in err and "allow_massless" not in err
    assert main(["derive", str(TEST_DATA / "urdf" / "planar_2r.urdf"), "--tip", "hand"]) == 2
    err = capsys.readouterr().err
    assert "--tip 'hand' is not a link of the file" in err and "tip=" not in err


def test_a_misspelled_option_is_named_with_the_closest_one(capsys):
    """``--duratoin`` is a misspelling of ``--duration``, said so (argparse alone reports
    the required ``--duration`` as missing); abbreviations argparse accepts still work."""
    with pytest.raises(SystemExit) as exit_:
        main(["simulate", "planar-2r", "--q0", "0,0", "--duratoin", "1"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "unrecognized option '--duratoin'; did you mean --duration?" in err
    assert main(["simulate", "planar-2r", "--q0", "0,0", "--dur", "0.01"]) == 0


def test_counts_written_as_powers_of_ten_are_counts(tmp_path, capsys):
    out = tmp_path / "d.npz"
    assert main(["dataset", "planar-2r", "--samples", "1e2", "--chunk", "5e1",
                 "--out", str(out)]) == 0
    with np.load(out) as data:
        assert data["q"].shape == (100, 2)
    with pytest.raises(SystemExit):
        main(["dataset", "planar-2r", "--samples", "1.5", "--out", str(tmp_path / "e.npz")])
    assert "--samples: '1.5' is not an integer" in capsys.readouterr().err
