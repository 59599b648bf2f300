"""``robodyn derive``, the printed derivation and the output formats.

The golden files under ``tests/golden/`` pin the layout of ``robodyn derive rp-arm
--steps`` (both methods). After an intended change of the layout, regenerate them with
``ROBODYN_UPDATE_GOLDEN=1 pytest tests/test_symbolic_output.py`` and read the diff.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from conftest import SYMBOLIC_MODELS, TESTS
from robodyn.cli import main
from robodyn.symbolic import Step, equations
from robodyn.symbolic.printing.json import exact_str

GOLDEN = TESTS / "golden"


def run(capsys, *argv) -> tuple[int, str]:
    code = main(["derive", *argv])
    out = capsys.readouterr()
    return code, out.out


@pytest.mark.parametrize("model, method", [("rp-arm", "lagrange"), ("rp-arm", "newton-euler"),
                                           ("planar-2r-point-mass", "newton-euler")])
def test_steps_golden(capsys, model, method):
    code, out = run(capsys, model, "--steps", "--method", method, "--format", "text")
    assert code == 0
    golden = GOLDEN / f"derive_{model}_steps_{method}.txt"
    if os.environ.get("ROBODYN_UPDATE_GOLDEN"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(out)
    assert out == golden.read_text(), f"layout changed; see the module docstring ({golden})"


@pytest.mark.parametrize("method", ["lagrange", "newton-euler"])
def test_given_section_comes_first_with_the_lecture_data(method):
    """The Given section precedes every step: the DH table, A_i and T_i = A_1 A_2 (rp-arm:
    link 2's origin at d2 along the link, (q2 cos q1, q2 sin q1, 0)), the COM vectors,
    inertia tensors and gravity; Newton-Euler adds w_0, wd_0, vd_0 = -g0, f_3, n_3."""
    eq = equations(rd.load("rp-arm"), method=method)
    sections = [s.section for s in eq.steps]
    k = sections.count("Given")
    assert k > 10 and sections[:k] == ["Given"] * k
    given = {s.lhs: s.expression for s in eq.steps if s.section == "Given"}
    (q1, q2), _ = eq.q, eq.qd
    g, m2 = sp.symbols("g m2")
    assert given["DH"][:, 2:] == sp.Matrix([[0, q1 + sp.pi / 2], [q2, 0]])
    T2 = given["T_2"]
    assert sp.simplify(T2[:3, 3] - sp.Matrix([q2 * sp.cos(q1), q2 * sp.sin(q1), 0])) \
        == sp.zeros(3, 1)
    assert T2[3, :] == sp.Matrix([[0, 0, 0, 1]])
    # T_2 = A_1 A_2
    assert sp.simplify(given["A_1"] * given["A_2"] - T2) == sp.zeros(4, 4)
    assert given["m_2"] == m2 and given["c_2"] == sp.zeros(3, 1)
    assert given["g0"] == sp.Matrix([0, -g, 0])
    # the file's frames (standard DH, Siciliano): COM of link 1 at l1 along z1, the tensor
    # as listed, [Iyy1, Izz1, Ixx1]
    Iyy1, Izz1, Ixx1, l1 = sp.symbols("Iyy1 Izz1 Ixx1 l1")
    assert given["c_1"] == sp.Matrix([0, 0, l1])
    assert given["I_1"] == sp.diag(Iyy1, Izz1, Ixx1)
    if method == "newton-euler":  # Siciliano's names: pdd_0 = -g0, f_3 = mu_3 = 0
        assert given["pdd_0"] == sp.Matrix([0, g, 0])
        assert given["w_0 = wd_0"] == sp.zeros(3, 1) and given["f_3 = mu_3"] == sp.zeros(3, 1)
    else:
        assert "pdd_0" not in given


def test_lagrange_steps_are_those_written_by_hand():
    """K_i, U_i, L, each dL/dqd_i, its time derivative, dL/dq_i, tau_i, the Christoffel
    symbols, in this order (seed 000, example 1; seed 002)."""
    eq = equations(rd.load("rp-arm"))
    lhs = [s.lhs for s in eq.steps]
    for name in ("K_1", "U_1", "K_2", "U_2", "K", "U", "L", "dL/dqd1", "d/dt dL/dqd1",
                 "dL/dq1", "tau1", "dL/dqd2", "d/dt dL/dqd2", "dL/dq2", "f2", "M", "c_112",
                 "c_211", "C", "g(q)", "tau"):  # f2: joint 2 is prismatic, g(q): g is m's
        assert name in lhs, name
    assert lhs.index("K_1") < lhs.index("L") < lhs.index("dL/dqd1") < lhs.index("d/dt dL/dqd1")
    assert lhs.index("dL/dq1") < lhs.index("tau1") < lhs.index("M") < lhs.index("c_112")
    steps = {s.lhs: s.expression for s in eq.steps}
    m1, m2, l1, Izz1, Izz2, g = sp.symbols("m1 m2 l1 Izz1 Izz2 g")
    (q1, q2), (qd1, qd2) = eq.q, eq.qd
    # the lecture's K1, K2 and dK/dth1' (seed 000, example 1)
    assert sp.expand(steps["K_1"] - (m1 * l1**2 + Izz1) * qd1**2 / 2) == 0
    assert sp.expand(steps["K_2"] - (m2 * (q2**2 * qd1**2 + qd2**2) + Izz2 * qd1**2) / 2) == 0
    assert sp.expand(steps["dL/dqd1"] - (m1 * l1**2 + Izz1 + Izz2 + m2 * q2**2) * qd1) == 0
    assert sp.expand(steps["dL/dq2"] - (m2 * q2 * qd1**2 - m2 * g * sp.sin(q1))) == 0
    title, expression = eq.steps[0]  # a step reads as (title, expression)
    assert isinstance(eq.steps[0], Step) and title and expression is not None


def test_newton_euler_steps_of_standard_dh_follow_siciliano():
    """rp-arm (standard DH): Siciliano §7.5 in the DH frames, forward omega, domega, ddp,
    ddp_C, backward f, mu, tau; omega_1^1 = R_1^T (omega_0 + th1' z_0) = [0, th1', 0]
    (z_0 is DH frame 1's y axis: alpha_1 = pi/2), r_12^2 = [0, 0, d2]."""
    eq = equations(rd.load("rp-arm"), method="newton-euler")
    lhs = [s.lhs for s in eq.steps]
    forward = ["w_1", "wd_1", "pdd_1", "pddc_1", "w_2", "wd_2", "pdd_2", "pddc_2"]
    backward = ["f_2", "mu_2", "tau2", "f_1", "mu_1", "tau1"]
    positions = [lhs.index(x) for x in ["pdd_0", "R_1", "r_01", "R_2", "r_12", *forward,
                                        *backward]]
    assert positions == sorted(positions)
    assert not {"vd_1", "vdc_1", "F_1", "N_1", "n_1"} & set(lhs)  # Craig's names are gone
    sections = {s.section for s in eq.steps}
    assert any("Forward recursion" in s for s in sections)
    assert any("Backward recursion" in s for s in sections)
    steps = {s.lhs: s for s in eq.steps}
    qd1, q2 = eq.qd[0], eq.q[1]
    assert steps["pdd_0"].expression == sp.Matrix([0, sp.Symbol("g"), 0])  # -g0, upward
    assert steps["w_1"].expression == sp.Matrix([0, qd1, 0])
    assert "R_1^T (w_0 + qd1 z_0)" in steps["w_1"].formula
    assert steps["r_12"].expression == sp.Matrix([0, 0, q2])
    assert steps["tau2"].formula == "f_2^T R_2^T z_0"  # prismatic: the force along z_1


def test_newton_euler_of_modified_dh_stays_craigs():
    """planar-2r-point-mass (modified DH, lecture 15's example 2): Craig's recursion,
    outward w, wd, vd, vdc, F, N, inward f, n, tau, in the order of the lecture."""
    eq = equations(rd.load("planar-2r-point-mass"), method="newton-euler")
    lhs = [s.lhs for s in eq.steps]
    outward = ["w_1", "wd_1", "vd_1", "vdc_1", "F_1", "N_1", "w_2", "wd_2", "vd_2", "vdc_2",
               "F_2", "N_2"]
    inward = ["f_2", "n_2", "tau2", "f_1", "n_1", "tau1"]
    positions = [lhs.index(x) for x in ["vd_0", *outward, *inward]]
    assert positions == sorted(positions)
    steps = {s.lhs: s for s in eq.steps}
    assert "R_1^T w_0 + qd1 z_1" in steps["w_1"].formula
    assert steps["w_1"].expression == sp.Matrix([0, 0, eq.qd[0]])


def parse_doubles(text: str):
    """``parse_expr(text)`` with each number made the double it stands for (JSON writes
    plain decimals such as ``0.30000000000000004``, which SymPy reads at 17 digits)."""
    return sp.parse_expr(text).replace(lambda x: x.is_Float,
                                       lambda x: sp.Float(float(x), precision=53))


@pytest.mark.slow
def test_json_reads_back_with_parse_expr(capsys):
    for model in ("rp-arm", "puma560", "planar-2r-dh"):
        code, out = run(capsys, model, "--format", "json")
        assert code == 0 and "Float(" not in out
        data = json.loads(out)
        eq = equations(rd.load(model))
        for key in ("q", "qd", "qdd"):
            assert tuple(sp.parse_expr(x) for x in data[key]) == getattr(eq, key)
        assert sp.Matrix([[parse_doubles(x) for x in row] for row in data["M"]]) == eq.M
        assert sp.Matrix([[parse_doubles(x) for x in row] for row in data["C"]]) == eq.C
        for key in ("g", "friction", "tau"):
            assert sp.Matrix([parse_doubles(x) for x in data[key]]) == getattr(eq, key), key


def test_json_with_values_writes_plain_numbers(capsys):
    """``derive --values --format json``: the values as JSON floats, the expressions with
    plain decimals (no ``Float('1.567...', precision=53)``) that give robodyn's numbers."""
    robot = rd.load("planar-2r")
    code, out = run(capsys, "planar-2r", "--values", "--format", "json")
    assert code == 0 and "Float(" not in out and "precision" not in out
    data = json.loads(out)
    assert data["parameters"] == []
    assert data["values"] == robot.values
    assert all(type(v) is float for v in data["values"].values())
    q = np.array([0.3, -1.1])
    table = {"q1": q[0], "q2": q[1]}
    m = np.array([[float(sp.parse_expr(x).subs(table)) for x in row] for row in data["M"]])
    np.testing.assert_allclose(m, robot.mass_matrix(q), rtol=1e-14, atol=1e-14)
    g = np.array([float(sp.parse_expr(x).subs(table)) for x in data["g"]])
    np.testing.assert_allclose(g, robot.gravity_torques(q), rtol=1e-14, atol=1e-14)
    code, out = run(capsys, "planar-2r", "--values", "g=9.5,m2=2", "--format", "json")
    data = json.loads(out)
    assert data["values"] == {"g": 9.5, "m2": 2.0}
    assert all(type(v) is float for v in data["values"].values())


def test_exact_str_keeps_every_bit_of_a_float():
    x = sp.Symbol("x")
    for value in (0.1 + 0.2, 1 / 3, 0.4318, 2.9232e-5, 0.16196019275):
        e = sp.Float(value) * x + sp.Float(value) ** 2
        assert sp.parse_expr(exact_str(e)) == e


def test_verify_flag(capsys):
    code, out = run(capsys, "planar-2r", "--verify")
    assert code == 0
    assert "Lagrange-Euler and Newton-Euler agree" in out
    assert "tau_LE - tau_NE = [0, 0]" in out
    assert "[ok] dM/dt - 2C is skew-symmetric" in out
    code, out = run(capsys, "rp-arm", "--verify", "--format", "json")
    data = json.loads(out)
    assert code == 0 and data["verify"]["agree"] and data["verify"]["tau_LE - tau_NE"] == ["0", "0"]


def test_values_flag(capsys):
    code, out = run(capsys, "planar-2r", "--values")
    assert code == 0
    assert "parameters: (none: all numbers)" in out
    code, out = run(capsys, "planar-2r", "--values", "g=9.81,m2=2", "--format", "json")
    data = json.loads(out)
    assert "g" not in data["parameters"] and "m2" not in data["parameters"]
    assert "m1" in data["parameters"]
    assert sp.parse_expr(data["g"][1]) == sp.parse_expr("19.62*c2*cos(q1 + q2)")


def test_errors_are_reported(capsys):
    code = main(["derive", "planar-2r", "--values", "nope=1"])
    assert code == 2
    assert "not a symbolic parameter" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["derive", "planar-2r", "--method", "hamilton"])
    with pytest.raises(rd.InputError, match="not a method"):
        equations(rd.load("planar-2r"), method="hamilton")


def test_markdown_and_jupyter_latex():
    eq = equations(rd.load("planar-2r"))
    md = eq.markdown(steps=True)
    assert md.startswith("# Equations of motion of planar-2r by Lagrange-Euler")
    assert "## Derivation" in md and "$$" in md
    assert eq._repr_latex_().startswith("$\\displaystyle")
    assert eq.M._repr_latex_()  # SymPy matrices render in Jupyter as they are
    text = eq.latex()
    assert r"\dot{q}_{1}" in text and r"\ddot{q}_{2}" in text


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["rp-arm", "--steps"], ["planar-3r", "--steps"],
                                  ["puma560", "--method", "newton-euler"]])
