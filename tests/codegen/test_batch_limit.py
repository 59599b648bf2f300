"""Issue 30 section 5: a batch too large to allocate (``np.broadcast_to(q, (10**9, n))``, a
16-byte view) is refused with its size and the limit before anything is allocated.

The robot call runs in a subprocess under an address-space limit and a timeout: were the
check gone, it would fail with MemoryError there instead of taking this machine's memory."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from robodyn.codegen.batch_inputs import MAX_BATCH_VALUES, check_batch_size
from robodyn.core.errors import InputError


def test_the_check_names_the_size_and_the_limit():
    with pytest.raises(InputError, match=r"1,000,000,000 states .* more than 100,000,000"):
        check_batch_size("inverse_dynamics", (10**9,), [2, 2, 2, 2])
    check_batch_size("inverse_dynamics", (1000,), [7, 7])  # a usual batch passes
    assert MAX_BATCH_VALUES == 100_000_000


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS as on Linux")
def test_a_huge_broadcast_batch_is_refused_before_allocating():
    code = """if True:
        import resource, numpy as np, robodyn as rd
        robot = rd.load("planar-2r")
        robot.inverse_dynamics(np.zeros(2), np.zeros(2), np.zeros(2))  # compile first
        soft, hard = resource.getrlimit(resource.RLIMIT_AS)
        resource.setrlimit(resource.RLIMIT_AS, (12 * 2**30, hard))  # under the 16 GB copy
        x = np.broadcast_to(np.zeros(2), (10**9, 2))
        try:
            robot.inverse_dynamics(x, x, x)
        except rd.InputError as exc:
            print("REFUSED", exc)
        """
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert "REFUSED inverse_dynamics: a batch of 1,000,000,000 states" in run.stdout, \
        run.stdout + run.stderr[-2000:]
