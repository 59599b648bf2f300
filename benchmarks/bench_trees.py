"""Forward dynamics on kinematic trees: dense Cholesky vs the sparse L^T D L vs ABA.

Three ways to get ``qdd`` on a tree, each traced into a compiled robodyn kernel:

* ``dense``: CRBA, then the dense Cholesky factor of ``M`` (what serial chains use);
* ``ltdl``: CRBA, then Featherstone's sparse ``M = L^T D L`` in reverse order with the
  parent array (RBDA §6.5, no fill-in): what ``robot.forward_dynamics`` runs on trees;
* ``aba``: the articulated-body algorithm (RBDA §7.3, ``robodyn.dynamics.aba``).

Trees, all built as robodyn Chains here: a planar "Y" (one joint, two branches), a
two-finger gripper on a 2R arm (two prismatic fingers), a hand (2R arm, three 3-joint
fingers), four 3-joint legs on a fixed base and a 29-joint humanoid (torso, two 7-joint
arms, two 6-joint legs, a 2-joint head). Reported per model and method: the
program's statements (live operations after constant folding, a machine-independent
count), the time per sample of a batch of N states and of one-state calls, and the
largest difference from ``dense``.

    python benchmarks/bench_trees.py [--n 20000] [--repeats 7] [--statements-only]
"""

from __future__ import annotations

import argparse
import time
from dataclasses import replace
from functools import partial

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd
from robodyn.codegen.emit import live_ops
from robodyn.codegen.trace import trace
from robodyn.dynamics import registry
from robodyn.dynamics.aba import articulated_body
from robodyn.dynamics.crba import mass_matrix
from robodyn.dynamics.forward_dynamics import cholesky_solve
from robodyn.dynamics.friction import friction_torques
from robodyn.dynamics.rnea import rnea
from robodyn.model.chain import PRISMATIC, REVOLUTE, Chain, Inertial, Joint, Link, Transform


def dense_forward_dynamics(chain, q, qd, tau, ops):
    """``qdd`` by CRBA and the dense Cholesky factor (the serial chains' method)."""
    u = [t - f for t, f in zip(tau, friction_torques(chain, qd, ops), strict=True)]
    bias = rnea(chain, q, qd, [0] * chain.dof, ops)
    return cholesky_solve(mass_matrix(chain, q, ops), [a - b for a, b in zip(u, bias)], ops)


BASE = registry.KERNELS["forward_dynamics"]
METHODS = {"dense": "bench_fd_dense", "ltdl": "forward_dynamics", "aba": "bench_fd_aba"}
registry.KERNELS["bench_fd_dense"] = replace(BASE, name="bench_fd_dense",
                                             algorithm=dense_forward_dynamics, contact=None)
registry.KERNELS["bench_fd_aba"] = replace(BASE, name="bench_fd_aba",
                                           algorithm=articulated_body, contact=None)


def link(name, kind, xyz, axis=(0.0, 0.0, 1.0), mass=1.0):
    inertia = ((0.01, 0.0, 0.0), (0.0, 0.02, 0.0), (0.0, 0.0, 0.025))
    return Link(name, Joint(kind, axis, 0.0, Transform(translation=xyz), name=name),
                Inertial(mass, (0.1, 0.02, 0.01), inertia))


def tree(name, spec) -> rd.Robot:
    """A robot of ``spec``: ``(parent, kind, xyz, axis)`` per link."""
    links = tuple(link(f"l{i}", kind, xyz, axis) for i, (_, kind, xyz, axis) in enumerate(spec))
    chain = Chain(links, (0.0, 0.0, -9.81), parents=tuple(p for p, *_ in spec))
    return rd.Robot(name, chain)


Z, Y, X = (0.0, 0.0, 1.0), (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)


