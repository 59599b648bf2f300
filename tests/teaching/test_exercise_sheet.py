"""An exercise a teacher can hand out (issue 17, section 4): a figure, every symbol defined,
the data and the solution in the same (DH) frames, the questions answered in the order and
the way they are asked, the course's options, and no answer on the task sheet.

Independent oracles: the robot's numeric kinematics (``link_poses`` of the chain the model
file builds, and ``forward_kinematics``) for the solution's ``A_i``, ``T_i`` and centres of
mass; the equations' own ``M``, ``C``, ``g``, ``tau`` for what must never be printed on
the task sheet; the PNG signature for the figure.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main
from robodyn.core.errors import InputError
from robodyn.symbolic.printing.latex import tex_of
from robodyn.teaching.exercise import make_exercise
from robodyn.teaching.questions import QUANTITIES, questions_of

CASES = {
    "rp": ["--dof", "2", "--joints", "RP", "--seed", "7"],
    "planar-masses": ["--dof", "2", "--planar", "--point-masses", "--seed", "3",
                      "--route", "jacobian", "--questions", "M,g,regressor"],
    "rr-ne": ["--dof", "2", "--joints", "RR", "--seed", "5", "--route", "newton-euler"],
    "lagrange": ["--dof", "2", "--joints", "PR", "--seed", "3", "--route", "lagrange",
                 "--point-masses", "--questions", "C,tau"],
}


@pytest.fixture(scope="module")
def sheets(tmp_path_factory):
    base = tmp_path_factory.mktemp("sheets")
    for name, argv in CASES.items():
        assert main(["exercise", *argv, "--out", str(base / name)]) == 0
    return base


def _options(name) -> dict:
    """The ``--option value`` pairs of a case (flags left out)."""
    argv = CASES[name]
    return {a: b for a, b in zip(argv, argv[1:], strict=False)
            if a.startswith("--") and not b.startswith("--")}


def _load(sheets, name):
    folder = sheets / name
    robot = rd.load(folder / "task" / "arm.yaml")
    route = _options(name).get("--route", "energy")
    eq = robot.equations(method="newton-euler" if route == "newton-euler" else "lagrange")
    return folder, robot, eq


@pytest.mark.slow  # writing the four sheets takes 10-30 s
@pytest.mark.parametrize("name", CASES)
def test_no_file_of_the_task_folder_holds_an_answer(sheets, name):
    folder, robot, eq = _load(sheets, name)
    files = {p.name for p in (folder / "task").iterdir()} - {".robodyn-files.json"}
    assert files == {"arm.yaml", "arm.png", "task.md", "task.tex"}
    # the writer's record of what it wrote there: names and digests of these files only
    record = json.loads((folder / "task" / ".robodyn-files.json").read_text())
    assert set(record["files"]) == files
    # the text files; the picture's only text is Matplotlib's "Software" tag
    texts = {f: (folder / "task" / f).read_text() for f in files - {"arm.png"}}
    png = (folder / "task" / "arm.png").read_bytes()
    assert set(re.findall(rb"tEXt([A-Za-z]+)\x00", png)) <= {b"Software"}
    # a lone symbol (M_22 = m2 of an RP arm) is data the sheet must define, not an answer
    entries = [e for m in (eq.M, eq.C, eq.g, eq.tau) for e in m if e != 0 and not e.is_Atom]
    assert entries
    for e in entries:
        forms = {str(e), sp.latex(e), tex_of(eq, e), str(e).replace("**", "^")}
        for file, text in texts.items():
            for form in forms:
                assert form not in text, f"{file} holds the answer {form}"


@pytest.mark.slow  # writing the four sheets takes 10-30 s
@pytest.mark.parametrize("name", CASES)
def test_every_symbol_is_defined_and_there_is_a_figure(sheets, name):
    folder, robot, eq = _load(sheets, name)
    task = (folder / "task" / "task.md").read_text()
    symbols = task.split("## Symbols", 1)[1].split("## Given", 1)[0]
    for s in (*eq.params, *eq.q):
        assert f"- ${tex_of(eq, s)}$ (`{s}`): " in symbols, f"{s} is not defined on the sheet"
    assert "![The arm at a generic pose" in task and "generic pose (" in task
    png = (folder / "task" / "arm.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 20_000
    tex = (folder / "task" / "task.tex").read_text()
    assert "\\includegraphics" in tex and "{arm.png}" in tex and "\\usepackage{graphicx}" in tex


def _numbers(expr, robot, q):
    table = {sp.Symbol(k): v for k, v in robot.values.items()}
    table.update({sp.Symbol(f"q{i + 1}"): float(x) for i, x in enumerate(q)})
    return np.array(sp.Matrix(expr).xreplace(table).evalf(), dtype=float)


def _solution_values(folder) -> dict[str, sp.Basic]:
    """``lhs -> value`` of the plain-text solution's lines ``  lhs = value``."""
    out = {}
    for line in (folder / "solution" / "solution.txt").read_text().splitlines():
        m = re.match(r"^  (.+?) = (.*)$", line)
        if m:
            value = sp.sympify(m.group(2), locals={s: sp.Symbol(s) for s in (
                "g", "N", "I", "E", "S", "Q", "C", "O", "beta", "gamma", "lambda")})
            out[m.group(1)] = sp.Matrix(value) if isinstance(value, list) else value
    return out


