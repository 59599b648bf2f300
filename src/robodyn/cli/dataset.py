"""``robodyn dataset MODEL --samples N --out FILE``: random states and their torques, written
chunk by chunk (the job is :func:`robodyn.motion.dataset.dataset`, whose module docstring is
this command's help)."""

from __future__ import annotations

import argparse
import sys

from ..motion import dataset as job
from ..motion.dataset import write_dataset
from ..motion.dataset_files import MAX_SEED
from .common import integer_between, model_command


def _count(text: str) -> int:
    """An argparse type: a whole number, ``1e6`` read as 1000000 (the job checks the
    range and names the option)."""
    try:
        return int(text)
    except ValueError:
        return integer_between(text, -(10**18), 10**18)


def add_dataset_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``dataset`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = model_command(sub, "dataset", parents, None,
                      help="write random states and their torques (npz or zarr), in chunks",
                      description=job.__doc__.split("\n\n", 1)[1])
    p.add_argument("--samples", type=_count, required=True, metavar="N",
                   help="number of states (1e6 is read as 1000000)")
    p.add_argument("--out", required=True, metavar="FILE", help="data.npz or data.zarr")
    p.add_argument("--chunk", type=_count, default=100_000, metavar="C",
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
