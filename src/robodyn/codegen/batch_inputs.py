"""The input arrays of a batched call, checked and broadcast before anything is allocated:
real numbers only (:func:`as_real_array`), one number for every joint
(:func:`broadcast_scalar`), shapes ``(..., width)`` broadcast together and flattened to
C-contiguous ``(N, width)`` float64 (:func:`batch_inputs`), and no array of more than
:data:`MAX_BATCH_VALUES` values (:func:`check_batch_size`).
"""

from __future__ import annotations

import math

import numpy as np

from ..core.errors import InputError

__all__ = ["MAX_BATCH_VALUES", "as_real_array", "batch_inputs", "broadcast_scalar",
           "check_batch_size"]

#: Most values one array of a batch may hold (an input copied contiguous, or the result):
#: 100 million float64, 0.8 GB. A larger batch is refused before anything is allocated;
#: split it, or pass Dask arrays, which are computed block by block.
MAX_BATCH_VALUES = 100_000_000


def as_real_array(name: str, value) -> np.ndarray:
    """``value`` as a float64 array; real numbers only (no bool, complex, text, dates)."""
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{name}: expected an array of real numbers ({exc})") from None
    kind = arr.dtype.kind
    if kind in "iuf":
        return arr.astype(np.float64, copy=False)
    what = {"b": "booleans", "c": "complex numbers", "U": "text", "S": "bytes",
            "M": "dates", "m": "time spans", "O": "Python objects"}.get(kind, str(arr.dtype))
    raise InputError(f"{name}: expected real numbers, got an array of {what} "
                     f"(dtype {arr.dtype}, shape {arr.shape}); pass floats, e.g. "
                     f"np.asarray({name}, dtype=float) if the values are real")


def broadcast_scalar(name: str, arr, width: int):
    """A single number given for a joint quantity (``q``, ``qd``, ``qdd``, ``tau``) as that
    number for every joint, shape ``(width,)`` (``qdd=0.0``; ``q=0.3`` for a 1-dof arm);
    anything else, and a scalar wrench ``h_e``, unchanged (the shape check names it)."""
    if arr.ndim == 0 and name != "h_e":
        return arr.reshape(1) if width == 1 else np.broadcast_to(arr, (width,))
    return arr


def what_is(name: str) -> str:
    return ("a wrench: force, moment" if name == "h_e"
            else "one value per joint, or one number for all")


def check_batch_size(kind: str, batch: tuple, widths) -> None:
    """Refuse, before anything is allocated, a batch whose inputs or result would hold more
    than :data:`MAX_BATCH_VALUES` values in one array (``np.broadcast_to(q, (10**9, n))``
    is a view of 16 bytes; its copy and result are gigabytes)."""
    states = math.prod(batch)
    largest = states * max(widths)
    if largest > MAX_BATCH_VALUES:
        raise InputError(
            f"{kind}: a batch of {states:,} states ({' x '.join(map(str, batch))}) needs "
            f"{largest:,} values ({largest * 8 / 1e9:,.1f} GB) in one array, more than "
            f"{MAX_BATCH_VALUES:,} (robodyn.codegen.batch_inputs.MAX_BATCH_VALUES, "
            f"{MAX_BATCH_VALUES * 8 / 1e9:.1f} GB); split the batch into parts, or use "
            "Dask arrays as inputs (computed block by block)")


def batch_inputs(named, kind: str = "batch", out_width: int = 1) -> tuple[list[np.ndarray], tuple]:
    """Check and broadcast ``(name, array, width)`` inputs of shape ``(..., width)``;
    return them as C-contiguous ``(N, width)`` float64 arrays and the batch shape, after
    :func:`check_batch_size` (``out_width``: the result's values per state)."""
    arrays = []
    for name, value, width in named:
        arr = value if type(value) is np.ndarray and value.dtype == np.float64 \
            else as_real_array(name, value)
        arr = broadcast_scalar(name, arr, width)
        if arr.ndim == 0 or arr.shape[-1] != width:
            raise InputError(f"{name}: expected shape (..., {width}) ({what_is(name)}), got "
                             f"{arr.shape}")
        arrays.append(arr)
    shapes = [a.shape[:-1] for a in arrays]
    if len(arrays) > 1 and any(s != shapes[0] for s in shapes):
        try:
            batch = np.broadcast_shapes(*shapes)
        except ValueError:
            detail = ", ".join(f"{n} {a.shape}" for (n, _, _), a in zip(named, arrays))
            raise InputError(f"batch shapes do not broadcast: {detail}") from None
        arrays = [np.broadcast_to(a, batch + a.shape[-1:]) for a in arrays]
    else:
        batch = shapes[0]
    check_batch_size(kind, batch, [a.shape[-1] for a in arrays] + [out_width])
    flat = [np.ascontiguousarray(a.reshape(-1, a.shape[-1])) for a in arrays]
    return flat, batch
