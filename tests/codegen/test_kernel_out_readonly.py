"""Issue 30 section 4: ``robot.kernel(kind)(..., out)`` never writes into a read-only
``out`` (an array over ``bytes``, a read-only memmap), one state or a batch, and says why."""

from __future__ import annotations

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError


@pytest.fixture(scope="module")
def robot():
    return rd.load("planar-2r")


@pytest.mark.parametrize("kind, shape, inputs", [("inverse_dynamics", (2,), 3),
                                                 ("mass_matrix", (2, 2), 1)])
def test_a_read_only_out_is_refused_and_untouched(robot, kind, shape, inputs):
    handle = robot.kernel(kind)
    q = np.full(2, 0.3)
    frozen = bytes(8 * int(np.prod(shape)))
    out = np.frombuffer(frozen).reshape(shape)
    for call in (lambda: handle(*[q] * inputs, out), lambda: handle(*[q] * inputs, out=out)):
        with pytest.raises(InputError, match="writeable.*read-only"):
            call()
    assert frozen == bytes(len(frozen))  # the immutable bytes were not written
    batch = np.zeros((3, *shape))
    batch.setflags(write=False)
    with pytest.raises(InputError, match="writeable.*read-only"):
        handle(*[np.full((3, 2), 0.3)] * inputs, batch)
    assert not batch.any()


def test_a_read_only_memmap_is_named_read_only(robot, tmp_path):
    path = tmp_path / "out.bin"
    np.zeros(2).tofile(path)
    out = np.memmap(path, dtype=float, mode="r", shape=(2,))
    with pytest.raises(InputError, match="read-only"):
        robot.kernel("inverse_dynamics")(np.zeros(2), np.zeros(2), np.zeros(2), out)
