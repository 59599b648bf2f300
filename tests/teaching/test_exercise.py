"""``robodyn exercise``: a random small arm from a seed, its task sheet and its solution.

What is checked: the same seed writes the same files byte for byte; the arm has the
joint types asked for; its solution (``answer.json``) passes ``robodyn check`` and
``eq.compare`` against the model file it came with; the model is physically sound (M
symmetric positive definite at its default values) and Lagrange-Euler and Newton-Euler
agree on it (an independent second derivation); bad options are usage errors.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.codegen.export.files import RECORD
from robodyn.core.errors import InputError
from robodyn.symbolic import equations, verify
from robodyn.teaching.exercise import make_exercise

ARGS = ["exercise", "--dof", "2", "--joints", "RP", "--seed", "7"]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """The exercise of ARGS written twice into two folders (and once with seed 8)."""
    base = tmp_path_factory.mktemp("exercise")
    for name, seed in (("a", "7"), ("b", "7"), ("c", "8")):
        argv = ARGS[:-1] + [seed, "--out", str(base / name)]
        assert main(argv) == 0
    return base


def _files(folder):
    """The files written, less the record of their digests (``.robodyn-files.json``)."""
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file() and p.name != RECORD}


def test_same_seed_same_files(written):
    a, b, c = (_files(written / x) for x in "abc")
    assert sorted(a) == ["solution/answer.json", "solution/derivation.md",
                         "solution/derivation.tex", "solution/derivation.txt",
                         "solution/solution.md", "solution/solution.tex",
                         "solution/solution.txt", "task/arm.png", "task/arm.yaml",
                         "task/task.md", "task/task.tex"]
    assert a == b
    assert a["task/arm.yaml"] != c["task/arm.yaml"]  # another seed, another arm


def test_task_sheet_gives_data_not_answers(written):
    task = (written / "a" / "task" / "task.md").read_text()
    assert "## Given" in task and "## Questions" in task and "Christoffel" in task
    assert "robodyn check arm.yaml" in task
    tex = (written / "a" / "task" / "task.tex").read_text()
    assert tex.startswith("\\documentclass") and tex.rstrip().endswith("\\end{document}")
    answer = json.loads((written / "a" / "solution" / "answer.json").read_text())
    for entry in answer["M"][0]:  # the solution's M is nowhere on the task sheet
        if entry != "0":
            assert entry not in task


def _text(rows) -> str:
    if isinstance(rows[0], list):
        return "[" + ", ".join(_text(r) for r in rows) + "]"
    return "[" + ", ".join(rows) + "]"


def test_solution_passes_compare_against_itself(written, capsys):
    folder = written / "a"
    model = str(folder / "task" / "arm.yaml")
    answer = json.loads((folder / "solution" / "answer.json").read_text())
    robot = rd.load(model)
    assert [link.joint.type for link in robot.links] == ["revolute", "prismatic"]
    eq = equations(robot)
    result = eq.compare(**{k: _text(answer[k]) for k in ("M", "C", "g", "tau")})
    assert result.ok, str(result)
    capsys.readouterr()
    code = main(["check", model, "--M", _text(answer["M"]), "--g", _text(answer["g"])])
    assert code == 0 and "M" in capsys.readouterr().out
    # a wrong answer is caught, so the checks above can fail
    wrong = [[answer["M"][0][0] + " + m2", answer["M"][0][1]], answer["M"][1]]
    assert not eq.compare(M=_text(wrong)).ok
    derivation = (folder / "solution" / "derivation.txt").read_text()
    assert "Christoffel symbol c_222" in derivation and "N + N^T (all zero" in derivation


@pytest.mark.parametrize("dof, joints, seed", [(2, "RP", 7), (2, "PR", 3), (3, None, 2)])
def test_exercise_arm_is_sound(dof, joints, seed, tmp_path):
    """Both methods agree on the drawn arm, and its M is symmetric positive definite at
    the default values (random q): a solvable, physical exercise."""
    ex = make_exercise(dof, joints, seed)
    assert len(ex.joints) == dof and (joints is None or ex.joints == joints)
    path = tmp_path / "arm.yaml"
    path.write_text(ex.model_yaml)
    robot = rd.load(path)
    assert [link.joint.type[0].upper() for link in robot.links] == list(ex.joints)
    assert bool(verify(robot))
    rng = np.random.default_rng(seed)
    for q in rng.uniform(-2, 2, size=(5, dof)):
        M = robot.mass_matrix(q)
        assert np.allclose(M, M.T) and np.linalg.eigvalsh(M).min() > 0


@pytest.mark.parametrize("argv", [["--joints", "RX"], ["--dof", "2", "--joints", "RPR"],
                                  ["--dof", "4"], ["--seed", "-1"]])
def test_bad_options_are_usage_errors(argv, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["exercise", *argv, "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert "error" in capsys.readouterr().err


def test_make_exercise_input_errors():
    with pytest.raises(InputError, match="joints"):
        make_exercise(2, "RQ", 1)
    with pytest.raises(InputError, match="dof"):
        make_exercise(0, None, 1)
