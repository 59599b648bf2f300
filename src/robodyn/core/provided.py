"""Functions a lower layer calls and a higher layer provides.

A layer imports only its own layer or lower ones (``tests/test_layers.py``), yet a few
methods of a lower layer's objects do the work of a higher one: ``Equations.compare``
(symbolic) checks an answer with the teaching layer's checker. The package's facade
(``robodyn/__init__.py``, which runs before any robodyn module) provides them by name
here, without importing the higher layer until the method is called.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .errors import RobodynError

__all__ = ["provide", "provided"]

_PROVIDED: dict[str, Callable[..., Any]] = {}


def provide(name: str, function: Callable[..., Any]) -> None:
    """Register ``function`` as the implementation of ``name`` (e.g. ``"Equations.compare"``)."""
    _PROVIDED[name] = function


def provided(name: str) -> Callable[..., Any]:
    """The function registered as ``name``; a clear error where nothing provided it."""
    try:
        return _PROVIDED[name]
    except KeyError:
        raise RobodynError(f"{name} is provided by the robodyn package; import robodyn "
                           "first") from None
