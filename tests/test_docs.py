"""The code of the documentation runs: every ```python block of README.md and docs/**/*.md.

The blocks of one page run in order in one namespace (a page reads as one session), in a
fresh temporary working directory (files the examples write land there), with Matplotlib's
Agg backend and robodyn's NumPy backend (the same generated programs as Numba's, without
compile time). A broken block fails with the page and the line its fence starts on.

A block runs unless an HTML comment ``<!-- no-run: why -->`` stands on the line before it:
only for what cannot run here (a cluster, minutes of work), and the page says why. A block
of an optional extra says so in a comment before it, ``<!-- needs=viser -->``
(``needs=jax,casadi``): where one of them is not installed, that block and the rest of its
page are skipped with the reason (the later blocks may use its results). The fence itself
names the language alone: Python-Markdown renders a fence with more words
(```` ```python no-run ````) as a paragraph of text, comments as headings.
The README's command-line tour runs too, each command once.
The examples in docstrings are tests/test_doctests.py's; the
example scripts and the notebook are tests/test_examples.py's and tests/test_notebook.py's.
"""

from __future__ import annotations

import re
import textwrap
import traceback
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

#: Pages whose blocks take more than about 2 s (derivations of 6-DOF arms, simulations of
#: the PUMA, URDF arms): ``make test-fast`` leaves them out. A page can also say so itself,
#: with the line ``<!-- docs-test: slow -->``.
SLOW_PAGES = {"docs/simulation.md", "docs/urdf.md", "docs/identification.md",
              "docs/derivatives.md", "docs/progress.md", "docs/rollouts.md"}
SLOW_MARK = "<!-- docs-test: slow -->"
#: Pages run with the compiled (Numba) kernels rather than the NumPy backend the others use:
#: their long loops (batches of 1000-step rollouts of planar-2r) step in Python with NumPy,
#: 60 s and more, while compiled they cost the planar-2r programs the simulation tests build
#: anyway (from the kernel cache).
COMPILED_PAGES = {"docs/rollouts.md", "docs/simulation.md"}

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>.*)$")
_NO_RUN_COMMENT = re.compile(r"^\s*<!--\s*no-run\b.*-->\s*$")
_NEEDS_COMMENT = re.compile(r"^\s*<!--\s*(needs=[a-z0-9_,]+)\s*-->\s*$")


@dataclass(frozen=True)
class Block:
    """One fenced code block: its page, the line of its opening fence (1-based), its
    language and words of the info string, and its code (dedented)."""

    page: str
    line: int
    language: str
    words: tuple[str, ...]
    code: str
    after_no_run_comment: bool

    @property
    def runs(self) -> bool:
        return (self.language == "python" and "no-run" not in self.words
                and not self.after_no_run_comment)


def blocks(path: Path, root: Path = ROOT) -> list[Block]:
    """The fenced code blocks of a Markdown file (named relative to ``root``), in order; an
    unclosed fence is an error (the page would render the rest as code)."""
    name = path.relative_to(root).as_posix()
    lines = path.read_text(encoding="utf-8").splitlines()
    found = []
    i = 0
    while i < len(lines):
        opening = _FENCE.match(lines[i])
        if not opening:
            i += 1
            continue
        fence, indent = opening["fence"], opening["indent"]
        words = tuple(opening["info"].strip().lower().split())
        start = i
        body = []
        i += 1
        while i < len(lines):
            closing = _FENCE.match(lines[i])
            if closing and closing["fence"].startswith(fence) and not closing["info"].strip():
                break
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        else:
            raise AssertionError(f"{name}, line {start + 1}: the code block is never closed")
        before = lines[start - 1] if start else ""
        needs = _NEEDS_COMMENT.match(before)
        found.append(Block(name, start + 1, words[0] if words else "",
                           words[1:] + ((needs[1],) if needs else ()),
                           textwrap.dedent("\n".join(body)) + "\n",
                           bool(_NO_RUN_COMMENT.match(before))))
        i += 1
    return found


def _page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def _slow(path: Path) -> bool:
    lines = path.read_text(encoding="utf-8").splitlines()
    return _page_id(path) in SLOW_PAGES or SLOW_MARK in (line.strip() for line in lines)


RUNNABLE = [p for p in PAGES if any(b.runs for b in blocks(p))]


def test_every_fence_names_its_language_alone():
    """Python-Markdown (the site's renderer) shows a fence whose info string has more than
    one word as a paragraph, its comments as headings: markers go in comments before it."""
    crowded = [f"{b.page}:{b.line}" for p in PAGES for b in blocks(p) if b.words
               and not any(w.startswith("needs=") for w in b.words[-1:])]
    crowded += [f"{_page_id(p)}:{k}" for p in PAGES
                for k, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
                if (m := _FENCE.match(line)) and len(m["info"].split()) > 1]
    assert not crowded, crowded


def test_the_pages_have_code_that_runs():
    names = {_page_id(p) for p in RUNNABLE}
    assert {"README.md", "docs/index.md", "docs/models.md", "docs/simulation.md"} <= names


def test_no_run_blocks_are_few_and_explained():
    """A block left out says why, in the comment before it or in the text above it."""
    skipped = [b for p in PAGES for b in blocks(p)
               if b.language == "python" and not b.runs]
    assert len(skipped) <= 3, [f"{b.page}:{b.line}" for b in skipped]
    for b in skipped:
        text = (ROOT / b.page).read_text(encoding="utf-8").splitlines()
        context = " ".join(text[max(0, b.line - 4):b.line - 1]).lower()
        assert "no-run" in context or "not run" in context, \
            f"{b.page}, line {b.line}: say on the page why this block is not run"


