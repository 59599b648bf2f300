"""Dask arrays through robodyn's numeric functions: lazy, chunk by chunk, same kernels.

Any :class:`~robodyn.Robot` function that takes batched arrays accepts
``dask.array`` inputs and returns a lazy Dask array. The batch axes keep their
chunks; the last (joint) axis of each input is one chunk. Each output chunk is
the ordinary NumPy call on the matching input chunks (``dask.array.blockwise``),
so the work is the compiled kernel, run wherever Dask schedules the chunk: in
threads, or in the processes of a ``dask.distributed`` cluster. The robot's
:class:`~robodyn.codegen.runner.Runner` travels to the workers by pickle without
its compiled kernels; a worker traces the algorithm again and loads the machine
code from the on-disk kernel cache (:mod:`robodyn.codegen.cache`), compiling it
once if it is not there. A non-finite input is named by its index in the whole
array, as the NumPy call names it, and a worker does not log robodyn's errors that
the client raises.

Dask is imported only here, and this module only when a Dask array is passed
(``pip install robodyn[dask]``).
"""

from __future__ import annotations

import logging
import string
import sys
from collections import OrderedDict, deque

import numpy as np

from ..core.errors import InputError, RobodynError

#: Runners seen by this process's chunk tasks, most recent last: holding them holds their
#: chains, so the compiled kernels shared per chain stay loaded between chunks.
_RECENT: OrderedDict = OrderedDict()
_KEEP = 8


def is_dask(x) -> bool:
    """Whether ``x`` is a Dask collection (checked by type, without importing Dask)."""
    return type(x).__module__.startswith("dask")


def _chunk(*blocks, runner, kind: str, names, axes: int):
    """One output chunk: the NumPy call of ``kind`` on the input chunks. The first
    ``axes`` blocks are the global indices along each batch axis (``arange`` chunked
    like the data), so a bad input is named by its index in the whole array."""
    key = id(runner)
    if key not in _RECENT:
        _RECENT[key] = runner
        while len(_RECENT) > _KEEP:
            _RECENT.popitem(last=False)
    starts = [int(b[0]) if b.size else 0 for b in blocks[:axes]]
    arrays = [np.asarray(b) for b in blocks[axes:]]
    try:
        return runner.run(kind, *arrays)
    except RobodynError as exc:
        error = (_non_finite_input(names, arrays, starts) if isinstance(exc, InputError)
                 else None) or exc
    _quiet_worker_log(error)
    raise error


def _non_finite_input(names, arrays, starts) -> InputError | None:
    """The first non-finite input value of a chunk (in the order of the batch, then of the
    inputs), as the error the NumPy call names it by, its index offset by ``starts``."""
    batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    bad = [np.broadcast_to(~np.isfinite(a).all(axis=-1), batch).reshape(-1) for a in arrays]
    rows = np.logical_or.reduce(bad) if bad else np.zeros(0, bool)
    if not rows.any():
        return None
    row = int(np.argmax(rows))
    local = np.unravel_index(row, batch)
    name, value = next((n, np.broadcast_to(a, batch + a.shape[-1:])[local])
                       for n, a, b in zip(names, arrays, bad) if b[row])
    col = int(np.argmax(~np.isfinite(value)))
    index = "".join(f"{start + int(i)}, " for start, i in zip(starts, local))
    return InputError(f"{name}[{index}{col}] is {value[col]} (NaN or infinite); every input "
                      "must be a finite number")


#: The messages of the errors this process's chunk tasks raised (the newest few).
_RAISED: deque = deque(maxlen=64)


def _quiet_worker_log(error: Exception) -> None:
    """In a ``dask.distributed`` worker, keep the worker from logging robodyn's ``error``
    with its traceback ("Compute Failed"): the client raises it to the user anyway. Only the
    records of errors raised here are dropped; the worker's other messages stay."""
    _RAISED.append(repr(error))
    if "distributed.worker" not in sys.modules:
        return
    log = logging.getLogger("distributed.worker")
    if not any(isinstance(f, _DropOwnErrors) for f in log.filters):
        log.addFilter(_DropOwnErrors())


class _DropOwnErrors(logging.Filter):
    """Drops the worker's "Compute Failed" record of an error a chunk task raised."""

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("Compute Failed"):
            return True
        args = record.args if isinstance(record.args, tuple) else ()
        return not any(isinstance(a, str) and a in _RAISED for a in args)


def run_lazy(runner, kind: str, names, widths, out_shape, arrays):
    """``runner.run(kind, *arrays)`` (a :class:`~robodyn.codegen.runner.Runner`) as a lazy
    Dask array of shape ``batch + out_shape``; ``names``, ``widths``: the entry's inputs and
    their widths, ``out_shape``: the shape of one sample's result."""
    import dask.array as da  # optional dependency, only for Dask inputs

    inputs = []
    for name, value, width in zip(names, arrays, widths, strict=True):
        arr = value if is_dask(value) else da.from_array(np.asarray(value))
        kind_char = arr.dtype.kind
        if kind_char not in "iuf":
            raise InputError(f"{name}: expected real numbers, got a Dask array of dtype "
                             f"{arr.dtype}; pass floats")
        if arr.ndim == 0 and name != "h_e":  # one number for every joint, as runner.run
            arr = da.broadcast_to(arr, (width,))
        if arr.ndim == 0 or arr.shape[-1] != width:
            what = ("a wrench: force, moment" if name == "h_e"
                    else "one value per joint, or one number for all")
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
    for size, axis_chunks, ix in zip(batch, chunks, batch_ix):  # the global row indices
        args += [da.arange(size, chunks=(axis_chunks,)), ix]
    for a in inputs:
        args += [a, batch_ix + next(letters)]
    return da.blockwise(
        _chunk, batch_ix + out_ix, *args,
        new_axes=dict(zip(out_ix, out_shape)), concatenate=True, dtype=np.float64,
        meta=np.empty((0,) * (len(batch) + len(out_shape))),
        runner=runner, kind=kind, names=tuple(names), axes=len(batch),
    )
