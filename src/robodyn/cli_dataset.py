"""``robodyn dataset MODEL --samples N --out FILE``: random states and their torques, written
chunk by chunk.

Each sample draws ``q`` uniformly within the joint limits (``Joint.limits`` where the
model gives them, else ``[-pi, pi]``) and ``qd``, ``qdd`` from a standard normal, and
stores ``tau = inverse_dynamics(q, qd, qdd)`` (and ``M(q)`` with ``--mass-matrix``).
Chunk ``k`` is drawn from its own generator ``default_rng([seed, k])``, so the data do
not depend on how often the run was interrupted.

Output ``.npz``: chunks go to ``FILE.parts/`` (one ``chunk-NNNNNN.npz`` each, written
atomically, and ``manifest.json`` with the settings); once all are there they are
streamed into one ``.npz`` (``np.load`` reads it) and the directory is removed.
Output ``.zarr`` (needs the ``zarr`` package): one array per quantity, chunked like the
run, and the finished chunks listed in the group's attributes. Either way a run that
was interrupted picks up where it stopped (finished chunks are skipped), and memory is
bounded by the chunk size (``--chunk``, default 100 000 samples).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

from .errors import InputError, RobodynError

FORMAT = "robodyn-dataset-1"


def add_dataset_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``dataset`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = sub.add_parser("dataset", parents=parents,
                       help="write random states and their torques (npz or zarr), in chunks",
                       description=__doc__.split("\n\n", 1)[1])
    p.add_argument("model", metavar="MODEL",
                   help="a built-in model name, a YAML model file or a URDF file")
    p.add_argument("--samples", type=int, required=True, metavar="N", help="number of states")
    p.add_argument("--out", required=True, metavar="FILE", help="data.npz or data.zarr")
    p.add_argument("--chunk", type=int, default=100_000, metavar="C",
                   help="samples per chunk (memory use is proportional; default 100000)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--mass-matrix", action="store_true", help="also store M(q)")
    p.set_defaults(func=_cmd_dataset, models_of=lambda a: [a.model], command_parser=p)
    return p


def _cmd_dataset(args: argparse.Namespace) -> int:
    from .cli import load_model  # here: cli imports this module

    robot = load_model(args.model, args)
    done = write_dataset(robot, args.out, args.samples, chunk=args.chunk, seed=args.seed,
                         mass_matrix=args.mass_matrix, progress=sys.stderr.isatty(),
                         model=args.model)
    print(f"robodyn: wrote {args.samples} states of {robot.name} to {args.out} "
          f"({done} chunks computed now)", file=sys.stderr)
    return 0


def sample_chunk(robot, k: int, size: int, seed: int, mass_matrix: bool) -> dict:
    """Chunk ``k`` of ``size`` states (its own generator ``default_rng([seed, k])``)."""
    rng = np.random.default_rng([seed, k])
    n = robot.dof
    low, high = np.full(n, -math.pi), np.full(n, math.pi)
    for j, link in enumerate(robot.numeric_chain.links):
        limits = link.joint.limits
        if limits is not None and len(limits) >= 2:
            lo, hi = float(limits[0]), float(limits[1])
            if math.isfinite(lo) and math.isfinite(hi) and lo < hi:
                low[j], high[j] = lo, hi
    q = rng.uniform(low, high, size=(size, n))
    qd = rng.standard_normal((size, n))
    qdd = rng.standard_normal((size, n))
    out = {"q": q, "qd": qd, "qdd": qdd, "tau": robot.inverse_dynamics(q, qd, qdd)}
    if mass_matrix:
        out["M"] = robot.mass_matrix(q)
    return out


def write_dataset(robot, out, samples: int, chunk: int = 100_000, seed: int = 0,
                  mass_matrix: bool = False, progress: bool = False, model: str = "",
                  on_chunk: Callable[[int], None] | None = None) -> int:
    """Write ``samples`` random states of ``robot`` to ``out`` (module docstring); return
    how many chunks were computed by this call (finished ones are skipped).
    ``on_chunk(k)`` is called after chunk ``k`` is safely written."""
    if isinstance(samples, bool) or not isinstance(samples, int) or samples < 1:
        raise InputError(f"--samples: expected a positive integer, got {samples!r:.40}")
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InputError(f"--chunk: expected a positive integer, got {chunk!r:.40}")
    chunk = min(chunk, samples)
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".npz", ".zarr"):
        raise InputError(f"--out {str(out)[:80]!r}: give a file name ending in .npz or .zarr")
    count = math.ceil(samples / chunk)
    names = ["q", "qd", "qdd", "tau"] + (["M"] if mass_matrix else [])
    shapes = {name: (robot.dof, robot.dof) if name == "M" else (robot.dof,) for name in names}
    manifest = {"format": FORMAT, "model": model or robot.name, "robot": robot.name,
                "dof": robot.dof, "samples": samples, "chunk": chunk, "seed": seed,
                "arrays": names}
    store = (_ZarrStore if suffix == ".zarr" else _NpzStore)(out, manifest, shapes)
    todo = [k for k in range(count) if not store.has(k)]
    bar = _Progress(count, count - len(todo)) if progress else None
    for k in todo:
        size = min(chunk, samples - k * chunk)
        store.write(k, sample_chunk(robot, k, size, seed, mass_matrix))
        if bar:
            bar.step()
        if on_chunk is not None:
            on_chunk(k)
    if bar:
        bar.close()
    store.finish(count)
    return len(todo)


def _mismatch(out: Path, old: dict, new: dict) -> RobodynError:
    diff = [f"{key} {old.get(key)!r:.40} (now {new[key]!r:.40})" for key in new
            if old.get(key) != new[key]]
    return InputError(f"--out {str(out)[:80]!r} holds a partial dataset written with other "
                      f"settings: {', '.join(diff)}; rerun with the same settings to resume, "
                      "or delete it to start afresh")


class _NpzStore:
    """Chunk files in ``OUT.parts/``, streamed into ``OUT`` at the end."""

    def __init__(self, out: Path, manifest: dict, shapes: dict):
        self.out, self.shapes, self.manifest = out, shapes, manifest
        self.parts = out.with_name(out.name + ".parts")
        if out.exists():
            raise InputError(f"--out {str(out)[:80]!r} already exists; delete it to write "
                             "the dataset again")
        self.parts.mkdir(parents=True, exist_ok=True)
        path = self.parts / "manifest.json"
        if path.exists():
            try:
                old = json.loads(path.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                old = {}
            if old != manifest:
                raise _mismatch(out, old if isinstance(old, dict) else {}, manifest)
        else:
            _atomic_write(path, lambda f: f.write(json.dumps(manifest, indent=1).encode()))

    def _chunk_path(self, k: int) -> Path:
        return self.parts / f"chunk-{k:06d}.npz"

    def has(self, k: int) -> bool:
        return self._chunk_path(k).is_file()

    def write(self, k: int, arrays: dict) -> None:
        _atomic_write(self._chunk_path(k), lambda f: np.savez(f, **arrays))

    def finish(self, count: int) -> None:
        samples = self.manifest["samples"]

        def stream(handle):
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED,
                                 allowZip64=True) as zf:
                for name, shape in self.shapes.items():
                    with zf.open(f"{name}.npy", "w", force_zip64=True) as member:
                        header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float64)),
                                  "fortran_order": False, "shape": (samples, *shape)}
                        np.lib.format.write_array_header_2_0(member, header)
                        for k in range(count):
                            with np.load(self._chunk_path(k)) as part:
                                member.write(np.ascontiguousarray(part[name]).tobytes())

        _atomic_write(self.out, stream)
        shutil.rmtree(self.parts)


class _ZarrStore:
    """One Zarr array per quantity; the finished chunks in the group's attributes."""

    def __init__(self, out: Path, manifest: dict, shapes: dict):
        try:
            import zarr  # noqa: PLC0415 - optional
        except ImportError:
            raise RobodynError(f"--out {str(out)[:80]!r}: writing .zarr needs the zarr "
                               "package (pip install zarr); or write a .npz") from None
        self.group = zarr.open_group(str(out), mode="a")
        old = self.group.attrs.get("robodyn")
        if old is not None and old != manifest:
            raise _mismatch(out, old, manifest)
        if old is None:
            create = getattr(self.group, "create_array", None) or self.group.create_dataset
            for name, shape in shapes.items():
                create(name, shape=(manifest["samples"], *shape),
                       chunks=(manifest["chunk"], *shape), dtype="f8", overwrite=True)
            self.group.attrs["robodyn"] = manifest
            self.group.attrs["robodyn_done"] = []
        self.done = set(self.group.attrs.get("robodyn_done", []))
        self.chunk = manifest["chunk"]

    def has(self, k: int) -> bool:
        return k in self.done

    def write(self, k: int, arrays: dict) -> None:
        start = k * self.chunk
        for name, value in arrays.items():
            self.group[name][start:start + len(value)] = value
        self.done.add(k)
        self.group.attrs["robodyn_done"] = sorted(self.done)

    def finish(self, count: int) -> None:
        pass


def _atomic_write(path: Path, write: Callable) -> None:
    """Write ``path`` through a temporary file in its directory, renamed when complete."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


class _Progress:
    """A one-line progress bar on standard error."""

    def __init__(self, total: int, done: int):
        self.total, self.done, self.start = total, done, time.monotonic()
        self._draw()

    def step(self) -> None:
        self.done += 1
        self._draw()

    def _draw(self) -> None:
        width = 30
        fill = int(width * self.done / self.total)
        elapsed = time.monotonic() - self.start
        sys.stderr.write(f"\r  [{'#' * fill}{'.' * (width - fill)}] {self.done}/{self.total} "
                         f"chunks, {elapsed:.0f} s")
        sys.stderr.flush()

    def close(self) -> None:
        sys.stderr.write("\n")
