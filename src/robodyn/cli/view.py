"""``robodyn view MODEL``: the arm in a browser (viser, ``pip install 'robodyn[viewer]'``).

    robodyn view puma560                            the arm at q = 0, a slider per joint
    robodyn view planar-2r --q 0.5,-0.3             at these joint values
    robodyn simulate planar-2r --q0 1,0 --save run.csv && robodyn view planar-2r --sim run.csv

The view is served on http://127.0.0.1:PORT only (default 8080, --port) until Ctrl-C or
--timeout seconds. It draws the links, the link frames, the centres of mass and the inertia
ellipsoids; --sim replays a CSV with columns t, q1.. (what simulate --save writes) with a
time slider and a play button. Write a first negative value as --q=-0.5,0.3.
"""

from __future__ import annotations

import argparse
import math
import sys

from ..core.errors import InputError
from .common import model_command


def add_view_command(sub, parents) -> argparse.ArgumentParser:
    """Add the ``view`` command to the sub-parsers ``sub`` of ``robodyn``."""
    from .motion import numbers

    p = model_command(sub, "view", parents, __doc__,
                      help="the arm in a browser: joint sliders, playback of a simulation",
                      description="Serve a 3D view of a model on 127.0.0.1 (needs viser: "
                                  "pip install 'robodyn[viewer]').")
    p.add_argument("--q", type=numbers, metavar="Q", help="joint values, one per joint "
                   "(default 0, or the first sample of --sim)")
    p.add_argument("--sim", metavar="RUN.csv", help="a motion to replay: a CSV with columns "
                   "t, q1.. (robodyn simulate --save)")
    p.add_argument("--port", type=_port, default=8080, help="the port on 127.0.0.1 "
                   "(default 8080)")
    p.add_argument("--timeout", type=_seconds, default=None, metavar="SECONDS",
                   help="stop after this many seconds (default: run until Ctrl-C)")
    p.add_argument("--no-inertia", action="store_true", help="draw no inertia ellipsoids")
    p.add_argument("--no-frames", action="store_true", help="draw no link frames")
    p.add_argument("--manipulability", action="store_true",
                   help="draw the end effector's kinematic (blue) and dynamic (red) "
                        "manipulability ellipsoids")
    p.set_defaults(func=_cmd_view)
    return p


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a port number") from None
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"{value} is not a port from 1 to 65535")
    return value


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a positive number of seconds")
    return value


def _cmd_view(args: argparse.Namespace) -> int:
    from ..model.configuration import layout
    from ..plot.viewer import show
    from .common import load_model

    robot = load_model(args.model, args)
    q = None
    if args.q is not None:
        if len(args.q) != robot.nq:
            what = (f"one per joint of {robot.name}" if robot.nq == robot.dof
                    else f"{robot.name}'s nq: {layout(robot.chain, velocity=False)}")
            raise InputError(f"--q: expected {robot.nq} numbers ({what}), got {len(args.q)}")
        q = args.q
    with show(robot, q, sim=args.sim, port=args.port, frames=not args.no_frames,
              inertia=not args.no_inertia, manipulability=args.manipulability) as viewer:
        how = f"for {args.timeout:g} s" if args.timeout else "until Ctrl-C"
        for note in viewer.notes:
            print(f"robodyn: note: {note}", file=sys.stderr)
        print(f"robodyn: viewing {robot.name} at {viewer.url} ({how})", file=sys.stderr,
              flush=True)
        viewer.wait(args.timeout)
    return 0


__all__ = ["add_view_command"]
