"""``robodyn identify MODEL data.csv``: base parameters from measured motion and torques.

    robodyn identify planar-2r data.csv             estimates, standard errors, condition
    robodyn identify puma560 data.csv --physical    also a physically consistent fit
    robodyn identify planar-2r data.csv --format json

The CSV file has a header naming the columns q1..qn, qd1..qn, qdd1..qddn, tau1..taun
(other columns, such as t, are ignored; with ball or free joints q1..q{nq} hold the
quaternions x y z w, the rates qd1..qd{nv}); every value a plain decimal number (no 1_0,
nan, inf, 0x10); see robodyn.identification.read_csv. --physical prints the physically
consistent fit's RMS torque error beside that of least squares, with a warning when it
is much worse (the data may not be physical: check the torques' sign convention).
"""

from __future__ import annotations

import argparse
import sys

from .common import model_command


def add_identify_command(sub, parents) -> argparse.ArgumentParser:
    """Add the ``identify`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = model_command(sub, "identify", parents, __doc__,
                      help="identify the base dynamic parameters from a CSV of q, qd, qdd, tau",
                      description="Estimate the base parameters of a model (weighted least "
                                  "squares) from measured samples, with standard errors.")
    p.add_argument("data", metavar="DATA.csv", help="the samples (header q1.., qd1.., qdd1.., "
                   "tau1..)")
    p.add_argument("--physical", action="store_true",
                   help="also fit standard parameters with every link physically consistent")
    p.add_argument("--format", default="text", choices=("text", "json"), help="output format")
    p.set_defaults(func=_cmd_identify)
    return p


def _cmd_identify(args: argparse.Namespace) -> int:
    from ..identification.estimate import identify
    from .common import load_model

    robot = load_model(args.model, args)
    result = identify(robot, args.data, physical=args.physical)
    # strict JSON: a number that is not finite (the relative std of an estimate of 0) is null
    text = result.as_json() if args.format == "json" else str(result)
    sys.stdout.write(text + "\n")
    return 0


__all__ = ["add_identify_command"]
