"""Dask arrays through the numeric functions (issue 11): lazy results, computed chunk by
chunk with the same kernels, equal to the NumPy call; on a 2-process
``dask.distributed`` cluster the robot travels by pickle and the workers load the
compiled kernels from the disk cache."""

from __future__ import annotations

import inspect
import sys

import numpy as np
import pytest

import robodyn as rd
from robodyn.errors import InputError

da = pytest.importorskip("dask.array")

BATCHED = ["inverse_dynamics", "mass_matrix", "coriolis_matrix", "gravity_torques",
           "friction_torques", "forward_dynamics", "forward_kinematics", "jacobian",
           "kinetic_energy", "potential_energy", "torque_parts", "inverse_dynamics_derivatives",
           "forward_dynamics_derivatives", "mass_matrix_derivatives", "jacobian_derivative"]


def _parts(out):
    if isinstance(out, tuple):
        return list(out)
    if hasattr(out, "as_dict"):
        return list(out.as_dict().values())
    return [out]


@pytest.mark.parametrize("name", BATCHED)
def test_every_batched_function_is_lazy_and_equal(name):
    r = rd.load("planar-3r")
    rng = np.random.default_rng(3)
    arrays = rng.normal(size=(3, 2, 50, 3))  # batch (2, 50), chunked (1, 20)
    f = getattr(r, name)
    nargs = sum(p.default is inspect.Parameter.empty
                for p in inspect.signature(f).parameters.values())
    lazy = f(*(da.from_array(a, chunks=(1, 20, 3)) for a in arrays[:nargs]))
    eager = f(*arrays[:nargs])
    for out, ref in zip(_parts(lazy), _parts(eager), strict=True):
        assert isinstance(out, da.Array), name
        np.testing.assert_array_equal(out.compute(), ref)


def test_dask_mixes_with_numpy_and_broadcasts():
    r = rd.load("planar-2r")
    q = da.from_array(np.random.default_rng(0).normal(size=(40, 2)), chunks=(7, 2))
    qd = np.array([0.3, -0.2])  # one state for every sample
    qdd = np.zeros((40, 2))
    out = r.inverse_dynamics(q, qd, qdd)
    assert out.chunks[0] == q.chunks[0]
    np.testing.assert_array_equal(out.compute(), r.inverse_dynamics(q.compute(), qd, qdd))


def test_dask_bad_input_is_an_input_error_at_once():
    r = rd.load("planar-2r")
    with pytest.raises(InputError, match=r"q: expected shape \(\.\.\., 2\)"):
        r.mass_matrix(da.zeros((10, 3)))
    with pytest.raises(InputError, match="real numbers"):
        r.mass_matrix(da.zeros((10, 2), dtype=complex))
    with pytest.raises(InputError, match="do not broadcast"):
        r.inverse_dynamics(da.zeros((10, 2)), np.zeros((3, 2)), np.zeros((10, 2)))


def test_no_dask_import_for_numpy_calls():
    """Dask is imported only when a Dask array is passed."""
    import subprocess  # noqa: PLC0415

    code = ("import sys, numpy as np, robodyn as rd; r = rd.load('planar-2r'); "
            "r.inverse_dynamics(np.zeros((5, 2)), np.zeros(2), np.zeros(2)); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def _kernel_cache_hits():
    """In a worker: the robodyn kernels it holds and whether Numba loaded each from the disk
    cache (its dispatcher counts cache hits) rather than compiling it."""
    from robodyn.robot import _SHARED_KERNELS  # noqa: PLC0415

    out = {}
    for kernels in _SHARED_KERNELS.values():
        for (kind, _backend), kernel in kernels.items():
            stats = getattr(kernel.fn, "stats", None)
            out[kind] = (kernel.backend, bool(stats and sum(stats.cache_hits.values())))
    return out


def test_one_million_states_on_a_two_process_cluster():
    distributed = pytest.importorskip("dask.distributed")
    r = rd.load("puma560")
    n = 1_000_000
    r.inverse_dynamics(np.zeros(6), np.zeros(6), np.zeros(6))  # compiles, fills the disk cache
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                       dashboard_address=None, silence_logs=40)
    try:
        with distributed.Client(cluster) as client:
            rng = da.random.default_rng(7)  # the states are drawn on the workers
            q, qd, qdd = (rng.normal(size=(n, 6), chunks=(125_000, 6)) for _ in range(3))
            lazy = r.inverse_dynamics(q, qd, qdd)
            q, qd, qdd, got = da.compute(q, qd, qdd, lazy)
            hits = client.run(_kernel_cache_hits)
    finally:
        cluster.close()
    expected = r.inverse_dynamics(q, qd, qdd)
    np.testing.assert_array_equal(got, expected)
    assert len(hits) == 2, hits
    for worker, kinds in hits.items():
        backend, from_cache = kinds["inverse_dynamics"]
        if backend == "numba":  # the NumPy backend has no machine code to cache
            assert from_cache, f"{worker} compiled the kernel instead of loading it"
