"""The checker diagnoses without giving the answer away (issue 17, §1).

Every kind of mistake (sign, factor, missing term, extra term, index, wrong) is planted in
a right answer to every built-in seed model and must be diagnosed with that kind. The
right answers are the closed forms written by hand from the seeds
(``tests/seed_closed_forms.py``), renamed to the seed's notation (``theta`` for the
pendulum of seed 002, ``theta1``, ``d2`` for lecture 15's RP arm, ``q1``, ``q1dot`` for
seed 001, ...). A mistake is planted in one term of one entry: the term is chosen alone
with its product of parameters and rates (so that the plant is that one mistake, not two).

No default output of ``robodyn check`` may contain an expected entry or the difference
(checked line by line against their string forms, in the model's and in the student's
names); ``--reveal`` shows both.
"""

from __future__ import annotations

import re

import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main

try:
    from seed_closed_forms import CLOSED_FORMS
except ImportError:  # tests/ collected as a package
    from ..seed_closed_forms import CLOSED_FORMS

#: The seeds' joint variables, base to tip (rates ``<name>dot``, ``<name>ddot``).
NOTATION = {
    "pendulum": ["theta"],                    # seed 002: theta, no index on one joint
    "rp-arm": ["theta1", "d2"],               # seed 000, lecture 15, example 1
    "planar-2r": ["theta1", "theta2"],        # seed 003
    "planar-2r-point-mass": ["theta1", "theta2"],  # seed 000, example 2
    "planar-2r-dh": ["theta1", "theta2"],     # seed 004 (vartheta)
    "planar-2r-endpoint": ["q1", "q2"],       # seed 001: q1, q1' (the model's own names)
    "planar-3r": ["theta1", "theta2", "theta3"],   # seed 003
    "cartesian-2p": ["d1", "d2"],             # seed 004, the Cartesian arm
}
MODELS = sorted(NOTATION)
KINDS = ("sign", "factor", "missing term", "extra term", "index", "wrong")
QUANTITIES = ("M", "g", "Cqd", "tau")
_OPERATOR = re.compile(r"[*+/]|\w-|-\w")


def student_names(model: str) -> dict[sp.Symbol, sp.Symbol]:
    """The closed form's joint symbols -> the seed's."""
    out = {}
    for k, base in enumerate(NOTATION[model], start=1):
        out[sp.Symbol(f"q{k}")] = sp.Symbol(base)
        out[sp.Symbol(f"qd{k}")] = sp.Symbol(f"{base}dot")
        out[sp.Symbol(f"qdd{k}")] = sp.Symbol(f"{base}ddot")
    return out


def symbols_option(model: str) -> dict[str, str]:
    return {base: f"q{k}" for k, base in enumerate(NOTATION[model], start=1)
            if base != f"q{k}"}


def closed_form(model: str, quantity: str) -> sp.Matrix:
    cf = CLOSED_FORMS[model]()
    return sp.Matrix({"M": cf.M, "g": cf.g, "Cqd": cf.Cqd, "tau": cf.tau}[quantity])


def _key(term: sp.Expr) -> sp.Expr:
    """A term's product of parameters, rates and prismatic variables (no trig, no number)."""
    return sp.Mul(*[f for f in sp.Mul.make_args(term)
                    if not f.is_number and not f.has(sp.sin, sp.cos)])


def _unique_terms(entry: sp.Expr) -> list[sp.Expr]:
    terms = sp.Add.make_args(sp.expand(entry))
    keys = [_key(t) for t in terms]
    return [t for t, k in zip(terms, keys, strict=True) if keys.count(k) == 1 and k != 1]


def _stem_swap(term: sp.Expr, symbols: set) -> dict | None:
    """A swap of one symbol of ``term`` with its sibling of another index (``c2``/``c1``)."""
    for s in sorted(term.free_symbols, key=str):
        m = re.match(r"^([A-Za-z]+?)(\d)$", str(s))
        if not m:
            continue
        for other in sorted(symbols, key=str):
            n = re.match(r"^([A-Za-z]+?)(\d)$", str(other))
            if n and n.group(1) == m.group(1) and other != s:
                return {s: other, other: s}
    return None


