"""Every command that writes, against the six cases of one rule (issue 30, section 1):
an existing file of the user's and a link to a file outside are refused and left as they
were; a link to a folder is refused and the folder stays empty; a read-only folder is a
clear error; a file robodyn wrote earlier is replaced; one robodyn wrote and the user edited
since is refused (and ``--force`` overwrites it where the command has it).

Each writer is ``(arguments with {OUT} for the output, the file or folder given,
the file robodyn writes that a user would edit, whether it has --force)``."""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from robodyn.cli import main
from robodyn.codegen.export.files import RECORD, write_files

SIM = ["simulate", "planar-2r", "--q0", "1,0", "--duration", "0.05"]
MOTION = ["planar-2r", "--from", "0", "0", "--to", "1", "1", "--duration", "0.5",
          "--samples", "11"]
HAS_PLOT = importlib.util.find_spec("matplotlib") is not None
HAS_ZARR = importlib.util.find_spec("zarr") is not None
AS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

#: name: (argv with "{OUT}", the output as given, the file inside to edit (None: itself),
#: --force exists, needs Matplotlib, slow)
WRITERS = {
    "simulate --save csv": (SIM + ["--save", "{OUT}"], "run.csv", None, True, False, False),
    "simulate --save npz": (SIM + ["--save", "{OUT}"], "run.npz", None, True, False, False),
    "simulate --plot": (SIM + ["--plot", "{OUT}"], "run.png", None, True, True, False),
    "simulate --animate": (SIM + ["--animate", "{OUT}"], "run.gif", None, True, True, False),
    "torques --save": (["torques"] + MOTION + ["--save", "{OUT}"], "t.csv", None, True,
                       False, False),
    "torques --plot": (["torques"] + MOTION + ["--plot", "{OUT}"], "t.png", None, True, True,
                       False),
    "energy --plot": (["energy"] + MOTION + ["--plot", "{OUT}"], "e.png", None, True, True,
                      False),
    "demo --out": (["demo", "--out", "{OUT}"], "pictures", "rp-arm.png", True, True, True),
    "exercise --out": (["exercise", "--no-figure", "--out", "{OUT}"], "ex", "task/task.md",
                       True, False, False),
    "dataset npz": (["dataset", "planar-2r", "--samples", "20", "--chunk", "10", "--out",
                     "{OUT}"], "d.npz", None, False, False, False),
    "dataset zarr": (["dataset", "planar-2r", "--samples", "20", "--chunk", "10", "--out",
                      "{OUT}"], "d.zarr", "tau/zarr.json", False, False, False),
    "export --urdf": (["export", "planar-2r", "--urdf", "{OUT}"], "arm.urdf", None, True,
                      False, False),
    "export --mjcf": (["export", "planar-2r", "--mjcf", "{OUT}"], "arm.xml", None, True,
                      False, False),
    "export --lang --out": (["export", "planar-2r", "--lang", "c", "--functions",
                             "gravity_torques", "--out", "{OUT}"], "code", "planar_2r.c",
                            True, False, False),
    "grade --out": (["grade", "{ANSWER}", "{SUBMISSION}", "--out", "{OUT}"], "grades.csv",
                    None, True, False, False),
}
#: Writers that keep their own rule for a file they wrote: a finished dataset is never
#: recomputed over (rerunning resumes or says "delete it to write the dataset again").
REFUSE_OWN = {"dataset npz"}
IS_FOLDER = {"demo --out", "exercise --out", "dataset zarr", "export --lang --out"}


@pytest.fixture(scope="module")
def exercise_answer(tmp_path_factory):
    """An answer.json and a submission for ``grade``."""
    folder = tmp_path_factory.mktemp("answer")
    assert main(["exercise", "--no-figure", "--out", str(folder / "ex")]) == 0
    submission = folder / "bob.txt"
    submission.write_text("M = [[1, 0], [0, 1]]\n")
    return folder / "ex" / "solution" / "answer.json", submission


def _argv(name, out, answer):
    argv, *_ = WRITERS[name]
    values = {"{OUT}": str(out)}
    if answer is not None:
        values.update({"{ANSWER}": str(answer[0]), "{SUBMISSION}": str(answer[1])})
    return [values.get(a, a) for a in argv]


def _run(name, out, answer, capsys, *extra):
    capsys.readouterr()
    try:
        code = main(_argv(name, out, answer) + list(extra))
    except SystemExit as exc:
        code = exc.code
    return code, capsys.readouterr().err


def _edited(name, out) -> Path:
    """The file a user would edit among what ``name`` wrote at ``out``."""
    inner = WRITERS[name][2]
    if inner is not None:
        return out / inner
    return out


def _can_write(folder: Path) -> bool:
    try:
        (folder / ".probe").touch()
    except OSError:
        return False
    (folder / ".probe").unlink()
    return True


