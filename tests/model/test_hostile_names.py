"""A model's name never runs (issue 15, section 3), and export never harms the user's files
(section 6).

* Load time: every name (model, link, joint, parameter, display) is one line of printable
  text; YAML files, URDF files and programmatic models (``parse_model``) get an error
  naming the field.
* Defence in depth: a :class:`~robodyn.Robot` built in Python skips that check, so each
  writer is given hostile names directly. The proof that nothing escapes the header comment
  is per language: Python imports the module in a fresh interpreter (the payload would
  write a marker file) and checks the numbers; C compiles with ``-Wall -Wextra -pedantic
  -Werror`` and is loaded (a constructor would write the marker); Java compiles and runs.
  For every language a small tokenizer of its comment and string syntax removes comments
  and string contents: what is left must be exactly the code written for a harmless name,
  so the hostile text stood only inside properly closed comments and escaped strings.
* LaTeX, Markdown and URDF output escape names; export refuses to overwrite files it did
  not write (without ``--force``) and never follows a symbolic link.
"""

from __future__ import annotations

import ctypes
import dataclasses
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import tokenize
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

import robodyn as rd
from robodyn.cli import main as cli_main
from robodyn.codegen.export import LANGUAGES, export_code, program_of, write_files
from robodyn.codegen.export.files import is_ours, write_file
from robodyn.codegen.export.program import IDENTIFIER_CHARS, RESERVED_IDENTIFIERS, identifier
from robodyn.core.errors import InputError, ModelError
from robodyn.model.names import MARKER
from robodyn.model.yaml_file import parse_model
from robodyn.symbolic import Equations

ENV = {**os.environ, "ROBODYN_BACKEND": "numpy"}


def payload(marker: Path) -> str:
    """A name that tries to end a comment, a string or a line in every target language
    and then create ``marker``."""
    m = str(marker)
    return ("arm\n"
            f"import pathlib; pathlib.Path({m!r}).write_text('x') #\r\n"
            "*/ #include <stdio.h>\n"
            f'__attribute__((constructor)) static void pwn(void) {{ fclose(fopen("{m}", "w")); }}'
            ' /* *) Put["x", "' + m + '"] (* =# run(`touch x`) #=\n%}\n'
            f"fclose(fopen('{m}', 'w'))\n%{{ \\u002a\\u002f \\u000a class Pwn {{}} "
            "\u2028 \u2029 \x00 \x1b[31m \x85 \t --> <!-- ]]> & < > \" ' \\ "
            "$(run(`touch x`)) \\:002a\\:0029 -*- coding: utf-7 -*- +AAo-import os")


@pytest.fixture(scope="module")
def pendulum():
    return rd.load("pendulum")


@pytest.fixture(scope="module")
def pendulum_eq(pendulum):
    return pendulum.equations()


def _named(eq, name):
    """The equations ``eq`` under another model name (as a Robot built in Python has)."""
    other = type(eq).__new__(type(eq))
    other.__dict__.update(eq.__dict__)
    other.name = name
    return other


# -- load time: one place checks every name ---------------------------------------------------
BAD_CHARACTERS = [("\n", "a line break (U+000A)"), ("\r", "a line break (U+000D)"),
                  ("\t", "a tab (U+0009)"), ("\x00", "a null character (U+0000)"),
                  ("\x1b", "an escape character (U+001B)"), ("\x85", "a line break (U+0085)"),
                  ("\u2028", "a line break (U+2028)"), ("\u2029", "a line break (U+2029)"),
                  ("\u202e", "an invisible formatting character (U+202E)"),
                  ("\ufeff", "an invisible formatting character (U+FEFF)"),
                  ("\x7f", "a control character (U+007F)")]
LINK = {"joint": "revolute", "a": 1, "mass": 1}


@pytest.mark.parametrize("ch,what", BAD_CHARACTERS)
def test_model_file_names_are_one_line_of_printable_text(ch, what):
    with pytest.raises(ModelError) as info:
        parse_model({"name": f"arm{ch}x", "links": [LINK]}, source="arm.yaml")
    assert str(info.value) == (f"arm.yaml: name: contains {what} at character 4; a model "
                               "name is one line of printable text")
    with pytest.raises(ModelError, match=r"links\[1\]\.name: contains " + what.split(" (")[0]):
        parse_model({"links": [LINK, {**LINK, "name": f"l{ch}"}]}, source="arm.yaml")