@pytest.mark.slow  # writing the four sheets takes 10-30 s
@pytest.mark.parametrize("name", CASES)
def test_the_solutions_kinematics_is_in_the_dh_frames_of_the_task(sheets, name):
    """p_ci = T_i c_i with the task's c_i (DH frame i) is where the robot's own chain puts
    each centre of mass; T_n is the end effector."""
    from robodyn.dynamics.kinematics import link_poses
    from robodyn.model.chain import link_bodies

    folder, robot, eq = _load(sheets, name)
    values = _solution_values(folder)
    n = robot.dof
    q = np.random.default_rng(1).uniform(-1.5, 1.5, n)
    chain = robot.numeric_chain
    poses = link_poses(chain, list(q), _NumpyOps)
    for k, ((rot, origin), link) in enumerate(zip(poses, chain.links, strict=True), start=1):
        want = np.array(origin) + np.array(rot) @ np.array(link_bodies(link)[0].com)
        np.testing.assert_allclose(_numbers(values[f"p_c{k}"], robot, q).ravel(), want,
                                   atol=1e-12)
    T = values[f"T_{n}"] if n > 1 else values["A_1"]
    np.testing.assert_allclose(_numbers(T, robot, q), robot.forward_kinematics(q), atol=1e-12)
    for k in range(1, n + 1):
        assert f"A_{k}" in values


class _NumpyOps:
    sin, cos, sqrt, sign = np.sin, np.cos, np.sqrt, np.sign


@pytest.mark.slow  # writing the four sheets takes 10-30 s
@pytest.mark.parametrize("name", CASES)
def test_the_solution_answers_each_question_in_order(sheets, name):
    folder, robot, eq = _load(sheets, name)
    task = (folder / "task" / "task.md").read_text()
    asked = re.findall(r"^\d+\. (.*)$", task.split("## Questions", 1)[1], re.M)
    md = (folder / "solution" / "solution.md").read_text()
    answered = re.findall(r"^## Question \d+\n\n\*(.*)\*$", md, re.M)
    assert answered == asked
    solution = (folder / "solution" / "solution.txt").read_text()
    assert len(re.findall(r"^Question \d+\. (.*)$", solution, re.M)) == len(asked)
    argv = _options(name)
    quantities = questions_of(argv.get("--questions"))
    assert len(asked) == 1 + len(quantities)
    assert asked[0].startswith("Write the homogeneous transforms $A_i$")
    blocks = re.split(r"^Question \d+\. ", solution, flags=re.M)[1:]
    values = _solution_values(folder)
    for quantity, block in zip(quantities, blocks[1:], strict=True):
        if quantity == "M":
            assert "\n  M = " in block
            assert sp.simplify(values["M"] - eq.M) == sp.zeros(robot.dof, robot.dof)
            route = argv.get("--route", "energy")
            # the route's own steps: Siciliano's names (f_1 in the DH frames) for standard DH,
            # Craig's (F_1) where the arm's point masses keep the core's link frames
            needles = {"energy": ["\n  K = "], "lagrange": ["\n  L = "],
                       "jacobian": ["\n  J_P^(l1) = "],
                       "newton-euler": ["\n  f_1 = ", "\n  F_1 = "]}[route]
            assert any(needle in block for needle in needles), needles
        elif quantity == "C":
            assert "\n  c_111 = " in block and "\n  N + N^T = " in block
            assert sp.simplify(values["N + N^T"]) == sp.zeros(robot.dof, robot.dof)
        elif quantity == "g":
            assert sp.simplify(values["g"] - eq.g) == sp.zeros(robot.dof, 1)
        elif quantity == "tau":
            assert sp.simplify(values["tau"] - eq.tau) == sp.zeros(robot.dof, 1)
        else:  # the regressor in the masses and inertias asked
            Y, pi = values["Y"], values["pi"]
            assert sp.simplify(Y * pi - eq.tau) == sp.zeros(robot.dof, 1)


