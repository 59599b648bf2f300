"""Exported C (``eq.to_code("c")``) vs robodyn's batched core vs Pinocchio, PUMA 560 and Panda.

For each arm: the closed forms are derived, exported as C99 with the parameters baked
in (only the two timed functions, to keep the export and the compile short), compiled
with ``gcc -O2`` into a shared library and into a small timing harness that calls each
function in a loop inside C (so no Python or ctypes cost is counted; the inputs change
every call so nothing is hoisted). Reported per state: the generated C per call, the same
function called from Python through ctypes, robodyn's batched core per sample (one call
of N states), and Pinocchio per call in a Python loop (``pin.rnea``, ``pin.crba``; the
PUMA is read by Pinocchio from ``robot.to_urdf()`` with its motor armature set).
A spot check first: the three give the same torques.

    make bench          # or: python benchmarks/bench_codegen.py [--n 20000] [--robots puma]
"""

from __future__ import annotations

import argparse
import ctypes
import shutil
import subprocess
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd
from robodyn.codegen.export import LANGUAGES, equation_matrices, program_of, write_files

TIMED = ("inverse_dynamics", "mass_matrix")

HARNESS = r"""
#include <stdio.h>
#include <time.h>
#include "{name}.h"

static double now(void) {{
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}}

int main(void) {{
    enum {{ N = {dof}, CALLS = {calls} }};
    double q[N], qd[N], qdd[N], tau[N], M[N * N], sink = 0.0;
    for (int i = 0; i < N; ++i) {{ q[i] = 0.1 * (i + 1); qd[i] = 0.2 - 0.05 * i; qdd[i] = 0.3; }}
    for (int rep = 0; rep < 2; ++rep) {{  /* the first round warms up */
        double t0 = now();
        for (int k = 0; k < CALLS; ++k) {{
            q[k % N] += 1e-9; {name}_inverse_dynamics(q, qd, qdd, tau); sink += tau[k % N];
        }}
        double t1 = now();
        for (int k = 0; k < CALLS; ++k) {{
            q[k % N] += 1e-9; {name}_mass_matrix(q, M); sink += M[k % (N * N)];
        }}
        double t2 = now();
        if (rep) printf("%.6g %.6g %g\n", (t1 - t0) / CALLS, (t2 - t1) / CALLS, sink);
    }}
    return 0;
}}
"""


def load(which: str):
    if which == "puma":
        return rd.load("puma560")
    return rd.load(rd.models.example_robot_data("panda_description/urdf/panda.urdf"),
                   tip="panda_hand")


def pinocchio_model(pin, robot, which: str):
    if which == "panda":
        urdf = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
        full = pin.buildModelFromUrdf(str(urdf))
        locked = [full.getJointId(name) for name in robot.locked]
        return pin.buildReducedModel(full, locked, pin.neutral(full))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the armature has no URDF field: set below
        # continuous joints are (cos, sin) pairs in Pinocchio: read them as revolute
        text = robot.to_urdf().replace('type="continuous">',
                                       'type="revolute">\n    <limit lower="-4" upper="4" '
                                       'effort="1e3" velocity="1e3"/>')
        model = pin.buildModelFromXML(text)
    model.armature = np.array([float(link.motor.armature) if link.motor is not None else 0.0
                               for link in robot.numeric_chain.links])
    return model


