"""The compiled-kernel export (``robot.to_code``, ``robot.compile_c``) keeps hostile names
inside comments: a model name or a parameter symbol that tries to end a comment, a string
or a line in every language (quotes, line breaks, ``*/``, ``#include``, ``=#``, ``%}``,
non-ASCII) leaves the code exactly as it is for a harmless name, and identifiers made from
names are ASCII identifiers that are no keyword.

The tokenizers and payloads are those of test_hostile_names.py (same folder).
"""

from __future__ import annotations

import re
import shutil
import tokenize

import numpy as np
import pytest
from test_hostile_names import (  # noqa: E402 - tests/model is on sys.path
    HOSTILE_SYMBOL,
    STRIP,
    _hostile_symbol_robot,
    _past_the_check,
    payload,
)

import robodyn as rd
from robodyn.codegen.export.files import is_ours
from robodyn.codegen.export.languages import KERNEL_LANGUAGES
from robodyn.codegen.export.program import RESERVED_IDENTIFIERS, identifier
from robodyn.model.names import MARKER

FUNCTIONS = ["inverse_dynamics", "mass_matrix", "forward_dynamics", "kinetic_energy"]


@pytest.fixture(scope="module")
def pendulum():
    return rd.load("pendulum")


def _code(text: str, lang: str):
    code = STRIP[lang](text)
    if lang == "python":  # names stay only in string literals, as Python reads them
        code = [(kind, s) for kind, s in code if kind != tokenize.STRING]
    return code


@pytest.mark.parametrize("lang", KERNEL_LANGUAGES)
@pytest.mark.parametrize("mode", ["baked", "argument"])
def test_hostile_model_and_symbol_names_stay_in_the_comment(lang, mode, pendulum, tmp_path):
    hostile = _past_the_check(_hostile_symbol_robot(pendulum, HOSTILE_SYMBOL),
                              payload(tmp_path / "PWNED"))
    name = identifier(hostile.name)
    assert re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and name not in RESERVED_IDENTIFIERS
    files = hostile.to_code(lang, FUNCTIONS, parameters=mode)
    harmless = pendulum.to_code(lang, FUNCTIONS, parameters=mode, name=name)
    assert sorted(files) == sorted(harmless)
    for fname, text in files.items():
        assert _code(text, lang) == _code(harmless[fname], lang), (lang, fname)
        assert MARKER in text.splitlines()[0] + text.splitlines()[1]
        assert is_ours(text.encode())
        assert "arm<U+000A>import pathlib" in text  # shown, made visible, not dropped
        for bad in ("\x00", "\r", "\u2028", "\x85", "\x1b"):
            assert bad not in text, (lang, fname, bad)
        if mode == "argument":
            assert "m<U+000A>" in text  # the symbol, named in the parameter order


@pytest.mark.parametrize("model_name,expected", [
    ("class", "class_"), ("int", "int_"), ("end", "end_"), ("function", "function_"),
    ("café", "caf_"), ("2r", "robot_2r"), ("M_PI", "robot_M_PI"), ("#include", None),
    ('a"b*/c', "a_b__c"),
])
def test_identifiers_from_names_are_safe_in_every_language(model_name, expected, pendulum):
    robot = _past_the_check(pendulum, model_name)
    files = robot.to_code("c", ["gravity_torques"])
    (header,) = [f for f in files if f.endswith(".h")]
    ident = header[:-2]
    assert re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", ident) and ident not in RESERVED_IDENTIFIERS
    if expected is not None:
        assert ident == expected
    for lang in KERNEL_LANGUAGES:
        for fname in robot.to_code(lang, ["gravity_torques"]):
            assert fname.startswith(ident), (lang, fname)


def test_hostile_c_compiles_cleanly_and_runs_nothing(pendulum, tmp_path):
    if not any(shutil.which(cc) for cc in ("cc", "gcc", "clang")):
        pytest.skip("no C compiler on PATH")
    marker = tmp_path / "PWNED"
    hostile = _past_the_check(_hostile_symbol_robot(pendulum, HOSTILE_SYMBOL), payload(marker))
    kernels = hostile.compile_c(FUNCTIONS, parameters="argument",
                                flags=("-O0", "-Wall", "-Wextra", "-pedantic", "-Werror"))
    assert not marker.exists()  # an injected constructor would have run at load
    q, qd, qdd = np.array([0.3]), np.array([-0.7]), np.array([1.1])
    np.testing.assert_allclose(kernels.inverse_dynamics(hostile.parameter_values, q, qd, qdd),
                               hostile.inverse_dynamics(q, qd, qdd), rtol=1e-12)
