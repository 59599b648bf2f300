"""Fixed steps of a voltage-driven run (:mod:`robodyn.motion.voltage`): ``rd.simulate(...,
voltage=, dt=, method=)`` with ``"rk4"`` or ``"semi-implicit-euler"``, the motors'
electrical state integrated with the mechanics on the state ``y = (q, qd, i_L, E, Q)``
(:class:`~robodyn.motion.voltage.Rates`) over the grid ``options.times`` (``dt`` each, the
last step maybe shorter).

* ``"rk4"``: classic Runge-Kutta on the whole state, one call of the rates per stage. The
  inductance makes the circuit stiff: its current relaxes at the rate ``R / L`` (with the
  back-EMF, the fastest rate ``lambda`` of the linearised motor-and-arm), and RK4 is
  stable only for ``dt |lambda| <= 2.78`` (the end of its stability region on the real
  axis; Hairer & Wanner, *Solving ODEs II*, §IV.2). A ``dt`` beyond that at the start is
  an :class:`~robodyn.core.errors.InputError` naming ``dt``, ``L / R`` and the way out.
* ``"semi-implicit-euler"``: the arm's symplectic Euler (``qd`` first, then ``q`` with the
  new ``qd``) with the inductive currents stepped by implicit (backward) Euler, exact
  because the circuit is linear in its current::

      i_{k+1} = (L i_k + h (V_k - k_b w_m(qd_{k+1}))) / (L + h R)

  stable for every ``dt`` however small ``L / R`` (the voltage ``V_k`` at the step's start:
  a ``V(t, q, qd, i)`` current loop is explicit in ``i``); first order. ``E`` and ``Q``
  take Euler steps ``h V_k i_k`` and ``h R i_k^2``.

A step whose state stops being finite or passes
:data:`~robodyn.motion.inputs.MAX_MAGNITUDE` ends the run with an error naming the time and
the motion's fastest rate against the method's limit.
"""

from __future__ import annotations

import numpy as np

from ..core.errors import InputError, RobodynError
from .adaptive import fastest_rate
from .fixed import PROGRESS_CHUNKS
from .inputs import MAX_MAGNITUDE

__all__ = ["integrate_fixed", "advance", "grid_info", "stiff_circuit", "STEPS", "RK4_LIMIT"]

#: ``|dt lambda|`` beyond which RK4 is unstable for a real eigenvalue ``lambda``.
RK4_LIMIT = 2.78


def _rk4(rates, t, y, h):
    k1 = rates(t, y)
    k2 = rates(t + h / 2, y + h / 2 * k1)
    k3 = rates(t + h / 2, y + h / 2 * k2)
    k4 = rates(t + h, y + h * k3)
    return y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)


def _semi_implicit_euler(rates, t, y, h):
    n, k, drives = rates.n, rates.k, rates.drives
    V, i, _, qdd = rates.parts(t, y)
    q, qd, i_state = rates.split(y)
    qd1 = qd + h * qdd
    q1 = q + h * qd1
    L, R = drives.L[drives.inductive], drives.R[drives.inductive]
    back = (drives.kb * drives.speed(qd1))[..., drives.inductive]
    i1 = (L * i_state + h * (V[..., drives.inductive] - back)) / (L + h * R)
    energies = y[..., 2 * n + k:] + h * np.concatenate([V * i, drives.R * i * i], axis=-1)
    return np.concatenate([q1, qd1, i1, energies], axis=-1)


#: The steps of the fixed-step methods: ``step(rates, t, y, h)``, on one state ``y``
#: ``(size,)`` or on the rows of a batch ``(N, size)`` (:mod:`robodyn.motion.voltage_lockstep`).
STEPS = {"rk4": _rk4, "semi-implicit-euler": _semi_implicit_euler}