def bench(which: str, n: int, calls: int, repeats: int, work: Path) -> list[str]:
    robot = load(which)
    start = time.perf_counter()
    eq = robot.equations()
    matrices = {k: v for k, v in equation_matrices(eq).items() if k in TIMED}
    program = program_of(eq, matrices=matrices)
    files = LANGUAGES["c"].closed_forms(program)
    t_export = time.perf_counter() - start
    write_files(files, work)
    name = program.name
    start = time.perf_counter()
    obj = str(work / f"{name}.o")  # compiled once, linked twice
    subprocess.run(["gcc", "-O2", "-std=c99", "-fPIC", "-c", str(work / f"{name}.c"), "-o", obj],
                   check=True)
    t_compile = time.perf_counter() - start
    subprocess.run(["gcc", "-shared", obj, "-o", str(work / f"lib{name}.so"), "-lm"],
                   check=True)
    (work / "harness.c").write_text(HARNESS.format(name=name, dof=robot.dof, calls=calls))
    subprocess.run(["gcc", "-O2", "-std=c99", "-D_POSIX_C_SOURCE=199309L", f"-I{work}",
                    str(work / "harness.c"), obj, "-o", str(work / "harness"), "-lm"],
                   check=True)
    out = subprocess.run([str(work / "harness")], capture_output=True, text=True, check=True)
    c_tau, c_mass, _ = (float(x) for x in out.stdout.split())

    lib = ctypes.CDLL(str(work / f"lib{name}.so"))
    ptr = ctypes.POINTER(ctypes.c_double)
    rng = np.random.default_rng(0)
    q = rng.uniform(-np.pi, np.pi, size=(n, robot.dof))
    qd, qdd = rng.normal(size=(2, n, robot.dof))
    tau_c = np.zeros(robot.dof)
    fn = lib[f"{name}_inverse_dynamics"]
    fn.restype = None
    q0, qd0, qdd0 = (np.ascontiguousarray(a[0]) for a in (q, qd, qdd))
    args = [a.ctypes.data_as(ptr) for a in (q0, qd0, qdd0, tau_c)]
    fn(*args)
    ctypes_call = median_time(lambda: [fn(*args) for _ in range(20000)], repeats) / 20000

    lines = [f"{robot.name} ({robot.dof} DOF): export {t_export:.1f} s (derivation + CSE), "
             f"gcc -O2 {t_compile:.1f} s, {sum(len(t) for t in files.values()) / 1e3:.0f} kB "
             "of C"]
    pin_rows = {}
    try:
        import pinocchio as pin
    except ImportError:
        pin = None
        lines.append("  (Pinocchio not installed: its column is empty)")
    if pin is not None:
        model = pinocchio_model(pin, robot, which)
        data = model.createData()
        spot = np.abs(pin.rnea(model, data, q0, qd0, qdd0) - tau_c
                      + robot.friction_torques(qd0)).max()
        lines.append(f"  spot check |tau_C - tau_pinocchio| = {spot:.1e}, "
                     f"|tau_C - tau_robodyn| = "
                     f"{np.abs(tau_c - robot.inverse_dynamics(q0, qd0, qdd0)).max():.1e}")
        pin_rows["inverse_dynamics"] = median_time(
            lambda: [pin.rnea(model, data, q[k], qd[k], qdd[k]) for k in range(n)], repeats) / n
        pin_rows["mass_matrix"] = median_time(
            lambda: [pin.crba(model, data, q[k]) for k in range(n)], repeats) / n
    core = {"inverse_dynamics": lambda: robot.inverse_dynamics(q, qd, qdd),
            "mass_matrix": lambda: robot.mass_matrix(q)}
    c_times = {"inverse_dynamics": c_tau, "mass_matrix": c_mass}
    lines += ["", "| function | generated C [us/call] | C via ctypes [us/call] | "
              "robodyn batched [us/sample] | Pinocchio loop [us/call] |", "|---|---|---|---|---|"]
    for f in TIMED:
        core[f]()  # compile or load the kernel first
        t_core = median_time(core[f], repeats) / n
        ct = f"{ctypes_call * 1e6:.3f}" if f == "inverse_dynamics" else "-"
        tp = f"{pin_rows[f] * 1e6:.3f}" if f in pin_rows else "-"
        lines.append(f"| {f} | {c_times[f] * 1e6:.3f} | {ct} | {t_core * 1e6:.3f} | {tp} |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=20_000, help="states (default 20000)")
    parser.add_argument("--calls", type=int, default=200_000, help="C calls per timing")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--robots", nargs="+", default=["puma", "panda"],
                        choices=["puma", "panda"])
    args = parser.parse_args()
    if shutil.which("gcc") is None:
        raise SystemExit("bench_codegen: gcc not found")
    warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
    for which in args.robots:
        with tempfile.TemporaryDirectory() as tmp:
            print("\n".join(bench(which, args.n, args.calls, args.repeats, Path(tmp))) + "\n",
                  flush=True)


if __name__ == "__main__":
    main()
