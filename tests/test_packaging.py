"""The package as a user gets it: the wheel holds what robodyn needs (the built-in models,
the license) and nothing of the tests, and no ``py.typed`` (robodyn does not pass a type
checker yet, so it does not claim to), its metadata declare the license as an
SPDX expression (setuptools warns about none of it), and, installed into a fresh virtual
environment without extras, every command runs.

The wheel is built from a copy of the sources (``src/``, ``pyproject.toml``, README,
LICENSE) with pip's build isolation, which brings setuptools >= 77 from the package index.
The install test downloads NumPy, SciPy, SymPy, Matplotlib and Numba into a new
environment and runs each command there once (about a minute on a 2-core machine, half of
it pip's): the only test of the dependencies the wheel declares, so it runs in CI, slow.
"""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

import robodyn as rd

ROOT = Path(__file__).resolve().parent.parent
#: A warning about the license metadata, as setuptools words them ("`project.license` as a
#: TOML table is deprecated", "License classifiers are deprecated").
LICENSE_WARNING = re.compile(r"(?i)licen[cs]e.*deprecat|deprecat.*licen[cs]e")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """``(wheel path, the build's output)``; pip's ``-v`` shows the build backend's output."""
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(ROOT / "src", source / "src",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, source / name)
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-v", "-w",
                           str(out), str(source)], capture_output=True, text=True, timeout=600)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    (wheel,) = out.glob("robodyn-*.whl")
    return wheel, log


def test_the_build_says_nothing_about_the_license(built):
    _, log = built
    assert not [line for line in log.splitlines() if LICENSE_WARNING.search(line)]


def test_the_wheel_holds_the_models_the_license_and_no_tests(built):
    wheel, _ = built
    names = zipfile.ZipFile(wheel).namelist()
    info = f"robodyn-{rd.__version__}.dist-info"
    assert f"{info}/licenses/LICENSE" in names
    assert "robodyn/py.typed" not in names
    models = sorted(Path(n).stem for n in names if n.startswith("robodyn/model/builtin/")
                    and n.endswith((".yaml", ".xml")))
    assert models == rd.models.names() and "puma560" in models
    assert not [n for n in names if n.split("/")[0] in ("tests", "docs", "benchmarks")
                or "conftest" in n or "/test_" in n]
    license_text = zipfile.ZipFile(wheel).read(f"{info}/licenses/LICENSE").decode()
    assert license_text.startswith("MIT License") and "the robodyn authors" in license_text


def test_the_metadata_carry_version_license_classifiers_and_urls(built):
    wheel, _ = built
    info = f"robodyn-{rd.__version__}.dist-info"
    meta = email.parser.Parser().parsestr(zipfile.ZipFile(wheel).read(f"{info}/METADATA")
                                          .decode())
    assert meta["Name"] == "robodyn" and meta["Version"] == rd.__version__
    assert meta["License-Expression"] == "MIT" and meta["License-File"] == "LICENSE"
    assert meta["Metadata-Version"] >= "2.4"
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers
    assert not [c for c in classifiers if c.startswith("License ::")]  # the SPDX field says it
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Issues", "Changelog"} <= set(urls)
    # the README is the long description, and its picture is an absolute URL (an index page
    # has no docs/ folder to resolve a relative one)
    pictures = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", meta.get_payload())
    assert pictures and all(p.startswith("https://") for p in pictures)


