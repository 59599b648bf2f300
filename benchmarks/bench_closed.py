"""Closed-chain forward dynamics (KKT, ``ClosedChain.forward_dynamics``): one call of ``N``
states (batched) against ``N`` calls of one state, per state, on the built-in closed
mechanisms. A spot check first: the batched accelerations equal the per-state ones.

Not yet here (issue 34): the Delta robot and Pinocchio's ``constraintDynamics`` in a
Python loop and in C++ (``/work/shared/bench/pinocchio_cpp``).

    python benchmarks/bench_closed.py [--n 1000] [--robots four-bar parallelogram-arm]
"""

from __future__ import annotations

import argparse

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd

ROBOTS = ("four-bar", "parallelogram-arm", "five-bar")


def states(robot, chain, n: int, seed: int = 0):
    """``n`` consistent states near the model's home configuration: assembled ``q``,
    ``qd = S yd``, random actuator torques."""
    rng = np.random.default_rng(seed)
    guess = np.asarray(robot.configurations.get("home", np.full(robot.dof, 0.3)), float)
    base = chain.assemble(guess[chain.actuated], guess).q
    na = len(chain.actuated)
    Q = np.stack([chain.assemble(base[chain.actuated] + rng.uniform(-0.05, 0.05, na),
                                 base).q for _ in range(n)])
    QD = np.stack([chain.velocity_map(q) @ rng.normal(size=na) for q in Q])
    return Q, QD, rng.normal(size=(n, na))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS))
    args = parser.parse_args()
    for name in args.robots:
        robot = rd.load(name)
        chain = robot.closed_chain()
        Q, QD, TAU = states(robot, chain, args.n)
        batched = chain.forward_dynamics(Q, QD, TAU)[0]
        one = np.stack([chain.forward_dynamics(q, qd, t)[0] for q, qd, t in zip(Q, QD, TAU)])
        err = float(np.abs(batched - one).max() / max(np.abs(one).max(), 1e-300))
        fd, loop = chain.forward_dynamics, list(zip(Q[:100], QD[:100], TAU[:100]))
        t_batch = median_time(lambda fd=fd, s=(Q, QD, TAU): fd(*s), 5) / args.n
        t_one = median_time(lambda fd=fd, loop=loop: [fd(*s) for s in loop], 5) / 100
        print(f"{name:18s} batched {t_batch * 1e6:8.2f} us/state   one at a time "
              f"{t_one * 1e6:8.2f} us/state   x{t_one / t_batch:5.1f}   max rel diff {err:.1e}")


if __name__ == "__main__":
    main()
