"""The kernels' sine and cosine (robodyn.codegen.trig): within one unit in the last place of
the true value (mpmath at 60 digits, the oracle) and of the C library's, the C library's
own beyond the reduction's limit, and the blocked kernels that run them packed equal the
per-sample kernels bit for bit, large angles included."""

from __future__ import annotations

import math

import numpy as np
import pytest

import robodyn as rd

numba = pytest.importorskip("numba")
mpmath = pytest.importorskip("mpmath")

from robodyn.codegen import trig  # noqa: E402  (after the skip: it compiles with Numba)


@numba.njit
def _ours(x, out):
    for k in range(x.shape[0]):
        out[k, 0] = trig.sin(x[k])
        out[k, 1] = trig.cos(x[k])


@numba.njit
def _packed(x, out):
    for k in range(x.shape[0]):
        out[k, 0] = trig.sin_packed(x[k])
        out[k, 1] = trig.cos_packed(x[k])


@numba.njit
def _together(x, out, packed):
    for k in range(x.shape[0]):
        if packed:
            out[k, 0], out[k, 1] = trig.sincos_packed(x[k])
        else:
            out[k, 0], out[k, 1] = trig.sincos(x[k])


def _ulps(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Units in the last place between float64 arrays (monotone integer order)."""
    ia, ib = a.view(np.int64), b.view(np.int64)
    ia = np.where(ia < 0, np.int64(-2 ** 63) - ia, ia)
    ib = np.where(ib < 0, np.int64(-2 ** 63) - ib, ib)
    return np.abs(ia - ib)


def _arguments(rng) -> np.ndarray:
    return np.concatenate([
        rng.uniform(-4, 4, 4000),  # joint angles
        rng.uniform(-trig.LIMIT, trig.LIMIT, 2000),
        np.arange(-500, 500) * (np.pi / 2) + rng.normal(scale=1e-9, size=1000),  # near n pi/2
        np.ldexp(rng.uniform(0.5, 1, 2000), rng.integers(-60, 20, 2000)),
        [0.0, -0.0, np.pi, -np.pi / 2, 1e-300, 5e-324]])


def test_sine_and_cosine_are_within_one_ulp_of_the_true_values():
    x = _arguments(np.random.default_rng(1))
    out = np.empty((len(x), 2))
    _ours(x, out)
    mpmath.mp.dps = 60
    true = np.array([[float(mpmath.sin(mpmath.mpf(float(v)))), float(mpmath.cos(mpmath.mpf(
        float(v))))] for v in x])
    assert _ulps(out, true).max() <= 1
    libm = np.array([[math.sin(v), math.cos(v)] for v in x])
    assert _ulps(out, libm).max() <= 1
    assert (out == libm).mean() > 0.8  # most are the C library's bits
    assert math.copysign(1.0, out[-5, 0]) == -1.0  # sin(-0.0) = -0.0


def test_beyond_the_limit_the_c_library_answers():
    x = np.array([trig.LIMIT, -2 * trig.LIMIT, 1e22, 1e300, np.inf, -np.inf, np.nan])
    out = np.empty((len(x), 2))
    _ours(x, out)
    libm = np.array([[math.sin(v) if np.isfinite(v) else np.nan,
                      math.cos(v) if np.isfinite(v) else np.nan] for v in x])
    np.testing.assert_array_equal(out, libm)


def test_the_packed_forms_and_sincos_are_the_branching_ones():
    """Within the limit the branch-free forms are the branching ones, and ``sincos`` (one
    reduction for a sine and cosine of one argument) is the pair of them, bit for bit."""
    x = np.random.default_rng(2).uniform(-trig.LIMIT, trig.LIMIT, 20000) * np.logspace(
        -8, 0, 20000)
    a, b, c = (np.empty((len(x), 2)) for _ in range(3))
    _ours(x, a)
    _packed(x, b)
    np.testing.assert_array_equal(a, b)
    _together(x, c, True)
    np.testing.assert_array_equal(a, c)
    wide = np.concatenate([x, [2e6, -1e300, np.inf, np.nan]])
    a, c = np.empty((len(wide), 2)), np.empty((len(wide), 2))
    _ours(wide, a)
    _together(wide, c, False)
    np.testing.assert_array_equal(a, c)


@pytest.mark.parametrize("kind", ["inverse_dynamics", "gravity_torques", "mass_matrix"])
def test_blocked_kernels_fix_up_large_angles_as_the_per_sample_ones(kind, monkeypatch):
    """A blocked kernel runs the packed forms for every lane, then the C library for the
    lanes beyond the limit: the same bits as the per-sample kernel, and finite results."""
    robot = rd.load("puma560")
    rng = np.random.default_rng(3)
    n = 16 * 3 + 5
    q, qd, qdd = rng.uniform(-3, 3, (3, n, 6))
    q[3, 0], q[20, 4], q[n - 1, 2] = 2e6, -3e7, 1e12
    args = {"inverse_dynamics": (q, qd, qdd), "gravity_torques": (q,), "mass_matrix": (q,)}
    kernel = robot.runner.kernel(kind)
    p = robot.runner.parameter_values
    per_sample, blocked = np.empty((n, kernel.width)), np.empty((n, kernel.width))
    assert kernel.fn(*args[kind], p, per_sample, 0, n) == -1
    assert kernel._blocked()(*args[kind], p, blocked, 0, n) == -1
    np.testing.assert_array_equal(blocked, per_sample)
    # the NumPy flavour (NumPy's own sine and cosine) agrees to rounding
    from robodyn.codegen.kernel import Kernel

    numpy = Kernel(robot.runner.chain, kind, robot.runner.parameter_names, which="numpy")
    reference = numpy(p, *args[kind])
    np.testing.assert_allclose(per_sample, reference, rtol=1e-12,
                               atol=1e-12 * np.abs(reference).max())


def test_every_compiled_kernel_names_the_hash_of_trig_py():
    """The kernels' text (the key of the disk cache) carries a hash of trig.py's source and
    of trig_numpy.py's (whose reduction and polynomials trig compiles), so an edit there
    compiles new kernels instead of loading machine code of the old statements; no version
    is raised by hand."""
    import hashlib
    from pathlib import Path

    from robodyn.codegen import emit
    from robodyn.codegen.trace import trace
    from robodyn.dynamics.registry import KERNELS

    sources = [Path(trig.__file__), Path(trig.__file__).with_name("trig_numpy.py")]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in sources)).hexdigest()[:12]
    assert emit.TRIG_DIGEST == digest
    chain = rd.load("pendulum").runner.numeric_chain
    tape, groups, outputs = trace(chain, KERNELS["gravity_torques"])
    header = f"from robodyn.codegen import trig  # trig {digest}"
    assert header in emit.numba_source(tape, groups, outputs, 0).splitlines()
    assert header in emit.numba_block_source(tape, groups, outputs, 0).splitlines()
