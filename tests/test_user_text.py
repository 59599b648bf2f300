"""What a user reads says where a model comes from in the words of books and notes
("Siciliano et al., Robotics, §7.4", "lecture notes"), never by the numbers of the course
files in this repository's shared folder ("seed 003", "the seeds' examples").

Checked: every built-in model file (its description and its comments: the file ships in
the package), the help of every command, the docstrings of the public API (what the docs
site's API reference and ``help()`` show), and the pages of the manual. ``--seed`` of
``dataset`` and ``exercise`` is a random seed and stays.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
from pathlib import Path

import pytest

import robodyn as rd
from robodyn.cli.app import build_parser

ROOT = Path(__file__).resolve().parent.parent

#: "seed" as the name of a course file: "seed 003", "seeds 002, 004", "the seeds'", "the
#: seed's", "Seed 000 (Lecture 15)". A random seed ("a seed >= 0", "--seed 7") is not.
COURSE_FILE = re.compile(r"\bseeds?\s*0\d\d|\bseeds?'s?\b|\bseeds'|\bthe seeds\b|\bseed's\b",
                         re.IGNORECASE)


def test_the_pattern_tells_a_course_file_from_a_random_seed():
    for text in ("seed 003", "Seed 000 (Lecture 15)", "seeds 002, 004", "the seeds' examples",
                 "the seed's K", "as the seeds say", "(seeds 003, 004)"):
        assert COURSE_FILE.search(text), text
    for text in ("random seed, 0 to 2**64 - 1", "--seed 7", "Draw a small arm from a seed",
                 "the same seed writes the same files", "default_rng([seed, k])", "seeded"):
        assert not COURSE_FILE.search(text), text


@pytest.mark.parametrize("name", rd.models.names())
def test_no_built_in_model_names_a_course_file(name):
    text = rd.models.path(name).read_text(encoding="utf-8")
    assert "seed" not in text.lower(), f"{name}.yaml: {COURSE_FILE.findall(text) or 'seed'}"
    robot = rd.load(name)
    assert robot.description and "seed" not in robot.description.lower()


def _helps(parser: argparse.ArgumentParser, prefix: str = "robodyn"):
    yield prefix, parser.format_help()
    for action in parser._actions:  # argparse keeps its subcommands only here
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _helps(sub, f"{prefix} {name}")


def test_no_command_help_names_a_course_file():
    helps = dict(_helps(build_parser()))
    assert {"robodyn", "robodyn derive", "robodyn exercise", "robodyn dataset"} <= set(helps)
    for command, text in helps.items():
        assert not COURSE_FILE.search(text), f"{command} --help: {COURSE_FILE.findall(text)}"


#: The modules whose docstrings the API reference shows (docs/api/*.md).
API_MODULES = ["robodyn", "robodyn.robot", "robodyn.model.builtin", "robodyn.symbolic",
               "robodyn.symbolic.equations", "robodyn.teaching.compare",
               "robodyn.motion.trajectory", "robodyn.motion.simulation",
               "robodyn.motion.result", "robodyn.motion.checks", "robodyn.motion.options",
               "robodyn.motion.rollouts", "robodyn.motion.control", "robodyn.motion.energy",
               "robodyn.identification.estimate", "robodyn.identification.result",
               "robodyn.identification.excitation",
               "robodyn.core.errors"]


def _docstrings(module):
    yield module.__name__, module.__doc__ or ""
    for name, obj in vars(module).items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module.__name__:
            continue
        yield f"{module.__name__}.{name}", inspect.getdoc(obj) or ""
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if not attr.startswith("_"):
                    doc = inspect.getdoc(getattr(member, "fget", member)) or ""
                    yield f"{module.__name__}.{name}.{attr}", doc


@pytest.mark.parametrize("module_name", API_MODULES)
def test_no_public_docstring_names_a_course_file(module_name):
    module = importlib.import_module(module_name)
    found = {where: COURSE_FILE.findall(doc) for where, doc in _docstrings(module)
             if COURSE_FILE.search(doc)}
    assert not found


def test_no_page_of_the_manual_names_a_course_file():
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
    found = {p.relative_to(ROOT).as_posix(): COURSE_FILE.findall(p.read_text(encoding="utf-8"))
             for p in pages}
    assert not {page: hits for page, hits in found.items() if hits}
