"""Batched Panda kernels of two robodyn trees, interleaved: ``A`` then ``B`` in turn.

Each round runs one fresh process per tree (``PYTHONPATH=<tree>/src``) that times the
batched ID, M, FD, C and g of the Panda (fingers locked, tip ``panda_hand``) on the
same random states, on all cores (the default thread count); the first round only
compiles (or loads the disk cache). Reported: per state, the median over rounds of
each process's median wall time and CPU time (all threads), and B's speed-up. On a
shared machine the wall times are noisy: read the CPU times beside them.

    python benchmarks/bench_kernels_ab.py OLD_TREE NEW_TREE [--rounds 7] [--n 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

import numpy as np

KINDS = ("inverse_dynamics", "mass_matrix", "forward_dynamics", "coriolis_matrix",
         "gravity_torques")

_CHILD = r'''
import json, sys, time
import numpy as np
import robodyn as rd
n, repeats = int(sys.argv[1]), int(sys.argv[2])
urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
robot = rd.load(urdf, tip="panda_hand")
rng = np.random.default_rng(0)
q = rng.uniform(-2.5, 2.5, size=(n, 7))
qd, qdd = rng.normal(size=(2, n, 7))
calls = {"inverse_dynamics": lambda: robot.inverse_dynamics(q, qd, qdd),
         "mass_matrix": lambda: robot.mass_matrix(q),
         "forward_dynamics": lambda: robot.forward_dynamics(q, qd, 10 * qdd),
         "coriolis_matrix": lambda: robot.coriolis_matrix(q, qd),
         "gravity_torques": lambda: robot.gravity_torques(q)}
result = {}
for kind, call in calls.items():
    call()
    wall, cpu = [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        call()
        wall.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    result[kind] = (float(np.median(wall)) / n, float(np.median(cpu)) / n)
print(json.dumps(result))
'''


def run(tree: str, n: int, repeats: int) -> dict:
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "src"))
    env.setdefault("ROBODYN_TIER", "compiled")  # the steady state (benchmarks/timing.py)
    out = subprocess.run([sys.executable, "-c", _CHILD, str(n), str(repeats)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--n", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    trees = {"A": args.old, "B": args.new}
    times = {label: [] for label in trees}
    for tree in trees.values():  # compile / warm the disk cache
        run(tree, 1000, 1)
    for r in range(args.rounds):
        for label, tree in (trees.items() if r % 2 == 0 else reversed(trees.items())):
            times[label].append(run(tree, args.n, args.repeats))
    print(f"Panda, N = {args.n}, {args.rounds} rounds (A, B alternating), medians; "
          f"A = {args.old}, B = {args.new}\n")
    print("| kernel | A wall [us/state] | B wall | A CPU [us/state] | B CPU | "
          "speed-up wall | speed-up CPU |")
    print("|---|---|---|---|---|---|---|")
    for kind in KINDS:
        a = np.median([t[kind] for t in times["A"]], axis=0) * 1e6
        b = np.median([t[kind] for t in times["B"]], axis=0) * 1e6
        print(f"| {kind} | {a[0]:.3f} | {b[0]:.3f} | {a[1]:.3f} | {b[1]:.3f} | "
              f"{a[0] / b[0]:.2f}x | {a[1] / b[1]:.2f}x |")


if __name__ == "__main__":
    main()