#: One run of every command, with tiny inputs: ``(arguments, expected exit status)``.
def _commands(work: Path) -> list[tuple[list[str], int]]:
    return [
        (["--version"], 0),
        (["models"], 0),
        (["models", "pendulum"], 0),
        (["demo", "pendulum", "--samples", "3"], 0),
        (["derive", "pendulum", "--steps"], 0),
        (["simulate", "pendulum", "--q0", "0.5", "--duration", "0.5", "--dt", "0.01",
          "--method", "rk4", "--save", str(work / "sim.csv")], 0),
        (["torques", "pendulum", "--from", "0", "--to", "1", "--duration", "1"], 0),
        (["energy", "pendulum", "--from", "0", "--to", "1", "--duration", "1"], 0),
        (["export", "pendulum", "--lang", "c", "--out", str(work / "gen")], 0),
        (["export", "pendulum", "--urdf", "-"], 0),
        (["check", "pendulum", "--g", "[g*l*m*sin(q1)]"], 0),
        (["check", "pendulum", "--g", "[g*l*m*cos(q1)]"], 1),
        (["identify", "pendulum", str(work / "data.csv")], 0),
        (["dataset", "pendulum", "--samples", "20", "--chunk", "10", "--out",
          str(work / "data.npz")], 0),
        (["exercise", "--dof", "1", "--seed", "1", "--out", str(work / "ex")], 0),
    ]


#: Measured samples for ``identify``, written by the installed robodyn itself.
_DATA = """
import numpy as np, robodyn as rd
robot = rd.load("pendulum")
rng = np.random.default_rng(0)
q, qd, qdd = rng.normal(size=(3, 200, 1))
tau = robot.inverse_dynamics(q, qd, qdd)
cols = np.hstack([q, qd, qdd, tau])
np.savetxt({path!r}, cols, delimiter=",", header="q1,qd1,qdd1,tau1", comments="")
"""


def test_the_wheel_installs_without_extras_and_every_command_runs(built, tmp_path):
    wheel, _ = built
    # nothing of this checkout or its environment reaches the new one (a PYTHONPATH to src/
    # would make pip think robodyn is installed already)
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "ROBODYN", "VIRTUAL_ENV"))}
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(env_dir)], check=True, timeout=300,
                   env=env)
    python = env_dir / "bin" / "python"
    proc = subprocess.run([str(python), "-m", "pip", "install", str(wheel)], env=env,
                          capture_output=True, text=True, timeout=1800)
    log = proc.stdout + proc.stderr
    assert proc.returncode == 0, log[-3000:]
    assert not [line for line in log.splitlines() if LICENSE_WARNING.search(line)]
    # without extras: none of the optional or test packages came along
    listed = subprocess.run([str(python), "-m", "pip", "list", "--format=freeze"],
                            capture_output=True, text=True, check=True, env=env).stdout.lower()
    assert re.search(rf"^robodyn=={re.escape(rd.__version__)}$", listed, re.MULTILINE)
    for extra in ("dask", "pytest", "pin", "mkdocs"):
        assert not re.search(rf"^{extra}==", listed, re.MULTILINE), extra

    env["ROBODYN_CACHE_DIR"] = str(tmp_path / "cache")
    env["MPLBACKEND"] = "Agg"
    work = tmp_path / "work"
    work.mkdir()
    subprocess.run([str(python), "-c", _DATA.format(path=str(work / "data.csv"))], env=env,
                   check=True, timeout=300, cwd=work)
    robodyn = env_dir / "bin" / "robodyn"
    runs = [([str(python), "-m", "robodyn", "--version"], 0)]
    runs += [([str(robodyn), *args], status) for args, status in _commands(work)]
    for argv, status in runs:
        done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=work,
                              timeout=300)
        shown = " ".join(Path(argv[0]).name if i == 0 else a for i, a in enumerate(argv))
        assert done.returncode == status, f"{shown}: exit {done.returncode}\n{done.stderr}"
        assert "Traceback" not in done.stderr, f"{shown}\n{done.stderr}"
        assert (done.stdout + done.stderr).strip(), f"{shown}: printed nothing"
    version = subprocess.run([str(robodyn), "--version"], capture_output=True, text=True,
                             env=env).stdout
    assert version.split() == ["robodyn", rd.__version__]
    assert (work / "gen").is_dir() and (work / "data.npz").is_file()
    assert (work / "ex" / "task" / "arm.yaml").is_file()
