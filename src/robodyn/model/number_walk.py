"""Walking and mapping the numbers of a model's dataclasses (:class:`~.chain.Chain`, its
links, joints, bodies, frames): every field that holds a number of the dynamics, in a fixed
order (:func:`walk_numbers`), or a copy with a function applied to each (:func:`map_dataclass`);
names, types, limits, parents and loop closures are not numbers.
"""

from __future__ import annotations

import functools
import math
from dataclasses import fields, replace

from ..core.lazy import is_parameter

__all__ = ["NOT_NUMBERS", "PLAIN", "map_dataclass", "map_numbers", "number_fields",
           "plain_and_finite", "walk_numbers"]


def map_numbers(f, x):
    if isinstance(x, tuple):
        return tuple(map_numbers(f, e) for e in x)
    return None if x is None else f(x)   # an entry the model leaves out (a rigid motor's K)


#: Fields of the model that are not numbers of the dynamics.
NOT_NUMBERS = ("name", "type", "limits", "planar", "parents", "link", "closures")


#: Python's own number types, which hold no symbol.
PLAIN = (int, float)


def plain_and_finite(numbers) -> bool:
    """Every number a finite Python ``int`` or ``float`` or a
    :class:`~robodyn.core.lazy.Parameter` (whose value :meth:`Chain.evaluate
    <robodyn.model.chain.Chain.evaluate>` checked): nothing a field's name must explain."""
    try:
        return all(math.isfinite(x) if type(x) in PLAIN else is_parameter(x)
                   for x in numbers)
    except OverflowError:  # an int past float's range
        return False


@functools.cache
def number_fields(cls) -> tuple[str, ...]:
    """The fields of a model dataclass that hold numbers (or parts holding them)."""
    return tuple(fl.name for fl in fields(cls) if fl.name not in NOT_NUMBERS)


def map_dataclass(f, obj):
    changes = {}
    for name in number_fields(type(obj)):
        value = getattr(obj, name)
        if value is None:
            continue
        if hasattr(value, "__dataclass_fields__"):
            changes[name] = map_dataclass(f, value)
        elif name in ("links", "point_masses", "frames"):
            changes[name] = tuple(map_dataclass(f, item) for item in value)
        else:
            changes[name] = map_numbers(f, value)
    return replace(obj, **changes)


def walk_numbers(obj, f):
    if obj is None:  # an optional part the model does not have (a fixed base's body)
        return
    if hasattr(obj, "__dataclass_fields__"):
        for name in number_fields(type(obj)):
            walk_numbers(getattr(obj, name), f)
    elif isinstance(obj, tuple):
        for e in obj:
            walk_numbers(e, f)
    else:
        f(obj)