def _needs(name, case):
    _, _, _, _, plot, slow = WRITERS[name]
    if plot and not HAS_PLOT:
        pytest.skip("needs Matplotlib")
    if name == "dataset zarr" and not HAS_ZARR and case in ("read-only folder", "earlier",
                                                          "edited"):
        pytest.skip("needs zarr")


CASES = ["user file", "link to a file", "link to a folder", "read-only folder", "earlier",
         "edited"]


def _params():
    for name, spec in WRITERS.items():
        slow = spec[5]
        for case in CASES:
            marks = [pytest.mark.slow] if slow and case in ("earlier", "edited") else []
            yield pytest.param(name, case, marks=marks, id=f"{name}: {case}")


@pytest.mark.parametrize("name, case", list(_params()))
def test_every_writer_follows_the_one_rule(name, case, tmp_path, capsys, request):
    _needs(name, case)
    answer = request.getfixturevalue("exercise_answer") if name.startswith("grade") else None
    work = tmp_path / "work"
    work.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    out = work / WRITERS[name][1]
    folder_output = name in IS_FOLDER

    if case == "user file":
        if folder_output:  # a folder of the user's, with a file where robodyn would write
            target = out / (WRITERS[name][2] or "thesis.txt")
            target.parent.mkdir(parents=True)
        else:
            target = out
        target.write_text("my notes\n")
        code, err = _run(name, out, answer, capsys)
        assert code == 2, err
        assert target.read_text() == "my notes\n"
        assert str(target.name) in err or str(out.name) in err

    elif case == "link to a file":
        other = outside / "other_file"
        other.write_text("not yours\n")
        if folder_output and name != "dataset zarr":  # the store: a link in its place
            out.mkdir()
            inner = WRITERS[name][2] or "x"
            (out / inner).parent.mkdir(parents=True, exist_ok=True)
            (out / inner).symlink_to(other)
        else:
            out.symlink_to(other)
        code, err = _run(name, out, answer, capsys)
        assert code == 2, err
        assert other.read_text() == "not yours\n"
        assert "link" in err or "not a folder" in err or "exists" in err, err

    elif case == "link to a folder":
        out.symlink_to(outside, target_is_directory=True)
        code, err = _run(name, out, answer, capsys)
        assert code == 2, err
        assert list(outside.iterdir()) == []
        assert "link" in err or "not a regular file" in err or "exists" in err, err

    elif case == "read-only folder":
        os.chmod(work, 0o555)
        if AS_ROOT and _can_write(work):  # root without CAP_DAC_OVERRIDE obeys the bits
            os.chmod(work, 0o755)
            pytest.skip("root ignores permissions")
        try:
            code, err = _run(name, out, answer, capsys)
        finally:
            os.chmod(work, 0o755)
        assert code == 2, err
        assert "cannot" in err or "ermission" in err, err
        assert "Traceback" not in err

    elif case == "earlier":
        code, err = _run(name, out, answer, capsys)
        assert code == 0, err
        written = _edited(name, out)
        before = written.stat().st_mtime_ns
        code, err = _run(name, out, answer, capsys)
        if name in REFUSE_OWN:
            assert code == 2 and "delete it" in err, err
            return
        assert code == 0, err
        assert written.exists()
        if name not in ("dataset zarr",):  # a finished store is resumed: nothing to write
            assert written.stat().st_mtime_ns >= before

    elif case == "edited":
        code, err = _run(name, out, answer, capsys)
        assert code == 0, err
        edited = _edited(name, out)
        with open(edited, "ab") as handle:
            handle.write(b"\nmy own line\n")
        changed = edited.read_bytes()
        code, err = _run(name, out, answer, capsys)
        assert code == 2, err
        assert edited.read_bytes() == changed
        assert ("delete it" if name in REFUSE_OWN else "changed since") in err, err
        if WRITERS[name][3]:
            assert "--force" in err, err
        if WRITERS[name][3]:
            code, err = _run(name, out, answer, capsys, "--force")
            assert code == 0, err
            assert edited.read_bytes() != changed


def test_the_record_holds_the_digest_of_what_was_written(tmp_path):
    import hashlib

    (path,) = write_files({"a.txt": "one\n"}, tmp_path)
    record = json.loads((tmp_path / RECORD).read_text())
    assert record["files"]["a.txt"] == hashlib.sha256(b"one\n").hexdigest()
    write_files({"a.txt": "two\n"}, tmp_path)  # robodyn's, unchanged: replaced
    assert path.read_text() == "two\n"


def test_a_record_robodyn_did_not_write_is_refused(tmp_path):
    from robodyn.core.errors import InputError

    (tmp_path / RECORD).write_text("my own json\n")
    with pytest.raises(InputError, match="not robodyn's record"):
        write_files({"a.txt": "x"}, tmp_path)
    (tmp_path / RECORD).unlink()
    (tmp_path / RECORD).symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(InputError, match="not robodyn's record"):
        write_files({"a.txt": "x"}, tmp_path)
    assert not (tmp_path / "elsewhere.json").exists()
