"""Assessment mode (issue 33, item 5): ``robodyn exercise --mode assessment`` hands the
student a folder with only the sheet and the figure; the model file, the solution and
the answer key stay in the lecturer's folder; ``check --reveal`` refuses the
assessment's model file; practice mode is unchanged.

Independent sources: the folder listings (what a student can read), the practice-mode
arm of the same seed (the lecturer's model file is the same arm: equal M, C, g at random
states of the numeric engine), and grading a submission typed from the sheet's names.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli import main
from robodyn.teaching.exercise import ASSESSMENT_MARK, make_exercise

ARGS = ["--dof", "2", "--joints", "RR", "--seed", "4", "--questions", "M,g"]


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    base = tmp_path_factory.mktemp("assess")
    assert main(["exercise", *ARGS, "--mode", "assessment", "--out", str(base / "a")]) == 0
    assert main(["exercise", *ARGS, "--no-figure", "--out", str(base / "p")]) == 0
    return base


def test_the_student_folder_holds_only_the_sheet_and_figure(folders):
    a = folders / "a"
    assert sorted(p.name for p in a.iterdir()) == ["lecturer", "student"]
    student = sorted(p.name for p in (a / "student").iterdir())
    assert student == [".robodyn-files.json", "arm.png", "task.md", "task.tex"]
    record = json.loads((a / "student" / ".robodyn-files.json").read_text())
    assert "arm.yaml" not in json.dumps(record)
    for name in ("task.md", "task.tex"):
        text = (a / "student" / name).read_text()
        assert "arm.yaml" not in text and "robodyn check" not in text
        assert "M = [[..., ...], [..., ...]]" in text and "g = [..., ...]" in text
    lecturer = {p.name for p in (a / "lecturer").iterdir()}
    assert {"arm.yaml", "answer.json", "solution.md", "derivation.tex"} <= lecturer


def test_the_lecturers_model_is_the_practice_arm(folders):
    mine = rd.load(folders / "a" / "lecturer" / "arm.yaml")
    theirs = rd.load(folders / "p" / "task" / "arm.yaml")
    rng = np.random.default_rng(1)
    q, qd = rng.uniform(-2, 2, (4, 2)), rng.uniform(-2, 2, (4, 2))
    np.testing.assert_allclose(mine.mass_matrix(q), theirs.mass_matrix(q), rtol=1e-14)
    np.testing.assert_allclose(mine.gravity_torques(q), theirs.gravity_torques(q),
                               rtol=1e-14)
    np.testing.assert_allclose(mine.coriolis_matrix(q, qd), theirs.coriolis_matrix(q, qd),
                               rtol=1e-14)
    assert (folders / "a" / "lecturer" / "arm.yaml").read_text().startswith(ASSESSMENT_MARK)
    answer = json.loads((folders / "a" / "lecturer" / "answer.json").read_text())
    assert answer["mode"] == "assessment" and answer["asked"] == ["M", "g"]
    # practice mode as it was: the model file in task/, no mark
    practice = (folders / "p" / "task" / "arm.yaml").read_text()
    assert not practice.startswith("# robodyn exercise --mode")
    assert make_exercise(2, "RR", 4).model_yaml in practice


def test_check_reveal_refuses_the_assessment_model(folders, capsys):
    model = str(folders / "a" / "lecturer" / "arm.yaml")
    with pytest.raises(SystemExit) as exc:
        main(["check", model, "--g", "[0, 0]", "--reveal"])
    assert exc.value.code == 2
    assert "assessment" in capsys.readouterr().err
    # without --reveal the diagnosis (no expected entries) still runs
    assert main(["check", model, "--g", "[0, 0]"]) == 1
    # the practice model file reveals as before
    assert main(["check", str(folders / "p" / "task" / "arm.yaml"), "--g", "[0, 0]",
                 "--reveal"]) == 1
    assert "expected" in capsys.readouterr().out


def test_the_lecturers_key_grades_a_submission_typed_from_the_sheet(folders, tmp_path, capsys):
    eq = rd.load(folders / "a" / "lecturer" / "arm.yaml").equations()
    right = tmp_path / "alice.txt"
    right.write_text(f"M = {[[str(x) for x in r] for r in eq.M.tolist()]}\n"
                     f"g = {[str(x) for x in eq.g]}\n".replace("'", "").replace("**", "^"))
    wrong = tmp_path / "bob.txt"
    wrong.write_text("g = [0, 0]\n")
    assert main(["grade", str(folders / "a" / "lecturer" / "answer.json"), "--",
                 str(right), str(wrong)]) == 0
    rows = [line.split(",") for line in capsys.readouterr().out.splitlines()[1:]]
    totals = {r[0].rsplit("/", 1)[-1]: (r[2], r[3]) for r in rows if r[1] == "total"}
    assert totals == {"alice.txt": ("6", "6"), "bob.txt": ("0", "6")}
