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
from robodyn.core.errors import InputError

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


@pytest.mark.slow
def test_no_dask_import_for_numpy_calls():
    """Dask is imported only when a Dask array is passed."""
    import subprocess

    code = ("import sys, numpy as np, robodyn as rd; r = rd.load('planar-2r'); "
            "r.inverse_dynamics(np.zeros((5, 2)), np.zeros(2), np.zeros(2)); "
            "print('dask' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def _kernel_cache_hits():
    """In a worker: the robodyn kernels it holds and whether Numba loaded each from the disk
    cache (its dispatcher counts cache hits) rather than compiling it."""
    from robodyn.codegen.runner import _SHARED_KERNELS

    out = {}
    for kernels in _SHARED_KERNELS.values():
        for (kind, _backend), kernel in kernels.items():
            stats = getattr(kernel.fn, "stats", None)
            out[kind] = (kernel.backend, bool(stats and sum(stats.cache_hits.values())))
    return out


@pytest.mark.slow
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


# -- issue 15: a bad input is named by its index in the whole array, once ------------------

@pytest.mark.parametrize("shape, chunks, where", [
    ((40_000, 3), (10_000, 3), (25_000, 2)),       # the case: row 5000 of chunk 2
    ((4, 50, 3), (2, 20, 3), (3, 45, 1)),          # two chunked batch axes
    ((30, 3), (7, 3), (0, 0)),                     # the first row
    ((3,), (3,), (1,)),                            # one state, no batch axis
])
def test_a_non_finite_input_is_named_by_its_global_index(numpy_backend, shape, chunks, where):
    r = rd.load("planar-3r")
    q = np.random.default_rng(1).normal(size=shape)
    q[where] = np.nan
    qd = np.zeros(shape)
    qd[(*where[:-1], 0)] = np.inf  # at the same row, in a later input: q is named first
    # the NumPy call on the whole arrays is the reference for the message
    with pytest.raises(InputError) as eager:
        r.inverse_dynamics(q, qd, np.zeros(shape))
    index = ", ".join(str(i) for i in where)
    assert str(eager.value).startswith(f"q[{index}] is nan")
    with pytest.raises(InputError) as lazy:
        r.inverse_dynamics(da.from_array(q, chunks=chunks), da.from_array(qd, chunks=chunks),
                           np.zeros(shape)).compute()
    assert str(lazy.value) == str(eager.value)
    assert lazy.value.__cause__ is None and lazy.value.__context__ is None  # raised once


def test_a_non_finite_input_in_a_broadcast_input_is_named(numpy_backend):
    r = rd.load("planar-2r")
    q = da.zeros((100, 2), chunks=(30, 2))
    qd = np.array([0.0, np.inf])  # one state for every sample
    # any chunk may fail first; the index is the first row of one (qd is inf on every row)
    with pytest.raises(InputError, match=r"^qd\[(0|30|60|90), 1\] is inf"):
        r.inverse_dynamics(q, qd, np.zeros(2)).compute()


def test_a_cluster_worker_does_not_log_the_error_the_user_gets(numpy_backend):
    import logging

    distributed = pytest.importorskip("dask.distributed")
    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    log = logging.getLogger("distributed.worker")
    log.addHandler(handler)
    cluster = distributed.LocalCluster(n_workers=1, processes=False, threads_per_worker=1,
                                       dashboard_address=None)
    try:
        with distributed.Client(cluster) as client:
            r = rd.load("planar-3r")
            q = np.zeros((40_000, 3))
            q[25_000, 2] = np.nan
            lazy = r.inverse_dynamics(da.from_array(q, chunks=(10_000, 3)), q * 0, q * 0)
            with pytest.raises(InputError, match=r"^q\[25000, 2\] is nan"):
                lazy.compute()
            heavy = r.with_values(m1=1e300, m2=1e300)  # a result that overflows: a ModelError
            with pytest.raises(rd.ModelError, match="overflow float64"):
                heavy.inverse_dynamics(da.from_array(q[:100] * 0 + 1, chunks=(50, 3)),
                                       np.full(3, 1e10), np.ones(3)).compute()
            assert not [x for x in records if x.getMessage().startswith("Compute Failed")]
            # the worker still logs the failures of other tasks
            with pytest.raises(ZeroDivisionError):
                client.submit(lambda: 1 / 0).result()
            assert [x for x in records if x.getMessage().startswith("Compute Failed")]
    finally:
        cluster.close()
        log.removeHandler(handler)