def plant(model: str, kind: str):
    """``(quantity, index, wrong matrix)`` with ``kind`` planted in one entry; None when
    the model has no entry where that mistake is one mistake."""
    cf = CLOSED_FORMS[model]()
    symbols = {s for m in (cf.M, cf.g, cf.Cqd) for s in m.free_symbols}
    first = KINDS.index(kind) % len(QUANTITIES)  # the kinds spread over the quantities
    for quantity in QUANTITIES[first:] + QUANTITIES[:first]:
        right = closed_form(model, quantity)
        for index in range(len(right)):
            e = sp.expand(right[index])
            if e == 0:
                continue
            terms = sp.Add.make_args(e)
            unique = _unique_terms(e)
            new = None
            if kind in ("sign", "factor", "missing term") and len(terms) >= 2 and unique:
                t = unique[0]
                new = {"sign": e - 2 * t, "factor": e + t, "missing term": e - t}[kind]
            elif kind == "extra term":
                params = sorted(cf.params, key=str)
                extra = params[0] * params[-1] * 3
                if _key(extra) not in {_key(t) for t in terms}:
                    new = e + extra
            elif kind == "index":
                for t in unique:
                    swap = _stem_swap(t, symbols)
                    if swap is None:
                        continue
                    moved = t.xreplace(swap)
                    others = {_key(u) for u in terms if u != t}
                    if moved != t and _key(moved) not in others:
                        new = e - t + moved
                        break
            elif kind == "wrong":
                trig = [t for t in unique if t.has(sp.cos) or t.has(sp.sin)]
                if trig:
                    t = trig[0]
                    moved = t.replace(sp.cos, lambda x: sp.Symbol("@")).replace(
                        sp.sin, sp.cos).subs(sp.Symbol("@"), 0)
                    moved = moved if moved != 0 else t.replace(sp.cos, sp.sin)
                    new = e - t + moved
            if new is not None and sp.expand(new - e) != 0:
                wrong = right.copy()
                wrong[index] = new
                at = divmod(index, right.shape[1]) if quantity == "M" else (index,)
                return quantity, at, wrong
    return None


def text_of(matrix: sp.Matrix, model: str) -> str:
    """The matrix as a student writes it: seed names, ``^`` for powers, rows as lists."""
    names = student_names(model)
    rows = matrix.tolist()
    return str([[str(x.xreplace(names)).replace("**", "^") for x in row] for row in rows]
               ).replace("'", "")


CASES = [(m, k) for m in MODELS for k in KINDS]
#: Plants that do not exist: the pendulum has no indexed names, the Cartesian arm no angle.
NOT_PLANTABLE = {("pendulum", "index"), ("cartesian-2p", "wrong")}


@pytest.fixture(scope="module")
def equations():
    return {m: rd.load(m).equations() for m in MODELS}


def test_every_kind_is_plantable_where_the_model_allows_it():
    for model, kind in CASES:
        assert (plant(model, kind) is None) == ((model, kind) in NOT_PLANTABLE), (model, kind)


@pytest.mark.parametrize("model, kind", [c for c in CASES if c not in NOT_PLANTABLE])
def test_a_planted_mistake_is_diagnosed_with_its_kind(equations, model, kind):
    eq = equations[model]
    quantity, index, wrong = plant(model, kind)
    text = text_of(wrong, model)
    # the right answer in the same notation passes
    right = text_of(closed_form(model, quantity), model)
    assert eq.compare(**{quantity: right}, symbols=symbols_option(model)).ok
    result = eq.compare(**{quantity: text}, symbols=symbols_option(model))
    assert not result.ok
    found = {(m.quantity, m.index) for m in result.mistakes}
    assert found == {(quantity, index)}, str(result)
    assert [m.kind for m in result.mistakes] == [kind], str(result)
    m = result.mistakes[0]
    assert m.entry == label(quantity, index) and m.hint
    assert m.expected is None and m.difference is None   # not revealed
    # the hint is in the student's names
    robodyn_names = {str(s) for s in student_names(model) if str(s) not in
                     {str(v) for v in student_names(model).values()}}
    assert not set(re.findall(r"\w+", m.hint)) & robodyn_names, m.hint
    # the teacher's view: the derived entry and given - expected
    shown = eq.compare(**{quantity: text}, symbols=symbols_option(model), reveal=True)
    (r,) = shown.mistakes
    want = eq.tau if quantity == "tau" else getattr(eq, quantity)
    assert sp.expand(sp.expand_trig(r.expected - at(want, index))) == 0
    hand = at(wrong, index) - at(closed_form(model, quantity), index)
    assert sp.expand(sp.expand_trig(r.difference - hand)) == 0


