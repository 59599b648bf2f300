"""The examples in the docstrings of ``src/robodyn`` run and print what they show.

Collected here rather than with ``--doctest-modules``: ``robodyn.model`` is a namespace
package (no ``__init__.py``), which pytest's module-path import would load a second time
under a top-level name. Each module is imported by its package name when its test runs,
so collection imports nothing.
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


#: The modules whose source holds a docstring example (read as text, not imported).
MODULES = sorted(_module_name(p) for p in SRC.rglob("*.py") if ">>>" in p.read_text())


def test_the_package_has_docstring_examples():
    assert "robodyn" in MODULES and "robodyn.symbolic" in MODULES


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
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
