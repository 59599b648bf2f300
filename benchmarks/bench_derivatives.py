"""Derivatives of the dynamics: batched robodyn vs Pinocchio in a Python loop (issue 11).

The Panda (7 DOF, fingers locked, tip ``panda_hand``) from example-robot-data's URDF,
loaded by both libraries; the same random states; medians of repeats. Reported per
sample: robodyn's ``inverse_dynamics_derivatives`` and ``forward_dynamics_derivatives``
in one batched call of N states, Pinocchio's ``computeRNEADerivatives`` and
``computeABADerivatives`` per call in a Python loop over the same states, and their ratio
(target: <= 0.5); then robodyn's single-state call. Also the one-off cost of tracing
and compiling the two kernels (cached on disk afterwards).

    make bench          # or: python benchmarks/bench_derivatives.py [--n 100000]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="batch size (default 100000)")
    parser.add_argument("--loop", type=int, default=20_000,
                        help="states in Pinocchio's Python loop (default 20000)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()

    import pinocchio as pin

    urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    robot = rd.load(urdf, tip="panda_hand")
    full = pin.buildModelFromUrdf(str(urdf))
    locked = [full.getJointId(name) for name in robot.locked]
    model = pin.buildReducedModel(full, locked, pin.neutral(full))
    data = model.createData()
    assert model.nq == robot.dof == 7

    # one-off cost: trace + compile on a cold cache (a private temporary directory)
    cold = rd.load(urdf, tip="panda_hand")
    saved = os.environ.get("ROBODYN_CACHE_DIR")
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ROBODYN_CACHE_DIR"] = tmp
        for kind in ("inverse_dynamics_derivatives", "forward_dynamics_derivatives"):
            start = time.perf_counter()
            cold.runner.kernel(kind)
            print(f"{kind}: traced and compiled in {time.perf_counter() - start:.1f} s "
                  "(once; then loaded from the disk cache)")
    if saved is None:
        os.environ.pop("ROBODYN_CACHE_DIR", None)
    else:
        os.environ["ROBODYN_CACHE_DIR"] = saved

    n, m = args.n, min(args.loop, args.n)
    rng = np.random.default_rng(0)
    q = rng.uniform(model.lowerPositionLimit, model.upperPositionLimit, size=(n, 7))
    qd, qdd = rng.normal(size=(2, n, 7))
    tau = robot.inverse_dynamics(q, qd, qdd)
    robot.inverse_dynamics_derivatives(q[:2], qd[:2], qdd[:2])  # warm
    robot.forward_dynamics_derivatives(q[:2], qd[:2], tau[:2])

    def pin_loop(fn, third):
        def run():
            for k in range(m):
                fn(model, data, q[k], qd[k], third[k])
        return run

    rows = [
        ("inverse_dynamics_derivatives", lambda: robot.inverse_dynamics_derivatives(q, qd, qdd),
         pin_loop(pin.computeRNEADerivatives, qdd), "computeRNEADerivatives",
         lambda: robot.inverse_dynamics_derivatives(q[0], qd[0], qdd[0])),
        ("forward_dynamics_derivatives", lambda: robot.forward_dynamics_derivatives(q, qd, tau),
         pin_loop(pin.computeABADerivatives, tau), "computeABADerivatives",
         lambda: robot.forward_dynamics_derivatives(q[0], qd[0], tau[0])),
    ]
    threads = os.environ.get("ROBODYN_NUM_THREADS", "all")
    print(f"\nPanda, 7 DOF; robodyn batch of {n}, Pinocchio loop of {m} "
          f"({os.cpu_count()} CPUs; ROBODYN_NUM_THREADS={threads})")
    print(f"{'function':32s}{'robodyn/sample':>16s}{'pinocchio/call':>16s}{'ratio':>8s}"
          f"{'robodyn single':>16s}")
    for name, ours, theirs, pin_name, single in rows:
        t_ours = median_time(ours, args.repeats) / n
        t_pin = median_time(theirs, max(1, args.repeats // 2)) / m
        t_one = median_time(lambda s=single: [s() for _ in range(1000)], 3) / 1000
        print(f"{name:32s}{t_ours * 1e6:13.2f} us{t_pin * 1e6:13.2f} us{t_ours / t_pin:8.2f}"
              f"{t_one * 1e6:13.2f} us   (vs pin.{pin_name})")


if __name__ == "__main__":
    main()
