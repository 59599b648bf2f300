"""The examples a newcomer runs first must run, and what they print and compute must be
right: the numbers of ``examples/quickstart.py`` are checked against the planar 2R arm's
closed form of seed 003, written by hand in ``tests/seed_closed_forms.py`` (not computed by
robodyn), at the example's own state and at its 1000 random states.
"""

from __future__ import annotations

import re
import runpy
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

try:
    from seed_closed_forms import planar_2r
except ImportError:  # tests/ collected as a package
    from .seed_closed_forms import planar_2r

EXAMPLES = sorted((Path(__file__).parent.parent / "examples").glob("*.py"))
QUICKSTART = Path(__file__).parent.parent / "examples" / "quickstart.py"
FLOAT = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_example_runs(path, capsys):
    runpy.run_path(str(path), run_name="__main__")
    assert capsys.readouterr().out


@pytest.fixture(scope="module")
def quickstart():
    """The example's globals and its printed lines (run once)."""
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        env = runpy.run_path(str(QUICKSTART), run_name="__main__")
    return env, out.getvalue().splitlines()


def _closed_form(values: dict[str, float]):
    """Seed 003's M, C qd, g and tau of the planar 2R arm as NumPy functions of
    ``(q, qd, qdd)`` arrays of shape ``(n, 2)``."""
    cf = planar_2r()
    table = {sp.Symbol(k): v for k, v in values.items()}
    args = [*cf.q, *cf.qd, *cf.qdd]
    funcs = {name: sp.lambdify(args, getattr(cf, name).xreplace(table), modules="numpy")
             for name in ("M", "Cqd", "g", "tau")}

    def evaluate(name, q, qd=None, qdd=None):
        q = np.atleast_2d(q)
        qd = np.zeros_like(q) if qd is None else np.atleast_2d(qd)
        qdd = np.zeros_like(q) if qdd is None else np.atleast_2d(qdd)
        rows = [np.array(funcs[name](*a, *b, *c), dtype=float)
                for a, b, c in zip(q, qd, qdd, strict=True)]
        return np.array([r if name == "M" else r[:, 0] for r in rows])

    return evaluate


def _printed(lines: list[str], prefix: str) -> list[float]:
    """The numbers on the printed line that starts with ``prefix`` (after the prefix)."""
    matches = [line for line in lines if line.startswith(prefix)]
    assert len(matches) == 1, f"expected one line starting {prefix!r}, got {matches}"
    return [float(x) for x in re.findall(FLOAT, matches[0][len(prefix):])]


def test_quickstart_values_match_the_seed_closed_form(quickstart):
    env, _ = quickstart
    robot = env["robot"]
    assert robot.name == "planar-2r" and robot.dof == 2
    closed = _closed_form(robot.values)
    q, qd, qdd = env["q"], env["qd"], env["qdd"]
    tol = {"rtol": 1e-12, "atol": 1e-12}
    np.testing.assert_allclose(env["M"], closed("M", q)[0], **tol)
    np.testing.assert_allclose(env["C"] @ qd, closed("Cqd", q, qd)[0], **tol)
    np.testing.assert_allclose(env["g"], closed("g", q)[0], **tol)
    np.testing.assert_allclose(env["tau"], closed("tau", q, qd, qdd)[0], **tol)
    # the example's own M11 formula is the seed's
    np.testing.assert_allclose(env["m11"], closed("M", q)[0, 0, 0], **tol)


def test_quickstart_prints_the_right_numbers(quickstart):
    env, lines = quickstart
    robot = env["robot"]
    closed = _closed_form(robot.values)
    q, qd, qdd = env["q"], env["qd"], env["qdd"]
    # printed with NumPy's default 8 significant digits, or 12 decimals for M11
    np.testing.assert_allclose(_printed(lines, "C(q, qd) qd ="), closed("Cqd", q, qd)[0],
                               rtol=1e-7)
    np.testing.assert_allclose(_printed(lines, "g(q) ="), closed("g", q)[0], rtol=1e-7)
    np.testing.assert_allclose(_printed(lines, "tau = M qdd + C qd + g ="),
                               closed("tau", q, qd, qdd)[0], rtol=1e-7)
    pattern = rf"M11: robodyn ({FLOAT}), closed form ({FLOAT})"
    (m11_line,) = [m for m in map(re.fullmatch, [pattern] * len(lines), lines) if m]
    m11_robodyn, m11_seed = (float(x) for x in m11_line.groups())
    assert m11_robodyn == pytest.approx(closed("M", q)[0, 0, 0], abs=1e-11)
    assert m11_seed == pytest.approx(closed("M", q)[0, 0, 0], abs=1e-11)


def test_quickstart_batch_matches_the_closed_form(quickstart):
    """The 1000 random states: the batched torques are the seed's, and forward dynamics
    returns the accelerations (the printed error is small, and it is the true error)."""
    env, lines = quickstart
    closed = _closed_form(env["robot"].values)
    Q, QD, QDD, TAU = env["Q"], env["QD"], env["QDD"], env["TAU"]
    assert TAU.shape == (1000, 2)
    expected = closed("tau", Q, QD, QDD)
    np.testing.assert_allclose(TAU, expected, rtol=1e-11, atol=1e-11 * np.abs(expected).max())
    (printed_error,) = _printed(lines, "max |FD(ID(qdd)) - qdd| over 1000 states:")
    assert 0 <= printed_error < 1e-9
    # independently: qdd = M^-1 (tau - C qd - g) from the closed form, solved by NumPy
    rhs = expected - closed("Cqd", Q, QD) - closed("g", Q)
    qdd = np.linalg.solve(closed("M", Q), rhs[..., None])[..., 0]
    np.testing.assert_allclose(qdd, QDD, rtol=1e-9, atol=1e-9)
    fd = env["robot"].forward_dynamics(Q, QD, TAU)
    assert np.abs(fd - QDD).max() == pytest.approx(printed_error, rel=1e-12, abs=1e-300)
