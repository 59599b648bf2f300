"""Dask arrays through robodyn's numeric functions: lazy, chunk by chunk, same kernels.

Any :class:`~robodyn.Robot` function that takes batched arrays accepts
``dask.array`` inputs and returns a lazy Dask array. The batch axes keep their
chunks; the last (joint) axis of each input is one chunk. Each output chunk is
the ordinary NumPy call on the matching input chunks (``dask.array.blockwise``),
so the work is the compiled kernel, run wherever Dask schedules the chunk: in
threads, or in the processes of a ``dask.distributed`` cluster. The robot
travels to the workers by pickle without its compiled kernels; a worker traces
the algorithm again and loads the machine code from the on-disk kernel cache
(:mod:`robodyn.codegen.kernels`), compiling it once if it is not there.

Dask is imported only here, and this module only when a Dask array is passed
(``pip install robodyn[dask]``).
"""

from __future__ import annotations

import string
from collections import OrderedDict

import numpy as np

from .errors import InputError

#: Robots seen by this process's chunk tasks, most recent last: holding them holds their
#: chains, so the compiled kernels shared per chain stay loaded between chunks.
_RECENT: OrderedDict = OrderedDict()
_KEEP = 8


def is_dask(x) -> bool:
    """Whether ``x`` is a Dask collection (checked by type, without importing Dask)."""
    return type(x).__module__.startswith("dask")


def _chunk(*blocks, robot, kind: str):
    """One output chunk: the NumPy call of ``kind`` on the input chunks."""
    key = id(robot)
    if key not in _RECENT:
        _RECENT[key] = robot
        while len(_RECENT) > _KEEP:
            _RECENT.popitem(last=False)
    return robot._run(kind, *(np.asarray(b) for b in blocks))


def run_lazy(robot, kind: str, names, widths, out_shape, arrays):
    """``robot._run(kind, *arrays)`` as a lazy Dask array of shape ``batch + out_shape``."""
    import dask.array as da  # noqa: PLC0415 - optional dependency, only for Dask inputs

    inputs = []
    for name, value, width in zip(names, arrays, widths, strict=True):
        arr = value if is_dask(value) else da.from_array(np.asarray(value))
        kind_char = arr.dtype.kind
        if kind_char not in "iuf":
            raise InputError(f"{name}: expected real numbers, got a Dask array of dtype "
                             f"{arr.dtype}; pass floats")
        if arr.ndim == 0 or arr.shape[-1] != width:
            what = "a wrench: force, moment" if name == "h_e" else "one value per joint"
            raise InputError(f"{name}: expected shape (..., {width}) ({what}), got {arr.shape}")
        inputs.append(arr.astype(np.float64))
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in inputs))
    except ValueError:
        detail = ", ".join(f"{n} {a.shape}" for n, a in zip(names, inputs))
        raise InputError(f"batch shapes do not broadcast: {detail}") from None
    inputs = [da.broadcast_to(a, batch + a.shape[-1:]) for a in inputs]
    # the batch axes chunked alike (as the first Dask input), each joint axis one chunk
    template = next((a for a, v in zip(inputs, arrays) if is_dask(v)), inputs[0])
    chunks = template.chunks[:-1]
    inputs = [a.rechunk(chunks + (-1,)) for a in inputs]

    letters = iter(string.ascii_letters)
    batch_ix = "".join(next(letters) for _ in batch)
    out_ix = "".join(next(letters) for _ in out_shape)
    args = []
    for a in inputs:
        args += [a, batch_ix + next(letters)]
    return da.blockwise(
        _chunk, batch_ix + out_ix, *args,
        new_axes=dict(zip(out_ix, out_shape)), concatenate=True, dtype=np.float64,
        meta=np.empty((0,) * (len(batch) + len(out_shape))),
        robot=robot, kind=kind,
    )
