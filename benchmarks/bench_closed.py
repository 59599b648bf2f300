"""Closed-chain forward dynamics, per state, on the built-in closed mechanisms, in one run:

* robodyn's KKT solve (``ClosedChain.forward_dynamics`` without its compiled program) on
  ``N`` states at once (batched) and one state at a time;
* ``ClosedChain.forward_dynamics`` with the compiled program of the kernel tiers
  (``robot.compile(["closed_forward_dynamics"])``, :mod:`robodyn.codegen.closed_kernel`:
  the Schur-complement program compiled by Numba), batched and one state at a time;
* robodyn's exported program (``functions=["closed_forward_dynamics"]``, the Schur
  complement written out) compiled by ``robot.compile_c``, batched;
* Pinocchio's ``constraintDynamics`` with ``RigidConstraintModel``s of the same loops
  (``CONTACT_3D`` between the same frames, ``CONTACT_6D`` for a pose, its proximal solver),
  one call per state from a Python loop (Pinocchio has no batched call), and the same calls
  in native C++ (``native/pinocchio_constraint_dynamics.cpp``, built here with ``g++``
  against the ``pin`` wheel's headers and Eigen's, as ``/work/shared/bench/pinocchio_cpp``
  builds its benchmark); skipped without ``pin`` (or without ``g++`` and Eigen for C++).

* the simulation of ``--runs`` passive runs of projected RK4 at once (``rd.rollout``) and
  one run at a time (``rd.simulate``), per step per run, on the KKT path and with the
  compiled program.

Spot checks first: the batched accelerations equal the per-state ones, the compiled
program's and Pinocchio's (Python and C++) equal the KKT solve's.

    python benchmarks/bench_closed.py [--n 1000] [--runs 100] [--robots delta four-bar]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import tempfile
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd

# steady-state speed: every kernel compiled in the foreground (or loaded from the cache), not
# the first calls' NumPy tier while the background compiler works (docs/tiers.md)
os.environ.setdefault("ROBODYN_TIER", "compiled")

ROBOTS = ("four-bar", "parallelogram-arm", "five-bar", "delta")
#: Each robot's assembly guess where it has no ``home`` configuration (the Delta's home is
#: q = 0).
GUESS = {"delta": 0.0}
NATIVE = Path(__file__).resolve().parent / "native" / "pinocchio_constraint_dynamics.cpp"


def states(robot, chain, n: int, seed: int = 0):
    """``n`` consistent states near the model's home configuration: assembled ``q``,
    ``qd = S yd``, random actuator torques."""
    rng = np.random.default_rng(seed)
    guess = np.asarray(robot.configurations.get(
        "home", np.full(robot.dof, GUESS.get(robot.name, 0.3))), float)
    base = chain.assemble(guess[chain.actuated], guess).q
    na = len(chain.actuated)
    Q = np.stack([chain.assemble(base[chain.actuated] + rng.uniform(-0.05, 0.05, na),
                                 base).q for _ in range(n)])
    QD = np.stack([chain.velocity_map(q) @ rng.normal(size=na) for q in Q])
    return Q, QD, rng.normal(size=(n, na))


def kkt_only(robot):
    """The robot's closed chain without its runner: the NumPy KKT solve (and the reduced
    model in the simulation's stages) only, as before the compiled program."""
    from robodyn.dynamics.constrained import CALLS, ClosedChain

    return ClosedChain(robot.chain, robot.joints,
                       *(getattr(robot, c) for c in CALLS if c != "runner"))


def pinocchio_closed(robot):
    """``(pin, model, data, constraint models, their datas)`` of the robot's tree (its URDF
    export) with a ``CONTACT_3D`` constraint per loop between the same frames; ``None``
    without Pinocchio."""
    try:
        import pinocchio as pin
    except ImportError:
        return None
    model = pin.buildModelFromXML(robot.to_urdf(unlimited="revolute"))
    base = model.frames[model.getFrameId("base_link")].placement
    named = {f.name: f for f in robot.numeric_chain.frames}

    def anchor(name):  # (joint id, placement in that joint's frame)
        f = named.get(name)
        link = f.link if f else robot.frames.index(name) - 1
        at = pin.SE3(np.array(f.placement.rotation, float),
                     np.array(f.placement.translation, float)) if f else pin.SE3.Identity()
        return (0, base * at) if link < 0 else (model.getJointId(robot.joints[link]), at)

    models, datas = pin.StdVec_RigidConstraintModel(), pin.StdVec_RigidConstraintData()
    for loop in robot.chain.closures.loops:
        kind = pin.ContactType.CONTACT_6D if loop.kind == "pose" else pin.ContactType.CONTACT_3D
        c = pin.RigidConstraintModel(kind, model, *anchor(loop.frame_a), *anchor(loop.frame_b),
                                     pin.ReferenceFrame.LOCAL)
        models.append(c)
        datas.append(c.createData())
    data = model.createData()
    pin.initConstraintDynamics(model, data, models, datas)
    return pin, model, data, models, datas


