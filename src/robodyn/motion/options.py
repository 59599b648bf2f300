"""How :func:`robodyn.simulate` integrates, checked once: :class:`SimulationOptions`.

The method and its step ``dt`` or its tolerances ``rtol``, ``atol``, the step budgets
(``max_step``, ``max_steps``), the sample grid ``sample_dt``, progress reports and the
joint-limit check, as :func:`~robodyn.simulate` and :func:`~robodyn.rollout` take them.
:meth:`SimulationOptions.checked` checks them, with errors that name the argument, and
builds the time grid once (:func:`time_grid`); the drivers of one run
(:mod:`robodyn.motion.single`) and the batches of rollouts
(:mod:`robodyn.motion.rollouts`) read them from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from ..core.errors import InputError, excerpt, positive_number, whole_number
from ..core.progress import ProgressOption, check_progress
from .trajectory import sample_times

__all__ = ["SimulationOptions", "time_grid", "shorter_last_step", "METHODS", "MAX_DURATION",
           "MAX_STEPS", "DEFAULT_MAX_STEPS", "MIN_RTOL"]

METHODS = ("rk45", "dop853", "rk4", "semi-implicit-euler", "implicit-euler", "radau",
           "stick-slip", "lugre")
#: Longest motion one run simulates, in seconds (``robodyn simulate --duration`` too).
MAX_DURATION = 1.0e5
#: Most fixed steps (and samples) one run takes: the run is kept in memory.
MAX_STEPS = 2_000_000
#: Adaptive steps one run takes unless ``max_steps`` says otherwise.
DEFAULT_MAX_STEPS = 100_000
#: Smallest ``rtol`` of the adaptive methods (SciPy's floor is 100 machine epsilons).
MIN_RTOL = 1e-13


@dataclass(frozen=True, kw_only=True)
class SimulationOptions:
    """The options of :func:`~robodyn.simulate`, checked (build them with :meth:`checked`):

    * ``duration`` (s, at most :data:`MAX_DURATION`);
    * ``method``, one of :data:`METHODS` (``"rk45"`` by default, ``"rk4"`` when ``dt`` is
      given);
    * ``dt``, the fixed step (s), or None;
    * ``sample_dt``, the sample grid's step (s), or None (samples at the steps);
    * ``rtol``, ``atol``, the adaptive methods' tolerances;
    * ``max_step`` (s), the adaptive methods' longest step, and ``max_steps``, their step
      budget (at most :data:`MAX_STEPS`);
    * ``progress``, how progress is reported (:mod:`robodyn.core.progress`);
    * ``check_limits``, whether the joint limits crossed are reported;
    * ``times``, the fixed-step grid (with ``dt``), else the sample grid (with
      ``sample_dt``), else None; ``keep``, the indices of ``times`` a fixed-step run keeps
      for ``sample_dt``, or None.
    """

    duration: float
    method: str
    dt: float | None
    sample_dt: float | None
    rtol: float
    atol: float
    max_step: float
    max_steps: int
    progress: ProgressOption
    check_limits: bool
    times: np.ndarray | None = field(repr=False, compare=False)
    keep: np.ndarray | None = field(repr=False, compare=False)

    @classmethod
    def checked(cls, *, duration: float = 1.0, dt: float | None = None,
                method: str | None = None, rtol: float = 1e-9, atol: float = 1e-9,
                max_step: float = np.inf, max_steps: int = DEFAULT_MAX_STEPS,
                sample_dt: float | None = None, progress: ProgressOption = None,
                check_limits: bool = True) -> SimulationOptions:
        """The options :func:`~robodyn.simulate` takes (the same names and defaults),
        checked in its order: an :class:`~robodyn.core.errors.InputError` names the first
        that is wrong and says what it takes."""
        check_progress(progress)
        duration = _duration(duration, "duration")
        if method is None:
            method = "rk45" if dt is None else "rk4"
        method = str(method).lower()
        if method not in METHODS:
            raise InputError(f"method: {method!r} is not one of {', '.join(METHODS)}")
        if method in ("rk4", "semi-implicit-euler", "implicit-euler", "stick-slip") and dt is None:
            raise InputError(f"method {method!r} is a fixed-step method: give dt (e.g. 0.001)")
        times = None if dt is None else time_grid(duration, dt)
        keep = None
        if sample_dt is not None:
            grid = time_grid(duration, sample_dt, ("duration", "sample_dt"))
            if dt is None:
                times = grid
            else:
                keep = _every(float(sample_dt), float(dt), times)
        rtol, atol = _tolerances(rtol, atol)
        max_steps = whole_number(max_steps, "max_steps", 1, MAX_STEPS)
        given = max_step
        try:
            max_step = float(max_step)
        except (TypeError, ValueError):
            max_step = np.nan
        if not max_step > 0:
            raise InputError(f"max_step: expected a positive number of seconds (or inf), got "
                             f"{excerpt(given)}")
        if method in ("rk45", "dop853", "radau") and duration / max_step > max_steps:
            raise InputError(f"max_step: {max_step:g} s takes at least "
                             f"{duration / max_step:,.0f} steps over {duration:g} s, more than "
                             f"max_steps = {max_steps:,}: a larger max_step, a shorter duration "
                             f"or a larger max_steps (at most {MAX_STEPS:,})")
        return cls(duration=duration, method=method, dt=None if dt is None else float(dt),
                   sample_dt=None if sample_dt is None else float(sample_dt), rtol=rtol,
                   atol=atol, max_step=max_step, max_steps=max_steps, progress=progress,
                   check_limits=check_limits, times=times, keep=keep)

    def one_rollout(self) -> SimulationOptions:
        """These options for one rollout of a batch run on its own: no progress report and
        no limit check of its own (the batch makes them), and every fixed step kept (the
        batch keeps the samples)."""
        return replace(self, progress=False, check_limits=False,
                       sample_dt=self.sample_dt if self.dt is None else None, keep=None)


def time_grid(duration, dt, names: tuple[str, str] = ("duration", "dt")) -> np.ndarray:
    """The sample times of a fixed-step run, :func:`~.trajectory.sample_times` (``0, dt,
    2 dt, ...`` and, when ``duration`` is not a multiple of ``dt``, ``duration`` itself
    after a shorter last step), checked: a ``dt`` longer than ``duration`` or more than
    :data:`MAX_STEPS` steps is an :class:`InputError` naming ``names`` (the arguments, or
    the command's options)."""
    d_name, dt_name = names
    duration = _duration(duration, d_name)
    dt = positive_number(dt, dt_name)
    if dt > duration:
        raise InputError(f"{dt_name}: {dt:g} s is longer than the duration {duration:g} s")
    count = duration / dt
    if count > MAX_STEPS:
        raise InputError(f"{d_name} / {dt_name}: {count:,.0f} steps; at most {MAX_STEPS:,} (a "
                         f"larger {dt_name} or a shorter {d_name})")
    return sample_times(duration, dt)


def _duration(value, name: str) -> float:
    duration = positive_number(value, name)
    if duration > MAX_DURATION:
        raise InputError(f"{name}: {duration:g} s is longer than {MAX_DURATION:g} s, the longest "
                         "motion simulate takes")
    return duration


def shorter_last_step(last: float, dt: float) -> bool:
    """Whether the last step of a :func:`time_grid` is the shorter remainder (at most
    ``(1 - 1e-6) dt`` by construction), not a whole step (``dt`` up to rounding)."""
    return last < dt * (1 - 1e-7)


def _tolerances(rtol, atol) -> tuple[float, float]:
    try:
        r, a = float(rtol), float(atol)
    except (TypeError, ValueError):
        r = a = np.nan
    if not (MIN_RTOL <= r < 1 and 0 < a < np.inf):
        raise InputError(f"rtol, atol: invalid tolerances (rtol = {excerpt(rtol)}, atol = "
                         f"{excerpt(atol)}): rtol must be a number from {MIN_RTOL:g} to below "
                         "1 and atol a positive finite number (e.g. rtol=1e-9, atol=1e-9)")
    return r, a


def _every(sample_dt: float, dt: float, times: np.ndarray) -> np.ndarray:
    """The indices of the fixed-step grid ``times`` (step ``dt``) kept for samples every
    ``sample_dt``, a whole multiple of ``dt``: every ``k``-th and the last."""
    k = round(sample_dt / dt)
    if k < 1 or abs(k * dt - sample_dt) > 1e-9 * sample_dt:
        raise InputError(f"sample_dt: {sample_dt:g} s is not a whole multiple of dt = {dt:g} s "
                         f"(the fixed steps); give a multiple such as {max(k, 1) * dt:g}, or "
                         "leave dt out for an adaptive method's dense output")
    keep = np.arange(0, len(times), k)
    if keep[-1] != len(times) - 1:
        keep = np.append(keep, len(times) - 1)
    return keep
