"""robodyn.core.progress: the bar (percent, ETA) on a terminal only, the callable contract
(monotone, from 0 to total) for every long job wired to it, and --quiet."""

from __future__ import annotations

import io
import threading

import numpy as np
import pytest

import robodyn as rd
from robodyn.cli.app import main
from robodyn.cli.dataset import write_dataset
from robodyn.codegen.export import export_code
from robodyn.core import progress as P
from robodyn.core.errors import InputError
from robodyn.symbolic import equations


class FakeTerminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self) -> bool:
        return True


class Recorder:
    """A progress callable that keeps every call, per label."""

    def __init__(self):
        self.calls = []

    def __call__(self, done, total, label):
        self.calls.append((done, total, label))

    def check(self, label):
        """The calls of ``label``: ``done`` never decreases, starts at 0 and ends at
        ``total``, and ``total`` never changes."""
        calls = [c for c in self.calls if c[2] == label]
        assert calls, f"no progress reported as {label!r} (got {set(c[2] for c in self.calls)})"
        done = np.array([c[0] for c in calls], dtype=float)
        totals = {c[1] for c in calls}
        assert len(totals) == 1
        total = totals.pop()
        assert done[0] == 0 and done[-1] == total and np.all(np.diff(done) >= 0)
        assert np.all(done <= total)
        return calls


@pytest.fixture
def two_r():
    return rd.load("planar-2r")


# -- the bar -----------------------------------------------------------------------------------
def test_the_bar_shows_percent_elapsed_and_the_eta_at_the_mean_rate():
    line = P.render(5, 20, "simulating", 30.0)  # a quarter in 30 s: 90 s left
    assert line.startswith("simulating  25% [######..................]")
    assert "0:30 elapsed" in line and line.endswith("ETA 1:30")
    assert P.render(0, 20, "x", 3.0).endswith("ETA ?")  # no rate yet
    assert "1:01:40 elapsed" in P.render(1, 2, "x", 3700.0)


