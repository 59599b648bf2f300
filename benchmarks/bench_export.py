"""The compiled kernels exported as C (``robot.to_code("c")``) against native Pinocchio.

For the Panda (example-robot-data, fingers locked): the time to generate the whole
registry set as C, the time ``gcc -O2`` takes to compile it, then per call, from a C loop
(a small driver this script writes and compiles; the inputs are 100 000 different random
states, as in Pinocchio's benchmark), the generated ``inverse_dynamics``,
``forward_dynamics``, ``mass_matrix`` and ``inverse_dynamics_derivatives``, each the
best and the median of several rounds, built twice: ``gcc -O2`` (generic x86-64) and ``gcc -O3
-march=native``, the flags Pinocchio's benchmark is built with (``--cflags``). Then
``../shared/bench/pinocchio_cpp/run.sh`` (native C++ Pinocchio: ``rnea``, ``aba``,
``crba``, ``computeRNEADerivatives``; best of 5 rounds, ``-O3 -march=native``) in the
same run, and the ratios. A spot check first: the compiled
C equals robodyn's own kernels.

    make bench      # or: python benchmarks/bench_export.py [--calls 100000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

import robodyn as rd

os.environ.setdefault("ROBODYN_TIER", "compiled")  # the steady state (timing.py)
from robodyn.dynamics.registry import KERNELS

ROOT = Path(__file__).resolve().parent.parent
#: Native Pinocchio's benchmark, in the ``shared`` folder beside the checkout (or beside
#: the folder of a git worktree).
PINOCCHIO = next((base / "shared" / "bench" / "pinocchio_cpp" / "run.sh"
                  for base in (ROOT.parent, ROOT.parent.parent)
                  if (base / "shared" / "bench" / "pinocchio_cpp" / "run.sh").exists()),
                 ROOT.parent / "shared" / "bench" / "pinocchio_cpp" / "run.sh")
TIMED = {  # ours -> Pinocchio's
    "inverse_dynamics": "rnea",
    "forward_dynamics": "aba",
    "mass_matrix": "crba",
    "inverse_dynamics_derivatives": "rnea_derivatives",
}

DRIVER = r"""
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "{name}.h"

static double now(void) {{
    struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec;
}}
static int cmp(const void *a, const void *b) {{
    double x = *(const double *)a, y = *(const double *)b; return (x > y) - (x < y);
}}
static double median(double *t, int n) {{ qsort(t, n, sizeof *t, cmp); return t[n / 2]; }}

int main(void) {{
    enum {{ N = {dof}, CALLS = {calls}, ROUNDS = {rounds} }};
    static double Q[CALLS * N], V[CALLS * N], A[CALLS * N];
    static double out[3 * N * N];
    double t[ROUNDS], sink = 0.0;
    unsigned long s = 12345;
    for (long i = 0; i < (long)CALLS * N; ++i) {{  /* uniform in [-1, 1], as Eigen's Random */
        s = s * 6364136223846793005UL + 1442695040888963407UL; Q[i] = (s >> 11) * 0x1p-52 - 1.0;
        s = s * 6364136223846793005UL + 1442695040888963407UL; V[i] = (s >> 11) * 0x1p-52 - 1.0;
        s = s * 6364136223846793005UL + 1442695040888963407UL; A[i] = (s >> 11) * 0x1p-52 - 1.0;
    }}
{loops}
    fprintf(stderr, "%g\n", sink);
    return 0;
}}
"""

LOOP = r"""    for (int r = 0; r < ROUNDS; ++r) {{
        double t0 = now();
        for (long i = 0; i < CALLS; ++i) {{
            {call}; sink += out[i % N];
        }}
        t[r] = (now() - t0) / CALLS;
    }}
    {{ double mid = median(t, ROUNDS); printf("{kind} %.6g %.6g\n", mid, t[0]); }}  /* sorted */