def at(matrix: sp.Matrix, index: tuple) -> sp.Expr:
    return matrix[index] if len(index) == 2 else matrix[index[0]]


def label(quantity: str, index: tuple) -> str:
    return quantity + "".join(str(i + 1) for i in index)


def _leaks(lines: list[str], exprs: list[sp.Expr], model: str) -> list[str]:
    """The lines that hold the string form of one of ``exprs`` (in robodyn's names or the
    student's, ``**`` or ``^``), counting only forms with an operator in them."""
    names = student_names(model)
    forms = set()
    for x in exprs:
        if x == 0:
            continue
        for y in (x, x.xreplace(names), sp.expand(x)):
            for s in (str(y), str(y).replace("**", "^")):
                if _OPERATOR.search(s):
                    forms.add(s)
    return [line for line in lines for f in forms if f in line]


@pytest.mark.parametrize("model", [pytest.param(m, marks=pytest.mark.slow) if m == "planar-3r"
                                   else m for m in MODELS])
def test_check_never_prints_the_expected_entries_and_reveal_does(equations, model, capsys):
    eq = equations[model]
    symbols = [] if not symbols_option(model) else \
        ["--symbols", ",".join(f"{k}={v}" for k, v in symbols_option(model).items())]
    cli_done = False
    for kind in KINDS:
        planted = plant(model, kind)
        if planted is None:
            continue
        quantity, index, wrong = planted
        text = text_of(wrong, model)
        revealed = eq.compare(**{quantity: text}, symbols=symbols_option(model), reveal=True)
        want = eq.tau if quantity == "tau" else getattr(eq, quantity)
        secrets = list(want) + [m.difference for m in revealed.mistakes]
        # what robodyn check prints is str() of the comparison: the command once per model
        out = str(eq.compare(**{quantity: text}, symbols=symbols_option(model)))
        if not cli_done:
            assert main(["check", model, f"--{quantity}", text, *symbols]) == 1
            assert capsys.readouterr().out == out + "\n"
        assert f"{label(quantity, index)}: {kind}: " in out
        assert not _leaks(out.splitlines(), secrets, model), (kind, out)
        assert "expected" not in out
        if not cli_done:
            assert main(["check", model, f"--{quantity}", text, *symbols, "--reveal"]) == 1
            shown = capsys.readouterr().out
            assert shown == str(revealed) + "\n"
            cli_done = True
        else:
            shown = str(revealed)
        assert f"expected {at(want, index)}" in shown
        assert "given - expected = " in shown


def test_an_all_zero_answer_names_no_term_of_the_solution(equations, capsys):
    # the reproduction: check planar-2r --M "[[0,0],[0,0]]" printed the whole M
    eq = equations["planar-2r"]
    assert main(["check", "planar-2r", "--M", "[[0,0],[0,0]]"]) == 1
    out = capsys.readouterr().out
    assert "M11: wrong: the entry is not right (it is not zero)" in out
    assert not _leaks(out.splitlines(), list(eq.M), "planar-2r")
    for name in ("I1", "I2", "m1", "m2", "c1", "c2", "l1"):
        assert not re.search(rf"\b{name}\b", out), out


