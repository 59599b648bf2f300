"""Time to a first result, as a new user meets it: import, load the Panda URDF, one
inverse dynamics, mass matrix, forward dynamics and Jacobian, each in a fresh Python
process; robodyn with an empty and a warm kernel cache, in the tier it picks by itself
(``auto``: no-compile first, compiled in the background) and compiling in the foreground
(``ROBODYN_TIER=compiled``, robodyn before kernel tiers), beside Pinocchio in the same run.

    python benchmarks/bench_startup.py [--repeats 3] [--baseline /work/main/src]

Prints one line per case: the median seconds of each step over the repeats, and the total.
The empty cache is a new ``ROBODYN_CACHE_DIR`` per run; the background compiler an
``auto`` run leaves is stopped before the next run (it would share the cores).

Every package runs from its bytecode, as installed packages do (pip writes the ``.pyc``
files at install; NumPy's and Pinocchio's are there): a ``PYTHONPYCACHEPREFIX`` in the
run's temporary directory, filled by one untimed run of each script, so robodyn's source
tree gets no ``__pycache__``. One more case, ``no .pyc``, runs robodyn's modules from
source (``PYTHONDONTWRITEBYTECODE=1`` and no bytecode: a checkout whose environment
forbids writing it, as the earlier sessions measured). ``--baseline SRC`` adds the
``auto`` cases of another robodyn checkout (e.g. the main branch) to the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROBODYN = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import robodyn as rd
t1 = time.perf_counter()
robot = rd.load(rd.models.example_robot_data("panda_description/urdf/panda.urdf"))
t2 = time.perf_counter()
q = np.linspace(-0.5, 0.5, robot.nq); qd = np.full(robot.nv, 0.1); qdd = np.full(robot.nv, 0.2)
tau = robot.inverse_dynamics(q, qd, qdd); t3 = time.perf_counter()
m = robot.mass_matrix(q); t4 = time.perf_counter()
tier = robot.runner._entries["mass_matrix"][0].tier  # the tier that answered
a = robot.forward_dynamics(q, qd, tau); t5 = time.perf_counter()
j = robot.jacobian(q); t6 = time.perf_counter()
from robodyn.codegen import tiers
bg = tiers.background_process()
print(json.dumps({"import": t1 - t0, "load": t2 - t1, "ID": t3 - t2, "M": t4 - t3,
                  "FD": t5 - t4, "J": t6 - t5, "total": t6 - t0,
                  "tier": tier,
                  "background": bg.pid if bg is not None and bg.poll() is None else None}))
"""

PINOCCHIO = r"""
import json, time
t0 = time.perf_counter()
import numpy as np
import pinocchio as pin
t1 = time.perf_counter()
import robodyn.model.builtin as b
path = str(b.example_robot_data("panda_description/urdf/panda.urdf"))
t1b = time.perf_counter()
model = pin.buildModelFromUrdf(path); data = model.createData()
t2 = time.perf_counter()
q = np.linspace(-0.5, 0.5, model.nq); qd = np.full(model.nv, 0.1); qdd = np.full(model.nv, 0.2)
tau = pin.rnea(model, data, q, qd, qdd); t3 = time.perf_counter()
m = pin.crba(model, data, q); t4 = time.perf_counter()
a = pin.aba(model, data, q, qd, tau); t5 = time.perf_counter()
j = pin.computeJointJacobian(model, data, q, model.njoints - 1); t6 = time.perf_counter()
print(json.dumps({"import": t1 - t0, "load": t2 - t1b, "ID": t3 - t2, "M": t4 - t3,
                  "FD": t5 - t4, "J": t6 - t5, "total": t6 - t0 - (t1b - t1)}))
"""

STEPS = ("import", "load", "ID", "M", "FD", "J", "total")


def _run(code: str, env: dict) -> dict:
    """One fresh process running ``code``: its JSON line of step times."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=900, check=True)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    if result.get("background"):  # stop the background compiler before the next run
        try:
            os.killpg(result["background"], signal.SIGKILL)
        except ProcessLookupError:
            pass
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--baseline", metavar="SRC",
                        help="another robodyn checkout's src/ to time beside this one")
    args = parser.parse_args()
    src = str(Path(__file__).resolve().parents[1] / "src")
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        environ = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        base = {**environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1",
                "PYTHONPYCACHEPREFIX": os.path.join(tmp, "pyc")}
        warm = os.path.join(tmp, "warm")
        subprocess.run([sys.executable, "-m", "robodyn", "compile",
                        str(__import__("robodyn").models.example_robot_data(
                            "panda_description/urdf/panda.urdf"))],
                       env={**base, "ROBODYN_CACHE_DIR": warm}, check=True,
                       capture_output=True)
        source_only = {**os.environ, "PYTHONPATH": src, "OPENBLAS_NUM_THREADS": "1",
                       "PYTHONDONTWRITEBYTECODE": "1"}
        source_only.pop("PYTHONPYCACHEPREFIX", None)
        cases = {
            "robodyn auto, empty cache": ("auto", None, base),
            "robodyn auto, warm cache": ("auto", warm, base),
            "robodyn compiled, empty cache": ("compiled", None, base),
            "robodyn compiled, warm cache": ("compiled", warm, base),
            "robodyn auto, empty, no .pyc": ("auto", None, source_only),
        }
        if args.baseline:
            other = {**base, "PYTHONPATH": str(Path(args.baseline).resolve()),
                     "PYTHONPYCACHEPREFIX": os.path.join(tmp, "pyc-baseline")}
            cases["baseline auto, empty cache"] = ("auto", None, other)
            cases["baseline auto, warm cache"] = ("auto", warm, other)
        for env in {id(e): e for _, _, e in cases.values()}.values():  # their .pyc
            _run(ROBODYN, {**env, "ROBODYN_CACHE_DIR": os.path.join(tmp, "prime")})
        try:
            _run(PINOCCHIO, base)
            cases["pinocchio"] = (None, None, base)
        except subprocess.CalledProcessError:
            print("pinocchio: not installed")
        for k in range(args.repeats):  # interleaved: a busy minute of the machine hits all
            for number, (label, (tier, cache, env)) in enumerate(cases.items()):
                if tier is None:
                    rows.setdefault(label, []).append(_run(PINOCCHIO, env))
                    continue
                where = cache or os.path.join(tmp, f"empty-{number}-{k}")
                rows.setdefault(label, []).append(
                    _run(ROBODYN, {**env, "ROBODYN_TIER": tier, "ROBODYN_CACHE_DIR": where}))
    print(f"{'case':32}" + "".join(f"{s:>9}" for s in STEPS) + "  tier of M")
    for label, runs in rows.items():
        med = {s: statistics.median(r[s] for r in runs) for s in STEPS}
        print(f"{label:32}" + "".join(f"{med[s]:9.3f}" for s in STEPS)
              + f"  {runs[0].get('tier', '')}")
    if "pinocchio" in rows:
        pin = statistics.median(r["total"] for r in rows["pinocchio"])
        for label, runs in rows.items():
            if label != "pinocchio":
                print(f"{label:32} {statistics.median(r['total'] for r in runs) / pin:5.2f}x "
                      "Pinocchio's total")


if __name__ == "__main__":
    main()