def test_other_fields_and_lengths_are_checked():
    with pytest.raises(ModelError, match=r"^m\.yaml: name: 'aaaa.* is too long \(201 char"):
        parse_model({"name": "a" * 201, "links": [LINK]}, source="m.yaml")
    assert parse_model({"name": "a" * 200, "links": [LINK]}).name == "a" * 200
    with pytest.raises(ModelError, match=r"description: contains an escape character"):
        parse_model({"links": [LINK], "description": "ok\n\x1b]0;title\x07"}, source="m.yaml")
    text = "two lines\n\tand a tab are fine in a description"
    assert parse_model({"links": [LINK], "description": text}).description == text
    # printable Unicode and punctuation are names; writers escape them
    assert parse_model({"name": "bras-café */ \"'", "links": [LINK]}).name == "bras-café */ \"'"


@pytest.mark.parametrize("display,problem", [
    ("\\input{x}", r"uses \\input"), ("\\write18{x}", r"uses \\write"),
    ("x}", "has a } without its {"), ("{x", "has a { without its }"),
    ("\\\\", "uses \\\\\\\\"), ("\\def\\x{y}", r"uses \\def")])
def test_display_names_use_only_harmless_latex(display, problem):
    data = {"links": [{**LINK, "a": "l1"}], "values": {"l1": 1.0}, "display": {"q1": display}}
    with pytest.raises(ModelError, match=r"display\.q1: .*" + problem):
        parse_model(data, source="m.yaml")
    data["display"] = {"q1": "\\dot{\\theta}_{1}", "l1": "\\ell_{1}"}
    assert dict(parse_model(data).provenance.display)["l1"] == "\\ell_{1}"


def _urdf(robot_name="arm", link="l1", joint="j1"):
    return textwrap.dedent(f"""\
        <robot name="{robot_name}">
          <link name="base"/>
          <link name="{link}"><inertial><mass value="1"/>
            <inertia ixx="1" iyy="1" izz="1" ixy="0" ixz="0" iyz="0"/></inertial></link>
          <joint name="{joint}" type="continuous"><parent link="base"/>
            <child link="{link}"/><axis xyz="0 0 1"/></joint>
        </robot>
        """)


