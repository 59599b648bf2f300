"""The modules left at the old module paths re-export their new module and warn."""

from __future__ import annotations

from .errors import warn


def moved(old: str, new: str) -> None:
    """Warn that module ``old`` moved to ``new`` (it keeps working for one release),
    naming the user's import line."""
    warn(DeprecationWarning(f"{old} moved to {new}; import it from there (or use robodyn's "
                            "public names): the old path goes away in the next release"))
