"""The one strict CSV number-table reader (issue 15, sections 5 and 6): ``identify``'s
samples and ``simulate --tau``'s torques read by the same rules, every broken rule an
error naming the file, the line and the column; a byte-order mark read; nothing that
could block or run without end (a FIFO, a device) opened."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import robodyn as rd
from conftest import ROOT
from robodyn.cli import main
from robodyn.cli.simulate import read_torque_table
from robodyn.core.csv_table import parse_number, read_number_table

pytestmark = pytest.mark.usefixtures("numpy_backend")

COLUMNS = ["t"] + [f"{k}{j}" for k in ("q", "qd", "qdd", "tau") for j in (1, 2)]


# -- the number syntax ----------------------------------------------------------------------
@pytest.mark.parametrize("text", ["1", "-1.5", "+7", ".5", "2.", "3e-4", "1E+3", "  1e3  ",
                                  "\t-0.25\t", "0", "-0", "1e-320", "123456789012345678901"])
def test_plain_decimal_numbers_are_read_as_python_reads_them(text):
    # Python's float is the oracle for the forms both accept
    assert parse_number(text) == float(text)


@pytest.mark.parametrize(("text", "why"), [
    ("1_0", "is not a number"),             # float('1_0') == 10.0
    ("1__0", "is not a number"),
    ("nan", "is not a finite number"), ("NaN", "is not a finite number"),
    ("-nan", "is not a finite number"), ("inf", "is not a finite number"),
    ("-Infinity", "is not a finite number"),
    ("\u0661\u0662", "is not a number"),      # Arabic-Indic digits: float() reads 12
    ("\uff11\uff12", "is not a number"),      # fullwidth digits
    ("\u00b2", "is not a number"),
    ("0x10", "is not a number"), ("1+2j", "is not a number"), ("2j", "is not a number"),
    ("1.2.3", "is not a number"), ("1e", "is not a number"), ("e5", "is not a number"),
    ("--1", "is not a number"), ("1 2", "is not a number"), ("\u00a01", "is not a number"),
    ("1e999", "is too large"), ("-1e400", "is too large"),
    ("", "is empty"), ("   ", "is empty"),
])
def test_other_forms_float_accepts_are_refused(text, why):
    result = parse_number(text)
    assert isinstance(result, str) and result.startswith(why)


# -- identify's samples ---------------------------------------------------------------------
@pytest.fixture
def samples(tmp_path):
    """A CSV of planar-2r samples (exact torques); ``(path, lines, robot, arrays)``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        robot = rd.load("planar-2r")
    ex = rd.excitation.fourier(robot, samples=40, iterations=0, seed=3)
    tau = robot.inverse_dynamics(ex.q, ex.qd, ex.qdd)
    data = np.column_stack([ex.t, ex.q, ex.qd, ex.qdd, tau])
    lines = [",".join(COLUMNS)] + [",".join(repr(float(x)) for x in row) for row in data]
    path = tmp_path / "data.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path, lines, robot, (ex.q, ex.qd, ex.qdd, tau)


def _cell(lines, line, column, value):
    """``lines`` with the cell of file line ``line`` (1-based), column ``column`` replaced."""
    out = list(lines)
    cells = out[line - 1].split(",")
    cells[COLUMNS.index(column)] = value
    out[line - 1] = ",".join(cells)
    return out


def _cli_error(argv, capsys) -> str:
    status = main(argv)
    captured = capsys.readouterr()
    assert status == 2
    assert captured.err.startswith("robodyn: error: ") and captured.err.count("\n") == 1
    assert "Traceback" not in captured.err
    return captured.err


