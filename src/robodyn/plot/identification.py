"""The friction fit against measured torques (:func:`friction_fit`): per joint, the torque
along the (held-out) trajectory, measured and predicted by the fitted model, and the
friction against velocity, ``tau - (M qdd + C qd + g)`` measured and ``tau_f(qd)`` fitted
(the Stribeck curve the fit found)."""

from __future__ import annotations

import numpy as np

from .common import finite_array, new_figure, save_figure

__all__ = ["friction_fit"]


def friction_fit(fit, q, qd, qdd, tau, t=None, *, path=None, title: str | None = None):
    """The figure of ``fit`` (a :class:`~robodyn.identification.friction_fit.FrictionFit`)
    on samples ``q, qd, qdd, tau`` ``(N, dof)`` (``t``: their times; default the sample
    index): a row per joint, torque over time on the left, friction over velocity on the
    right, each with the RMS of measured minus predicted. Saved to ``path`` when given."""
    robot = fit.robot
    dof = robot.dof
    q, qd, qdd, tau = (finite_array(a, name).reshape(-1, dof) for name, a in
                       (("q", q), ("qd", qd), ("qdd", qdd), ("tau", tau)))
    x = np.arange(len(q)) if t is None else finite_array(t, "t")
    predicted = robot.inverse_dynamics(q, qd, qdd)
    measured_friction = tau - robot.without_friction().inverse_dynamics(q, qd, qdd)
    order = np.argsort(qd, axis=0)
    fitted_friction = robot.friction_torques(qd)
    fig = new_figure((10, 2.8 * dof + 0.6))
    axes = fig.subplots(dof, 2, squeeze=False)
    for j in range(dof):
        rms = float(np.sqrt(np.mean((tau[:, j] - predicted[:, j]) ** 2)))
        left, right = axes[j]
        left.plot(x, tau[:, j], lw=0.6, color="0.55", label="measured")
        left.plot(x, predicted[:, j], lw=0.9, color="C0", label="predicted")
        left.set_title(f"joint {j + 1}: torque, RMS error {rms:.3g}")
        left.set_xlabel("t [s]" if t is not None else "sample")
        left.set_ylabel("tau [N m]")
        left.legend(loc="upper right", fontsize=8)
        k = order[:, j]
        right.plot(qd[:, j], measured_friction[:, j], ".", ms=1.5, color="0.55",
                   label="measured tau - rigid model")
        right.plot(qd[k, j], fitted_friction[k, j], color="C3", lw=1.2, label="fitted tau_f")
        right.set_title(f"joint {j + 1}: friction")
        right.set_xlabel("qd [rad/s]")
        right.set_ylabel("tau_f [N m]")
        right.legend(loc="upper left", fontsize=8)
    if title:
        fig.suptitle(title)
    save_figure(fig, path)
    return fig
