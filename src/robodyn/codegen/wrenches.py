"""The ``h_e`` argument of the dynamics: one end-effector wrench, or wrenches at named frames
stacked for the per-frame kernels (``inverse_dynamics_contact@3,7`` takes ``(..., 6 k)``)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from ..core.errors import InputError
from .batch_inputs import as_real_array


def stacked_wrenches(name: str, kind: str, h_e, frames: Sequence[str],
                     frame_index: Callable[[str], int]):
    """``(kernel kind, h_e array)`` of an ``h_e`` argument: an array is the end effector's
    wrench (``kind`` unchanged); a dict ``{frame: wrench}`` one wrench per named frame,
    stacked in frame order along the last axis ``(..., 6 k)``, and ``kind@i,j,...`` the
    kernel of those frames. ``name`` (the robot's) starts every error."""
    if not isinstance(h_e, Mapping):
        return kind, h_e
    if not h_e:
        raise InputError(f"{name}: h_e: an empty dict; give {{frame name: wrench "
                         "(6 numbers)}} for at least one frame, or leave h_e out")
    by_index = {}
    for frame, wrench in h_e.items():
        arr = as_real_array(f"h_e[{frame!r}]", wrench)
        if arr.ndim == 0 or arr.shape[-1] != 6:
            raise InputError(f"{name}: h_e[{frame!r}]: expected a wrench of shape "
                             f"(..., 6) (force, moment), got {arr.shape}")
        if not np.isfinite(arr).all():
            raise InputError(f"{name}: h_e[{frame!r}]: a value is NaN or infinite; "
                             "every wrench must be finite")
        by_index[frame_index(frame)] = arr
    order = sorted(by_index)
    arrays = [by_index[k] for k in order]
    try:
        batch = np.broadcast_shapes(*(a.shape[:-1] for a in arrays))
    except ValueError:
        detail = ", ".join(f"h_e[{frames[k]!r}] {by_index[k].shape}" for k in order)
        raise InputError(f"{name}: h_e: batch shapes do not broadcast: {detail}") from None
    stacked = np.concatenate([np.broadcast_to(a, batch + (6,)) for a in arrays], axis=-1)
    return f"{kind}@{','.join(map(str, order))}", stacked
