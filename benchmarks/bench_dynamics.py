"""Batched robodyn vs Pinocchio in a Python loop, side by side in one process.

The Panda (7 DOF, fingers locked) from example-robot-data's URDF, loaded by both
libraries from the same file; the same random states; medians of repeats.
Reported: robodyn's cost per sample of one batched call of N states, Pinocchio's
cost per call in a Python loop over the same states, and their ratio (the
issue's targets: <= 0.5). Then single-state calls (targets: <= 5x Pinocchio),
and the memory a batch of 10 000 000 states holds beyond its inputs and output.

    make bench          # or: python benchmarks/bench_dynamics.py [--n 100000] [--no-memory]
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="batch size (default 100000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-memory", action="store_true", help="skip the 10M-state memory run")
    args = parser.parse_args()

    import pinocchio as pin

    urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    robot = rd.load(urdf, tip="panda_hand")
    full = pin.buildModelFromUrdf(str(urdf))
    locked = [full.getJointId(name) for name in robot.locked]
    model = pin.buildReducedModel(full, locked, pin.neutral(full))
    data = model.createData()
    assert model.nq == robot.dof == 7

    n = args.n
    rng = np.random.default_rng(0)
    q = rng.uniform(model.lowerPositionLimit, model.upperPositionLimit, size=(n, 7))
    qd, qdd = rng.normal(size=(2, n, 7))
    tau = robot.inverse_dynamics(q, qd, qdd)
    friction = robot.friction_torques(qd)

    def loop(fn):
        def run():
            for k in range(n):
                fn(k)
        return run

    cases = [
        ("inverse_dynamics", "rnea", lambda: robot.inverse_dynamics(q, qd, qdd),
         loop(lambda k: pin.rnea(model, data, q[k], qd[k], qdd[k]))),
        ("mass_matrix", "crba", lambda: robot.mass_matrix(q),
         loop(lambda k: pin.crba(model, data, q[k]))),
        ("forward_dynamics", "aba", lambda: robot.forward_dynamics(q, qd, tau),
         loop(lambda k: pin.aba(model, data, q[k], qd[k], tau[k] - friction[k]))),
        ("coriolis_matrix", "computeCoriolisMatrix", lambda: robot.coriolis_matrix(q, qd),
         loop(lambda k: pin.computeCoriolisMatrix(model, data, q[k], qd[k]))),
        ("gravity_torques", "computeGeneralizedGravity", lambda: robot.gravity_torques(q),
         loop(lambda k: pin.computeGeneralizedGravity(model, data, q[k]))),
    ]

    # same robot, same numbers: a spot check before timing anything
    k = n // 2
    spot = np.abs(robot.inverse_dynamics(q[k], qd[k], qdd[k]) - friction[k]
                  - pin.rnea(model, data, q[k], qd[k], qdd[k])).max()
    print(f"Panda (7 DOF, fingers locked), N = {n}, same states in both; "
          f"|tau_robodyn - tau_pinocchio| = {spot:.1e}\n")

    print("| function | robodyn batched [us/sample] | Pinocchio loop [us/call] | ratio | target |")
    print("|---|---|---|---|---|")
    for ours_name, pin_name, ours, theirs in cases:
        ours()  # compile (or load from the disk cache) before timing
        t_ours = median_time(ours, args.repeats) / n
        t_pin = median_time(theirs, max(1, args.repeats // 2)) / n
        print(f"| {ours_name} vs pin.{pin_name} | {t_ours * 1e6:.3f} | {t_pin * 1e6:.3f} | "
              f"{t_ours / t_pin:.2f} | <= 0.5 |")

    print("\n| single state | robodyn [us] | Pinocchio [us] | ratio | target |")
    print("|---|---|---|---|---|")
    q0, qd0, qdd0, tau0 = q[0].copy(), qd[0].copy(), qdd[0].copy(), tau[0].copy()
    calls = 20000
    singles = [
        ("inverse_dynamics vs rnea", lambda: robot.inverse_dynamics(q0, qd0, qdd0),
         lambda: pin.rnea(model, data, q0, qd0, qdd0)),
        ("forward_dynamics vs aba", lambda: robot.forward_dynamics(q0, qd0, tau0),
         lambda: pin.aba(model, data, q0, qd0, tau0)),
    ]
    for label, ours, theirs in singles:
        t_ours = median_time(lambda f=ours: [f() for _ in range(calls)], args.repeats) / calls
        t_pin = median_time(lambda f=theirs: [f() for _ in range(calls)], args.repeats) / calls
        print(f"| {label} | {t_ours * 1e6:.2f} | {t_pin * 1e6:.2f} | {t_ours / t_pin:.1f}x "
              f"| <= 5x |")

    if not args.no_memory:
        big = 10_000_000
        qb = np.random.default_rng(1).normal(size=(big, 7))
        qdb = np.zeros((big, 7))
        tracemalloc.start()
        start = time.perf_counter()
        out = robot.inverse_dynamics(qb, qdb, qdb)
        elapsed = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        extra = peak - out.nbytes
        print(f"\nN = {big:,} states, inverse dynamics: {elapsed:.2f} s; memory allocated "
              f"beyond the inputs: {peak / 2**20:.0f} MB, of which the output is "
              f"{out.nbytes / 2**20:.0f} MB and temporaries {extra / 2**20:.1f} MB")


if __name__ == "__main__":
    main()
