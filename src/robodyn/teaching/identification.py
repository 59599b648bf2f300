"""Identification exercises (``robodyn exercise --identification``): measured torques of a
hidden arm, the student finds its base parameters; graded within a tolerance derived from
the noise.

The arm is drawn as :func:`~robodyn.teaching.exercise.make_exercise` draws it. Its torques
at ``samples`` random states (``q`` uniform in [-pi, pi] for a revolute joint, [0, 1] m for
a prismatic one, ``q'`` in [-1, 1], ``q''`` in [-2, 2]) are the inverse dynamics plus
Gaussian noise of standard deviation ``noise`` (N or N m): ``tau = Y_b(q, q', q'') pi_b +
e``, ``e ~ N(0, noise^2)`` (Gautier & Khalil's model of identification, Khalil & Dombre,
Modeling, Identification and Control of Robots, §12.4). The student gets ``data.csv`` and
``arm.yaml`` with the inertial values replaced by 1 (the regressor depends on the geometry
and ``g`` only, so the student's ``robot.regressor_base`` is the hidden arm's) and reports
``NAME = VALUE`` for each base parameter.

Tolerance. The ordinary least-squares estimate ``pi_hat = W^+ tau`` on the stacked base
regressor ``W`` misses the truth by ``pi_hat - pi_b ~ N(0, noise^2 (W^T W)^-1)``: its
standard deviation is ``sigma_k = noise sqrt(((W^T W)^-1)_kk)``. An answer is right when
``|given - true| <= TOL_SIGMAS sigma_k`` (4: a correct least-squares answer fails one
parameter with probability 6e-5) plus ``1e-9 (1 + |true|)`` for rounding.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from ..core.errors import InputError, excerpt

__all__ = ["write_identification", "grade_identification", "TOL_SIGMAS", "MAX_SAMPLES"]

#: How many standard deviations of the least-squares error a right answer may be off.
TOL_SIGMAS = 4.0
#: Most samples of the data (rows of data.csv).
MAX_SAMPLES = 100_000
_INERTIAL = re.compile(r"^(\s+)((?:m|lc|I)[A-Za-z]*\d+):\s*\S+\s*$")


def student_model(model_yaml: str) -> str:
    """The model file with its masses, centres of mass and inertias set to 1 (the hidden
    values removed): the same geometry, so the same regressor."""
    lines, inside = [], False
    for line in model_yaml.splitlines():
        if line and not line[0].isspace():
            inside = line.rstrip() == "values:"
        lines.append(_INERTIAL.sub(r"\1\2: 1.0", line) if inside else line)
    return ("# robodyn exercise --identification: the inertial values are placeholders (1);"
            " find them from data.csv\n" + "\n".join(lines) + "\n")


def write_identification(out: str | Path, *, dof: int = 2, joints: str | None = None,
                         seed: int = 0, samples: int = 200, noise: float = 0.05,
                         force: bool = False, option: str = "--out") -> list[Path]:
    """Write ``out/task/`` (``arm.yaml`` without the inertial values, ``data.csv``,
    ``task.md``) and ``out/solution/answer.json`` (the base parameters, their true
    values and tolerances); the paths written. The same arguments give the same files."""
    from ..codegen.export.files import check_files, prepare_folder, write_files
    from ..robot import load
    from .exercise import make_exercise

    if not 10 <= samples <= MAX_SAMPLES:
        raise InputError(f"samples: {samples} is not 10 to {MAX_SAMPLES:,}")
    if not (np.isfinite(noise) and 0 < noise <= 100):
        raise InputError(f"noise: {noise} is not a standard deviation in (0, 100] N (m)")
    ex = make_exercise(dof, joints, seed)
    task, solution = Path(out) / "task", Path(out) / "solution"
    check_files(["arm.yaml", "data.csv", "task.md"], task, force, option)
    check_files(["answer.json", "arm.yaml"], solution, force, option)
    prepare_folder(out, option)
    (hidden,) = write_files({"arm.yaml": ex.model_yaml}, solution, force=force, option=option)
    robot = load(hidden)
    rng = np.random.default_rng([seed, 33])
    kinds = [j.upper() for j in ex.joints]
    q = np.column_stack([rng.uniform(-np.pi, np.pi, samples) if k == "R"
                         else rng.uniform(0.0, 1.0, samples) for k in kinds])
    qd = rng.uniform(-1.0, 1.0, (samples, ex.dof))
    qdd = rng.uniform(-2.0, 2.0, (samples, ex.dof))
    tau = robot.inverse_dynamics(q, qd, qdd) + rng.normal(0.0, noise, (samples, ex.dof))
    base = robot.base_parameters()
    W = robot.regressor_base(q, qd, qdd).reshape(-1, base.count)
    sigma = noise * np.sqrt(np.diag(np.linalg.inv(W.T @ W)))
    names = list(base.base_names)
    key = {"kind": "identification", "model": ex.name, "seed": seed, "samples": samples,
           "noise": noise, "tol_sigmas": TOL_SIGMAS, "names": names,
           "values": [float(v) for v in base.values], "sigma": [float(s) for s in sigma],
           "combinations": [str(c) for c in base.combinations]}
    written = [hidden]
    written += write_files({"arm.yaml": student_model(ex.model_yaml),
                            "data.csv": _csv(q, qd, qdd, tau),
                            "task.md": _task(ex, names, base, samples, noise)}, task,
                           force=force, option=option)
    written += write_files({"answer.json": json.dumps(key, indent=2) + "\n"}, solution,
                           force=force, option=option)
    return written


def _csv(q, qd, qdd, tau) -> str:
    n = q.shape[1]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([f"{v}{i + 1}" for v in ("q", "qd", "qdd", "tau") for i in range(n)])
    for row in np.hstack([q, qd, qdd, tau]):
        writer.writerow([f"{x:.10g}" for x in row])
    return buf.getvalue()


def _task(ex, names, base, samples, noise) -> str:
    rows = "\n".join(f"| `{n}` | `{c}` |" for n, c in zip(names, base.combinations))
    return f"""# Identification exercise: {ex.name} (seed {ex.seed})

