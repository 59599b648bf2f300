"""Many rollouts in one call, against MuJoCo's ``rollout``; one-state calls against Pinocchio.

1. Passive Panda (7 DOF, fingers locked, friction off), RK4 at 1 kHz: ``rd.simulate`` with
   ``q0`` of shape ``(N, 7)`` against ``mujoco.rollout.rollout`` (its C loop on its own
   thread pool; contacts and joint limits off, RK4, the same step) on robodyn's URDF
   export of the same model, the same number of threads. Reported: simulated seconds per
   wall second over all rollouts, and the ratio (the issue's target: >= 5x MuJoCo).
   N = 64 for 10 s, and N = 1024 for 1 s (not 10 s: MuJoCo's state output alone would be
   1.3 GB, and the 2 cores of the machine this was written on would take minutes).
2. The PUMA 560 under computed torque along a quintic, 1024 rollouts whose link masses are
   perturbed by up to 20 % (``values=``), the controller's model the nominal one.
3. Voltage-driven rollouts (DC motors, ``voltage=``): planar-2r, 0.5 s at dt = 1 ms, rk4,
   ``rd.rollout`` stepping N rollouts together (:mod:`robodyn.motion.voltage_lockstep`)
   against the same N runs one after another (``rd.simulate`` each, as batches ran before),
   N = 1, 16, 256; a shared constant voltage, and a callable voltage law per rollout.
4. One state from Python: ``robot.inverse_dynamics`` / ``forward_dynamics`` and the
   ``robot.kernel(...)`` handle with an ``out=`` buffer against ``pin.rnea`` / ``pin.aba``,
   Panda, UR5 and PUMA (the PUMA through its URDF export).

Each pair is timed interleaved (ours, theirs, ours, ...) and the medians reported: the
machine may be shared. ``--quick`` shortens everything (a smoke run).

    make bench     # or: python benchmarks/bench_rollouts.py [--threads 2] [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
import warnings
from dataclasses import replace

import numpy as np

import robodyn as rd

os.environ.setdefault("ROBODYN_TIER", "compiled")  # the steady state (timing.py)


def interleaved(pairs: dict, repeats: int) -> dict:
    """Median wall time of each callable of ``pairs`` (name -> fn), called in turn."""
    times = {name: [] for name in pairs}
    for _ in range(repeats):
        for name, fn in pairs.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(t) for name, t in times.items()}


def panda() -> rd.Robot:
    urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    return rd.load(urdf, tip="panda_hand").without_friction()


def mujoco_model(robot: rd.Robot, dt: float):
    import mujoco

    model = mujoco.MjModel.from_xml_string(robot.to_urdf())
    model.opt.gravity[:] = [0.0, 0.0, -float(np.linalg.norm(robot.numeric_chain.gravity))]
    model.opt.disableflags |= mujoco.mjtDisableBit.mjDSBL_CONSTRAINT  # contacts, limits
    model.opt.integrator = mujoco.mjtIntegrator.mjINT_RK4
    model.opt.timestep = dt
    return model


def rollouts(args) -> None:
    import mujoco

    threads = args.threads
    os.environ["ROBODYN_NUM_THREADS"] = str(threads)
    robot = panda()
    dt = 1e-3
    model = mujoco_model(robot, dt)
    datas = [mujoco.MjData(model) for _ in range(threads)]
    print(f"## Passive Panda, RK4 at 1 kHz, {threads} threads (robodyn and MuJoCo "
          f"{mujoco.__version__})\n")
    print("| rollouts x duration | robodyn [sim s / s] | MuJoCo rollout [sim s / s] | ratio "
          "| target |")
    print("|---|---|---|---|---|")
    cases = [(64, 10.0), (1024, 1.0)] if not args.quick else [(16, 0.5), (64, 0.2)]
    for n, duration in cases:
        rate, gap = _panda_case(robot, model, datas, n, duration, dt, args.repeats)
        print(f"| {n} x {duration:g} s | {rate['ours']:,.0f} | {rate['theirs']:,.0f} | "
              f"{rate['ours'] / rate['theirs']:.1f}x | >= 5x |  (rollout 0 at 0.5 s: q "
              f"differs by {gap:.1e} rad)")


def _panda_case(robot, model, datas, n: int, duration: float, dt: float, repeats: int):
    """Simulated seconds per second of ``n`` passive rollouts in robodyn and MuJoCo, and
    how far apart rollout 0 ends in the two."""
    import mujoco
    from mujoco import rollout as mj_rollout

    rng = np.random.default_rng(0)
    q0 = rng.uniform(-1.0, 1.0, (n, 7))
    steps = round(duration / dt)
    spec = mujoco.mjtState.mjSTATE_FULLPHYSICS
    state = np.zeros((n, mujoco.mj_stateSize(model, spec)))
    for k in range(n):
        datas[0].qpos[:] = q0[k]
        datas[0].qvel[:] = 0.0
        datas[0].time = 0.0
        mujoco.mj_getState(model, datas[0], state[k], spec)

    def ours():
        rd.simulate(robot, q0, duration=duration, dt=dt, progress=False, check_limits=False)

    def theirs():
        mj_rollout.rollout(model, datas, state, nstep=steps)

    ours()  # compile (or load from Numba's cache)
    theirs()
    # the same motion over 0.5 s (longer, the passive arm is chaotic: rounding grows)
    sim = rd.simulate(robot, q0[:1], duration=0.5, dt=dt, progress=False, check_limits=False)
    out, _ = mj_rollout.rollout(model, datas, state[:1], nstep=round(0.5 / dt))
    gap = float(np.abs(sim.q[0, -1] - out[0, -1, 1:8]).max())
    t = interleaved({"ours": ours, "theirs": theirs}, repeats)
    return {k: n * duration / v for k, v in t.items()}, gap


def puma_masses(args) -> None:
    import sympy as sp

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        nominal = rd.load("puma560")
    links = nominal.chain.links
    masses = {f"m{j + 1}": float(link.inertial.mass) for j, link in enumerate(links)}
    chain = replace(nominal.chain, links=tuple(
        replace(link, inertial=replace(link.inertial, mass=sp.Symbol(f"m{j + 1}")))
        for j, link in enumerate(links)))
    plant = nominal.with_chain(chain, values={**nominal.values, **masses})
    n, duration = (1024, 1.0) if not args.quick else (64, 0.2)
    rng = np.random.default_rng(1)
    values = {name: m * rng.uniform(0.8, 1.2, n) for name, m in masses.items() if m > 0}
    traj = rd.trajectory.quintic(np.zeros(6), [1.0, 0.5, -0.5, 0.3, 0.2, 0.1], duration)
    ctrl = rd.control.ComputedTorque(nominal, traj, kp=100.0, kd=20.0)

    def run():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return rd.simulate(plant, traj.q0, duration=duration, dt=1e-3, tau=ctrl,
                               values=values, progress=False)

    run()
    times = [None] * args.repeats
    for i in range(args.repeats):
        start = time.perf_counter()
        sim = run()
        times[i] = time.perf_counter() - start
    wall = statistics.median(times)
    error = np.abs(sim.q - traj(sim.t)[0]).max(axis=(1, 2))
    print(f"\n## PUMA 560, computed torque, {n} rollouts x {duration:g} s, masses perturbed "
          f"by up to 20 %, {args.threads} threads\n")
    print(f"{n * duration / wall:,.0f} simulated s / s (median wall {wall:.2f} s, energy "
          f"balance and limit checks included); tracking error over the rollouts: median "
          f"{np.median(error):.2g} rad, worst {error.max():.2g} rad")


def voltage_rollouts(args) -> None:
    from robodyn.motion.electrics import DCMotor

    arm = rd.load("planar-2r")
    motors = [DCMotor(resistance=2.0, torque_constant=0.5, inductance=2e-3),
              DCMotor(resistance=3.0, torque_constant=0.3)]
    duration, dt = 0.5, 1e-3
    print(f"\n## Voltage-driven rollouts, planar-2r, {duration:g} s at dt = {dt:g} s, rk4 "
          "(median wall s)\n")
    print("| voltage | N | together | one after another | speed-up |")
    print("|---|---|---|---|---|")
    for n in (1, 16) if args.quick else (1, 16, 256):
        q0s = np.random.default_rng(3).uniform(-1.0, 1.0, (n, 2))
        laws = [lambda t, q, qd, a=a: [a * (0.5 - q[0]) - qd[0], 2.0 * np.sin(4 * t)]
                for a in np.linspace(5.0, 20.0, n)]
        for what, voltage, each in (("constant [6, 3] V", [6.0, 3.0], [[6.0, 3.0]] * n),
                                    ("V(t, q, qd) per rollout", laws, laws)):
            options = dict(motors=motors, dt=dt, method="rk4", progress=False)

            def together(voltage=voltage, options=options, q0s=q0s):
                return rd.rollout(arm, q0s, 0.0, duration, voltage=voltage, **options)

            def alone(each=each, options=options, q0s=q0s):
                return [rd.simulate(arm, q0, 0.0, duration, voltage=v, **options)
                        for q0, v in zip(q0s, each, strict=True)]

            batch, runs = together(), alone()
            assert all(np.array_equal(batch.q[r], runs[r].q) for r in range(n))  # the bits
            t = interleaved({"together": together, "alone": alone},
                            args.repeats if n < 256 else 1)
            print(f"| {what} | {n} | {t['together']:.3g} | {t['alone']:.3g} | "
                  f"{t['alone'] / t['together']:.1f}x |")


def single_calls(args) -> None:
    import pinocchio as pin

    print("\n## One state from Python (median of interleaved rounds, us per call)\n")
    print("| arm | ID | pin.rnea | ratio | ID handle (q, qd, qdd, out) | FD | pin.aba | ratio | "
          "FD handle (q, qd, tau, out) |")
    print("|---|---|---|---|---|---|---|---|---|")
    urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    arm = rd.load(urdf, tip="panda_hand")
    full = pin.buildModelFromUrdf(str(urdf))
    arms = [("Panda", arm, pin.buildReducedModel(full, [full.getJointId(j) for j in arm.locked],
                                                  pin.neutral(full)))]
    urdf = rd.models.example_robot_data("ur_description/urdf/ur5_robot.urdf")
    arms.append(("UR5", rd.load(urdf, tip="tool0"), pin.buildModelFromUrdf(str(urdf))))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        puma = rd.load("puma560")
        path = os.path.join(tempfile.mkdtemp(), "puma560.urdf")
        puma.to_urdf(path)
    arms.append(("PUMA 560", puma, pin.buildModelFromUrdf(path)))
    calls = 2000 if args.quick else 20000
    for name, robot, model in arms:
        us = _one_state(pin, robot, model, calls, args.repeats * 3)
        print(f"| {name} | {us['id']:.2f} | {us['rnea']:.2f} | {us['id'] / us['rnea']:.2f}x | "
              f"{us['id_h']:.2f} | {us['fd']:.2f} | {us['aba']:.2f} | "
              f"{us['fd'] / us['aba']:.2f}x | {us['fd_h']:.2f} |")


def _one_state(pin, robot, model, calls: int, rounds: int) -> dict:
    """Microseconds per one-state call, robodyn's and Pinocchio's, interleaved."""
    data = model.createData()
    n = robot.dof
    q, qd, qdd = np.random.default_rng(2).normal(size=(3, n)) * 0.5
    tau = robot.inverse_dynamics(q, qd, qdd)
    robot.forward_dynamics(q, qd, tau)
    out = np.empty(n)
    id_handle, fd_handle = robot.kernel("inverse_dynamics"), robot.kernel("forward_dynamics")

    def loop(fn):
        def run():
            for _ in range(calls):
                fn()
        return run

    t = interleaved({
        "id": loop(lambda: robot.inverse_dynamics(q, qd, qdd)),
        "rnea": loop(lambda: pin.rnea(model, data, q, qd, qdd)),
        "id_h": loop(lambda: id_handle(q, qd, qdd, out)),
        "fd": loop(lambda: robot.forward_dynamics(q, qd, tau)),
        "aba": loop(lambda: pin.aba(model, data, q, qd, tau)),
        "fd_h": loop(lambda: fd_handle(q, qd, tau, out)),
    }, rounds)
    return {k: v / calls * 1e6 for k, v in t.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="short runs (a smoke test)")
    parser.add_argument("--only", choices=["rollouts", "puma", "voltage", "single"],
                        default=None)
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    for name, fn in (("rollouts", rollouts), ("puma", puma_masses),
                     ("voltage", voltage_rollouts), ("single", single_calls)):
        if args.only in (None, name):
            fn(args)


if __name__ == "__main__":
    main()