def native_binary(folder: Path) -> Path | None:
    """``native/pinocchio_constraint_dynamics.cpp`` built in ``folder`` (None, with the
    reason printed, without ``g++``, Eigen's headers or the ``pin`` wheel's)."""
    eigen = Path("/usr/include/eigen3")
    try:
        prefix = Path(distribution("libpinocchio").locate_file("cmeel.prefix"))
    except PackageNotFoundError:
        print("native C++: the pin wheel (libpinocchio) is not installed")
        return None
    if shutil.which("g++") is None or not eigen.is_dir():
        print("native C++: needs g++ and Eigen's headers (apt-get install g++ libeigen3-dev)")
        return None
    binary = folder / "constraint_dynamics"
    subprocess.run(["g++", "-O3", "-march=native", "-DNDEBUG", "-std=c++17", "-w",
                    "-DBOOST_MPL_CFG_NO_PREPROCESSED_HEADERS", "-DBOOST_MPL_LIMIT_LIST_SIZE=30",
                    "-DBOOST_MPL_LIMIT_VECTOR_SIZE=30", f"-I{prefix / 'include'}", f"-I{eigen}",
                    str(NATIVE), f"-L{prefix / 'lib'}", "-lpinocchio_default",
                    "-lboost_serialization", f"-Wl,-rpath,{prefix / 'lib'}", "-o", str(binary)],
                   check=True)
    return binary


def native_time(binary: Path, folder: Path, pinocchio, Q, QD, tau):
    """Microseconds per ``constraintDynamics`` call in C++ over the states, and its
    accelerations."""
    pin, model, _, models, _ = pinocchio
    model.saveToBinary(str(folder / "model.bin"))
    with open(folder / "loops.txt", "w") as f:
        for c in models:
            rows = 6 if c.type == pin.ContactType.CONTACT_6D else 3
            numbers = [*c.joint1_placement.rotation.ravel(), *c.joint1_placement.translation,
                       *c.joint2_placement.rotation.ravel(), *c.joint2_placement.translation]
            f.write(f"{rows} {c.joint1_id} {c.joint2_id} "
                    + " ".join(repr(float(x)) for x in numbers) + "\n")
    np.savetxt(folder / "states.txt", np.hstack([Q, QD, tau]), fmt="%.17g")
    out = subprocess.run([str(binary), *(str(folder / n) for n in
                                         ("model.bin", "loops.txt", "states.txt", "acc.txt"))],
                         check=True, capture_output=True, text=True).stdout
    return float(out.split()[-1]), np.loadtxt(folder / "acc.txt", ndmin=2)


