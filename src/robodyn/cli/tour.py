"""The tour ``robodyn demo`` gives without models: derive, simulate, control, energy, with
pictures when :mod:`robodyn.plot` imports."""

from __future__ import annotations

import importlib
import warnings
from pathlib import Path

import numpy as np

from ..codegen.export.files import check_files, prepare_folder, write_files
from ..core.errors import PhysicalConsistencyWarning, excerpt
from ..motion import energy as rd_energy
from ..motion import trajectory as rd_trajectory
from ..motion.simulation import simulate
from .output import format_vector
from .simulate import energy_balance

#: The folder ``robodyn demo`` writes its pictures into (``--out`` changes it).
DEMO_DIR = "robodyn-demo"
#: The pictures the tour draws into ``--out``.
PICTURES = ("rp-arm.png", "2r-drop-energy.png", "2r-drop.gif", "puma-torques.png",
            "puma-tracking.png", "2r-optimized-motion.png", "2r-energy-comparison.png")


def tour(out: Path, force: bool = False) -> int:
    """``robodyn demo``: derive the RP arm, drop the 2R arm, track a quintic of the PUMA with
    computed torque, find a cheaper motion of the 2R; pictures into ``out`` when
    :mod:`robodyn.plot` imports."""
    import sympy as sp  # only the tour prints closed forms

    from ..motion import control
    from ..robot import load

    try:
        plot = importlib.import_module("robodyn.plot")
    except ImportError as exc:
        plot = None
        print(f"(no pictures: robodyn.plot did not import: {excerpt(str(exc))})\n")
    written = []

    def picture(name, draw):
        if plot is None:
            return
        (path,) = write_files({name: draw}, out, force=force, option="--out")
        written.append(path)

    if plot is not None:
        # every picture goes through write_files: into the folder itself (a link there is
        # refused), replacing only what an earlier tour wrote and nobody changed since
        check_files(PICTURES, out, force=force, option="--out")
        prepare_folder(out, "--out")

    # 1. closed forms
    rp = load("rp-arm")
    eq = rp.equations(method="lagrange")
    print("1. Derive: the RP arm (a revolute and a prismatic joint) by Lagrange-Euler,\n"
          "   M(q) qdd + C(q, qd) qd + g(q) = tau with")
    print(f"   M = {sp.sstr(eq.M.tolist())}")
    print(f"   C = {sp.sstr(eq.C.tolist())}")
    print(f"   g = {sp.sstr(list(eq.g))}")
    print("   (robodyn derive rp-arm --steps shows every step)")
    picture("rp-arm.png", lambda p: plot.arm(rp, [0.6, 0.5], path=p))

    # 2. simulation: energy is conserved
    arm = load("planar-2r")
    q0 = np.array([1.0, -0.5])
    sim = simulate(arm, q0, duration=3.0, method="dop853", rtol=1e-10, atol=1e-10)
    print(f"\n2. Simulate: the 2R arm dropped from rest at q = {format_vector(q0)}, 3 s, no torque "
          f"({sim.info['steps']}\n   adaptive DOP853 steps, rtol = atol = 1e-10); the kinetic "
          f"energy swings from 0 to {sim.kinetic.max():.4g} J")
    print("   " + energy_balance(arm, sim))
    picture("2r-drop-energy.png", lambda p: plot.energy(sim, arm, path=p))
    picture("2r-drop.gif", lambda p: plot.animate(arm, sim, p, fps=20))

    # 3. control: computed torque along a quintic
    with warnings.catch_warnings():  # said once below, in words, instead of two warnings
        warnings.simplefilter("ignore", PhysicalConsistencyWarning)
        puma = load("puma560")
    goal = np.array([1.0, 0.5, -0.5, 0.3, 0.2, 0.1])
    traj = rd_trajectory.quintic(np.zeros(6), goal, 2.0)
    ctrl = control.ComputedTorque(puma, traj, kp=100.0, kd=20.0)
    tracked = simulate(puma, traj.q0, duration=2.0, tau=ctrl, dt=1e-3)
    error = np.abs(tracked.q - traj(tracked.t)[0]).max()
    print(f"\n3. Control: the PUMA 560 tracks a 2 s quintic to q = {format_vector(goal)}\n   with "
          "computed torque (exact model, kp = 100, kd = 20, RK4 at 1 kHz):\n   max tracking "
          f"error {error:.2g} rad, peak |tau| = "
          f"{format_vector(np.abs(tracked.tau).max(axis=0), 3)} N m"
          "\n   (Corke's published data, motors included; the inertias of links 1 and 3 are "
          "not\n   those of any rigid body, and robodyn uses them as published)")
    picture("puma-torques.png", lambda p: plot.torques(puma, traj, path=p))
    picture("puma-tracking.png", lambda p: plot.tracking(tracked, traj, puma, path=p))

    # 4. energy: a cheaper motion between the same end points
    start, end, T = [-1.0, 1.0], [1.0, -1.0], 1.5
    best = rd_energy.optimize(arm, start, end, T, objective="positive_work")
    before, after = best.info["baseline_energy"], best.info["energy"]
    print(f"\n4. Energy: the 2R arm from {format_vector(start)} to {format_vector(end)} in "
          f"{T:g} s; positive work "
          f"(what motors\n   that cannot recover energy supply): quintic {before:.4g} J, "
          f"optimised spline {after:.4g} J,\n   {1 - after / before:.1%} less")
    picture("2r-optimized-motion.png", lambda p: plot.motion(best, arm, path=p))
    picture("2r-energy-comparison.png", lambda p: plot.energy_comparison(
        arm, {"quintic": best.info["baseline"], "optimised": best}, path=p))

    if written:
        print(f"\nPictures in {out}/: " + ", ".join(p.name for p in written))
    return 0
