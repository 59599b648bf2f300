"""The one-line modules left at the old module paths warn once, then re-export."""

from __future__ import annotations

import warnings


def moved(old: str, new: str) -> None:
    """Warn that module ``old`` moved to ``new`` (it keeps working for one release)."""
    warnings.warn(f"{old} moved to {new}; import it from there (or from robodyn): "
                  f"the old path goes away in the next release", DeprecationWarning,
                  stacklevel=3)