@pytest.mark.parametrize("field,kwargs,message", [
    ("robot", {"robot_name": "arm&#10;import os #"},
     "<robot name>: contains a line break (U+000A) at character 4; a model name"),
    ("link", {"link": "l&#x2028;1"},
     "<link name> of chain link 1: contains a line break (U+2028) at character 2"),
    ("joint", {"joint": "j&#9;1"},
     "<joint name> of chain joint 1: contains a tab (U+0009) at character 2"),
    ("long", {"robot_name": "r" * 300}, "<robot name>: 'rrrr"),
])
def test_urdf_names_are_checked_at_load_time(field, kwargs, message, tmp_path, capsys):
    path = tmp_path / "arm.urdf"
    path.write_text(_urdf(**kwargs))
    with pytest.raises(ModelError) as info:
        rd.load(path)
    assert str(info.value).startswith(f"{path}: {message}")
    assert cli_main(["export", str(path), "--lang", "python", "--out", str(tmp_path / "g")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("robodyn: error: ") and err.count("\n") == 1
    assert not (tmp_path / "g").exists()


def test_cli_refuses_a_model_file_with_a_line_break_in_its_name(tmp_path, capsys):
    marker = tmp_path / "PWNED"
    path = tmp_path / "arm.yaml"
    path.write_text(f"name: {json.dumps(payload(marker))}\n"
                    "links:\n  - {joint: revolute, a: 1, mass: 1}\nvalues: {g: 9.81}\n")
    assert cli_main(["export", str(path), "--lang", "python", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == (
        f"robodyn: error: {path}: name: contains a line break (U+000A) at character 4; a model "
        "name is one line of printable text\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arm.yaml"]


# -- tokenizers: code with comments and string contents removed ---------------------------
def _string(text, i, quote, escapes=True, dollar=False):
    """The index after the string literal opening at ``text[i]``; fails on a line break or
    (Julia) an unescaped ``$`` inside it."""
    j = i + 1
    while text[j] != quote:
        assert text[j] != "\n", f"a line break inside a string literal: {text[i:j + 1]!r}"
        assert not (dollar and text[j] == "$"), f"interpolation in a string: {text[i:j + 5]!r}"
        j += 2 if escapes and text[j] == "\\" else 1
    return j + 1


def java_unicode(text: str) -> str:
    """Java's first pass (JLS 3.3): ``\\uXXXX`` after an even number of backslashes."""
    out, i, run = [], 0, 0
    while i < len(text):
        if text[i] == "\\" and run % 2 == 0 and text[i + 1:i + 2] == "u":
            j = i + 1
            while text[j] == "u":
                j += 1
            out.append(chr(int(text[j:j + 4], 16)))
            i, run = j + 4, 0
            continue
        run = run + 1 if text[i] == "\\" else 0
        out.append(text[i])
        i += 1
    return "".join(out)


def strip_c(text: str, java: bool = False) -> str:
    """C, C++ (line splices first) or Java (unicode escapes first): ``/* */`` and ``//``
    comments removed, string and character literals emptied."""
    text = java_unicode(text) if java else text.replace("\\\n", "")
    out, i = [], 0
    while i < len(text):
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            assert j >= 0, "a block comment is not closed"
            out.append(" ")
            i = j + 2
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif text[i] in "\"'":
            i_end = _string(text, i, text[i])
            out.append(text[i] * 2)
            i = i_end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_julia(text: str) -> str:
    """Julia: nested ``#= =#`` and ``#`` comments removed, strings emptied (no ``$``)."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("#=", i):
            depth, j = 1, i + 2
            while depth:
                assert j < len(text), "a #= comment is not closed"
                if text.startswith("#=", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("=#", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(" ")
            i = j
        elif text[i] == "#":
            j = text.find("\n", i)
            i = len(text) if j < 0 else j
        elif text.startswith('"""', i):
            j = text.find('"""', i + 3)
            assert j >= 0 and "$" not in text[i:j], "a docstring"
            out.append('""""""')
            i = j + 3
        elif text[i] == '"':
            i_end = _string(text, i, '"', dollar=True)
            out.append('""')
            i = i_end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_matlab(text: str) -> str:
    """MATLAB/Octave: ``%{ %}``/``#{ #}`` blocks (markers alone on their line) and ``%``,
    ``#`` line comments removed (the generated code holds no strings)."""
    lines, depth = [], 0
    for line in text.split("\n"):
        if line.strip() in ("%{", "#{"):
            depth += 1
            continue
        if depth:
            depth -= line.strip() in ("%}", "#}")
            continue
        cuts = [k for k in (line.find("%"), line.find("#")) if k >= 0]
        lines.append(line[:min(cuts)] if cuts else line)
    assert depth == 0, "a %{ block is not closed"
    return "\n".join(lines)


def strip_mathematica(text: str) -> str:
    """Wolfram Language: nested ``(* *)`` comments removed, strings emptied."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("(*", i):
            depth, j = 1, i + 2
            while depth:
                assert j < len(text), "a (* comment is not closed"
                if text.startswith("(*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*)", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(" ")
            i = j
        elif text[i] == '"':
            i_end = _string(text, i, '"')
            out.append('""')
            i = i_end
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def strip_python(text: str) -> list:
    """Python's own tokenizer: the tokens other than comments and line ends, string
    literals kept as their values (so an escaped name reads as the name)."""
    assert tokenize.detect_encoding(io.BytesIO(text.encode()).readline)[0] == "utf-8"
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in (tokenize.COMMENT, tokenize.NL):
            continue
        out.append((tok.type, tok.string))
    return out


STRIP = {"python": strip_python, "c": strip_c, "cpp": strip_c,
         "java": lambda t: strip_c(t, java=True), "julia": strip_julia,
         "matlab": strip_matlab, "mathematica": strip_mathematica}


def test_the_tokenizers_see_an_escape():
    """The checkers are not blind: the attacks they guard against are seen."""
    with pytest.raises(AssertionError, match="not closed"):
        strip_c("/* a */ b /* c")
    assert "x" in strip_c("/* a *\\u002f x */", java=True)
    assert "x" not in strip_c("// a \\\nx") and "x" in strip_c("// a \\\nx", java=True)
    assert "run" in strip_julia("# a #= b\nrun") and "run" not in strip_julia("#= a\nrun =#")
    with pytest.raises(AssertionError, match="interpolation"):
        strip_julia('x = "$(run(`ls`))"')
    assert "Put" in strip_mathematica("(* (* *) *) *) Put") and "Put" not in strip_mathematica(
        "(* (* *) Put *)")
    assert "system" in strip_matlab("% a\nsystem('x')\n")
    assert "x" in strip_matlab("%{\n%}\nx") and "x" not in strip_matlab("%{\nx\n%}")


# -- every language: a hostile model name stays in the comment ------------------------------
@pytest.mark.parametrize("lang", list(LANGUAGES))
@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_hostile_model_name_stays_inside_the_comment(lang, mode, pendulum_eq, tmp_path):
    hostile = _named(pendulum_eq, payload(tmp_path / "PWNED"))
    name = identifier(hostile.name)
    files = export_code(hostile, lang, parameters=mode)
    harmless = export_code(_named(pendulum_eq, "arm"), lang, parameters=mode, name=name)
    assert sorted(files) == sorted(harmless)
    for fname, text in files.items():
        assert STRIP[lang](text) == STRIP[lang](harmless[fname]), (lang, fname)
        assert MARKER in text.splitlines()[0] + text.splitlines()[1], (lang, fname)
        assert is_ours(text.encode())
        # the name is shown (made visible), not dropped
        assert "arm<U+000A>import pathlib" in text and "\x00" not in text and "\r" not in text
        assert "\u2028" not in text and "\x85" not in text and "\x1b" not in text


def _run_python(directory: Path, module: str, calls: str, timeout: int = 60):
    script = (f"import sys, json, importlib.util\n"
              f"spec = importlib.util.spec_from_file_location('gen', {str(directory / module)!r})\n"
              "m = importlib.util.module_from_spec(spec); spec.loader.exec_module(m)\n"
              f"print(json.dumps({calls}))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, env={**ENV, "PYTHONPATH": ""}, cwd=directory)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def _past_the_check(robot, name, **changes):
    """``robot`` with ``name`` planted after construction: a name that got past the check
    of ``Robot(...)``, for the writers' own escaping (defence in depth); planted in its
    runner too, whose name the exporters write."""
    out = dataclasses.replace(robot, **changes)
    object.__setattr__(out, "name", name)
    out.runner.name = name
    return out


def test_a_robot_built_in_python_checks_its_name(pendulum):
    with pytest.raises(ModelError, match=r"name: contains a line break \(U\+000A\)"):
        dataclasses.replace(pendulum, name="arm\nimport os")
    with pytest.raises(ModelError, match="name: contains"):
        pendulum.with_chain(pendulum.chain, name="arm\u2028x")


def test_hostile_python_module_does_not_run_the_name(pendulum, pendulum_eq, tmp_path):
    marker = tmp_path / "PWNED"
    hostile = _past_the_check(pendulum, payload(marker))
    eq = _named(pendulum_eq, hostile.name)
    out = tmp_path / "gen"
    (path,) = write_files(eq.to_code("python"), out)
    q, qd, qdd = [0.3], [-0.7], [1.1]
    got = _run_python(out, path.name, f"[m.inverse_dynamics({q}, {qd}, {qdd}).tolist(), "
                                      f"m.mass_matrix({q}).tolist()]")
    assert not marker.exists()
    np.testing.assert_allclose(got[0], hostile.inverse_dynamics(q, qd, qdd), rtol=1e-12)
    np.testing.assert_allclose(np.ravel(got[1]), np.ravel(hostile.mass_matrix(q)), rtol=1e-12)


def test_a_coding_declaration_in_the_name_is_not_read(pendulum_eq, tmp_path):
    """Python reads ``coding:`` in the first two lines; in UTF-7 ``+AAo-`` is a line break.
    The name starts on line 3, so the file stays UTF-8."""
    marker = tmp_path / "PWNED"
    name = ("-*- coding: utf-7 -*- +AAo-import pathlib+ADs- pathlib.Path(" + repr(str(marker))
            + ").write+AF8-text('x')")
    (path,) = write_files(_named(pendulum_eq, name).to_code("python"), tmp_path)
    lines = path.read_text().splitlines()
    assert "coding" not in lines[0] + lines[1]
    assert _run_python(tmp_path, path.name, "m.DOF") == 1
    assert not marker.exists()


def _hostile_symbol_robot(pendulum, name):
    """The pendulum with its mass symbol ``m`` renamed ``name`` (a Robot built in Python)."""
    chain = pendulum.chain.subs({sp.Symbol("m"): sp.Symbol(name)})
    values = {(name if k == "m" else k): v for k, v in pendulum.values.items()}
    return pendulum.with_chain(chain, values=values)


HOSTILE_SYMBOL = 'm\n"$(run(`x`))\\u0022 */ *) #= %}\u2028 q'


def test_hostile_symbol_names_are_renamed_in_code_and_escaped_in_strings(pendulum, tmp_path):
    robot = _hostile_symbol_robot(pendulum, HOSTILE_SYMBOL)
    eq = robot.equations()
    assert HOSTILE_SYMBOL in {str(s) for s in eq.params}
    for lang in LANGUAGES:
        for fname, text in export_code(eq, lang, parameters="argument").items():
            code = STRIP[lang](text)
            if lang == "python":  # names stay in string literals, as Python reads them
                code = " ".join(s for kind, s in code if kind != tokenize.STRING)
            assert "run(" not in code and "*)" not in code.replace("(*", ""), (lang, fname)
    out = tmp_path / "py"
    (path,) = write_files(eq.to_code("python", parameters="argument"), out)
    p = [robot.values[str(s)] for s in eq.params]
    got = _run_python(out, path.name, f"[list(m.PARAMETERS), m.inverse_dynamics({p}, [0.3], "
                                      "[-0.7], [1.1]).tolist()]")
    assert got[0] == [str(s) for s in eq.params]
    np.testing.assert_allclose(got[1], robot.inverse_dynamics([0.3], [-0.7], [1.1]), rtol=1e-12)


# -- C and Java: the compilers agree ------------------------------------------------------------
def _c_compiler():
    for cc in ("cc", "gcc", "clang"):
        if shutil.which(cc):
            return cc
    pytest.skip("no C compiler (cc, gcc, clang): the exported C is not compiled")


@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_hostile_c_compiles_cleanly_and_runs_nothing(mode, pendulum, pendulum_eq, tmp_path):
    cc = _c_compiler()
    marker = tmp_path / "PWNED"
    eq = _named(pendulum_eq, payload(marker))
    robot = _hostile_symbol_robot(pendulum, HOSTILE_SYMBOL) if mode == "argument" else pendulum
    if mode == "argument":
        eq = _named(robot.equations(), eq.name)
    name = identifier(eq.name)
    write_files(eq.to_code("c", parameters=mode), tmp_path)
    lib = tmp_path / f"lib{name}.so"
    done = subprocess.run([cc, "-O2", "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror",
                           "-shared", "-fPIC", str(tmp_path / f"{name}.c"), "-o", str(lib),
                           "-lm"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    dll = ctypes.CDLL(str(lib))  # an injected constructor would run here
    assert not marker.exists()
    fn = getattr(dll, f"{name}_inverse_dynamics")
    fn.restype = None
    ptr = ctypes.POINTER(ctypes.c_double)
    arrays = [np.array([0.3]), np.array([-0.7]), np.array([1.1])]
    if mode == "argument":
        arrays.insert(0, np.array([robot.values[str(s)] for s in eq.params]))
    tau = np.zeros(1)
    fn(*[a.ctypes.data_as(ptr) for a in arrays], tau.ctypes.data_as(ptr))
    np.testing.assert_allclose(tau, robot.inverse_dynamics([0.3], [-0.7], [1.1]), rtol=1e-12)


@pytest.mark.slow
def test_hostile_java_compiles_and_keeps_the_parameter_names(pendulum, tmp_path):
    if shutil.which("javac") is None or shutil.which("java") is None:
        pytest.skip("no javac/java: the exported Java is not compiled")
    robot = _hostile_symbol_robot(pendulum, HOSTILE_SYMBOL)
    eq = _named(robot.equations(), payload(tmp_path / "PWNED"))
    name = identifier(eq.name)
    write_files(eq.to_code("java", parameters="argument"), tmp_path)
    p = ", ".join(repr(robot.values[str(s)]) for s in eq.params)
    (tmp_path / "Driver.java").write_text(
        "public class Driver { public static void main(String[] a) {\n"
        f"  for (String s : {name}.PARAMETERS) {{\n"
        "    StringBuilder b = new StringBuilder();\n"
        "    s.codePoints().forEach(c -> b.append(c).append(' '));\n"
        "    System.out.println(b.toString().trim()); }\n"
        f"  double[] tau = {name}.inverse_dynamics(new double[] {{{p}}}, new double[] {{0.3}},"
        " new double[] {-0.7}, new double[] {1.1});\n"
        "  System.out.println(Double.toString(tau[0])); } }\n")
    for cmd in (["javac", "-Xlint:all", "-Werror", "-encoding", "UTF-8", "-d", str(tmp_path),
                 str(tmp_path / f"{name}.java"), str(tmp_path / "Driver.java")],
                ["java", "-cp", str(tmp_path), "Driver"]):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
        assert done.returncode == 0, done.stderr[-3000:]
    *names, tau = done.stdout.splitlines()
    assert [[int(c) for c in line.split()] for line in names] == [
        [ord(c) for c in str(s)] for s in eq.params]
    np.testing.assert_allclose(float(tau), robot.inverse_dynamics([0.3], [-0.7], [1.1])[0],
                               rtol=1e-12)


# -- identifiers --------------------------------------------------------------------------------
KEYWORDS = ["class", "def", "int", "function", "end", "import", "module", "namespace", "Math",
            "numpy", "os", "sin", "zeros", "M_PI", "linux", "inverse_dynamics", "return"]


@pytest.mark.parametrize("model", KEYWORDS + ["2r", "_x", "café", "日本", "", "a" * 90,
                                              "x y-z.w"])
def test_identifiers_are_legal_and_not_reserved(model):
    name = identifier(model)
    assert name == identifier(model)  # deterministic
    assert name.isascii() and name.isidentifier() and name[0].isalpha()
    assert len(name) <= IDENTIFIER_CHARS and name not in RESERVED_IDENTIFIERS
    if model in KEYWORDS:
        assert name in (model + "_", "robot_" + model)


def test_identifier_rule_examples():
    assert identifier("planar-2r") == "planar_2r" and identifier("class") == "class_"
    assert identifier("2r") == "robot_2r" and identifier("café") == "caf_"
    assert identifier("M_PI") == "robot_M_PI" and identifier("") == "robot"
    assert identifier("日本") != identifier("中国")  # hashed, so they stay apart
    assert identifier("a" * 90) != identifier("a" * 91)
    with pytest.raises(InputError, match="name: 'class' is reserved in a target language; "
                                         "e.g. 'class_'"):
        export_code(rd.load("pendulum").equations(), "c", name="class")


@pytest.mark.parametrize("model", ["class", "import", "int", "def"])
def test_keyword_models_give_python_and_c_that_work(model, pendulum, pendulum_eq, tmp_path):
    eq = _named(pendulum_eq, model)
    (path,) = write_files(eq.to_code("python"), tmp_path)
    assert path.name == f"{model}_.py"
    got = _run_python(tmp_path, path.name, "m.gravity_torques([0.4]).tolist()")
    np.testing.assert_allclose(got, pendulum.gravity_torques([0.4]), rtol=1e-12)
    cc = _c_compiler()
    write_files(eq.to_code("c"), tmp_path)
    done = subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror", "-c",
                           str(tmp_path / f"{model}_.c"), "-o", str(tmp_path / "x.o")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]


def test_every_language_names_its_module_with_the_identifier(pendulum_eq):
    program = program_of(_named(pendulum_eq, "end"))
    assert program.name == "end_"
    heads = {lang: "\n".join(STRIP[lang](t) if lang not in ("python", "mathematica") else t
                             for t in language.closed_forms(program).values())
             for lang, language in LANGUAGES.items()}
    assert "module end_\n" in heads["julia"] and "namespace end_ {" in heads["cpp"]
    assert "public final class end_ {" in heads["java"]
    assert 'BeginPackage["End`"]' in heads["mathematica"]
    assert "function tau = end__inverse_dynamics(" in heads["matlab"]
    assert program_of(_named(pendulum_eq, "system")).name == "system"
    ctx = "\n".join(LANGUAGES["mathematica"].closed_forms(
        program_of(_named(pendulum_eq, "system"))).values())
    assert 'BeginPackage["SystemRobot`"]' in ctx


def test_function_names_of_custom_matrices_are_checked(pendulum_eq):
    M = pendulum_eq.M
    for bad in ("evil\nimport os", "class", "q", "1x", "x" * 41):
        with pytest.raises(InputError, match="^matrices: "):
            export_code(pendulum_eq, "python", matrices={bad: (M, ("q",))})


# -- LaTeX, Markdown, text ----------------------------------------------------------------------
def _groups_close(tex: str) -> bool:
    depth = 0
    i = 0
    while i < len(tex):
        if tex[i] == "\\":
            i += 2
            continue
        depth += {"{": 1, "}": -1}.get(tex[i], 0)
        if depth < 0:
            return False
        i += 1
    return depth == 0


def test_latex_escapes_the_name(pendulum_eq, tmp_path):
    name = "x}{\\input{/etc/passwd}}$%#&_^~<>\n\\end{document}"
    eq = _named(pendulum_eq, name)
    tex = eq.latex(document=True)
    harmless = _named(pendulum_eq, "arm").latex(document=True)
    heading = next(line for line in tex.splitlines() if line.startswith("\\section*"))
    assert heading.endswith(" by Lagrange--Euler}") and _groups_close(heading)
    assert "\\input{" not in tex and tex.count("\\end{document}") == 1
    assert tex.count("\n") == harmless.count("\n")
    inner = heading[len("\\section*{Equations of motion of "):-len(" by Lagrange--Euler}")]
    assert inner == (r"x\}\{\textbackslash{}input\{/etc/passwd\}\}\$\%\#\&\_\^{}\~{}"
                     r"\textless{}\textgreater{}\textless{}U+000A\textgreater{}"
                     r"\textbackslash{}end\{document\}")
    if shutil.which("pdflatex"):  # where TeX is installed, it typesets the heading too
        (tmp_path / "eq.tex").write_text(tex)
        done = subprocess.run(["pdflatex", "-no-shell-escape", "-interaction=nonstopmode",
                               "-halt-on-error", "eq.tex"], cwd=tmp_path, capture_output=True,
                              text=True, timeout=120)
        assert done.returncode == 0, done.stdout[-2000:]


def test_hostile_display_and_symbol_names_are_text_in_latex(pendulum, pendulum_eq):
    eq = Equations(pendulum_eq.derivation, name="arm",  # made in Python: not checked
                   display={"q1": "\\input{x}", "l": "}\\write18{y}"})
    tex = eq.latex()
    assert "\\input{" not in tex and "\\write18" not in tex
    assert "\\text{\\textbackslash{}input\\{x\\}}" in tex
    robot = _hostile_symbol_robot(pendulum, "m}\\input{z}")
    tex = robot.equations().latex()
    assert "\\input{" not in tex and "\\text{m\\}\\textbackslash{}input\\{z\\}}" in tex


def test_markdown_and_text_escape_the_name(pendulum_eq):
    eq = _named(pendulum_eq, "a <script>x</script> *b* [l](javascript:y) $z$ &amp;\n# H")
    md = eq.markdown()
    first = md.splitlines()[0]
    assert first == ("# Equations of motion of a \\<script\\>x\\</script\\> \\*b\\* "
                     "\\[l\\](javascript:y) \\$z\\$ \\&amp;\\<U\\+000A\\>\\# H by Lagrange-Euler")
    assert md.count("\n") == _named(pendulum_eq, "arm").markdown().count("\n")
    text = eq.text()
    assert text.splitlines()[0].startswith("Equations of motion of a <script>x</script>")
    assert "<U+000A># H by" in text.splitlines()[0]


# -- URDF -----------------------------------------------------------------------------------
def test_urdf_writer_escapes_names(pendulum, tmp_path):
    links = tuple(dataclasses.replace(
        link, name='l"><evil/>&\n\x00--', joint=dataclasses.replace(link.joint, name="j -->x"))
        for link in pendulum.chain.links)
    chain = dataclasses.replace(pendulum.chain, links=links)
    robot = _past_the_check(pendulum, 'arm"\n<!-- --->\x01&', chain=chain)
    text = robot.to_urdf()
    root = ET.fromstring(text.split("\n", 1)[1])  # valid XML: ElementTree reads it back
    assert root.get("name") == 'arm"<U+000A><!-- ---><U+0001>&'
    names = {e.get("name") for e in root.iter("link")}
    assert 'l"><evil/>&<U+000A><U+0000>--' in names and not list(root.iter("evil"))
    assert "j -->x" in {e.get("name") for e in root.iter("joint")}
    for line in text.splitlines():
        if line.strip().startswith("<!--"):
            assert "--" not in line.strip()[4:-3], line
    assert text.splitlines()[1] == f"<!-- {MARKER} -->"
    path = tmp_path / "arm.urdf"
    path.write_text(text)
    again = rd.load(path)  # the visible names load: nothing is lost silently
    assert again.name == 'arm"<U+000A><!-- ---><U+0001>&'
    np.testing.assert_allclose(again.inverse_dynamics([0.2], [0.1], [0.3]),
                               robot.inverse_dynamics([0.2], [0.1], [0.3]), rtol=1e-9)


# -- export into a folder: the user's files are safe ----------------------------------------------
def _export(out, *more):
    return cli_main(["export", "planar-2r", "--lang", "python", "--out", str(out), *more])


def test_export_refuses_to_overwrite_a_hand_written_file(tmp_path, capsys):
    out = tmp_path / "gen"
    out.mkdir()
    mine = out / "planar_2r.py"
    mine.write_text("# my own work\n")
    assert _export(out) == 2
    err = capsys.readouterr().err
    assert err == (f"robodyn: error: --out {str(out)!r}: planar_2r.py: exists and was not "
                   "written by robodyn; pass --force to overwrite it, or choose another name\n")
    assert mine.read_text() == "# my own work\n"
    assert _export(out, "--force") == 0 and is_ours(mine.read_bytes())
    assert _export(out) == 0  # its own file: overwritten without --force
    # no temporary left; the record of what robodyn wrote beside the file
    assert sorted(p.name for p in out.iterdir()) == [".robodyn-files.json", "planar_2r.py"]
    assert (mine.stat().st_mode & 0o777) == 0o666 & ~_umask()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_export_never_follows_a_planted_symlink(tmp_path, capsys):
    out = tmp_path / "gen"
    out.mkdir()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (out / "planar_2r.py").symlink_to(victim)
    for more in ([], ["--force"]):
        assert _export(out, *more) == 2
        assert "planar_2r.py: is a symbolic link" in capsys.readouterr().err
        assert victim.read_text() == "precious\n" and (out / "planar_2r.py").is_symlink()
    dangling = tmp_path / "gen2"
    dangling.mkdir()
    (dangling / "planar_2r.py").symlink_to(tmp_path / "nowhere.py")
    assert _export(dangling) == 2 and not (tmp_path / "nowhere.py").exists()
    capsys.readouterr()


def test_file_names_cannot_leave_the_folder(tmp_path):
    for bad in ("../x.py", "a/b.py", "..", ".hidden", ""):
        with pytest.raises(InputError, match="is not a plain file name"):
            write_files({bad: "x"}, tmp_path / "out")
    assert not (tmp_path / "x.py").exists()


def test_a_refusal_writes_nothing(tmp_path):
    (tmp_path / "b.h").write_text("hand-written\n")
    with pytest.raises(InputError, match="b.h: exists and was not written by robodyn"):
        write_files({"a.c": f"/*\n * {MARKER}\n */\n", "b.h": f"// {MARKER}\n"}, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.h"]


def test_own_files_are_recognised_by_the_marker_line_only():
    assert is_ours(f"# {MARKER}\n".encode()) and is_ours(f"/*\n * {MARKER}\n".encode())
    assert is_ours(f"(*\n   {MARKER}\n".encode()) and is_ours(f"% {MARKER}\n".encode())
    assert is_ours(f'<?xml version="1.0"?>\n<!-- {MARKER} -->\n'.encode())
    assert not is_ours(f"x = 1  # {MARKER}\n".encode())       # in code, not a header
    assert not is_ours(("\n" * 3 + f"# {MARKER}\n").encode())  # too far down
    assert not is_ours(b"# generated by robodyn\n")


@pytest.mark.parametrize("where", ["file", "proc", "below-a-file"])
def test_out_that_is_not_a_folder_is_a_clear_error(where, tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = {"file": afile, "proc": Path("/proc/robodyn-ex"), "below-a-file": afile / "x"}[where]
    assert _export(out) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"robodyn: error: --out {str(out)!r}: ") and err.count("\n") == 1
    assert afile.read_text() == "x"


def test_urdf_file_is_not_overwritten_or_followed(tmp_path, capsys):
    target = tmp_path / "arm.urdf"
    target.write_text("<robot name='mine'/>\n")
    assert cli_main(["export", "planar-2r", "--urdf", str(target)]) == 2
    assert "exists and was not written by robodyn; pass --force" in capsys.readouterr().err
    assert target.read_text() == "<robot name='mine'/>\n"
    assert cli_main(["export", "planar-2r", "--urdf", str(target), "--force"]) == 0
    assert is_ours(target.read_bytes())
    assert cli_main(["export", "planar-2r", "--urdf", str(target)]) == 0  # ours now
    link = tmp_path / "link.urdf"
    link.symlink_to(tmp_path / "victim.urdf")
    assert cli_main(["export", "planar-2r", "--urdf", str(link), "--force"]) == 2
    assert "is a symbolic link" in capsys.readouterr().err
    assert not (tmp_path / "victim.urdf").exists()
    with pytest.raises(InputError, match="--urdf .*cannot write the file: its folder"):
        write_file(tmp_path / "no" / "such" / "x.urdf", "x")


# -- exercise --out -----------------------------------------------------------------------------
@pytest.mark.parametrize("where", ["file", "proc"])
def test_exercise_out_errors(where, tmp_path, capsys):
    afile = tmp_path / "afile"
    afile.write_text("x")
    out = afile if where == "file" else Path("/proc/robodyn-ex")
    assert cli_main(["exercise", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    what = "exists and is not a folder" if where == "file" else "cannot create the folder"
    assert err.startswith(f"robodyn: error: --out {str(out)!r}: {what}")
    assert err.count("\n") == 1 and afile.read_text() == "x"


def test_exercise_does_not_write_through_a_symlink(tmp_path, capsys):
    victim = tmp_path / "victim.md"
    victim.write_text("precious\n")
    (tmp_path / "ex" / "task").mkdir(parents=True)
    (tmp_path / "ex" / "task" / "task.md").symlink_to(victim)
    assert cli_main(["exercise", "--out", str(tmp_path / "ex")]) == 2
    assert "task.md: is a symbolic link" in capsys.readouterr().err
    assert victim.read_text() == "precious\n"
