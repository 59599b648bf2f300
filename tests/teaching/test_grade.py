"""``robodyn grade``: many submissions against an exercise's solution (issue 17, §1).

The solution is the answer.json ``robodyn exercise`` writes (``eq.json()``); the
students write seed 003's planar 2R arm by hand in the lesson's notation (``theta``,
``theta1dot``, the lesson's ``h``). Each row must count the right entries and name the
kinds of mistakes planted, and no row may hold an expected entry. Hostile submissions run
in a subprocess under a time and memory bound and each is one error row.
"""

from __future__ import annotations

import csv
import io
import json
import os
from pathlib import Path

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError
from robodyn.teaching.grade import MAX_SUBMISSION_BYTES, read_submission

try:
    from conftest import ROOT, run_bounded
except ImportError:  # tests/ collected as a package
    from ..conftest import ROOT, run_bounded

M_SEED = ("[[I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(theta2)),\n"
          "     I2 + m2*(c2^2 + l1*c2*cos(theta2))],\n"
          "    [I2 + m2*(c2^2 + l1*c2*cos(theta2)), I2 + m2*c2^2]]")
C_SEED = "[[-h*theta2dot, -h*(theta1dot + theta2dot)], [h*theta1dot, 0]]"
G_SEED = ("[(m1*c1 + m2*l1)*g*cos(theta1) + m2*c2*g*cos(theta1 + theta2),"
          " m2*c2*g*cos(theta1 + theta2)]")
HEAD = "symbols: theta1=q1, theta2=q2\ndefine: h = m2*l1*c2*sin(theta2)\n"


@pytest.fixture(scope="module")
def answer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("solution")
    path = folder / "answer.json"
    path.write_text(rd.load("planar-2r").equations().json())
    return path


def submissions(folder: Path) -> dict[str, Path]:
    texts = {
        "alice.txt": f"# all right\n{HEAD}M = {M_SEED}\nC = {C_SEED}\ng = {G_SEED}\n",
        # the Coriolis 2 forgotten in M11, the sign of C21 flipped
        "bob.txt": (f"{HEAD}M = {M_SEED.replace('2*l1*c2*cos(theta2)),', 'l1*c2*cos(theta2)),')}"
                    f"\nC = {C_SEED.replace('[h*theta1dot, 0]', '[-h*theta1dot, 0]')}\n"),
        # JSON, the gravity term of link 2 missing in g2
        "carol.json": json.dumps({"g": G_SEED.replace(", m2*c2*g*cos(theta1 + theta2)]",
                                                      ", 0*g]"),
                                  "symbols": {"theta1": "q1", "theta2": "q2"}}),
        "dave.txt": "M = [[1, 2], [3, 4]\n",          # brackets never close
        "erin.txt": f"M = {M_SEED}\n",                # theta2 not mapped
        # lecture 15's V (= C qd), right
        "fay.txt": (f"{HEAD}V = [-h*theta2dot*(2*theta1dot + theta2dot), h*theta1dot^2]\n"),
    }
    out = {}
    for name, text in texts.items():
        (folder / name).write_text(text)
        out[name] = folder / name
    return out


