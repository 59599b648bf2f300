"""``robodyn dataset MODEL --samples N --out FILE``: random states and their torques, written
chunk by chunk.

Each sample draws ``q`` uniformly within the joint limits (``Joint.limits`` where the
model gives them, else ``[-pi, pi]``) and ``qd``, ``qdd`` from a standard normal, and
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

import argparse
import sys

from ..motion.dataset import write_dataset
from ..motion.dataset_files import MAX_SEED
from .common import model_command


def add_dataset_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``dataset`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = model_command(sub, "dataset", parents, None,
                      help="write random states and their torques (npz or zarr), in chunks",
                      description=__doc__.split("\n\n", 1)[1])
    p.add_argument("--samples", type=int, required=True, metavar="N", help="number of states")
    p.add_argument("--out", required=True, metavar="FILE", help="data.npz or data.zarr")
    p.add_argument("--chunk", type=int, default=100_000, metavar="C",
                   help="samples per chunk (memory use is proportional; default 100000)")
    p.add_argument("--seed", type=int, default=0, help=f"random seed, 0 to {MAX_SEED} "
                   "(default 0)")
    p.add_argument("--mass-matrix", action="store_true", help="also store M(q)")
    p.set_defaults(func=_cmd_dataset)
    return p


def _cmd_dataset(args: argparse.Namespace) -> int:
    from .common import load_model

    robot = load_model(args.model, args)
    done = write_dataset(robot, args.out, args.samples, chunk=args.chunk, seed=args.seed,
                         mass_matrix=args.mass_matrix, model=args.model)
    print(f"robodyn: wrote {args.samples} states of {robot.name} to {args.out} "
          f"({done} chunks computed now)", file=sys.stderr)
    return 0