def test_the_block_reader_finds_fences_lines_and_markers(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# t\n\n```python\nx = 1\n```\n\n* item\n\n  ```python\n  y = x\n  ```\n"
                    "<!-- no-run: needs a cluster -->\n```python\nz = 1\n```\n"
                    "<!-- no-run: minutes -->\n```python\nw = 1\n```\n```bash\nls\n```\n")
    found = blocks(page, root=tmp_path)
    assert [(b.line, b.language, b.runs) for b in found] == [
        (3, "python", True), (9, "python", True), (13, "python", False),
        (17, "python", False), (20, "bash", False)]
    assert found[1].code == "y = x\n" and found[0].page == "page.md"
    page.write_text("```python\nx = 1\n")
    with pytest.raises(AssertionError, match="page.md, line 1: the code block is never closed"):
        blocks(page, root=tmp_path)


@pytest.mark.parametrize(
    "path", [pytest.param(p, id=_page_id(p),
                          marks=[pytest.mark.slow] if _slow(p) else [])
             for p in RUNNABLE])
def test_page_code_runs(path, tmp_path, monkeypatch):
    if _page_id(path) not in COMPILED_PAGES:
        monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    run_page(path)


def run_page(path: Path, root: Path = ROOT) -> None:
    """Run the page's blocks in order in one namespace; fail naming the page and the line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    namespace: dict = {"__name__": "__docs__"}
    with warnings.catch_warnings():  # a page may turn warnings into errors, as its reader would
        for block in (b for b in blocks(path, root) if b.runs):
            missing = _missing_extras(block)
            if missing:
                pytest.skip(f"{block.page}, line {block.line} on: needs {', '.join(missing)} "
                            "(an optional extra), not installed")
            try:
                # padded so that the traceback's line numbers are the page's
                code = compile("\n" * block.line + block.code, block.page, "exec")
                exec(code, namespace)
            except Exception:
                pytest.fail(f"{block.page}, the block at line {block.line} failed:\n"
                            f"{traceback.format_exc()}", pytrace=False)
            finally:
                plt.close("all")


def _missing_extras(block: Block) -> list[str]:
    """The packages a block's ``needs=a,b`` names that cannot be imported here."""
    import importlib.util

    wanted = [name for word in block.words if word.startswith("needs=")
              for name in word[len("needs="):].split(",") if name]
    return [name for name in wanted if importlib.util.find_spec(name) is None]


def test_a_block_of_a_missing_extra_skips_the_rest_of_its_page(tmp_path):
    page = tmp_path / "docs" / "extra.md"
    page.parent.mkdir()
    page.write_text("```python\na = 1\n```\n\n<!-- needs=robodyn_no_such_package -->\n```python\n"
                    "import robodyn_no_such_package\n```\n\n```python\nb = 1 / 0\n```\n")
    with pytest.raises(pytest.skip.Exception) as skipped:
        run_page(page, root=tmp_path)
    assert "needs robodyn_no_such_package" in str(skipped.value)


def test_a_broken_block_fails_naming_its_page_and_line(tmp_path):
    page = tmp_path / "docs" / "broken.md"
    page.parent.mkdir()
    page.write_text("# A page\n\n```python\na = 1\n```\n\nText.\n\n```python\nb = a + 1\n"
                    "c = b / 0\n```\n")
    with pytest.raises(pytest.fail.Exception) as failed:
        run_page(page, root=tmp_path)
    message = str(failed.value)
    assert message.startswith("docs/broken.md, the block at line 9 failed")
    assert 'File "docs/broken.md", line 11' in message and "ZeroDivisionError" in message


def _readme_commands() -> list[tuple[str, str]]:
    """``(command, comment)`` of each line of the README's command-line tour."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text.split("## The command line", 1)[1].split("\n## ", 1)[0]
    lines = [line.strip() for line in section.splitlines() if line.startswith("    robodyn ")]
    return [tuple(part.strip() for part in line.partition("  #")[::2]) for line in lines]


@pytest.mark.slow
def test_the_readme_command_line_tour_runs(tmp_path, monkeypatch, capsys):
    """Each command of the README's tour runs as written (in-process, from a folder holding
    the two files it names: measured torques of the planar 2R arm and the UR5's URDF) and
    ends as its comment says: a student's wrong answer with exit status 1, the rest 0."""
    import shlex
    import shutil

    import numpy as np

    import robodyn as rd
    from robodyn.cli import main

    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.chdir(tmp_path)
    robot = rd.load("planar-2r")
    q, qd, qdd = np.random.default_rng(0).normal(size=(3, 300, 2))
    table = np.hstack([q, qd, qdd, robot.inverse_dynamics(q, qd, qdd)])
    np.savetxt("data.csv", table, delimiter=",", comments="",
               header="q1,q2,qd1,qd2,qdd1,qdd2,tau1,tau2")
    try:
        shutil.copy(rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf"),
                    "ur5_robot.urdf")
    except rd.ModelError:
        pass  # example-robot-data is a test dependency; without it that line is skipped
    commands = _readme_commands()
    assert len(commands) >= 8 and commands[0][0] == "robodyn models"
    for command, comment in commands:
        argv = shlex.split(command)[1:]
        if "ur5_robot.urdf" in argv and not Path("ur5_robot.urdf").exists():
            continue
        status = main(argv)
        out, err = capsys.readouterr()
        expected = 1 if "mistakes" in comment else 0
        assert status == expected, f"README: {command}: exit {status}\n{err[-2000:]}"
        assert out.strip() or err.strip(), f"README: {command}: printed nothing"
