"""Datasets of random states and their torques, written chunk by chunk (:func:`dataset`;
the command ``robodyn dataset MODEL --samples N --out FILE``).

Each sample draws ``q`` uniformly within the joint limits (``Joint.limits`` where the
model gives them, else ``[-pi, pi]``; a ball or free joint's orientation uniformly on
SO(3) and a free joint's position in the cube ``[-1, 1]^3`` m:
:func:`robodyn.model.configuration.random_configuration`; ``q`` then has ``nq`` values)
and ``qd``, ``qdd`` from a standard normal, and
stores ``tau = inverse_dynamics(q, qd, qdd)`` (and ``M(q)`` with ``--mass-matrix``).
Chunk ``k`` is drawn from its own generator ``default_rng([seed, k])``, so the data do
not depend on how often the run was interrupted.

Output ``.npz``: chunks go to ``FILE.parts/``: one ``chunk-NNNNNN.npz`` each and, once
it is complete, its record ``chunk-NNNNNN.json`` (its arrays' shapes and dtypes and the
sha256 of its bytes), both written atomically, beside ``manifest.json`` with the
settings. A resumed run checks every finished chunk against its record and computes a
bad one again. Once all are there they are streamed into one ``.npz`` (``np.load``
reads it), which is read back and checked before the parts are deleted. A lock in the
parts directory keeps a second run out of the same output.
Output ``.zarr`` (needs the ``zarr`` package): one array per quantity, chunked like the
run, and the finished chunks listed in the group's attributes. Either way a run that
was interrupted picks up where it stopped (finished chunks are skipped), and memory is
bounded by the chunk size (``--chunk``, default 100 000 samples, at most what half the
free memory holds); the free disk space is checked before the first chunk.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from ..core.errors import InputError, excerpt
from ..core.progress import ProgressOption, check_progress, tracker
from ..model.configuration import random_configuration, sampling_box
from .dataset_files import (
    FORMAT,
    MAX_SEED,
    NpzStore,
    ZarrStore,
    check_memory,
    os_error,
    quote_path,
)

_F8 = np.dtype(np.float64)


def dataset(robot, out, samples: int, *, chunk: int = 100_000, seed: int = 0,
            mass_matrix: bool = False, progress: ProgressOption = None) -> int:
    """Write ``samples`` random states of ``robot`` and their torques to ``out`` (a
    ``.npz`` or a ``.zarr``, the module docstring says what they hold): ``q`` uniform in the
    joint limits (else ``[-pi, pi]``), ``qd`` and ``qdd`` standard normal, ``tau =
    robot.inverse_dynamics(q, qd, qdd)``, and ``M(q)`` with ``mass_matrix``; ``chunk``
    samples at a time, chunk ``k`` from its own generator ``default_rng([seed, k])``, so an
    interrupted run called again picks up where it stopped and gives the same data. Returns
    how many chunks this call computed. ``progress`` as in :func:`robodyn.simulate`.

    A bad argument, a chunk too large for the free memory, a dataset too large for the
    free disk, a second run into the same output, a partial dataset of other settings or a
    file robodyn did not write at ``out`` is an :class:`~robodyn.InputError` saying so,
    before anything is written.

    >>> import robodyn as rd, numpy as np, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "d.npz")
    >>> robot = rd.load("planar-2r")
    >>> rd.dataset(robot, path, 50, chunk=20, progress=False)
    3
    >>> data = np.load(path)
    >>> bool(np.allclose(robot.inverse_dynamics(data["q"], data["qd"], data["qdd"]), data["tau"]))
    True
    """
    return write_dataset(robot, out, samples, chunk=chunk, seed=seed, mass_matrix=mass_matrix,
                         progress=progress)


def sample_chunk(robot, k: int, size: int, seed: int, mass_matrix: bool) -> dict:
    """Chunk ``k`` of ``size`` states (its own generator ``default_rng([seed, k])``)."""
    rng = np.random.default_rng([seed, k])
    n = robot.dof
    q = random_configuration(robot.numeric_chain, rng, size)
    qd = rng.standard_normal((size, n))
    qdd = rng.standard_normal((size, n))
    out = {"q": q, "qd": qd, "qdd": qdd, "tau": robot.inverse_dynamics(q, qd, qdd)}
    if mass_matrix:
        out["M"] = robot.mass_matrix(q)
    return out


def _dynamics_probe(robot) -> list[float]:
    """What the data depend on besides the settings, as numbers: the sampling range and
    the torques at three fixed states (so a changed model file is noticed on resume)."""
    low, high = sampling_box(robot.numeric_chain)
    x = np.linspace(-1.0, 1.0, 3 * robot.dof).reshape(3, robot.dof)
    q = (np.sin(3 * x) if robot.numeric_chain.single_valued
         else random_configuration(robot.numeric_chain, np.random.default_rng(0), 3))
    tau = robot.inverse_dynamics(q, np.cos(2 * x), x)
    return [float(v) for v in np.concatenate([low, high, tau.ravel()])]


def write_dataset(robot, out, samples: int, chunk: int = 100_000, seed: int = 0,
                  mass_matrix: bool = False, progress: ProgressOption = None, model: str = "",
                  on_chunk: Callable[[int], None] | None = None) -> int:
    """Write ``samples`` random states of ``robot`` to ``out`` (module docstring); return
    how many chunks were computed by this call (finished ones are skipped).
    ``on_chunk(k)`` is called after chunk ``k`` is safely written. ``progress``
    (:mod:`robodyn.core.progress`: a bar on a terminal by default, ``False`` for none, or a
    callable ``(done, total, label)``) counts the chunks (``"dataset"``, the finished ones
    included), then the ``.npz`` merge's array pieces written and read back (``"merging"``).

    Every setting is checked before anything is written: a bad one, a chunk too large for
    the free memory, a dataset too large for the free disk space, a second run into the
    same output, or a partial dataset written with other settings is an
    :class:`~robodyn.InputError` naming the option; so is a file that cannot be written.
    """
    for option, value in (("--samples", samples), ("--chunk", chunk)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise InputError(f"{option}: expected a positive integer, got {excerpt(value, 40)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise InputError(f"--seed: expected an integer from 0 to 2**64 - 1, got "
                         f"{excerpt(seed, 40)}")
    check_progress(progress)
    chunk = min(chunk, samples)
    if not isinstance(out, (str, os.PathLike)):
        raise InputError(f"--out: expected a file name (str or Path), got {excerpt(out, 40)}")
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".npz", ".zarr"):
        raise InputError(f"--out {quote_path(out)}: give a file name ending in .npz or .zarr")
    names = ["q", "qd", "qdd", "tau"] + (["M"] if mass_matrix else [])
    shapes = {name: (robot.dof, robot.dof) if name == "M" else (robot.dof,) for name in names}
    shapes["q"] = (robot.nq,)  # quaternions of ball and free joints
    row_bytes = _F8.itemsize * sum(math.prod(shape) for shape in shapes.values())
    check_memory(chunk, row_bytes)
    count = -(-samples // chunk)
    manifest = {"format": FORMAT, "model": model or robot.name, "robot": robot.name,
                "dof": robot.dof, "samples": samples, "chunk": chunk, "seed": seed,
                "arrays": names, "dynamics": _dynamics_probe(robot)}
    try:
        store = (ZarrStore if suffix == ".zarr" else NpzStore)(out, manifest, shapes,
                                                                 row_bytes)
        bar = tracker(progress, count, "dataset")
        try:
            done = set(store.done)  # the finished chunks (checked); the rest is computed now
            bar.update(len(done))
            for k in range(count):
                if k in done:
                    continue
                size = min(chunk, samples - k * chunk)
                store.write(k, sample_chunk(robot, k, size, seed, mass_matrix))
                bar.advance()
                if on_chunk is not None:
                    on_chunk(k)
            bar.close()
            store.finish(count, progress)
        finally:
            bar.close(finished=False)  # the line ended on an error (nothing if closed)
            store.close()
    except OSError as exc:
        raise os_error(out, exc) from None
    return count - len(done)