def test_hints_name_the_physical_origin_in_the_student_s_names(equations):
    eq = equations["planar-2r"]
    sym = symbols_option("planar-2r")
    cf = CLOSED_FORMS["planar-2r"]()
    q1, q2 = sp.symbols("q1 q2")
    m1, m2, l1, c1, c2, g = sp.symbols("m1 m2 l1 c1 c2 g")
    # the parallel-axis term m2 l1^2 of link 2 left out of M11
    M = cf.M.copy()
    M[0, 0] = sp.expand(M[0, 0] - m2 * l1**2)
    (m,) = eq.compare(M=text_of(M, "planar-2r"), symbols=sym).mistakes
    assert (m.kind, m.hint) == ("missing term",
                                "the parallel-axis term of link 2 (m2 l1^2) is missing")
    # the centrifugal term of tau1 left out: named with theta2dot, never qd2
    qd2 = sp.Symbol("qd2")
    tau = cf.tau.copy()
    term = next(t for t in sp.Add.make_args(sp.expand(tau[0])) if t.has(qd2**2))
    tau[0] = sp.expand(tau[0] - term)
    (m,) = eq.compare(tau=text_of(tau, "planar-2r"), symbols=sym).mistakes
    assert m.kind == "missing term" and m.hint.startswith("a centrifugal term (")
    assert "theta2dot^2" in m.hint and "qd2" not in m.hint
    # a gravity term of link 1 with the wrong sign; link 2's own inertia extra in M22
    G = cf.g.copy()
    G[0] = sp.expand(G[0] - 2 * m1 * c1 * g * sp.cos(q1))
    (m,) = eq.compare(g=text_of(G, "planar-2r"), symbols=sym).mistakes
    assert (m.kind, m.hint) == ("sign", "the term in m1 c1 g (a gravity term of link 1) has "
                                        "the wrong sign")
    # the Coriolis 2 forgotten in M11 (2 l1 c2 cos q2 written l1 c2 cos q2)
    M = cf.M.copy()
    M[0, 0] = sp.expand(M[0, 0] - m2 * l1 * c2 * sp.cos(q2))
    (m,) = eq.compare(M=text_of(M, "planar-2r"), symbols=sym).mistakes
    assert m.kind == "factor" and "(it is 1/2 of the right one)" in m.hint
    # c1 and c12 swapped in g1: cos(theta1) <-> cos(theta1 + theta2)
    G = cf.g.copy()
    G[0] = G[0].xreplace({sp.cos(q1): sp.cos(q1 + q2), sp.cos(q1 + q2): sp.cos(q1)})
    (m,) = eq.compare(g=text_of(G, "planar-2r"), symbols=sym).mistakes
    assert m.kind == "index"
    assert m.hint == "cos(theta1) and cos(theta1 + theta2) look swapped in this entry"


def test_one_joint_names_need_no_index(capsys):
    tau = "(Izz + m*l^2)*thetaddot + F*thetadot + m*g*l*sin(theta)"
    assert main(["check", "pendulum", "--tau", tau, "--symbols", "theta=q1"]) == 0
    assert "pendulum: tau correct" in capsys.readouterr().out
    # the model's own q, qdot, qddot too
    assert main(["check", "pendulum", "--tau", "(Izz + m*l^2)*qddot + F*qdot + m*g*l*sin(q)"]) \
        == 0
    capsys.readouterr()
    # without the mapping: a hint to map theta
    assert main(["check", "pendulum", "--tau", tau]) == 1
    assert "--symbols theta=q1" in capsys.readouterr().out
    # a mistake is said with thetadot
    assert main(["check", "pendulum", "--tau", "Izz*thetaddot + F*thetadot + m*g*l*sin(theta)",
                 "--symbols", "theta=q1"]) == 1
    out = capsys.readouterr().out
    assert "tau1: missing term: an inertial term (in thetaddot): the parallel-axis term of " \
           "link 1 (m l^2 thetaddot) is missing" in out


def test_lecture_15_v_vector_and_named_terms(capsys):
    # lecture 15: V = [2 m2 d2 th1' d2', -m2 d2 th1'^2]
    v = "[2*m2*d2*theta1dot*d2dot, -m2*d2*theta1dot^2]"
    sym = ["--symbols", "theta1=q1,d2=q2"]
    assert main(["check", "rp-arm", "--Cqd", v, *sym]) == 0
    capsys.readouterr()
    assert main(["check", "rp-arm", "--Cqd", v.replace("[2*", "["), *sym]) == 1
    out = capsys.readouterr().out
    assert "Cqd1: factor: the whole entry is off by a constant factor (it is 1/2 of the right " \
           "one)" in out
    assert main(["check", "rp-arm", "--Cqd", v.replace("[2*", "[-2*"), *sym]) == 1
    assert "Cqd1: sign: the whole entry has the wrong sign" in capsys.readouterr().out
    assert main(["check", "rp-arm", "--Cqd", v.replace("]", " + m2*d2*d2dot^2]"), *sym]) == 1
    assert "Cqd2: extra term: the term in m2 d2 d2dot^2 (a centrifugal term) should not be " \
           "there" in capsys.readouterr().out
    # seed 003's h, named by the student
    c = "[[-h*theta2dot, -h*(theta1dot + theta2dot)], [h*theta1dot, 0]]"
    argv = ["check", "planar-2r", "--C", c, "--define", "h=m2*l1*c2*sin(theta2)",
            "--symbols", "theta1=q1,theta2=q2"]
    assert main(argv) == 0
    assert "terms substituted: h = " in capsys.readouterr().out
    assert main(argv[:-2]) == 1     # without theta2=q2 the definition's theta2 is unknown
    capsys.readouterr()
    assert main(["check", "planar-2r", "--C", c, "--define", "h=h2", "--define", "h2=h"]) == 2
    assert "cycle" in capsys.readouterr().err
    assert main(["check", "planar-2r", "--C", c, "--define", "m1=2"]) == 2
    assert "is a symbol of the model" in capsys.readouterr().err
    assert main(["check", "planar-2r", "--C", c, "--define", "h=__import__('os')"]) == 2
    assert "not an allowed function" in capsys.readouterr().err