def test_on_a_terminal_the_bar_is_drawn_with_percent_and_eta(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    monkeypatch.setattr(P, "MIN_INTERVAL", 0.0)
    out = FakeTerminal()
    with P.tracker(None, 4, "demo", stream=out) as bar:
        for _ in range(4):
            bar.advance()
    text = out.getvalue()
    lines = text.split("\r")
    assert "demo  25% [######" in text and "ETA" in text
    assert lines[-1].startswith("demo 100% [########################]") and text.endswith("\n")


def test_nothing_is_written_where_stderr_is_no_terminal(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    pipe = io.StringIO()
    monkeypatch.setattr("sys.stderr", pipe)
    with P.tracker(None, 3, "demo") as bar:
        bar.advance(3)
    rd.simulate(rd.load("planar-2r"), [0.1, 0.2], duration=0.2, dt=0.01)
    assert pipe.getvalue() == ""


def test_a_short_job_on_a_terminal_stays_silent_by_default():
    out = FakeTerminal()
    with P.tracker(None, 3, "demo", stream=out) as bar:
        bar.advance(3)  # done well within DELAY
    assert out.getvalue() == ""


def test_silenced_hides_the_default_and_true_but_still_calls_a_callable(monkeypatch):
    monkeypatch.setattr(P, "DELAY", 0.0)
    out, seen = FakeTerminal(), Recorder()
    with P.silenced():
        for choice in (None, True):
            with P.tracker(choice, 2, "quiet", stream=out) as bar:
                bar.advance(2)
        with P.tracker(seen, 2, "quiet") as bar:
            bar.advance(2)
    assert out.getvalue() == ""
    seen.check("quiet")


def test_a_job_inside_a_job_draws_no_second_bar(monkeypatch):
    monkeypatch.setattr(P, "MIN_INTERVAL", 0.0)
    out = FakeTerminal()
    with P.tracker(True, 2, "outer", stream=out) as outer:
        outer.advance()
        with P.tracker(True, 2, "inner", stream=out) as inner:
            inner.advance(2)
        outer.advance()
    assert "outer" in out.getvalue() and "inner" not in out.getvalue()


def test_the_ticker_thread_ends_with_the_job_and_an_error_ends_the_line():
    out = FakeTerminal()
    with pytest.raises(RuntimeError, match="stop"):
        with P.tracker(True, 10, "failing", stream=out) as bar:
            bar.advance(3)
            raise RuntimeError("stop")
    assert out.getvalue().endswith("\n") and " 30%" in out.getvalue().rsplit("\r", 1)[-1]
    assert not [t for t in threading.enumerate() if t.name == "robodyn-progress"]


def test_a_progress_that_is_no_choice_is_refused_naming_the_argument(two_r):
    with pytest.raises(InputError, match="progress: expected True, False, None or a callable"):
        rd.simulate(two_r, [0, 0], duration=0.1, progress="yes")
    with pytest.raises(InputError, match="progress"):
        rd.excitation.fourier(two_r, iterations=1, progress=1)


# -- every long job reports to a callable --------------------------------------------------------
@pytest.mark.filterwarnings("ignore::robodyn.EnergyBalanceWarning")  # coarse steps, on purpose
@pytest.mark.parametrize("method, dt", [("rk4", 0.01), ("semi-implicit-euler", 0.01),
                                        ("rk45", None), ("radau", None),
                                        ("implicit-euler", 0.05)])
def test_simulate_reports_simulated_seconds(two_r, numpy_backend, method, dt):
    seen = Recorder()
    rd.simulate(two_r, [0.3, -0.2], duration=0.3, dt=dt, method=method, progress=seen)
    calls = seen.check("simulating")
    assert calls[0][1] == 0.3 and len(calls) > 3


def test_the_excitation_optimiser_reports_its_iterations(two_r, numpy_backend):
    seen = Recorder()
    rd.excitation.fourier(two_r, harmonics=2, samples=20, iterations=3, progress=seen)
    assert seen.check("excitation")[0][1] == 3


def test_the_physical_fit_reports_its_stages(two_r, numpy_backend):
    ex = rd.excitation.fourier(two_r, harmonics=3, samples=60, iterations=0)
    tau = two_r.inverse_dynamics(ex.q, ex.qd, ex.qdd)
    seen = Recorder()
    result = rd.identify(two_r, ex.q, ex.qd, ex.qdd, tau, physical=True, progress=seen)
    calls = seen.check("physical fit")
    assert result.physical_converged and calls[0][1] >= 2


def test_a_dataset_reports_its_chunks_then_the_merge(two_r, numpy_backend, tmp_path):
    seen = Recorder()
    write_dataset(two_r, tmp_path / "d.npz", 25, chunk=10, progress=seen)
    assert seen.check("dataset")[0][1] == 3
    assert seen.check("merging")[0][1] == 2 * 3 * 4  # q, qd, qdd, tau of 3 chunks, twice
    labels = [c[2] for c in seen.calls]
    assert labels.index("merging") > max(k for k, x in enumerate(labels) if x == "dataset")


@pytest.mark.slow
def test_an_animation_reports_its_frames(two_r, numpy_backend, tmp_path):
    sim = rd.simulate(two_r, [0.5, 0.0], duration=0.4, dt=0.01)
    seen = Recorder()
    rd.plot.animate(two_r, sim, tmp_path / "a.gif", fps=10, progress=seen)
    assert seen.check("animating")[0][1] == 5  # t = 0, 0.1, ..., 0.4


def test_a_derivation_and_a_code_export_report(two_r):
    seen = Recorder()
    eq = equations(two_r, progress=seen)
    seen.check("deriving")
    export_code(eq, "python", progress=seen)
    calls = seen.check("exporting")
    assert calls[0][1] >= 3  # M, C, g, tau, ... one unit each


# -- the command line --------------------------------------------------------------------------
def test_quiet_silences_the_bar_on_the_command_line(monkeypatch, tmp_path, numpy_backend):
    monkeypatch.setattr(P, "DELAY", 0.0)
    args = ["simulate", "planar-2r", "--q0", "0.5,0", "--duration", "0.5", "--dt", "0.001"]
    for quiet in (False, True):
        terminal = FakeTerminal()
        monkeypatch.setattr("sys.stderr", terminal)
        assert main((["-q"] if quiet else []) + args) == 0
        shown = "simulating" in terminal.getvalue() and "ETA" in terminal.getvalue()
        assert shown is not quiet


def test_a_warning_during_a_bar_starts_on_a_clean_line(monkeypatch):
    import warnings

    from robodyn.cli.app import _show_warning

    monkeypatch.setattr(P, "MIN_INTERVAL", 0.0)
    out = FakeTerminal()
    with P.tracker(True, 4, "busy", stream=out) as bar:
        bar.advance()
        _show_warning(warnings.WarningMessage("careful", UserWarning, "x", 1).message,
                      UserWarning, "x", 1, file=out)
        bar.advance()
    before, after = out.getvalue().split("robodyn: warning: careful\n")
    assert before.endswith("\r") and before.rsplit("\r", 2)[-2].strip() == ""  # erased
    assert "busy  50%" in after  # and drawn again
