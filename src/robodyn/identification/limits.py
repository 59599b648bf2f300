"""The joints' position and velocity ranges an excitation keeps to (:mod:`.excitation`,
:mod:`.velocity_sweep`)."""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError


def joint_ranges(robot, limits):
    """``(lower, upper, velocity)`` arrays of ``dof``: given, else the model's joint limits,
    else ``[-pi, pi]`` (revolute) / ``[-0.5, 0.5]`` (prismatic) and 2 per second."""
    dof = robot.dof
    lo, hi, vel = np.empty(dof), np.empty(dof), np.empty(dof)
    for j, link in enumerate(robot.numeric_chain.links):
        lim = link.joint.limits
        revolute = link.joint.type == "revolute"
        lo[j], hi[j], vel[j] = (-np.pi, np.pi, 2.0) if revolute else (-0.5, 0.5, 1.0)
        if lim is not None:
            vals = [float(x) if x is not None else np.nan for x in lim[:3]]
            if np.isfinite(vals[:2]).all() and vals[0] < vals[1]:
                lo[j], hi[j] = vals[0], vals[1]
            if len(vals) > 2 and np.isfinite(vals[2]) and vals[2] > 0:
                vel[j] = vals[2]
    if limits is not None:
        given = dict(limits) if isinstance(limits, dict) else dict(zip(("q_min", "q_max", "qd_max"),
                                                                       limits))
        for key, target in (("q_min", lo), ("q_max", hi), ("qd_max", vel)):
            if key in given and given[key] is not None:
                arr = np.broadcast_to(np.asarray(given[key], dtype=float), (dof,))
                if not np.isfinite(arr).all():
                    raise InputError(f"limits.{key}: expected {dof} finite numbers")
                target[:] = arr
    if np.any(lo >= hi) or np.any(vel <= 0):
        raise InputError("limits: need q_min < q_max and qd_max > 0 for every joint")
    return lo, hi, vel