def stiff_circuit(rates, y0, options) -> None:
    """RK4 whose ``dt`` is beyond the stability limit of the motion's fastest rate at the
    start: an :class:`InputError` naming ``dt`` (module docstring)."""
    rate = fastest_rate(rates, 0.0, y0)
    dt = options.dt
    if rate is None or rate * dt <= RK4_LIMIT:
        return
    drives = rates.drives
    circuit, way = "", "the adaptive method='radau'"
    if drives.inductive.any():
        tau_e = float((drives.L[drives.inductive] / drives.R[drives.inductive]).min())
        if RK4_LIMIT * tau_e < dt:  # the circuit alone is too fast for dt
            circuit = (f" (the motors' inductance makes their circuit stiff: L / R = "
                       f"{tau_e:.3g} s)")
            way = ("method='semi-implicit-euler' (the currents stepped implicitly, stable "
                   "for any L / R) or the adaptive method='radau'")
    raise InputError(f"dt: {dt:g} s is beyond rk4's stability limit for this voltage-driven "
                     f"run: its fastest rate is {rate:.3g} 1/s{circuit}, and rk4 is stable "
                     f"only for dt below about {RK4_LIMIT / rate:.2g} s; reduce dt, or use "
                     f"{way}")


def _diverged(rates, method, t, h, y):
    rate = fastest_rate(rates, t, y)
    hint = (f"; its fastest rate is {rate:.3g} 1/s (dt * rate = {rate * h:.3g})"
            if rate is not None else "")
    way = ("method='semi-implicit-euler' (stable for any circuit) or 'radau'"
           if method == "rk4" else "method='radau' (the arm's step is explicit)")
    raise RobodynError(f"simulate: the motion diverged on the step from t = {t:.6g} s to "
                       f"{t + h:.6g} s: the state (q, qd, currents) stopped being finite or "
                       f"passed {MAX_MAGNITUDE:g}{hint}; reduce dt, or use {way}")


def advance(rates, method: str, t: float, h: float, y):
    """The step of ``method`` from the accepted state ``(t, y)`` of one run: the next state,
    or the run's error (the model's, where the rates fail at ``(t, y)`` itself; else the
    divergence, naming the time and the motion's fastest rate)."""
    with np.errstate(all="ignore"):
        try:
            y1 = STEPS[method](rates, t, y, h)
        except RobodynError:
            rates(t, y)  # an error at the accepted state is the model's
            y1 = np.full(len(y), np.nan)
    if not np.all(np.abs(y1[:2 * rates.n + rates.k]) <= MAX_MAGNITUDE):
        _diverged(rates, method, t, h, y)
    return y1


def grid_info(options) -> dict:
    """The ``info`` of a fixed-step run on ``options.times``: ``steps``, ``dt``, and
    ``last_step`` when the last is shorter."""
    t = options.times
    info = {"steps": len(t) - 1, "dt": options.dt}
    if len(t) > 1 and t[-1] - t[-2] < options.dt * (1 - 1e-7):
        info["last_step"] = float(t[-1] - t[-2])
    return info


def integrate_fixed(rates, y0, options, bar):
    """The states ``y`` ``(size, T)`` at ``options.times`` from ``y0`` by
    ``options.method`` (module docstring), and the run's ``info`` (:func:`grid_info`);
    ``bar`` told the time about :data:`~robodyn.motion.fixed.PROGRESS_CHUNKS` times."""
    t, method = options.times, options.method
    if method == "rk4":
        stiff_circuit(rates, y0, options)
    steps = len(t) - 1
    Y = np.empty((steps + 1, len(y0)))
    Y[0] = y0
    every = max(1, steps // PROGRESS_CHUNKS)
    for k in range(steps):  # budget: at most MAX_STEPS, checked by the time grid
        Y[k + 1] = advance(rates, method, float(t[k]), float(t[k + 1] - t[k]), Y[k])
        if (k + 1) % every == 0 or k + 1 == steps:
            bar.update(t[k + 1])
    return t, Y.T, grid_info(options)