BAD_SAMPLES = [
    # (what, edit of the lines, message)
    ("underscore", lambda ls: _cell(ls, 7, "qd2", "1_0"),
     "data.csv, line 7, column qd2: '1_0' is not a number"),
    ("nan", lambda ls: _cell(ls, 3, "q1", "nan"),
     "data.csv, line 3, column q1: 'nan' is not a finite number"),
    ("inf", lambda ls: _cell(ls, 4, "tau2", "-inf"),
     "data.csv, line 4, column tau2: '-inf' is not a finite number"),
    ("unicode digits", lambda ls: _cell(ls, 5, "qdd1", "\u0661\u0662"),
     "data.csv, line 5, column qdd1: '\u0661\u0662' is not a number"),
    ("hexadecimal", lambda ls: _cell(ls, 6, "q2", "0x10"),
     "data.csv, line 6, column q2: '0x10' is not a number"),
    ("complex", lambda ls: _cell(ls, 8, "q1", "1+2j"),
     "data.csv, line 8, column q1: '1+2j' is not a number"),
    ("empty cell", lambda ls: _cell(ls, 9, "tau1", ""),
     "data.csv, line 9, column tau1: '' is empty"),
    ("overflow", lambda ls: _cell(ls, 10, "qd1", "1e999"),
     "data.csv, line 10, column qd1: '1e999' is too large"),
    ("duplicate column", lambda ls: [ls[0].replace("qd2", "qd1"), *ls[1:]],
     "data.csv, line 1 (header): the column 'qd1' appears twice (columns 4 and 5)"),
    ("duplicate ignored column", lambda ls: [ls[0].replace("t,", "note,", 1) + ",note",
                                             *(x + ",0" for x in ls[1:])],
     "the column 'note' appears twice (columns 1 and 10)"),
    ("extra value", lambda ls: [*ls[:5], ls[5] + ",3", *ls[6:]],
     "data.csv, line 6: 10 columns; expected 9 (as many as the header)"),
    ("missing value", lambda ls: [*ls[:5], ls[5].rsplit(",", 1)[0], *ls[6:]],
     "data.csv, line 6: 8 columns; expected 9 (as many as the header)"),
    ("trailing comma", lambda ls: [*ls[:2], ls[2] + ",", *ls[3:]],
     "data.csv, line 3: 10 columns; expected 9"),
    ("missing column", lambda ls: [ls[0].replace("tau2", "torque2"), *ls[1:]],
     "data.csv, line 1 (header) lacks the column(s) tau2"),
    ("another model's column", lambda ls: [ls[0] + ",q3", *(x + ",0" for x in ls[1:])],
     "data.csv, line 1 (header): column 'q3' does not fit"),
    ("semicolons", lambda ls: [ls[0].replace(",", ";"), *ls[1:]],
     "the values must be separated by commas"),
    ("open quote", lambda ls: [*ls[:3], '"' + ls[3], *ls[4:]], "data.csv, line 4: not a CSV line"),
    ("no rows", lambda ls: ls[:1], "data.csv: holds no rows of data after the header"),
    ("too few rows", lambda ls: ls[:3],
     "data.csv: 2 samples x 2 joints give 4 equations for 10 base parameters"),
    ("empty", lambda ls: [], "data.csv: the file is empty; it needs a header line"),
]


@pytest.mark.parametrize(("what", "edit", "message"), BAD_SAMPLES,
                         ids=[b[0] for b in BAD_SAMPLES])