def test_latex_compiles(tmp_path, capsys, argv):
    code, out = run(capsys, *argv, "--format", "latex")
    assert code == 0
    assert out.startswith("\\documentclass") and out.rstrip().endswith("\\end{document}")
    assert out.count("\\begin{align*}") == out.count("\\end{align*}")
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed")
    tex = tmp_path / "eom.tex"
    tex.write_text(out)
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", tex.name],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:]
    assert (tmp_path / "eom.pdf").is_file()


def test_display_names_from_the_model_file_in_latex():
    """rp-arm's ``display: {q1: theta_1, q2: d_2}``: LaTeX writes the lecture's names
    and their rates; the text form keeps q1, q2 (it reads back) and lists the notation."""
    eq = equations(rd.load("rp-arm"))
    tex = eq.latex()
    assert r"\dot{\theta}_{1}" in tex and r"m_{2}\,d_{2}\,\dot{d}_{2}" in tex
    assert "q_{1}" not in tex and "q_{2}" not in tex
    text = eq.text()
    assert "notation: q1 = theta_1, q2 = d_2" in text and "m2*q2*qd2" in text


def test_equations_are_complete_when_made():
    """What the steps and the printing read comes with the equations and stays: the DH
    table and its convention (the Given section), the frames they are written in, the
    model's display names and their LaTeX; none can be set afterwards."""
    robot = rd.load("rp-arm")
    eq = equations(robot)
    assert eq.dh_rows == robot.dh_rows and len(eq.dh_rows) == 2
    assert eq.convention == robot.convention == "standard"
    assert eq.frames_note.startswith("standard DH (Siciliano): link frame i is DH frame i")
    assert dict(eq.display) == {"q1": "theta_1", "q2": "d_2"}
    assert eq.tex_names[eq.q[0]] == r"\theta_{1}" and eq.tex_names[eq.qd[1]] == r"\dot{d}_{2}"
    for name in ("dh_rows", "convention", "frames_note", "display", "user_terms"):
        with pytest.raises(AttributeError):
            setattr(eq, name, None)
    with pytest.raises(TypeError):
        eq.display["q1"] = "x"
    # a chain made in Python: no table, no frames, no names
    bare = equations(robot.chain)
    assert (bare.dh_rows, bare.convention, bare.frames_note, dict(bare.display)) == \
        ((), None, "", {})
    assert "DH" in {s.lhs for s in eq.steps} and "DH" not in {s.lhs for s in bare.steps}