def models() -> list[rd.Robot]:
    y = [(-1, REVOLUTE, (0, 0, 0), Z), (0, REVOLUTE, (0.5, 0, 0), Z),
         (0, REVOLUTE, (0.5, 0, 0), Z)]
    gripper = [(-1, REVOLUTE, (0, 0, 0), Z), (0, REVOLUTE, (0.5, 0, 0), Z),
               (1, PRISMATIC, (0.4, 0.02, 0), Y), (1, PRISMATIC, (0.4, -0.02, 0), Y)]
    hand = [(-1, REVOLUTE, (0, 0, 0), Z), (0, REVOLUTE, (0.5, 0, 0), Y)]
    for f in range(3):
        hand += [(1, REVOLUTE, (0.4, 0.03 * (f - 1), 0), Y),
                 (2 + 3 * f, REVOLUTE, (0.05, 0, 0), Y), (3 + 3 * f, REVOLUTE, (0.04, 0, 0), Y)]
    legs = []
    for leg in range(4):
        x, y_ = (0.3 if leg < 2 else -0.3), (0.2 if leg % 2 else -0.2)
        legs += [(-1, REVOLUTE, (x, y_, 0), X), (3 * leg, REVOLUTE, (0, 0, -0.05), Y),
                 (3 * leg + 1, REVOLUTE, (0, 0, -0.3), Y)]
    humanoid = [(-1, REVOLUTE, (0, 0, 0), Z)]  # a torso joint, two 7-joint arms on it
    for side in (1, -1):
        start = len(humanoid)
        for k, axis in enumerate((Z, Y, X, Y, Z, Y, X)):
            humanoid.append((0, REVOLUTE, (0, 0.2 * side, 0.4), axis) if k == 0 else
                            (start + k - 1, REVOLUTE, (0, 0, -0.15), axis))
    for side in (1, -1):  # two 6-joint legs on the base, a 2-joint head on the torso
        start = len(humanoid)
        for k, axis in enumerate((Z, X, Y, Y, Y, X)):
            humanoid.append((-1, REVOLUTE, (0, 0.1 * side, -0.1), axis) if k == 0 else
                            (start + k - 1, REVOLUTE, (0, 0, -0.2), axis))
    humanoid += [(0, REVOLUTE, (0, 0, 0.5), Z), (len(humanoid), REVOLUTE, (0, 0, 0.05), Y)]
    return [tree("Y tree", y), tree("2-finger gripper", gripper), tree("hand", hand),
            tree("4 legs", legs), tree("humanoid", humanoid)]


def _calls(handle, inputs, count: int) -> None:
    for _ in range(count):
        handle(*inputs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="states per batch")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--statements-only", action="store_true",
                        help="count the programs' statements, compile and time nothing")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    print(f"{'model':18} {'dof':>3} {'method':6} {'statements':>10} {'batch us/sample':>16} "
          f"{'one-state us':>13} {'max |diff|':>11}")
    for robot in models():
        n = robot.dof
        q, qd, tau = (rng.normal(size=(args.n, n)) for _ in range(3))
        one = [np.ascontiguousarray(a[0]) for a in (q, qd, tau)]
        reference = None
        for method, kind in METHODS.items():
            tape, _, outputs = trace(robot.numeric_chain, registry.lookup(kind))
            statements = sum(live_ops(tape, outputs))
            if args.statements_only:
                print(f"{robot.name:18} {n:3d} {method:6} {statements:10d}")
                continue
            start = time.perf_counter()
            out = robot.runner.run(kind, q, qd, tau)  # compiles on first use
            compile_s = time.perf_counter() - start
            reference = out if reference is None else reference
            batch = median_time(partial(robot.runner.run, kind, q, qd, tau), args.repeats)
            handle = robot.kernel(kind)
            for _ in range(100):
                handle(*one)
            single = median_time(partial(_calls, handle, one, 1000), args.repeats) / 1000
            print(f"{robot.name:18} {n:3d} {method:6} {statements:10d} "
                  f"{batch / args.n * 1e6:16.3f} {single * 1e6:13.2f} "
                  f"{np.max(np.abs(out - reference)):11.1e}   (first call {compile_s:.1f} s)")


if __name__ == "__main__":
    main()
