"""Trees and floating bases: batched robodyn vs Pinocchio, side by side in one process.

TALOS (example-robot-data's ``talos_full_v2.urdf``: the whole body, 44 joints on a
free-flying base, nq = 51, nv = 50) and Solo-12 (12 joints on a free-flying base), both
loaded by both libraries from the same file (``rd.load(path, floating=True)``,
``pin.buildModelFromUrdf(path, pin.JointModelFreeFlyer())``); the same random states.
Reported: robodyn's cost per sample of one batched call of N states, Pinocchio's cost per
call in a Python loop over the same states, and their ratio (issue target: <= 0.3). The
native C++ anchor is ``../shared/bench/pinocchio_cpp/run.sh PYTHON URDF`` (fixed base: it
builds the model without the free-flyer, six joints fewer than here).

    python benchmarks/bench_floating.py [--n 20000] [--robots talos,solo12]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd

ROBOTS = {
    "talos": "talos_data/robots/talos_full_v2.urdf",
    "solo12": "solo_description/robots/solo12.urdf",
}


def random_states(model, pin, n: int, rng):
    """``n`` configurations (unit quaternions, joints within their limits), velocities and
    accelerations, in Pinocchio's (and robodyn's) free-flyer layout."""
    lo = np.where(np.isfinite(model.lowerPositionLimit), model.lowerPositionLimit, -np.pi)
    hi = np.where(np.isfinite(model.upperPositionLimit), model.upperPositionLimit, np.pi)
    q = rng.uniform(np.maximum(lo, -np.pi), np.minimum(hi, np.pi), size=(n, model.nq))
    quat = rng.normal(size=(n, 4))
    q[:, 3:7] = quat / np.linalg.norm(quat, axis=1, keepdims=True)
    q[:, :3] = rng.normal(size=(n, 3))
    v, a = rng.normal(size=(2, n, model.nv))
    return q, v, a


def bench(name: str, n: int, repeats: int) -> None:
    import pinocchio as pin

    path = rd.models.example_robot_data(ROBOTS[name])
    with warnings.catch_warnings():  # mimic joints load as independent ones, as in Pinocchio
        warnings.simplefilter("ignore")
        robot = rd.load(path, floating=True).without_friction()
    model = pin.buildModelFromUrdf(str(path), pin.JointModelFreeFlyer())
    data = model.createData()
    assert (model.nq, model.nv) == (robot.nq, robot.nv), (model.nq, robot.nq)
    # robodyn lists links parents first in the file's order, Pinocchio depth first: the
    # same joints by name (one coordinate each, revolute or prismatic)
    theirs = [model.names[j] for j in range(2, model.njoints)]
    assert all(model.joints[j].nq == 1 for j in range(2, model.njoints))
    perm = np.array([theirs.index(name) for name in robot.joints[1:]])  # [0]: the free joint
    q_pin, v_pin, a_pin = random_states(model, pin, n, np.random.default_rng(0))
    q = np.concatenate([q_pin[:, :7], q_pin[:, 7:][:, perm]], axis=1)
    v, a = (np.concatenate([x[:, :6], x[:, 6:][:, perm]], axis=1) for x in (v_pin, a_pin))
    tau = robot.inverse_dynamics(q, v, a)
    tau_pin = np.empty_like(tau)
    tau_pin[:, :6], tau_pin[:, 6 + perm] = tau[:, :6], tau[:, 6:]

    def loop(fn):
        def run():
            for k in range(n):
                fn(k)
        return run

    buffers = {"inverse_dynamics": (q, v, a), "mass_matrix": (q,),
               "forward_dynamics": (q, v, tau)}

    def into_buffer(kind):  # robot.kernel(kind) with out=: no new array, no page faults
        handle, inputs = robot.kernel(kind), buffers[kind]
        out = handle(*inputs)
        return lambda: handle(*inputs, out=out)

    cases = [
        ("inverse_dynamics", "rnea", lambda: robot.inverse_dynamics(q, v, a),
         loop(lambda k: pin.rnea(model, data, q_pin[k], v_pin[k], a_pin[k]))),
        ("mass_matrix", "crba", lambda: robot.mass_matrix(q),
         loop(lambda k: pin.crba(model, data, q_pin[k]))),
        ("forward_dynamics", "aba", lambda: robot.forward_dynamics(q, v, tau),
         loop(lambda k: pin.aba(model, data, q_pin[k], v_pin[k], tau_pin[k]))),
    ]
    k = n // 2
    spot = np.abs(tau_pin[k] - pin.rnea(model, data, q_pin[k], v_pin[k], a_pin[k])).max()
    joints = len(robot.joints) - 1
    print(f"\n{name}: {joints} joints on a floating base (nq = {robot.nq}, nv = {robot.nv}), "
          f"N = {n}; |tau_robodyn - tau_pinocchio| = {spot:.1e}\n")
    print("| function | first call [s] | robodyn batched [us/sample] | into out= [us/sample] "
          "| Pinocchio loop [us/call] | ratio | target |")
    print("|---|---|---|---|---|---|---|")
    for ours_name, pin_name, ours_fn, theirs_fn in cases:
        start = time.perf_counter()
        ours_fn()  # compile (or load from the disk cache) before timing
        first = time.perf_counter() - start
        ours_fn()  # and once more: the first run after a compile is slow (memory, caches)
        reuse = into_buffer(ours_name)
        # robodyn's calls are cheap: more repeats (a new output's page faults vary)
        t_ours = median_time(ours_fn, 2 * repeats) / n
        t_reuse = median_time(reuse, 2 * repeats) / n
        t_pin = median_time(theirs_fn, max(1, repeats // 2)) / n
        print(f"| {ours_name} vs pin.{pin_name} | {first:.1f} | {t_ours * 1e6:.2f} | "
              f"{t_reuse * 1e6:.2f} | {t_pin * 1e6:.2f} | {t_ours / t_pin:.2f} | <= 0.3 |",
              flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="batch size (default 20000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--robots", default="solo12,talos",
                        help=f"comma-separated, of {', '.join(ROBOTS)}")
    args = parser.parse_args()
    for name in args.robots.split(","):
        bench(name.strip(), args.n, args.repeats)


if __name__ == "__main__":
    main()