def test_bad_samples_are_named_by_line_and_column(samples, what, edit, message, capsys):
    path, lines, robot, _ = samples
    text = "\n".join(edit(lines))
    path.write_text(text + "\n" if text else "", encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning or RuntimeWarning on the way
        with pytest.raises(rd.InputError) as info:
            rd.identify(robot, path)
    assert message in str(info.value)
    # the same error from the command line, as one line and exit status 2
    err = _cli_error(["identify", "planar-2r", str(path)], capsys)
    assert message in err


def test_a_byte_order_mark_comments_blank_rows_and_quotes_are_read(samples):
    path, lines, robot, arrays = samples
    plain = rd.identify(robot, *arrays)
    body = [lines[0], "# recorded on the bench", *lines[1:4], "", ",,,,,,,,",
            '"' + lines[4].replace(",", '","') + '"', *lines[5:]]
    path.write_bytes(b"\xef\xbb\xbf" + ("\r\n".join(body) + "\r\n").encode("utf-8"))
    q, qd, qdd, tau = rd.identification.read_csv(path, robot.dof)
    for read, given in zip((q, qd, qdd, tau), arrays, strict=True):
        np.testing.assert_array_equal(read, given)  # repr round-trips exactly
    np.testing.assert_allclose(rd.identify(robot, path).estimate, plain.estimate, rtol=1e-12)


def test_columns_are_picked_by_name_in_any_order(samples):
    path, lines, robot, arrays = samples
    order = [COLUMNS.index(c) for c in ("tau2", "q1", "t", "qdd2", "q2", "tau1", "qd2", "qdd1",
                                        "qd1")]
    shuffled = [",".join(line.split(",")[k] for k in order) for line in lines]
    path.write_text("\n".join(shuffled).upper() + "\n")  # letter case aside
    for read, given in zip(rd.identification.read_csv(path, robot.dof), arrays, strict=True):
        np.testing.assert_array_equal(read, given)


def test_not_a_file_and_size_limits_are_errors(tmp_path, samples):
    path, *_ = samples
    with pytest.raises(rd.InputError, match="not a regular file"):
        read_number_table(tmp_path, ["a"])
    with pytest.raises(rd.InputError, match=r"cannot be read \(No such file"):
        read_number_table(tmp_path / "none.csv", ["a"])
    size = path.stat().st_size
    with pytest.raises(rd.InputError, match=f"{size:,} bytes; at most 1,000 are read"):
        read_number_table(path, COLUMNS, max_bytes=1000)
    latin = tmp_path / "latin.csv"
    latin.write_bytes(b"t,tau1\n0,1\n# Drehmoment f\xfcr Gelenk 1\n")
    with pytest.raises(rd.InputError, match=r"latin.csv, line 3: not UTF-8 text \(byte 15"):
        read_number_table(latin, ["t", "tau1"])


def _bounded(code: str, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh Python with a time bound and 2 GB of address space."""
    limit = textwrap.dedent("""\
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    """)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "ROBODYN_BACKEND": "numpy"}
    return subprocess.run([sys.executable, "-c", limit + textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=timeout)


@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_or_a_device_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "data.csv"
    os.mkfifo(fifo)  # opening it would wait for a writer forever
    out = _bounded(f"""
        from pathlib import Path
        import robodyn as rd
        from robodyn.cli import main
        from robodyn.cli.simulate import read_torque_table
        robot = rd.load("planar-2r")
        for path in ({str(fifo)!r}, "/dev/zero", "/dev/urandom"):
            for read in (lambda: rd.identify(robot, path),
                         lambda: read_torque_table(Path(path), 2)):
                try:
                    read()
                except rd.InputError as exc:
                    print(exc)
        main(["simulate", "planar-2r", "--q0", "0,0", "--duration", "0.1", "--tau",
              {str(fifo)!r}])
    """)
    assert out.returncode == 0, out.stderr
    expected = []
    for path, kind in ((fifo, "a named pipe"), ("/dev/zero", "a device"),
                       ("/dev/urandom", "a device")):
        expected += [f"{path}: not a regular file ({kind}); a CSV file is expected",
                     f"--tau: {path}: not a regular file ({kind}); a CSV file is expected"]
    assert out.stdout.splitlines() == expected
    assert out.stderr.startswith("robodyn: error: --tau: ") and out.stderr.count("\n") == 1


# -- simulate --tau: the same reader ---------------------------------------------------------
def test_the_torque_table_reads_as_the_samples_do(tmp_path):
    table = tmp_path / "tau.csv"
    rows = "0,2.0,-1.0\n0.1,0.5,0.5\n0.3,0,1\n"
    want_t, want_tau = np.array([0, 0.1, 0.3]), np.array([[2.0, -1.0], [0.5, 0.5], [0.0, 1.0]])
    for text in (rows, "t,tau1,tau2\n" + rows, "Time , tau1, tau2\n" + rows,
                 "\ufefft,tau1,tau2\n" + rows):  # a BOM as spreadsheets write
        table.write_text(text, encoding="utf-8")
        times, tau = read_torque_table(table, 2)
        np.testing.assert_array_equal(times, want_t)
        np.testing.assert_array_equal(tau, want_tau)
    # by name: columns in another order are not misread
    table.write_text("tau2,t,tau1\n-1.0,0,2.0\n0.5,0.1,0.5\n1,0.3,0\n")
    times, tau = read_torque_table(table, 2)
    np.testing.assert_array_equal(times, want_t)
    np.testing.assert_array_equal(tau, want_tau)


@pytest.mark.parametrize(("content", "message"), [
    ("t,tau1,tau2\n0,1,1\n0.1,1_0,2\n", "tau.csv, line 3, column tau1: '1_0' is not a number"),
    ("0,1,1\n0.1,\u0661,2\n", "tau.csv, line 2, column tau1: '\u0661' is not a number"),
    ("0,1,1\n0.1,0x1,2\n", "tau.csv, line 2, column tau1: '0x1' is not a number"),
    ("0,1,1\n0.1,inf,2\n", "tau.csv, line 2, column tau1: 'inf' is not a finite number"),
    ("t,tau1,tau1\n0,1,1\n", "tau.csv, line 1 (header): the column 'tau1' appears twice"),
    ("t,time,tau1,tau2\n0,0,1,1\n", "the column 't' appears twice (columns 1 and 2)"),
    ("t,tau1,tau2,tau3\n0,1,1,1\n", "tau.csv, line 1 (header): column 'tau3' does not fit"),
    ("t,tau1,tau2\n0,1,1,4\n", "tau.csv, line 2: 4 columns; expected 3 (t,tau1..tau2)"),
    ("0,1,1\n0.2,1,1\n0.1,1,1\n", "tau.csv, line 3, column t: 0.1 after 0.2; the times"),
    ("0;1;1\n", "tau.csv, line 1 (header) lacks the column(s) t, tau1, tau2; the columns are "
                "t,tau1,tau2 (found '0;1;1'); the values must be separated by commas"),
    ("0,1,1\n0.1;1;1\n", "tau.csv, line 2: 1 column; expected 3 (t,tau1..tau2); the values "
                         "must be separated by commas"),
])
def test_a_bad_torque_table_names_line_and_column(tmp_path, capsys, content, message):
    table = tmp_path / "tau.csv"
    table.write_text(content, encoding="utf-8")
    err = _cli_error(["simulate", "planar-2r", "--q0", "0,0", "--duration", "0.1", "--tau",
                      str(table)], capsys)
    assert err.startswith("robodyn: error: --tau: ")
    assert message in err


@pytest.mark.parametrize("bad", ["1_0", "nan", "\u0661\u0662", "0x10", "1+2j", "", "1e999"])
def test_both_readers_give_the_same_verdict(tmp_path, samples, bad):
    """The samples and the torque table cannot drift: the same cell, the same words."""
    path, lines, robot, _ = samples
    path.write_text("\n".join(_cell(lines, 4, "tau1", bad)) + "\n", encoding="utf-8")
    with pytest.raises(rd.InputError) as from_samples:
        rd.identify(robot, path)
    table = tmp_path / "tau.csv"
    table.write_text(f"t,tau1,tau2\n0,1,1\n0.5,{bad},1\n", encoding="utf-8")
    with pytest.raises(rd.InputError) as from_table:
        read_torque_table(table, 2)
    verdict = re.compile(r"line \d+, column tau1: (.*)$")
    assert verdict.search(str(from_samples.value))[1] == verdict.search(str(from_table.value))[1]
