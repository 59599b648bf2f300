"""A run of elastic joints over time (:func:`robodyn.motion.elastic.simulate_elastic`):
per joint the link's ``q`` (solid) and, on an elastic joint, its motor's ``theta`` (dashed,
reflected through the gear), with a controller's reference (dotted, black) when given;
below, each spring's deflection ``theta - q`` in milliradians (millimetres for a prismatic
joint), the torque the spring passes being ``K (theta - q) + D (theta' - q')``. Behind a
coupled transmission (``run.coupling``, ``N``) each joint shows the motors' angles seen at
the joints, ``N^-1 theta_m`` (equal to ``q`` when rigid), and the deflections are the
springs' own, ``theta_m - N q`` at the motors."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from ..core.errors import InputError
from .common import check_dof, finite_array, new_figure, save_figure

if TYPE_CHECKING:
    from ..motion.elastic import ElasticSimulation
    from ..robot import Robot

__all__ = ["elastic_motion"]


def elastic_motion(run: ElasticSimulation, robot: Robot | None = None, *,
                   reference: ArrayLike | None = None,
                   path: str | os.PathLike[str] | None = None,
                   title: str | None = None) -> Figure:
    """``q`` and ``theta`` per joint and the springs' deflection ``theta - q`` of ``run``
    (module docstring). ``reference``: the links' reference ``(T, n)`` on ``run.t``
    (``(n,)``: a set point), drawn dotted. With ``robot`` the units follow the joint types.
    Saves to ``path`` when given; returns the figure."""
    t = finite_array(run.t, "run.t")
    q = finite_array(run.q, "run.q")
    theta = finite_array(run.theta, "run.theta")
    dof, elastic = q.shape[1], [int(j) for j in run.elastic]
    check_dof(robot, dof)
    units = ([u for link in robot.links for u in link.joint.units] if robot is not None
             else ["rad"] * dof)
    if theta.shape[1] != len(elastic):
        raise InputError(f"run.theta: {theta.shape[1]} columns for {len(elastic)} springs")
    if reference is not None:
        reference = np.broadcast_to(finite_array(reference, "reference"), q.shape)
    coupling = getattr(run, "coupling", None)
    seen, name = theta, "motor theta"
    if coupling is not None:   # the motors' angles at the joints (some motors rigid: the
        seen, name = (np.linalg.solve(coupling, theta.T).T    # deflections alone)
                      if len(coupling) == dof else None), "motors (N^-1 theta_m)"
    fig = new_figure((7.5, 1.8 + 2.0 * (dof + 1.3)))
    *joint_axes, bottom = fig.subplots(dof + 1, 1, sharex=True,
                                       height_ratios=[1.0] * dof + [1.3])
    for j, ax in enumerate(joint_axes):
        color = f"C{j % 10}"
        if reference is not None:
            ax.plot(t, reference[:, j], color="black", lw=1.1, ls=":", label="reference",
                    zorder=3)
        ax.plot(t, q[:, j], color=color, lw=1.8, label=f"link q{j + 1}")
        if j in elastic and seen is not None:
            ax.plot(t, seen[:, elastic.index(j)], color=color, lw=1.3, ls="--", alpha=0.8,
                    label=f"{name}{j + 1}" if coupling is None else f"{name}_{j + 1}")
        ax.set_ylabel(f"joint {j + 1} [{units[j]}]")
        ax.set_title(f"joint {j + 1}: " + ("elastic" if j in elastic else "rigid"),
                     fontsize="small", loc="left")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="x-small")
    deflection = 1e3 * (theta - (q[:, elastic] if coupling is None else q @ coupling.T))
    for k, j in enumerate(elastic):
        bottom.plot(t, deflection[:, k], color=f"C{j % 10}", lw=1.3,
                    label=f"theta{j + 1} - q{j + 1}" if coupling is None else
                    f"theta_m{j + 1} - (N q){j + 1}")
    bottom.axhline(0.0, color="0.4", lw=0.6)
    peak = float(np.abs(deflection).max()) if deflection.size else 0.0
    shown = ", ".join(dict.fromkeys(f"m{units[j]}" for j in elastic))
    what = "theta - q" if coupling is None else "theta_m - N q at the motors"
    bottom.set_title(f"spring deflection {what} (peak {peak:.3g} {shown})",
                     fontsize="medium")
    bottom.set_ylabel(f"deflection [{shown}]")
    bottom.set_xlabel("t [s]")
    bottom.grid(True, alpha=0.3)
    bottom.legend(loc="best", ncol=min(len(elastic), 6), fontsize="x-small")
    fig.suptitle(title or "Elastic joints" + (f" of {robot.name}" if robot is not None else ""))
    save_figure(fig, path)
    return fig