def rows_of(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


def test_grade_counts_entries_and_names_the_kinds(answer, tmp_path, capsys):
    files = submissions(tmp_path)
    assert main(["grade", str(answer), *map(str, files.values())]) == 0
    out = capsys.readouterr().out
    rows = rows_of(out)
    table = {(Path(r["file"]).name, r["quantity"]): r for r in rows}
    assert [k for k in table if k[0] == "alice.txt"] == [("alice.txt", q) for q in "MCg"]
    assert all((r["right"], r["total"], r["mistakes"]) == (str(r["total"]), r["total"], "")
               for k, r in table.items() if k[0] == "alice.txt")
    assert (table["alice.txt", "M"]["right"], table["alice.txt", "M"]["total"]) == ("4", "4")
    bob_m, bob_c = table["bob.txt", "M"], table["bob.txt", "C"]
    assert (bob_m["right"], bob_m["total"], bob_m["mistakes"]) == ("3", "4", "M11 factor")
    assert (bob_c["right"], bob_c["mistakes"]) == ("3", "C21 sign")
    carol = table["carol.json", "g"]
    assert (carol["right"], carol["total"], carol["mistakes"]) == ("1", "2", "g2 missing term")
    dave = table["dave.txt", ""]
    assert "line 1: the brackets of M do not close" in dave["error"] and dave["right"] == ""
    assert table["erin.txt", "symbols"]["mistakes"] == "theta2 unknown"
    assert table["erin.txt", "M"]["right"] == "1"   # M22 has no theta2
    assert (table["fay.txt", "Cqd"]["right"], table["fay.txt", "Cqd"]["mistakes"]) == ("2", "")
    # no expected entry anywhere in the grades
    eq = rd.load("planar-2r").equations()
    for x in [*eq.M, *eq.C, *eq.g]:
        if x != 0:
            assert str(x) not in out and str(sp.expand(x)) not in out


def test_grade_writes_its_csv_and_never_overwrites_a_user_file(answer, tmp_path, capsys):
    files = submissions(tmp_path)
    out = tmp_path / "grades.csv"
    argv = ["grade", str(answer), str(files["alice.txt"]), "--out", str(out)]
    assert main(argv) == 0
    text = out.read_text()
    assert text.startswith("# robodyn-export") and "alice.txt,M,4,4,," in text
    assert main(argv) == 0                       # its own file: replaced
    mine = tmp_path / "mine.csv"
    mine.write_text("my notes\n")
    capsys.readouterr()
    assert main(argv[:-1] + [str(mine)]) == 2
    assert "robodyn: error: --out" in capsys.readouterr().err
    assert mine.read_text() == "my notes\n"


def test_a_file_name_cannot_become_a_spreadsheet_formula(answer, tmp_path, capsys,
                                                          monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("=HYPERLINK(1).txt").write_text("g = [0, 0]\n")
    assert main(["grade", str(answer), "=HYPERLINK(1).txt"]) == 0
    (row,) = rows_of(capsys.readouterr().out)
    assert row["file"].startswith("'") and "=HYPERLINK" in row["file"]


@pytest.mark.slow
def test_the_exercise_layout_and_a_wrong_model(tmp_path, capsys):
    from robodyn.teaching.exercise import make_exercise

    make_exercise(2, "RR", 3).write(tmp_path / "ex")
    answer = tmp_path / "ex" / "solution" / "answer.json"
    data = json.loads(answer.read_text())
    sub = tmp_path / "s.txt"
    sub.write_text(f"M = {json.dumps(data['M']).replace(chr(34), '')}\n")
    # the model is the exercise's task/arm.yaml, found beside the solution
    assert main(["grade", str(answer), str(sub)]) == 0
    assert ",M,4,4,," in capsys.readouterr().out
    # another model's answer is refused, in one line
    assert main(["grade", str(answer), str(sub), "--model", "planar-2r"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not the solution of planar-2r" in err[0]
    # the answer carries its task's arm.yaml (model_file): it grades on its own
    lone = tmp_path / "answer.json"
    lone.write_text(answer.read_text())
    assert main(["grade", str(lone), str(sub)]) == 0
    assert ",M,4,4,," in capsys.readouterr().out
    # an answer without it, whose model cannot be found, asks for --model
    del data["model_file"]
    lone.write_text(json.dumps(data))
    with pytest.raises(SystemExit):
        main(["grade", str(lone), str(sub)])
    assert "give the model with --model" in capsys.readouterr().err


@pytest.mark.parametrize("text, words", [
    ("M = [[1, 2]]\nM = [[1]]\n", "line 2: M is given twice"),
    ("K = 1\nc_112 = 0\nK = 2\n", "line 3: K is given twice"),
    ("just words\n", "not KEY = VALUE"),
    ("symbols: theta\n", "is not NAME=NAME"),
    ("define: h\n", "define needs NAME = EXPR"),
    ('{"M": 1}', "M must be text or a list of rows"),
    ("[1, 2]", "not KEY = VALUE"),
])
def test_bad_submissions_are_named_errors(text, words):
    with pytest.raises(InputError) as info:
        read_submission(text, "f.txt")
    assert words in str(info.value) and str(info.value).startswith("f.txt")


@pytest.mark.slow
def test_hostile_submissions_are_error_rows_not_hangs(answer, tmp_path):
    hostile = {
        "huge.txt": "M = [[" + "m1 + " * (MAX_SUBMISSION_BYTES // 5) + "m1]]\n",
        "nested.txt": "g = [" + "(" * 100_000 + "m1" + ")" * 100_000 + ", 0]\n",
        "terms.txt": "g = [(" + " + ".join(f"m1*l1^{k}" for k in range(40)) + ")^60, 0]\n",
        "million.txt": "g = [" + "+".join(["m1"] * 10**6) + ", 0]\n",
        "power.txt": "g = [(m1 + l1)^(10^10), 0]\n",
        "binary.txt": b"\xff\xfe\x00M = [[",
        "lines.txt": "# x\n" * 5000,
        "parens.txt": "g = [" + "(" * 40_000 + "m1" + ")" * 40_000 + ", 0]\n",
        "signs.txt": "g = [" + "-" * 90_000 + "m1, 0]\n",
        "entries.txt": "M = [" + ",".join(["[" + ",".join(["m1"] * 150) + "]"] * 150) + "]\n",
    }
    paths = []
    for name, text in hostile.items():
        path = tmp_path / name
        path.write_bytes(text if isinstance(text, bytes) else text.encode())
        paths.append(str(path))
    zero = tmp_path / "zero.txt"
    os.symlink("/dev/zero", zero)   # a device behind a link: no link is followed
    paths.append(str(zero))
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = run_bounded(["-m", "robodyn", "grade", str(answer), *paths], timeout=90,
                       memory_mb=3000, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = {Path(r["file"]).name: r for r in rows_of(done.stdout)}
    assert set(rows) == {*hostile, "zero.txt"}
    for name, row in rows.items():
        assert row["error"] and row["quantity"] == "", (name, row)
        assert len(row["error"]) <= 301
    assert "larger than" in rows["huge.txt"]["error"]
    assert "larger than" in rows["million.txt"]["error"]
    assert "not UTF-8" in rows["binary.txt"]["error"]
    assert "a symbolic link; give the file itself" in rows["zero.txt"]["error"]
    assert "more than 2,000 lines" in rows["lines.txt"]["error"]
    assert "terms" in rows["terms.txt"]["error"]
    assert "exponents must be within" in rows["power.txt"]["error"]
    assert "too many nested parentheses" in rows["parens.txt"]["error"]
    assert "nested too deeply" in rows["signs.txt"]["error"]
    assert "more than 400 entries" in rows["entries.txt"]["error"]



PARAMS = ["I1", "I2", "c1", "c2", "g", "l1", "l2", "m1", "m2"]


@pytest.mark.parametrize("data, words", [
    ({"method": "lagrange", "dof": 2, "parameters": 3, "M": [], "C": [], "g": [], "tau": []},
     "parameters must be a list of names"),
    ({"method": "lagrange", "dof": True, "parameters": [], "M": [], "C": [], "g": [],
      "tau": []}, "is not a joint count"),
    ({"method": "lagrange", "dof": 2, "parameters": PARAMS, "M": 1, "C": [], "g": [],
      "tau": []}, "M must be a list of entries"),
    ({"method": "euler", "dof": 2}, "no 'parameters'"),
    ({"method": "euler", "dof": 2, "parameters": PARAMS, "M": [], "C": [], "g": [], "tau": []},
     "is not lagrange or newton-euler"),
    ({"method": "lagrange", "dof": 2, "parameters": PARAMS, "M": [["1", "0"], ["0", "1"]],
      "C": [[0, 0], [0, 0]], "g": ["0", "0"], "tau": ["0", "0"]},
     "differ from planar-2r's derivation"),
    ("[[[[", "not JSON"),
])
def test_a_bad_answer_json_is_one_line_error(tmp_path, capsys, data, words):
    path = tmp_path / "answer.json"
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    sub = tmp_path / "s.txt"
    sub.write_text("g = [0, 0]\n")
    assert main(["grade", str(path), str(sub), "--model", "planar-2r"]) == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert line.startswith("robodyn: error: answer ") and words in line, line


# -- issue 30 section 3: what a grader must not read ----------------------------------
def test_a_linked_submission_is_refused_and_its_target_never_quoted(answer, tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("root:SECRET-HASH:19000:0:99999:7:::\n")
    link = tmp_path / "bob.txt"
    link.symlink_to(secret)
    assert main(["grade", str(answer), "--", str(link)]) == 0
    out = capsys.readouterr().out
    assert "symbolic link" in out and "SECRET" not in out


def test_an_error_row_does_not_quote_a_line_that_is_not_an_answer(answer, tmp_path, capsys):
    sub = tmp_path / "eve.txt"
    for text in ("SECRET-HASH:19000\n", "secretuser:x:0:0\n"):
        sub.write_text(text)
        assert main(["grade", str(answer), str(sub)]) == 0
        out = capsys.readouterr().out
        assert "line 1" in out and "SECRET" not in out and "secretuser" not in out


def test_a_fifo_submission_is_refused_at_once(answer, tmp_path, capsys):
    if not hasattr(os, "mkfifo"):
        pytest.skip("needs named pipes")
    fifo = tmp_path / "pipe.txt"
    os.mkfifo(fifo)
    # the check runs before any open; a regression would block here, so bound it
    rows = run_bounded_rows(answer, fifo)
    assert "not a regular file" in rows


def run_bounded_rows(answer, path) -> str:
    import subprocess
    import sys

    code = ("import sys; from robodyn.cli import main; "
            "sys.exit(main(['grade', sys.argv[1], '--', sys.argv[2]]))")
    run = subprocess.run([sys.executable, "-c", code, str(answer), str(path)],
                         capture_output=True, text=True, timeout=120,
                         env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    return run.stdout + run.stderr


def test_a_submission_named_like_an_option_is_a_file_and_refused(answer, tmp_path, capsys,
                                                                  monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "--out=hijacked.txt").write_text("M = [[1]]\n")
    (tmp_path / "alice.txt").write_text("M = [[1]]\n")
    assert main(["grade", str(answer), "--", "--out=hijacked.txt", "alice.txt"]) == 0
    out = capsys.readouterr().out
    assert not (tmp_path / "hijacked.txt").exists()
    assert "starts with '-'" in out and "alice.txt" in out


def test_an_option_given_twice_is_refused(answer, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "alice.txt").write_text("M = [[1]]\n")
    with pytest.raises(SystemExit):
        main(["grade", str(answer), "alice.txt", "--out=hijacked.txt", "--out", "grades.csv"])
    assert "given twice" in capsys.readouterr().err
    assert not (tmp_path / "hijacked.txt").exists()


def test_a_json_submission_with_a_key_twice_is_refused():
    with pytest.raises(InputError, match="given twice"):
        read_submission('{"g": "[0, 0]", "g": "[1, 1]"}')