def test_com_vectors_are_bold_and_do_not_clash_with_parameters():
    eq = equations(rd.load("planar-2r"), method="newton-euler")
    tex = eq.latex(steps=True)
    assert r"\mathbf{c}_{1}" in tex            # the COM vector of link 1
    assert r"c_{1}^{2}" in tex                 # the parameter c1 in M11


def test_display_key_is_checked():
    from robodyn.model.yaml_file import parse_model

    base = {"links": [{"joint": "revolute", "a": "l1", "mass": "m1", "com": [0, 0, 0]}]}
    model = parse_model({**base, "display": {"q1": "theta_1", "l1": r"\ell_{1}"}})
    assert dict(model.provenance.display) == {"q1": "theta_1", "l1": r"\ell_{1}"}
    with pytest.raises(rd.ModelError, match="display: 'q2' is not a joint variable"):
        parse_model({**base, "display": {"q2": "d_2"}})
    with pytest.raises(rd.ModelError, match="not a display name"):
        parse_model({**base, "display": {"q1": "$\\input{x}$"}})
    with pytest.raises(rd.ModelError, match="expected a mapping"):
        parse_model({**base, "display": ["q1"]})


def test_numbers_print_as_the_model_wrote_them():
    from robodyn.model.yaml_file import parse_model
    from robodyn.robot import from_source

    model = parse_model({"links": [{"joint": "revolute", "a": 0.3, "mass": 2.5,
                                    "com": [-0.1, 0, 0]}], "gravity": [0, -9.81, 0]})
    text = equations(from_source(model)).text(steps=True)
    # the COM at 0.3 - 0.1 from the joint, the rounding of the subtraction not shown
    assert "c_1 = [-0.1, 0, 0]^T" in text  # in DH frame 1, as the file writes it
    assert "p_c1 = o_1 + R_1 c_1\n           = [0.2*cos(q1), 0.2*sin(q1), 0]^T" in text
    assert "0.1999" not in text
    assert "g0 = [0, -9.81, 0]" in text and "m_1 = 2.5" in text
    assert "tau1 = 0.1*qdd1 + 4.905*cos(q1)" in text


