"""The examples in the docstrings of ``src/robodyn`` run and print what they show.

Every module under ``src/robodyn`` (every folder of the layers, at any depth) whose source
holds ``>>>`` is found by reading the files as text, and imported by its package name
when its test runs: collection imports nothing. ``--doctest-modules`` would instead import
every module while collecting, the old module paths (each warns that it is deprecated)
and the plotting modules (they need matplotlib) included.
"""

from __future__ import annotations

import doctest
import importlib
import io
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src" / "robodyn"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: The modules whose source holds a docstring example (read as text, not imported), and
#: their files.
FILES = {_module_name(p): p for p in sorted(SRC.rglob("*.py")) if ">>>" in p.read_text()}
MODULES = sorted(FILES)


def test_the_package_has_docstring_examples():
    assert {"robodyn", "robodyn.symbolic", "robodyn.symbolic.equations",
            "robodyn.plot"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    assert Path(module.__file__).resolve() == FILES[name].resolve(), \
        f"{name} imports {module.__file__}, not the file its examples were found in"
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    report = io.StringIO()
    examples = 0
    for test in finder.find(module, name):
        examples += len(test.examples)
        runner.run(test, out=report.write)
    assert examples, f"{name}: its source has '>>>' but no docstring example was found"
    result = runner.summarize(verbose=False)
    assert result.failed == 0, f"{name}: {result.failed} of {examples} examples failed\n" \
        + report.getvalue()
