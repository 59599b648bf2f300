"""Errors raised by robodyn.

Every error names the field that is wrong, the value found and, where there is
one, the fix: ``links[1].inertia: not positive semi-definite (eigenvalues
-0.2, 0.1, 0.3)``.
"""

import reprlib


class RobodynError(Exception):
    """Base class of robodyn's errors."""


class ModelError(RobodynError, ValueError):
    """A robot description (model file, URDF, parameters) is malformed or non-physical."""


class InputError(RobodynError, ValueError):
    """A numeric argument has the wrong shape or is not finite."""


class ExpansionError(ModelError):
    """An expression or a derivation would expand to more terms than its budget
    (:mod:`robodyn.model.expansion`, :class:`robodyn.symbolic.ring.trig_ring.TrigRing`)."""


class UrdfWarning(UserWarning):
    """Something in a URDF file was ignored or changed (e.g. a non-physical body outside
    the chosen chain)."""


class PhysicalConsistencyWarning(UserWarning):
    """A model loads but is not a rigid body one could build: an inertia tensor whose
    principal moments ``a <= b <= c`` break the triangle inequality ``a + b >= c``
    (``c = int (x^2 + y^2) dm <= a + b`` for every real body).

    robodyn computes with the tensor as given, as Pinocchio and the Robotics Toolbox do:
    the dynamics are well defined. It is usual for planar models, where only the moment
    about the joint axis enters the dynamics (``[0, 0, I]``; say ``planar: true`` in the
    model file and the warning goes), and for some published identified data (the
    PUMA 560's links 1 and 3). The message is one line, ``links[2].inertia: moments
    0.0125 + 0.066 < 0.086 (docs/defaults.md)``: the link, its principal moments and
    where this long form is (the docs page :data:`DOCS`, "Physical consistency"). Make
    it an error with ``warnings.simplefilter("error", robodyn.PhysicalConsistencyWarning)``,
    or silence it with ``"ignore"`` (or ``robodyn -q`` on the command line)."""

    #: Where the docs explain the warning.
    DOCS = "docs/defaults.md"


#: Characters of a user's value an error message quotes at most.
EXCERPT_CHARS = 80
#: Values counted at most when an excerpt gives the size of a nested list or mapping.
_COUNT_CAP = 100_000


#: Longest file path an error message quotes whole (a path is bounded by the system, 4096).
PATH_CHARS = 300


def excerpt_path(path: object, limit: int = PATH_CHARS) -> str:
    """A file path quoted for an error message: whole up to ``limit`` characters, else its
    end (the file's name and the folders nearest it, which tell the file apart) after an
    ellipsis, with its length: ``'…/work/run.csv' (5,000 characters)``. Control
    characters are escaped (``repr``), never sent to the terminal raw."""
    text = str(path)
    if len(text) <= limit:
        return repr(text)
    return f"{'…' + text[-limit:]!r} ({len(text):,} characters)"


def excerpt(value: object, limit: int = EXCERPT_CHARS) -> str:
    """A bounded quote of a user's value for an error message.

    Short values are quoted whole (``repr``); a longer one as its first ``limit``
    characters and its size: ``'[[[[…' (351,000,000 characters)``, ``[['x', 'x', …
    (list of 9 items, over 100,000 values nested)``. The whole value is never
    printed, so a file of nested YAML aliases cannot make a gigabyte message.
    """
    if isinstance(value, str):
        if len(value) <= limit:
            return repr(value)
        return f"{value[:limit]!r}… ({len(value):,} characters)"
    if isinstance(value, (list, tuple, dict, set, frozenset)):
        text = _SHORT.repr(value)
        if len(text) <= limit:
            return text
        return f"{text[:limit]}… ({_container_size(value)})"
    try:
        text = repr(value)
    except Exception:  # e.g. an int too long to print: say what it is
        return f"<{type(value).__name__} that cannot be printed>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} characters)"


def _short_repr() -> reprlib.Repr:
    short = reprlib.Repr()
    short.maxlevel = 4
    short.maxlist = short.maxtuple = short.maxdict = short.maxset = short.maxfrozenset = 6
    short.maxstring = short.maxother = EXCERPT_CHARS
    return short


_SHORT = _short_repr()


def _container_size(value) -> str:
    """``list of 9 items, 81 values nested``; the count stops at a cap (shared
    references, as YAML aliases make, are counted each time they occur)."""
    count, stack = 0, [value]
    while stack and count < _COUNT_CAP:
        item = stack.pop()
        items = item.values() if isinstance(item, dict) else item
        for child in items:
            count += 1
            if isinstance(child, (list, tuple, dict, set, frozenset)):
                stack.append(child)
    nested = f"over {_COUNT_CAP:,}" if count >= _COUNT_CAP else f"{count:,}"
    return f"{type(value).__name__} of {len(value):,} items, {nested} values nested"


def positive_number(value, name: str) -> float:
    """``value`` as a finite float > 0, else :class:`InputError` naming ``name`` (a duration,
    a time step, a frame rate)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected a positive number, got {excerpt(value)}") from None
    if not (x > 0 and x != float("inf")):
        raise InputError(f"{name}: expected a positive number, got {x!r}")
    return x


def whole_number(value, name: str, least: int, most: int) -> int:
    """``value`` as an integer ``least <= n <= most`` (not a bool), else
    :class:`InputError` naming ``name`` (a step budget, a count of via points)."""
    try:
        ok = not isinstance(value, bool) and int(value) == value and least <= value <= most
    except (TypeError, ValueError, OverflowError):
        ok = False
    if not ok:
        raise InputError(f"{name}: expected a whole number from {least:,} to {most:,}, got "
                         f"{excerpt(value)}")
    return int(value)


def warn(warning: Warning) -> None:
    """Issue ``warning`` at the caller's first frame outside robodyn and the standard
    library (what ``skip_file_prefixes`` does on Python 3.12+; a ``cached_property`` sits
    between robodyn's frames), so it names the user's line, not ours."""
    import functools  # only when warning
    import inspect
    import os
    import warnings

    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # robodyn/
    skip = (package + os.sep,
            os.path.dirname(os.path.abspath(functools.__file__)) + os.sep)
    level, frame = 2, inspect.currentframe().f_back  # stacklevel 2: the caller of warn()
    while frame is not None:
        name = frame.f_code.co_filename
        if name.startswith("<frozen importlib"):
            pass  # an import's machinery: warnings.warn skips these frames itself
        elif os.path.abspath(name).startswith(skip):
            level += 1
        else:
            break
        frame = frame.f_back
    warnings.warn(warning, stacklevel=level)