def test_pretty_output_is_math_wrapped_between_terms(capsys):
    from robodyn.symbolic.printing.pretty import to_pretty

    eq = equations(rd.load("planar-2r"))
    out = to_pretty(eq, width=70, shorthand=False)  # the full forms; shorthand: below
    body = out.split("= tau")[1]
    assert "q̇₁" in body and "sin(q₂)" in body and "qd1" not in body
    assert max(len(line) for line in body.splitlines()) <= 75   # tau1 broken between terms
    # inertial terms first, gravity last (issue 17: ordered by physical origin)
    assert "  tau1 = I₁⋅q̈₁" in body and "+ c₂⋅g⋅m₂⋅cos(q₁ + q₂)\n" in body
    assert "\n         + " in body
    # in a pipe (not a terminal) derive prints the plain form that reads back
    code, text = run(capsys, "planar-2r")
    assert code == 0 and "qd1" in text and "q̇" not in text


BUILTIN = TESTS.parent / "src" / "robodyn" / "model" / "builtin"


def _file_inertials(name):
    """Each link's mass, COM and inertia tensor as the built-in's model file writes them."""
    import yaml

    from robodyn.model.expressions import parse_expression

    data = yaml.safe_load((BUILTIN / f"{name}.yaml").read_text())
    out = []
    for link in data["links"]:
        xx, yy, zz, xy, xz, yz = (parse_expression(x, "inertia")
                                  for x in link.get("inertia", [0] * 6))
        out.append((parse_expression(link["mass"], "mass"),
                    sp.Matrix([parse_expression(x, "com") for x in link.get("com", [0] * 3)]),
                    sp.Matrix([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])))
    return data.get("dh", "standard"), data["links"], out


