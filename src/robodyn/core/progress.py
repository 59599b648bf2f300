"""Progress of long jobs: a bar with an ETA on a terminal, or a function of the caller's.

Every robodyn function that can run for more than a few seconds (the excitation
optimiser, the physically consistent fit of ``identify``, long simulations, ``dataset``,
animations, derivations of many joints, code export) takes ``progress``:

* ``None`` (the default): a bar on standard error when standard error is a terminal and
  the job is still running after :data:`DELAY` seconds; nothing otherwise (a pipe, a log
  file, pytest, a notebook), so short jobs and scripts stay silent;
* ``True``: the bar from the start, terminal or not; ``False``: nothing;
* a callable ``progress(done, total, label)``: called as the job advances, ``done`` from
  0 up to ``total`` (never decreasing; the last call has ``done == total`` when the job
  ends normally), ``label`` the job's name (``"simulating"``, ``"merging"``, ...). The
  units are the job's own: steps, seconds of simulated time, chunks, frames.

The bar reads ``simulating  42% [#########...........] 0:03 elapsed, ETA 0:04`` and is
redrawn at most every :data:`MIN_INTERVAL` seconds on one line, and every :data:`TICK`
seconds by a small thread while the job reports nothing (a compiler, one long
optimiser iteration), so the elapsed time moves; the ETA is ``?`` until some of the job
is done. Inside :func:`silenced` (the command line's ``-q/--quiet``) the default and
``True`` show nothing; a callable is still called. A job started while a bar is showing
(a simulation inside a longer job) draws no second bar; :func:`clear_line` erases the bar
before other output (the command line's warnings).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager

from .errors import InputError, excerpt

__all__ = ["Progress", "ProgressOption", "tracker", "silenced", "check_progress", "clear_line",
           "DELAY", "MIN_INTERVAL"]

#: What a ``progress`` argument may be (module docstring).
ProgressOption = bool | Callable[[float, float, str], object] | None

#: Seconds a job runs before the default (``progress=None``) shows its bar.
DELAY = 1.0
#: Shortest time between two redraws of the bar, in seconds.
MIN_INTERVAL = 0.1
#: Seconds between redraws of a bar whose job reports nothing meanwhile.
TICK = 0.5
#: Characters of the bar itself, and most characters of its label.
WIDTH, LABEL = 24, 20

_silenced = 0
_showing = False  # a bar is on the terminal now
_lock = threading.Lock()  # one writer of the line at a time (the job or its ticker)


@contextmanager
def silenced():
    """Within this block the default and ``progress=True`` draw no bar (``--quiet``)."""
    global _silenced
    _silenced += 1
    try:
        yield
    finally:
        _silenced -= 1


def clear_line(stream=None) -> None:
    """Erase the bar on the terminal, if one is showing, so that other output (a warning)
    starts on a clean line; the bar is drawn again at its next update."""
    with _lock:
        if _showing:
            out = stream or sys.stderr
            out.write("\r" + " " * (LABEL + WIDTH + 40) + "\r")
            out.flush()


def check_progress(progress, name: str = "progress"):
    """``progress`` itself if it is None, True, False or a callable, else an
    :class:`~robodyn.InputError` naming ``name``."""
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise InputError(f"{name}: expected True, False, None or a callable "
                     f"progress(done, total, label), got {excerpt(progress, 40)}")


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


def render(done: float, total: float, label: str, elapsed: float) -> str:
    """One line of the bar: label, percent, bar, elapsed time and the ETA (the time left
    at the mean rate so far; ``?`` before any progress)."""
    fraction = min(max(done / total, 0.0), 1.0) if total > 0 else 1.0
    fill = int(fraction * WIDTH)
    eta = _clock(elapsed * (1 - fraction) / fraction) if fraction > 0 else "?"
    return (f"{label[:LABEL]:<{min(len(label), LABEL)}} {fraction:4.0%} "
            f"[{'#' * fill}{'.' * (WIDTH - fill)}] {_clock(elapsed)} elapsed, ETA {eta}")


class Progress:
    """The progress of one job of ``total`` units (see the module docstring): call
    :meth:`update` with the units done so far (or :meth:`advance`), and :meth:`close` at
    the end (a ``with`` block does, reporting ``total`` when the block ends normally)."""

    def __init__(self, total: float, label: str, callback: Callable | None = None,
                 bar: bool = False, delay: float = 0.0, stream=None):
        self.total, self.label, self.done = total, str(label), 0
        self._callback, self._bar, self._delay = callback, bar, delay
        self._stream = stream
        self._start = time.monotonic()
        self._drawn = 0.0  # when the bar was last drawn (0: never)
        self._owner = False  # this job's bar is the one showing
        self.active = bar or callback is not None
        self._stop = threading.Event()
        self._ticker = None
        if callback is not None:
            callback(0, total, self.label)
        if bar:
            self._ticker = threading.Thread(target=self._tick, name="robodyn-progress",
                                            daemon=True)
            self._ticker.start()

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            self._draw(final=False)

    def update(self, done: float) -> None:
        """``done`` units of ``total`` are done (values below an earlier one are ignored)."""
        if not self.active or done < self.done:
            return
        self.done = done if done <= self.total else self.total
        if self._callback is not None:
            self._callback(self.done, self.total, self.label)
        if self._bar:
            self._draw(final=False)

    def advance(self, units: float = 1) -> None:
        """``units`` more units are done."""
        self.update(self.done + units)

    def _draw(self, final: bool) -> None:
        with _lock:
            self._draw_locked(final)

    def _draw_locked(self, final: bool) -> None:
        global _showing
        now = time.monotonic()
        elapsed = now - self._start
        if not final and (elapsed < self._delay or now - self._drawn < MIN_INTERVAL):
            return
        if not self._owner:
            if _showing or (final and not self._drawn):
                return  # another job's bar is on the line; or nothing shown, nothing to end
            _showing = self._owner = True
        self._drawn = now
        stream = self._stream or sys.stderr
        stream.write("\r" + render(self.done, self.total, self.label, elapsed))
        if final:
            stream.write("\n")
        stream.flush()

    def close(self, finished: bool = True) -> None:
        """End the job: with ``finished``, report ``total`` done; end the bar's line."""
        global _showing
        if not self.active:
            return
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
        if finished and self.done < self.total:
            self.update(self.total)
        with _lock:
            if self._bar and self._drawn and self._owner:
                self._draw_locked(final=True)
            if self._owner:
                _showing = self._owner = False
        self.active = False

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        self.close(finished=kind is None)


def tracker(progress, total: float, label: str, stream=None) -> Progress:
    """The :class:`Progress` of a job for a function's ``progress`` argument (module
    docstring); ``stream`` defaults to ``sys.stderr`` (read when drawing)."""
    progress = check_progress(progress)
    if callable(progress) and not isinstance(progress, bool):
        return Progress(total, label, callback=progress)
    if progress is False or _silenced:
        return Progress(total, label)
    if progress is None:
        out = stream or sys.stderr
        try:
            terminal = out.isatty()
        except (AttributeError, ValueError):  # closed or replaced by something without it
            terminal = False
        return Progress(total, label, bar=terminal, delay=DELAY, stream=stream)
    return Progress(total, label, bar=True, stream=stream)
