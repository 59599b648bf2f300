"""Drive torque limits: a controller's torque clipped at each joint's limit.

A drive delivers at most its rated torque ``tau_max`` (URDF ``<limit effort>``, a model
file's ``limits: {effort}``, MJCF ``actuatorfrcrange``); what a controller asks beyond it
is not applied. :class:`Saturated` wraps any controller ``tau(t, q, qd)``::

    tau_applied = clip(tau_demand, -tau_max, tau_max)        (per joint)

and records how often and by how much the demand passed the limit, which
:func:`robodyn.simulate` reports in ``sim.info["saturation"]``. A joint without a limit
(``inf``) passes its demand through. The simulated motion is that of the applied torques
(``sim.tau``); the energy balance holds for them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import numbers
from ..core.errors import InputError, excerpt

__all__ = ["Saturated", "effort_limits"]


def effort_limits(robot) -> np.ndarray:
    """Each joint's torque (force) limit of ``robot``'s model, ``inf`` where it has none."""
    out = np.full(robot.dof, np.inf)
    for j, link in enumerate(robot.chain.links[:robot.dof]):
        limits = link.joint.limits
        if limits is not None and limits[3] is not None:
            out[j] = float(limits[3])
    return out


class Saturated:
    """``tau = clip(controller(t, q, qd), -limits, limits)``: ``controller`` (a built-in
    controller or any callable) behind drives that deliver at most ``limits`` (one
    positive value per joint, ``inf`` for none; default: the effort limits of the
    controller's ``model``). Counts the calls, the calls clipped per joint and the largest
    demand per joint (:meth:`report`; :meth:`reset` starts again)."""

    kind = None  # a Python callable: the fixed-step loops call it from Python

    def __init__(self, controller: Callable[..., Any], limits: ArrayLike | None = None):
        if not callable(controller):
            raise InputError(f"controller: expected a callable tau(t, q, qd), got "
                             f"{excerpt(controller)}")
        self.controller = controller
        model = getattr(controller, "model", None)
        if limits is None:
            if model is None:
                raise InputError("limits: a plain callable has no model to read the drives' "
                                 "limits from; give limits=[one per joint]")
            limits = effort_limits(model)
            if not np.isfinite(limits).any():
                raise InputError(f"limits: the model {model.name!r} has no effort limits "
                                 "(URDF <limit effort>, a model file's limits: {effort}); "
                                 "give limits=[one per joint]")
        try:
            self.limits = np.asarray(limits, dtype=float).reshape(-1)
        except (TypeError, ValueError):
            raise InputError(f"limits: expected one positive number per joint, got "
                             f"{excerpt(limits)}") from None
        if model is not None and self.limits.shape != (model.dof,):
            raise InputError(f"limits: expected {model.dof} values (one per joint of "
                             f"{model.name!r}), got {self.limits.size}")
        if np.isnan(self.limits).any() or (self.limits <= 0).any():
            raise InputError(f"limits: every limit must be positive (inf for none), got "
                             f"{excerpt(self.limits.tolist())}")
        self.reset()

    def reset(self) -> None:
        """Forget the calls counted so far."""
        self.calls = 0
        self.clipped = np.zeros(self.limits.size, dtype=int)
        self.peak_demand = np.zeros(self.limits.size)

    def __call__(self, t, q, qd) -> np.ndarray:
        demand = np.asarray(self.controller(t, q, qd), dtype=float)
        if demand.shape != self.limits.shape:
            raise InputError(f"Saturated: the controller gave {demand.size} torques, the "
                             f"limits are {self.limits.size}")
        self.calls += 1
        over = np.abs(demand) > self.limits
        self.clipped += over
        np.maximum(self.peak_demand, np.abs(demand), out=self.peak_demand)
        return np.clip(demand, -self.limits, self.limits)

    def report(self) -> dict:
        """``{"limits", "peak_demand", "clipped_fraction"}`` per joint (the fraction of the
        controller's calls whose demand passed the limit) and ``"saturated"``: the joints
        (0-based) whose demand ever did."""
        fraction = self.clipped / max(self.calls, 1)
        return {"limits": self.limits.copy(), "peak_demand": self.peak_demand.copy(),
                "clipped_fraction": fraction,
                "saturated": [int(j) for j in np.flatnonzero(self.clipped)]}

    def __repr__(self) -> str:
        return f"Saturated({self.controller!r}, limits={numbers(self.limits)})"