def _small(diff) -> bool:
    """Whether every entry of ``diff`` is zero to 1e-12 at a generic point."""
    def value(x):
        point = {v: 0.37 * (j + 1) for j, v in enumerate(sorted(x.free_symbols, key=str))}
        return abs(complex(sp.N(x.subs(point))))
    return all(value(sp.expand(x)) < 1e-12 for x in diff)


@pytest.mark.parametrize("name", [pytest.param(m, marks=pytest.mark.slow) if m == "puma560"
                                  else m for m in SYMBOLIC_MODELS])
def test_given_data_of_every_builtin_equal_its_model_file(name):
    """The Given section lists each link's mass, COM vector and inertia tensor in the
    frames of the model file (standard DH: DH frame i, at the distal end of link i), and
    A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i) of row i (modified: Rx(alpha_{i-1})
    Tx(a_{i-1}) Rz(theta_i) Tz(d_i)), built here from the file's row."""
    from robodyn.model.expressions import parse_expression
    from robodyn.symbolic.derivation import given_steps
    from robodyn.symbolic.steps import printed_step

    convention, rows, inertials = _file_inertials(name)
    eq = equations(rd.load(name))
    given = {s.lhs: printed_step(eq, s).expression
             for s in given_steps(eq.derivation, eq.dh_rows, eq.convention)}
    for k, ((mass, com, inertia), row) in enumerate(zip(inertials, rows, strict=True),
                                                    start=1):
        assert sp.simplify(given[f"m_{k}"] - mass) == 0, (name, k)
        # exact but for the rounding of Float numbers turned by X_k and back (puma560)
        assert _small(given[f"c_{k}"] - com), (name, k, com)
        assert _small(sp.Matrix(given[f"I_{k}"]) - inertia), (name, k)
        a, alpha, d, theta = (parse_expression(row.get(x, 0), x)
                              for x in ("a", "alpha", "d", "theta"))
        q = eq.q[k - 1]
        if row["joint"] == "revolute":
            theta = theta + q
        else:
            d = d + q

        def rz(t):
            return sp.Matrix([[sp.cos(t), -sp.sin(t), 0, 0], [sp.sin(t), sp.cos(t), 0, 0],
                              [0, 0, 1, 0], [0, 0, 0, 1]])

        def rx(t):
            return sp.Matrix([[1, 0, 0, 0], [0, sp.cos(t), -sp.sin(t), 0],
                              [0, sp.sin(t), sp.cos(t), 0], [0, 0, 0, 1]])

        def tr(x=0, z=0):
            return sp.Matrix([[1, 0, 0, x], [0, 1, 0, 0], [0, 0, 1, z], [0, 0, 0, 1]])

        if convention == "standard":
            A = rz(theta) * tr(z=d) * tr(x=a) * rx(alpha)
        else:
            A = rx(alpha) * tr(x=a) * rz(theta) * tr(z=d)
        assert _small(sp.Matrix(given[f"A_{k}"]) - A), (name, k)


