"""Simulation speed: the PUMA 560 tracking a quintic with computed torque.

* fixed step: 10 s at 1 kHz, classic RK4, the compiled loop (4 forward-dynamics and
  4 inverse-dynamics kernel calls per step), real-time factor = simulated / wall time;
* the same with the controller as a Python callable (one call per stage);
* adaptive: passive PUMA for 10 s with DOP853 at rtol = atol = 1e-10, steps per second.

Compilation is excluded (a warm-up run first); medians of repeats.

    make bench          # or: python benchmarks/bench_simulate.py
"""

from __future__ import annotations

import numpy as np
from timing import median_time  # benchmarks/timing.py, beside this script

import robodyn as rd


def main() -> None:
    robot = rd.load("puma560")
    traj = rd.trajectory.quintic(np.zeros(6), [1.0, 0.5, -0.5, 0.3, 0.2, 0.1], 5.0)
    ctrl = rd.control.ComputedTorque(robot, traj, kp=100.0, kd=20.0)

    def fixed():
        return rd.simulate(robot, traj.q0, duration=10.0, tau=ctrl, dt=1e-3)

    def python_callable():
        return rd.simulate(robot, traj.q0, duration=10.0, dt=1e-3,
                           tau=lambda t, q, qd: ctrl(t, q, qd))

    def adaptive():
        return rd.simulate(robot, [0.1, 0.6, -0.4, 0.8, 0.5, -0.3], duration=10.0,
                           method="dop853", rtol=1e-10, atol=1e-10)

    sim = fixed()  # compile (or load from the cache)
    assert sim.info["compiled"]
    error = np.abs(sim.q - traj(sim.t)[0]).max()
    t_fixed = median_time(fixed, 5)
    t_python = median_time(python_callable, 1)
    steps = adaptive().info["steps"]
    t_adaptive = median_time(adaptive, 3)
    print("PUMA 560, computed torque along a 5 s quintic, simulated 10 s "
          f"(max tracking error {error:.1e} rad)\n")
    print("| run | wall time [s] | real-time factor | target |")
    print("|---|---|---|---|")
    print(f"| RK4 1 kHz, compiled loop | {t_fixed:.4f} | {10.0 / t_fixed:.0f} | >= 200 "
          "(moonshot 1000) |")
    print(f"| RK4 1 kHz, controller as a Python callable | {t_python:.3f} | "
          f"{10.0 / t_python:.1f} | |")
    print(f"| DOP853 adaptive, passive, rtol=atol=1e-10 | {t_adaptive:.3f} | "
          f"{10.0 / t_adaptive:.1f} | {steps / t_adaptive:.0f} steps/s ({steps} steps) |")


if __name__ == "__main__":
    main()