"""


def _children_cpu() -> float:
    """CPU seconds (user + system) of the finished child processes so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def panda():
    path = rd.models.example_robot_data("panda_description/urdf/panda.urdf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return rd.load(path, tip="panda_hand")


def spot_check(robot) -> None:
    """The compiled C equals robodyn's kernels at a random state (to 1e-12)."""
    k = robot.compile_c(list(TIMED), flags=("-O0",))
    rng = np.random.default_rng(0)
    q, qd, x = rng.uniform(-1, 1, (3, robot.dof))
    for kind in TIMED:
        args = (q,) if kind == "mass_matrix" else (q, qd, x)
        got, want = k[kind](*args), robot.runner.run(kind, *args)
        err = float(np.max(np.abs(got - want)) / max(1.0, np.max(np.abs(want))))
        assert err < 1e-12, (kind, err)
    print(f"spot check: generated C == robodyn's kernels (to 1e-12) for {', '.join(TIMED)}")


def pinocchio_times() -> dict[str, float] | str:
    """Native Pinocchio per call in seconds, by algorithm, or why there are none."""
    if not PINOCCHIO.exists():
        return f"{PINOCCHIO} not found"
    try:
        done = subprocess.run(["bash", str(PINOCCHIO), sys.executable], capture_output=True,
                              text=True, timeout=900)
    except subprocess.TimeoutExpired:
        return "run.sh took more than 15 minutes"
    if done.returncode != 0:
        return f"run.sh failed: {(done.stderr or done.stdout).strip()[-300:]}"
    times = {m.group(1): float(m.group(2)) * 1e-6
             for m in re.finditer(r"^(\w+) ([0-9.eE+-]+) us/call", done.stdout, re.M)}
    if not times:
        return f"run.sh printed no timings: {done.stdout.strip()[-300:]!r}"
    print("pinocchio: " + done.stdout.splitlines()[0])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=100_000, help="states per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (median reported)")
    parser.add_argument("--no-pinocchio", action="store_true", help="skip run.sh")
    parser.add_argument("--cflags", action="append",
                        help="flags for the generated C and its driver, repeatable (default: "
                             "-O2, generic x86-64, then -O3 -march=native: the flags "
                             "Pinocchio's run.sh builds with); the first one's compile is timed")
    args = parser.parse_args()
    flag_sets = args.cflags or ["-O2", "-O3 -march=native"]
    cc = shutil.which("gcc") or shutil.which("cc")
    if cc is None:
        sys.exit("bench_export: needs gcc (or cc) on PATH")
    os.environ.setdefault("ROBODYN_BACKEND", "numpy")  # no Numba compile time in the spot check
    robot = panda()
    print(f"robot: {robot.name} ({robot.dof} dof, locked {', '.join(robot.locked)}); "
          f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (shared machine)")
    spot_check(robot)

    start = time.perf_counter()
    files = robot.to_code("c")
    generated = time.perf_counter() - start
    size = sum(len(t) for t in files.values())
    print(f"generate: all {len(KERNELS)} functions as C in "
          f"{generated:.2f} s ({size / 1e6:.2f} MB)   [target < 10 s]")
    with tempfile.TemporaryDirectory(prefix="robodyn-bench-") as tmp:
        work = Path(tmp)
        for fname, text in files.items():
            (work / fname).write_text(text)
        name = next(f for f in files if f.endswith(".h"))[:-2]
        loops = []
        for kind in TIMED:
            ins = "Q + i * N" if kind == "mass_matrix" else "Q + i * N, V + i * N, A + i * N"
            loops.append(LOOP.format(kind=kind, call=f"{name}_{kind}({ins}, out)"))
        (work / "driver.c").write_text(DRIVER.format(name=name, dof=robot.dof, calls=args.calls,
                                                     rounds=args.rounds, loops="".join(loops)))
        ours = {}
        for n, cflags in enumerate(flag_sets):
            flags = cflags.split()
            start, cpu = time.perf_counter(), _children_cpu()
            subprocess.run([cc, *flags, "-std=c99", "-c", f"{name}.c", "-o", f"{name}.o"],
                           cwd=work, check=True)
            compiled, cpu = time.perf_counter() - start, _children_cpu() - cpu
            if n == 0:
                print(f"compile: gcc {cflags} of the whole set in {compiled:.1f} s wall, "
                      f"{cpu:.1f} s CPU   [target < 30 s]")
            subprocess.run([cc, *flags, "-std=c99", "driver.c", f"{name}.o", "-o", "driver",
                            "-lm"], cwd=work, check=True)
            done = subprocess.run([str(work / "driver")], capture_output=True, text=True,
                                  check=True, timeout=1800)
            ours[cflags] = {line.split()[0]: (float(line.split()[1]), float(line.split()[2]))
                            for line in done.stdout.splitlines()}
    pin = {} if args.no_pinocchio else pinocchio_times()
    if isinstance(pin, str):
        print(f"pinocchio: not run ({pin})")
        pin = {}
    print(f"\nper call from a C loop ({args.calls:,} random states, {args.rounds} rounds; the "
          "ratio of the best rounds, the statistic Pinocchio's run.sh reports, best of 5)")
    for cflags, times in ours.items():
        print(f"\ngenerated C built with gcc {cflags}")
        print(f"{'function':29s} {'best (median)':>19s} {'Pinocchio':>24s} {'ratio':>6s}")
        for kind, theirs in TIMED.items():
            median, best = times[kind]
            p = pin.get(theirs)
            ratio = f"{best / p:5.2f}x" if p else "  n/a"
            ptext = f"{p * 1e6:7.3f} us {theirs:>13s}" if p else "n/a"
            print(f"{kind:29s} {best * 1e6:6.3f} us ({median * 1e6:6.3f}) {ptext:>24s} "
                  f"{ratio:>6s}  [target <= 0.5x]")


if __name__ == "__main__":
    main()