@pytest.mark.parametrize("name", [m for m in SYMBOLIC_MODELS
                                  if _file_inertials(m)[0] == "standard"])
def test_siciliano_recursion_gives_the_cores_torques(name):
    """The steps of a standard-DH model follow Siciliano §7.5 in the DH frames; the
    torques of that recursion are the core's, identically in the ring."""
    from robodyn.symbolic.derivation import poly
    from robodyn.symbolic.dh_frames import dh_links, siciliano_recursion

    eq = equations(rd.load(name), method="newton-euler")
    d, ring = eq.derivation, eq.derivation.ring
    _, qd, qdd = ring.joint_arguments()
    links = dh_links(ring, d.chain, eq.dh_rows)
    tau = siciliano_recursion(links, ring.chain(d.chain).gravity, qd, qdd,
                              lambda *_: None, parents=d.chain.parent_indices)
    assert [ring.reduce(poly(t, ring) - c) for t, c in zip(tau, d.tau, strict=True)] \
        == [ring.zero] * eq.dof


@pytest.mark.parametrize("model", SYMBOLIC_MODELS)
def test_every_builtin_derivation_compiles_without_overfull_lines(tmp_path, capsys, model):
    """Issue 12: each built-in model's derivation (the PUMA without steps) compiles with
    pdflatex, and no line runs more than 20 pt into the margin."""
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed (Debian: apt-get install texlive-latex-base "
                    "texlive-latex-recommended)")
    steps = () if model == "puma560" else ("--steps",)
    if rd.load(model).chain.closures is not None:  # the open tree's derivation: the closed
        steps += ("--tree",)  # form's LaTeX has no line breaking yet (docs/closed-chains.md)
    code, out = run(capsys, model, *steps, "--format", "latex")
    assert code == 0
    (tmp_path / "eom.tex").write_text(out)
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error",
                             "eom.tex"], cwd=tmp_path, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stdout[-3000:]
    log = (tmp_path / "eom.log").read_text(errors="replace")
    widths = [float(w) for w in re.findall(r"Overfull \\hbox \(([0-9.]+)pt too wide", log)]
    assert all(w <= 20 for w in widths), f"{model}: overfull lines of {max(widths)} pt"
