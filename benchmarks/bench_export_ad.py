"""robot.to_jax() against robodyn's own batched kernel, on the CPU.

The Panda (7 DOF, fingers locked) from example-robot-data's URDF. Reported, as medians of
repeats: ``jax.jit(jax.vmap(fns.inverse_dynamics))`` over N states, per state, against one
batched ``robot.inverse_dynamics`` call (Numba unless ROBODYN_BACKEND=numpy) and their
ratio; the compile time of the jitted function; and one ``jax.jit(jax.grad(loss))`` of a
scalar loss through ``forward_dynamics`` (batched with vmap), checked against the chain
rule with robodyn's ``forward_dynamics_derivatives``. The point of the JAX functions is
the gradient (reverse mode, GPUs), not CPU speed: see docs/exportad.md.

    python benchmarks/bench_export_ad.py [--n 100000] [--repeats 5] [--no-grad]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="batch size (default 100000)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-grad", action="store_true",
                        help="skip the gradient through forward_dynamics (its jit compiled "
                             "in 190 s on a loaded 2-core CPU)")
    args = parser.parse_args()

    import jax
    import jax.numpy as jnp

    jax.config.update("jax_enable_x64", True)
    robot = rd.load(rd.models.example_robot_data("panda_description/urdf/panda.urdf"),
                    tip="panda_hand")
    n = args.n
    rng = np.random.default_rng(0)
    q, qd, qdd = rng.normal(size=(3, n, robot.dof))
    fns = robot.to_jax(["inverse_dynamics", "forward_dynamics"])

    robot.inverse_dynamics(q[:10], qd[:10], qdd[:10])  # compile robodyn's kernel
    ours = median_time(lambda: robot.inverse_dynamics(q, qd, qdd), args.repeats) / n

    start = time.perf_counter()
    batched = jax.jit(jax.vmap(fns.inverse_dynamics))
    xq, xqd, xqdd = (jnp.asarray(a) for a in (q, qd, qdd))
    tau = batched(xq, xqd, xqdd).block_until_ready()
    compile_s = time.perf_counter() - start
    theirs = median_time(lambda: batched(xq, xqd, xqdd).block_until_ready(), args.repeats) / n
    error = float(np.max(np.abs(np.asarray(tau) - robot.inverse_dynamics(q, qd, qdd))))

    print(f"Panda inverse_dynamics over {n:,} states, CPU, medians of {args.repeats} "
          "(a shared, loaded machine: read ratios, not absolute times)")
    print(f"  robodyn batched kernel       {ours * 1e9:10.1f} ns/state")
    print(f"  jax.jit(jax.vmap(...))       {theirs * 1e9:10.1f} ns/state"
          f"   ratio JAX/robodyn {theirs / ours:.2f}   (jit compile {compile_s:.1f} s, "
          f"max |difference| {error:.1e} N m)")

    if args.no_grad:
        return
    m = min(n, 1000)
    w = np.linspace(0.5, 2.0, robot.dof)
    tau_in = 5 * rng.normal(size=(m, robot.dof))

    def loss(q, qd, tau):
        return jnp.sum(w * fns.forward_dynamics(q, qd, tau) ** 2)

    start = time.perf_counter()
    grad = jax.jit(jax.vmap(jax.grad(loss)))
    g = np.asarray(grad(q[:m], qd[:m], tau_in))
    compile_s = time.perf_counter() - start
    per = median_time(lambda: grad(q[:m], qd[:m], tau_in).block_until_ready(), args.repeats) / m
    qdd_m = robot.forward_dynamics(q[:m], qd[:m], tau_in)
    dq = robot.forward_dynamics_derivatives(q[:m], qd[:m], tau_in)[0]
    chain = np.einsum("bi,bij->bj", 2 * w * qdd_m, dq)
    worst = float(np.max(np.abs(g - chain)))
    print(f"  jax.grad of sum(w qdd^2) wrt q through forward_dynamics, {m:,} states: "
          f"{per * 1e6:.2f} us/state (jit compile {compile_s:.1f} s); largest difference from "
          f"the chain rule with robodyn's derivatives {worst:.1e}, relative to the largest "
          f"entry {worst / float(np.abs(chain).max()):.1e}")


if __name__ == "__main__":
    main()