@pytest.mark.slow
def test_answer_json_is_the_equations_and_the_model_file(sheets):
    folder, robot, eq = _load(sheets, "rp")
    answer = json.loads((folder / "solution" / "answer.json").read_text())
    expected = json.loads(eq.json())
    extra = ("model_file", "route", "asked", "mode", "pi")  # pi: the regressor Y for grade
    assert {k: v for k, v in answer.items() if k not in extra} == \
        {k: v for k, v in expected.items() if k != "route"}
    assert answer["model_file"] == (folder / "task" / "arm.yaml").read_text()
    assert answer["asked"] == ["M", "C", "g", "tau"]  # what grade marks (the sheet's four)


def test_options_shape_the_arm():
    planar = make_exercise(3, None, 4, planar=True, point_masses=True)
    assert planar.joints == "RRR" and "planar: true" in planar.model_yaml
    assert "alpha: pi/2" not in planar.model_yaml and "alpha: -pi/2" not in planar.model_yaml
    assert "point_masses: [{mass: mE, at: [0, 0, 0]}]" in planar.model_yaml
    assert "point_masses: [{mass: mM2, at: [0, 0, 0]}]" in planar.model_yaml
    plain = make_exercise(3, None, 4)
    assert "point_masses" not in plain.model_yaml and "planar" not in plain.model_yaml
    assert questions_of("tau, m") == ("M", "tau") and questions_of(None) == QUANTITIES[:4]


@pytest.mark.parametrize("argv, needle", [
    (["--planar", "--joints", "RP"], "planar exercise arm turns about parallel axes"),
    (["--questions", "M,X"], "--questions: 'X' is not a quantity"),
    (["--questions", ","], "--questions: give one or more"),
    (["--route", "hamilton"], "invalid choice"),
])
def test_bad_options_are_usage_errors(argv, needle, tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["exercise", *argv, "--out", str(tmp_path)])
    assert exc.value.code == 2
    assert needle in capsys.readouterr().err


def test_python_errors_name_the_argument(tmp_path):
    with pytest.raises(InputError, match="planar: expected True or False"):
        make_exercise(2, None, 1, planar="yes")
    with pytest.raises(InputError, match="route: 'x' is not a route"):
        make_exercise(2, None, 1).write(tmp_path / "x", route="x")


@pytest.mark.slow  # Matplotlib's import and one figure: a few seconds
def test_the_figure_of_a_modified_dh_model(tmp_path, numpy_backend):
    from robodyn.plot.exercise_figure import dh_frames, exercise_figure

    robot = rd.load("planar-2r-payload")
    q = [0.6, 0.8]
    path = exercise_figure(robot, q, tmp_path / "payload.png")
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    frames = dh_frames(robot, q)
    # modified DH: frame 2 on joint 2, at the tip of link 1
    v = robot.values
    np.testing.assert_allclose(frames[2][:3, 3], [v["l1"] * np.cos(0.6), v["l1"] * np.sin(0.6),
                                                  0], atol=1e-12)
    with pytest.raises(InputError, match="q: expected 2 finite"):
        exercise_figure(robot, [0.1], tmp_path / "x.png")


def test_without_a_figure_the_sheet_says_what_to_sketch(tmp_path):
    ex = make_exercise(1, "R", 2)
    written = ex.write(tmp_path / "ex", questions="g")
    assert not (tmp_path / "ex" / "task" / "arm.png").exists()
    assert all(p.name != "arm.png" for p in written)
    task = (tmp_path / "ex" / "task" / "task.md").read_text()
    assert "![" not in task and "Sketch the arm at a generic pose ($\\theta_{1}$ = 35 deg)" in task
    assert "includegraphics" not in (tmp_path / "ex" / "task" / "task.tex").read_text()