def test_a_valid_non_christoffel_c_is_right_with_a_note(capsys):
    h = "m2*l1*c2*sin(q2)"
    other = f"[[-2*{h}*qd2, -{h}*qd2], [{h}*qd1, 0]]"   # C' qd = C qd, not Christoffel's
    assert main(["check", "planar-2r", "--C", other]) == 0
    out = capsys.readouterr().out
    assert "C correct" in out
    assert "not the Christoffel C" in out and "Mdot - 2C is not skew-symmetric for it" in out
    wrong = other.replace(", 0]]", f", {h}*qd1]]")
    assert main(["check", "planar-2r", "--C", wrong]) == 1
    assert "not a valid factorisation" in capsys.readouterr().out


@pytest.mark.slow
def test_named_terms_that_explode_are_fast_errors():
    """``--define`` chains that double at each step (as a tree) or nest without end stop
    at a bound, in a subprocess under a time and memory limit."""
    import os

    try:
        from conftest import ROOT, run_bounded
    except ImportError:  # tests/ collected as a package
        from ..conftest import ROOT, run_bounded
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    cases = (("h{p}*h{p}", "exponents must be within"),
             ("h{p}*(h{p} + 1)", "is larger than 20,000 terms"),
             ("sin(h{p}) + cos(h{p})", "is larger than 20,000 terms"))
    runs = []
    for form, _ in cases:
        argv = ["check", "planar-2r", "--M", "[[h49, 0], [0, 1]]",
                "--define", "h0=m1 + m2 + l1 + c1 + c2"]
        runs.append(argv + [w for k in range(1, 50)
                            for w in ("--define", f"h{k}=" + form.format(p=k - 1))])
    script = ("import sys\nfrom robodyn.cli import main\n"
              f"for argv in {runs!r}:\n    print('status', main(argv), file=sys.stderr)\n")
    done = run_bounded(["-c", script], timeout=60, memory_mb=1500, env=env)
    assert done.returncode == 0, done.stderr[-1000:]
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 2 * len(cases), lines
    for (_, words), line, status in zip(cases, lines[::2], lines[1::2], strict=True):
        assert status == "status 2"
        assert line.startswith("robodyn: error: define") and words in line, line


def test_coulomb_friction_is_written_with_sign(tmp_path):
    """A student writes F_c sign(qd) (seed 002's static friction, with qd, not q)."""
    model = tmp_path / "arm.yaml"
    model.write_text("name: fric\ndh: standard\ngravity: [0, -g, 0]\nplanar: true\nlinks:\n"
                     "  - joint: revolute\n    a: l1\n    mass: m1\n    com: [-l1/2, 0, 0]\n"
                     "    inertia: [0, 0, I1, 0, 0, 0]\n"
                     "    friction: {viscous: Fv1, coulomb: Fc1}\n"
                     "values: {m1: 2.0, l1: 0.5, I1: 0.01, Fv1: 0.1, Fc1: 0.2, g: 9.81}\n")
    eq = rd.load(str(model)).equations()
    tau = "(I1 + m1*l1^2/4)*thetaddot + Fv1*thetadot + Fc1*sign(thetadot) + m1*g*l1/2*cos(theta)"
    assert eq.compare(tau=tau, symbols={"theta": "q1"}).ok
    (m,) = eq.compare(tau=tau.replace("+ Fc1", "- Fc1"), symbols={"theta": "q1"}).mistakes
    assert (m.kind, m.hint) == ("sign", "the term in Fc1 sign(thetadot) (a friction term of "
                                        "joint 1) has the wrong sign")
    kinds = [m.kind for m in eq.compare(tau=tau.replace("sign(thetadot)", "sign(theta)"),
                                        symbols={"theta": "q1"}).mistakes]
    assert kinds == ["extra term", "missing term"]