def simulation(robot, chain, runs: int, label: str, steps: int = 20,
               dt: float = 5e-3) -> None:
    """Projected RK4 of ``runs`` passive runs at once (``rd.rollout``, vectorised over the
    runs) against the same runs one ``rd.simulate`` at a time: time per step per run, and
    the largest difference of their ``q``."""
    import time

    Q, QD, _ = states(robot, chain, runs, seed=1)
    duration = steps * dt
    rd.rollout(robot, Q[:2], QD[:2], duration=2 * dt, dt=dt, progress=False)  # warm up
    start = time.perf_counter()
    sim = rd.rollout(robot, Q, QD, duration=duration, dt=dt, progress=False)
    t_batch = (time.perf_counter() - start) / (steps * runs)
    alone = min(runs, 10)
    start = time.perf_counter()
    ones = [rd.simulate(robot, q, qd, duration=duration, dt=dt, progress=False)
            for q, qd in zip(Q[:alone], QD[:alone])]
    t_one = (time.perf_counter() - start) / (steps * alone)
    err = max(float(np.abs(one.q - sim.q[r]).max()) for r, one in enumerate(ones))
    print(f"{'':18s} simulate ({label}), {runs} runs x {steps} RK4 steps: batched "
          f"{t_batch * 1e6:8.1f} "
          f"us/step/run   one run at a time {t_one * 1e6:8.1f} us/step/run   "
          f"x{t_one / t_batch:5.1f}   max |q diff| {err:.1e}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=100,
                        help="runs of the batched simulation case (0: skip it)")
    parser.add_argument("--robots", nargs="+", default=list(ROBOTS))
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench_closed_"))
    binary = native_binary(folder)
    for name in args.robots:
        robot, fast = rd.load(name), rd.load(name)
        robot.runner.cached("closed_forward_dynamics", lambda: None)  # its runs: KKT only
        chain = kkt_only(robot)
        compile_s = fast.compile(["closed_forward_dynamics"])["closed_forward_dynamics"]
        if args.runs:
            simulation(robot, chain, args.runs, "KKT path")
            simulation(fast, chain, args.runs, "compiled")
        Q, QD, TAU = states(robot, chain, args.n)
        batched = chain.forward_dynamics(Q, QD, TAU)[0]
        one = np.stack([chain.forward_dynamics(q, qd, t)[0] for q, qd, t in zip(Q, QD, TAU)])
        err = float(np.abs(batched - one).max() / max(np.abs(one).max(), 1e-300))
        fd, loop = chain.forward_dynamics, list(zip(Q[:100], QD[:100], TAU[:100]))
        t_batch = median_time(lambda fd=fd, s=(Q, QD, TAU): fd(*s), 5) / args.n
        t_one = median_time(lambda fd=fd, loop=loop: [fd(*s) for s in loop], 5) / 100
        print(f"{name:18s} KKT batched {t_batch * 1e6:8.2f} us/state   one at a time "
              f"{t_one * 1e6:8.2f} us/state   x{t_one / t_batch:5.1f}   max rel diff {err:.1e}")
        tau = np.zeros(Q.shape)
        tau[:, chain.actuated] = TAU
        assert fast.runner.closed_forward_dynamics(Q, QD, tau)[1].all()  # no state falls back
        nb = fast.closed_chain().forward_dynamics
        err_nb = max(float(np.abs(nb(Q, QD, TAU)[0] - one).max() / np.abs(one).max()),
                     max(float(np.abs(nb(*s)[0] - o).max() / np.abs(one).max())
                         for s, o in zip(loop, one)))
        t_nb = median_time(lambda nb=nb, s=(Q, QD, TAU): nb(*s), 5) / args.n
        t_n1 = median_time(lambda nb=nb, loop=loop: [nb(*s) for s in loop], 5) / 100
        print(f"{'':18s} compiled (Numba) batched {t_nb * 1e6:8.3f} us/state   one at a time "
              f"{t_n1 * 1e6:8.2f} us/state   (x{t_batch / t_nb:5.1f}, x{t_one / t_n1:5.1f} the "
              f"KKT's; compiled in {compile_s:.1f} s)   max rel diff {err_nb:.1e}")
        c = robot.compile_c(["closed_forward_dynamics"]).closed_forward_dynamics
        err_c = float(np.abs(c(Q, QD, tau)[:, :robot.nv] - one).max() / np.abs(one).max())
        t_c = median_time(lambda c=c, s=(Q, QD, tau): c(*s), 5) / args.n
        print(f"{'':18s} compiled C {t_c * 1e6:8.3f} us/state (x{t_batch / t_c:6.1f} the "
              f"KKT batch)   max rel diff {err_c:.1e}")
        pinocchio = pinocchio_closed(robot)
        if pinocchio is None:
            print(f"{'':18s} Pinocchio: not installed (pip install pin)")
            continue
        pin = pinocchio[0]
        prox = pin.ProximalSettings(1e-14, 1e-10, 50)

        def pin_loop(s=(Q[:100], QD[:100], tau[:100]), p=(*pinocchio, prox)):
            pin, model, data, models, datas, prox = p
            return [pin.constraintDynamics(model, data, q, qd, t, models, datas, prox).copy()
                    for q, qd, t in zip(*s)]

        err_p = float(np.abs(np.array(pin_loop()) - one[:100]).max() / np.abs(one).max())
        t_pin = median_time(pin_loop, 5) / 100
        print(f"{'':18s} Pinocchio constraintDynamics {t_pin * 1e6:8.2f} us/state (Python "
              f"loop)   robodyn: KKT batch {t_batch / t_pin:.2f}x, Numba batch "
              f"{t_nb / t_pin:.3f}x, one state {t_n1 / t_pin:.3f}x, compiled C "
              f"{t_c / t_pin:.3f}x its time   max rel diff {err_p:.1e}")
        if binary is not None:
            t_cpp, acc = native_time(binary, folder, pinocchio, Q, QD, tau)
            err_cpp = float(np.abs(acc - one).max() / np.abs(one).max())
            print(f"{'':18s} Pinocchio constraintDynamics C++ {t_cpp:8.3f} us/call   robodyn: "
                  f"compiled C {t_c * 1e6 / t_cpp:.3f}x, Numba batch {t_nb * 1e6 / t_cpp:.3f}x, "
                  f"one state {t_n1 * 1e6 / t_cpp:.2f}x, KKT batch "
                  f"{t_batch * 1e6 / t_cpp:.2f}x its time   max rel diff {err_cpp:.1e}")
    shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
