"""Drive torque limits: a controller's torque clipped at each joint's limit.

A drive delivers at most its rated torque ``tau_max`` (URDF ``<limit effort>``, a model
file's ``limits: {effort}``, MJCF ``actuatorfrcrange``); what a controller asks beyond it
is not applied. :class:`Saturated` wraps any controller ``tau(t, q, qd)``::

    tau_applied = clip(tau_demand, -tau_max, tau_max)        (per joint)

and records how often and by how much the demand passed the limit, which
:func:`robodyn.simulate` reports in ``sim.info["saturation"]``. A joint without a limit
(``inf``) passes its demand through. The simulated motion is that of the applied torques
(``sim.tau``); the energy balance holds for them.

With ``speeds`` (each drive's top speed ``v_max``: a DC motor's no-load speed at its rated
voltage through the gear, URDF ``<limit velocity>``, a model file's ``limits: {velocity}``)
the limit is the drive's torque-speed envelope, a DC motor's straight line (Siciliano et
al., *Robotics*, §5.2: ``tau = k_t (V - k_b w) / R`` falls linearly with speed): a torque
that pushes the joint on in its direction of motion is at most
``tau_max (1 - |qd| / v_max)`` (none at ``v_max`` and beyond), one that brakes it the full
``tau_max``. The drive so cannot drive a joint past its top speed (gravity or a load still
can, and the drive then brakes it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import numbers
from ..core.errors import InputError, excerpt

__all__ = ["Saturated", "effort_limits", "velocity_limits"]


#: Where a joint's ``limits`` hold each kind (``(lower, upper, velocity, effort)``).
_LIMIT_INDEX = {"velocity": 2, "effort": 3}


def _joint_limits(robot, kind: str) -> np.ndarray:
    out = np.full(robot.dof, np.inf)
    for j, link in enumerate(robot.chain.links[:robot.dof]):
        limits = link.joint.limits
        if limits is not None and limits[_LIMIT_INDEX[kind]] is not None:
            out[j] = float(limits[_LIMIT_INDEX[kind]])
    return out


def effort_limits(robot) -> np.ndarray:
    """Each joint's torque (force) limit of ``robot``'s model, ``inf`` where it has none."""
    return _joint_limits(robot, "effort")


def velocity_limits(robot) -> np.ndarray:
    """Each joint's velocity limit of ``robot``'s model, ``inf`` where it has none."""
    return _joint_limits(robot, "velocity")


def _model_limits(model, kind: str, option: str, name: str) -> np.ndarray:
    """The ``kind`` limits of a controller's ``model`` for the argument ``option``; an
    :class:`InputError` that says to give ``name=[...]`` without a model or limits."""
    if model is None:
        raise InputError(f"{option}: a plain callable has no model to read the drives' "
                         f"{kind} limits from; give {name}=[one per joint]")
    out = _joint_limits(model, kind)
    if not np.isfinite(out).any():
        raise InputError(f"{option}: the model {model.name!r} has no {kind} limits (URDF "
                         f"<limit {kind}>, a model file's limits: {{{kind}}}); give "
                         f"{name}=[one per joint]")
    return out


class Saturated:
    """``tau = clip(controller(t, q, qd), -limits, limits)``: ``controller`` (a built-in
    controller or any callable) behind drives that deliver at most ``limits`` (one
    positive value per joint, ``inf`` for none; default: the effort limits of the
    controller's ``model``). ``speeds``: each drive's top speed for the torque-speed
    envelope (module docstring; ``True``: the velocity limits of the controller's ``model``;
    default ``None``: none). Counts the calls, the calls clipped per joint and the largest
    demand per joint (:meth:`report`; :meth:`reset` starts again)."""

    kind = None  # a Python callable: the fixed-step loops call it from Python

    def __init__(self, controller: Callable[..., Any], limits: ArrayLike | None = None,
                 speeds: ArrayLike | bool | None = None):
        if not callable(controller):
            raise InputError(f"controller: expected a callable tau(t, q, qd), got "
                             f"{excerpt(controller)}")
        self.controller = controller
        model = getattr(controller, "model", None)
        if limits is None:
            limits = _model_limits(model, "effort", "limits", "limits")
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
        self.speeds = _speeds(speeds, model, self.limits.size)
        self.reset()

    def reset(self) -> None:
        """Forget the calls counted so far."""
        self.calls = 0
        self.clipped = np.zeros(self.limits.size, dtype=int)
        self.peak_demand = np.zeros(self.limits.size)

    def __call__(self, t, q, qd) -> np.ndarray:
        raw = self.controller(t, q, qd)
        try:
            demand = np.asarray(raw, dtype=float)
        except (TypeError, ValueError):
            raise InputError(f"Saturated: the controller gave {excerpt(raw)}; expected "
                             f"{self.limits.size} torques (numbers)") from None
        if demand.shape != self.limits.shape:
            raise InputError(f"Saturated: the controller gave {demand.size} torques, the "
                             f"limits are {self.limits.size}")
        self.calls += 1
        limits = self.limits
        if self.speeds is not None:  # pushing on in the direction of motion: the envelope
            qd = np.asarray(qd, dtype=float).reshape(-1)
            onward = demand * qd > 0
            with np.errstate(invalid="ignore"):  # inf limits, inf speeds
                envelope = limits * np.maximum(1.0 - np.abs(qd) / self.speeds, 0.0)
            limits = np.where(onward & np.isfinite(self.speeds), envelope, limits)
        over = np.abs(demand) > limits
        self.clipped += over
        np.maximum(self.peak_demand, np.abs(demand), out=self.peak_demand)
        return np.clip(demand, -limits, limits)

    def report(self) -> dict:
        """``{"limits", "peak_demand", "clipped_fraction"}`` per joint (the fraction of the
        controller's calls whose demand passed the limit) and ``"saturated"``: the joints
        (0-based) whose demand ever did."""
        fraction = self.clipped / max(self.calls, 1)
        return {"limits": self.limits.copy(), "peak_demand": self.peak_demand.copy(),
                "clipped_fraction": fraction,
                "saturated": [int(j) for j in np.flatnonzero(self.clipped)]}

    def __repr__(self) -> str:
        speeds = "" if self.speeds is None else f", speeds={numbers(self.speeds)}"
        return f"Saturated({self.controller!r}, limits={numbers(self.limits)}{speeds})"


def _speeds(speeds, model, n: int) -> np.ndarray | None:
    """The checked top speeds of :class:`Saturated` (None: no envelope)."""
    if speeds is None or speeds is False:
        return None
    if speeds is True:
        speeds = _model_limits(model, "velocity", "speeds=True", "speeds")
    try:
        out = np.broadcast_to(np.asarray(speeds, dtype=float), (n,)).copy()
    except (TypeError, ValueError):
        raise InputError(f"speeds: expected one positive top speed per joint ({n}), got "
                         f"{excerpt(speeds)}") from None
    if np.isnan(out).any() or (out <= 0).any():
        raise InputError(f"speeds: every top speed must be positive (inf for none), got "
                         f"{excerpt(out.tolist())}")
    return out