`data.csv` holds {samples} measured states of the arm of `arm.yaml` (its geometry is
right; its masses, centres of mass and inertias are placeholders) and the joint torques
measured there, with noise of standard deviation {noise:g} (N or N m).

Find the base parameters of the arm, the identifiable combinations of the standard ones
(`tau = Y_b(q, qd, qdd) pi_b`; `robot.regressor_base(q, qd, qdd)` gives `Y_b`):

| name | combination of the standard parameters |
|---|---|
{rows}

Hand in a text file with one line `NAME = VALUE` per base parameter. An answer counts when
it is within {TOL_SIGMAS:g} standard deviations of the least-squares estimate's error.
"""


_LINE = re.compile(r"^\s*([A-Za-z_][\w.]*)\s*=\s*(\S+)\s*$")


def read_identification(text: str, source: str) -> dict[str, float]:
    """``{name: value}`` of a submission's ``NAME = VALUE`` lines (``#`` comments)."""
    out: dict[str, float] = {}
    for k, line in enumerate(text.splitlines()[:10_000], 1):
        line = line.split("#", 1)[0]
        if not line.strip():
            continue
        m = _LINE.match(line)
        if not m:
            raise InputError(f"{source}, line {k}: not NAME = NUMBER")
        try:
            value = float(m.group(2))
        except ValueError:
            raise InputError(f"{source}, line {k}: {excerpt(m.group(2), 30)} is not a "
                             "number") from None
        if m.group(1) in out:
            raise InputError(f"{source}, line {k}: {m.group(1)} is given twice")
        out[m.group(1)] = value
    return out


def grade_identification(key: Mapping, submissions: Iterable[tuple[str, str | Path]]):
    """Rows (:class:`~.grade.Row`) of each submission: ``base parameters``, right and in
    all, the wrong ones named (``ZZ1R off by 7.2 sigma``), an unknown name as an error,
    a missing one ``unanswered``; a ``total`` row per file."""
    from .grade import MAX_SUBMISSION_BYTES, Row, read_limited

    names, values, sigma = key["names"], key["values"], key["sigma"]
    rows = []
    for name, path in submissions:
        try:
            given = read_identification(read_limited(Path(path), MAX_SUBMISSION_BYTES,
                                                    "submission", follow_links=False), name)
        except InputError as exc:
            rows += [Row(name, "base parameters", 0, len(names), error=str(exc)[:300]),
                     Row(name, "total", 0, len(names))]
            continue
        unknown = sorted(set(given) - set(names))
        notes = []
        right = 0
        for n, v, s in zip(names, values, sigma):
            if n not in given:
                notes.append(f"{n} unanswered")
                continue
            off = abs(given[n] - v)
            if off <= key.get("tol_sigmas", TOL_SIGMAS) * s + 1e-9 * (1 + abs(v)):
                right += 1
            else:
                notes.append(f"{n} off by {off / s:.1f} sigma")
        error = f"{', '.join(unknown)[:200]} not base parameters" if unknown else ""
        rows += [Row(name, "base parameters", right, len(names), "; ".join(notes), error),
                 Row(name, "total", right, len(names))]
    return rows
