"""Symbolic equations of motion: robodyn (Lagrange-Euler, Newton-Euler) vs SymPy's
``sympy.physics.mechanics.LagrangesMethod``, side by side in one run.

Systems: the 2R and 3R planar arms and the PUMA 560 geometry, each with every inertial
parameter symbolic (ten per link: m, the centre of mass cx, cy, cz, and the six entries
of the inertia tensor about it; ``robodyn.identification.parameters.with_symbolic_inertia``),
link lengths symbolic where the model has them, gravity g symbolic.

For robodyn, two times per method: *derive* (the equations as polynomials: for
Lagrange-Euler energies, d/dt dL/dqd - dL/dq, M, g, C from the Christoffel symbols; for
Newton-Euler the recursion on closed forms, M, g, C read off tau) and *+ print* (the
SymPy matrices M, C, g in compact form, i.e. what ``eq.M, eq.C, eq.g`` return). Then
the proof that both agree (``verify``).

Baseline: ``LagrangesMethod(L, q).form_lagranges_equations()`` plus its ``mass_matrix``
and ``forcing`` (no simplification, no C matrix: less work than robodyn does), built
from the same chain with ``ReferenceFrame``/``RigidBody``. Its mass matrix is checked
against robodyn's at a random state (same system). It runs in a subprocess with a time
cap (``--cap``, default 120 s) because on the 6-DOF arm it does not finish in minutes.

Real arms from example-robot-data's URDF files (``--arms``): the Franka Panda (tip
``panda_hand``, fingers locked), the xArm7 as written (``rpy="1.5708"``, not a right angle)
and with ``snap_angles=1e-3``, and the UR5 (tip ``tool0``); every number of the file is a
float, gravity ``g`` symbolic. For each, ``robot.equations(method=...)`` with both methods,
each in a subprocess stopped after ``--urdf-cap`` seconds (default 120).

    python benchmarks/bench_symbolic.py [--cap 120] [--skip-baseline] [--models 2r 3r 6dof]
                                        [--arms panda xarm7 xarm7-snapped ur5] [--urdf-cap 120]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import sys
import time
from pathlib import Path

import numpy as np
import sympy as sp

import robodyn as rd
from robodyn.identification.parameters import with_symbolic_inertia
from robodyn.model.chain import REVOLUTE
from robodyn.symbolic import equations, verify

SYSTEMS = {"2r": "planar-2r", "3r": "planar-3r", "6dof": "puma560"}


def robot_of(key: str):
    return with_symbolic_inertia(rd.load(SYSTEMS[key]))


# -- robodyn ---------------------------------------------------------------------------
def time_robodyn(robot, method: str) -> dict:
    start = time.perf_counter()
    eq = equations(robot, method=method)
    derived = time.perf_counter()
    M, _, g = eq.M, eq.C, eq.g
    printed = time.perf_counter()
    size = sum(sp.count_ops(e) for e in list(M) + list(g)) if robot.dof <= 3 else None
    return {"derive_s": derived - start, "total_s": printed - start, "ops_M_g": size,
            "check": bool(eq.check()) if robot.dof <= 3 else None}


# -- real arms from URDF files -----------------------------------------------------------------
#: name: (file under example-robot-data's robots/, load options)
ARMS = {
    "panda": ("panda_description/urdf/panda.urdf", {"tip": "panda_hand"}),
    "xarm7": ("xarm_description/urdf/xarm7.urdf", {}),
    "xarm7-snapped": ("xarm_description/urdf/xarm7.urdf", {"snap_angles": 1e-3}),
    "ur5": ("ur_description/urdf/ur5_robot.urdf", {"tip": "tool0"}),
}


def example_robot_data(relative: str) -> Path | None:
    """A file of the installed example-robot-data package, or ``None``."""
    try:
        return rd.models.example_robot_data(relative)
    except rd.ModelError:
        return None


def arm_job(path: str, options: dict, method: str, queue) -> None:
    robot = rd.load(path, **options)
    start = time.perf_counter()
    robot.equations(method=method)
    queue.put({"derive_s": time.perf_counter() - start})


def run_capped(target, args, cap: float) -> dict:
    """``target(*args, queue)`` in a forked process; ``{"stopped_at_s": cap}`` if it is
    still running after ``cap`` seconds."""
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=target, args=(*args, queue))
    proc.start()
    proc.join(cap)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return {"stopped_at_s": cap}
    return queue.get() if not queue.empty() else {"error": f"exit {proc.exitcode}"}


def time_arm(name: str, cap: float) -> dict:
    relative, options = ARMS[name]
    path = example_robot_data(relative)
    if path is None:
        return {"missing": relative}
    row = {"file": relative, "options": options, "dof": rd.load(path, **options).dof}
    for method in ("lagrange", "newton-euler"):
        row[method] = run_capped(arm_job, (str(path), options, method), cap)
    return row


def _arm_line(name: str, row: dict) -> str:
    if "missing" in row:
        return f"{name:>14}: skipped (example-robot-data has no {row['missing']})"
    parts = []
    for method, label in (("lagrange", "Lagrange-Euler"), ("newton-euler", "Newton-Euler")):
        r = row[method]
        if "stopped_at_s" in r:
            parts.append(f"{label} > {r['stopped_at_s']:.0f} s (stopped)")
        elif "error" in r:
            parts.append(f"{label} failed ({r['error']})")
        else:
            parts.append(f"{label} {r['derive_s']:.1f} s")
    dof = row["dof"]
    options = ", ".join(f"{k}={v!r}" for k, v in row["options"].items())
    return f"{name:>14} ({dof} DOF{', ' + options if options else ''}): " + " | ".join(parts)


# -- the baseline: sympy.physics.mechanics ----------------------------------------------
def mechanics_model(chain):
    """``LagrangesMethod`` of a robodyn chain (revolute joints, the chain's frames)."""
    import sympy.physics.mechanics as me

    n = chain.dof
    q = me.dynamicsymbols(f"q1:{n + 1}")
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    frame, origin = N, O
    bodies = []
    g0 = chain.gravity
    gravity = g0[0] * N.x + g0[1] * N.y + g0[2] * N.z
    for i, link in enumerate(chain.links):
        if link.joint.type != REVOLUTE:
            raise NotImplementedError("the baseline model is written for revolute joints")
        placement = link.joint.placement
        P = me.ReferenceFrame(f"P{i + 1}")
        # P's axes in the parent frame are the columns of the placement rotation
        P.orient_explicit(frame, sp.Matrix(placement.rotation))
        L = me.ReferenceFrame(f"L{i + 1}")
        ax = link.joint.axis
        L.orient_axis(P, ax[0] * P.x + ax[1] * P.y + ax[2] * P.z, q[i] + link.joint.offset)
        t = placement.translation
        joint_origin = origin.locatenew(f"O{i + 1}", t[0] * frame.x + t[1] * frame.y
                                        + t[2] * frame.z)
        c = link.inertial.com
        com = joint_origin.locatenew(f"G{i + 1}", c[0] * L.x + c[1] * L.y + c[2] * L.z)
        com.set_vel(N, com.pos_from(O).dt(N))
        I = link.inertial.inertia
        inertia = me.inertia(L, I[0][0], I[1][1], I[2][2], I[0][1], I[1][2], I[0][2])
        body = me.RigidBody(f"B{i + 1}", com, L, link.inertial.mass, (inertia, com))
        body.potential_energy = -link.inertial.mass * gravity.dot(com.pos_from(O))
        bodies.append(body)
        frame, origin = L, joint_origin
    return me.Lagrangian(N, *bodies), q


def baseline_job(key: str, readable: bool, queue) -> None:
    import sympy.physics.mechanics as me

    robot = robot_of(key)
    start = time.perf_counter()
    lagrangian, q = mechanics_model(robot.chain)
    lm = me.LagrangesMethod(lagrangian, q)
    lm.form_lagranges_equations()
    M, F = lm.mass_matrix, lm.forcing
    if readable:  # what a user does to read them: trigsimp entry by entry
        M = M.applyfunc(sp.trigsimp)
        F = F.applyfunc(sp.trigsimp)
    elapsed = time.perf_counter() - start
    # same system? compare M numerically with robodyn's at a random state
    rng = np.random.default_rng(0)
    values = {sp.Symbol(k): v for k, v in robot.values.items()}
    qs = rng.uniform(-np.pi, np.pi, robot.dof)
    subs = dict(values)
    subs.update({qi: float(x) for qi, x in zip(q, qs, strict=True)})
    M_num = np.array(M.xreplace(subs).evalf(), dtype=float)
    M_ref = robot.mass_matrix(qs)
    queue.put({"total_s": elapsed, "same_M": bool(np.allclose(M_num, M_ref, atol=1e-9)),
               "ops_forcing": int(sp.count_ops(F)) if robot.dof <= 3 else None})


def time_baseline(key: str, cap: float, readable: bool = False) -> dict:
    ctx = mp.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=baseline_job, args=(key, readable, queue))
    start = time.perf_counter()
    proc.start()
    proc.join(cap)
    if proc.is_alive():
        proc.terminate()
        proc.join()
        return {"total_s": None, "capped_at_s": cap}
    result = queue.get() if not queue.empty() else {"error": f"exit {proc.exitcode}"}
    result["wall_s"] = time.perf_counter() - start
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", nargs="*", default=list(SYSTEMS), choices=list(SYSTEMS))
    parser.add_argument("--arms", nargs="*", default=list(ARMS), choices=list(ARMS),
                        help="URDF arms of example-robot-data to derive (none: skip)")
    parser.add_argument("--urdf-cap", type=float, default=120.0,
                        help="time cap of each URDF arm and method, seconds")
    parser.add_argument("--cap", type=float, default=120.0,
                        help="time cap of the LagrangesMethod baseline per system, seconds")
    parser.add_argument("--skip-baseline", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args()

    results = {}
    for key in args.models:
        robot = robot_of(key)
        row = {"dof": robot.dof, "parameters": len(robot.symbols)}
        for method in ("lagrange", "newton-euler"):
            row[method] = time_robodyn(robot, method)
        start = time.perf_counter()
        agreement = verify(robot)
        row["verify_s"] = time.perf_counter() - start
        row["agree"] = agreement.holds and agreement.exact
        if not args.skip_baseline:
            row["LagrangesMethod"] = time_baseline(key, args.cap)
            row["LagrangesMethod+trigsimp"] = time_baseline(key, args.cap, readable=True)
        results[key] = row
        if not args.json:
            print(_line(key, row), flush=True)
    arms = {}
    for name in args.arms:
        arms[name] = time_arm(name, args.urdf_cap)
        if not args.json:
            print(_arm_line(name, arms[name]), flush=True)
    if args.json:
        print(json.dumps({"systems": results, "arms": arms}, indent=2))
    elif results:
        print("\nrobodyn: derive = equations as polynomials; total = derive + printing M, C, g "
              "in compact SymPy form.\nLagrangesMethod: form_lagranges_equations + mass_matrix + "
              "forcing (no C matrix, no simplification); +trigsimp: then trigsimp of every "
              "entry of M and forcing (a readable result, still without C).")
    ok = all(r["agree"] for r in results.values())
    return 0 if ok else 1


def _line(key: str, row: dict) -> str:
    le, ne = row["lagrange"], row["newton-euler"]
    text = (f"{key:>5} ({row['dof']} DOF, {row['parameters']} symbols): "
            f"Lagrange-Euler derive {le['derive_s']:.2f} s, total {le['total_s']:.2f} s | "
            f"Newton-Euler derive {ne['derive_s']:.2f} s, total {ne['total_s']:.2f} s | "
            f"verify {row['verify_s']:.2f} s ({'agree' if row['agree'] else 'DISAGREE'})")
    for name in ("LagrangesMethod", "LagrangesMethod+trigsimp"):
        base = row.get(name)
        if base is None:
            continue
        if base.get("total_s") is None and "capped_at_s" in base:
            text += f"\n       {name}: > {base['capped_at_s']:.0f} s (capped)"
        elif "error" in base:
            text += f"\n       {name}: failed ({base['error']})"
        else:
            ratio = base["total_s"] / le["total_s"]
            text += (f"\n       {name}: {base['total_s']:.2f} s ({ratio:.0f}x robodyn LE total;"
                     f" same M as robodyn: {base['same_M']})")
    return text


if __name__ == "__main__":
    sys.exit(main())
