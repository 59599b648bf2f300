"""What the motion commands and the tour write: files checked before any work
(:func:`output_path`, :func:`picture_option`), written with a clear error
(:func:`writing`), vectors printed (:func:`format_vector`) and warnings reported
(:func:`report_warnings`)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import numpy as np

from ..codegen.export.files import check_output, write_output
from ..core.errors import InputError, excerpt

__all__ = ["output_path", "plot_module", "picture_option", "writing", "format_vector",
           "report_warnings"]

def output_path(path: str | None, option: str, suffixes: tuple[str, ...],
                force: bool = False) -> Path | None:
    """``path`` checked before any work: a known suffix, an existing folder, and nothing
    there robodyn may not replace (:func:`~robodyn.codegen.export.files.check_output`)."""
    if path is None:
        return None
    out = Path(path)
    if out.suffix.lower() not in suffixes:
        raise InputError(f"{option}: {excerpt(out.name)}: use a file name ending in "
                         f"{' or '.join(suffixes)}")
    if not out.parent.is_dir():
        raise InputError(f"{option}: the folder {excerpt(str(out.parent))} does not exist")
    return check_output(out, force=force, option=option)


def plot_module(option: str):
    """``robodyn.plot`` (Matplotlib), or an error naming the option that needs it."""
    try:
        return importlib.import_module("robodyn.plot")
    except ImportError as exc:
        raise InputError(f"{option} needs robodyn.plot and Matplotlib, which did not import "
                         f"({excerpt(str(exc))})") from None


def _picture_suffixes() -> tuple[str, ...]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    return tuple("." + s for s in sorted(FigureCanvasAgg.get_supported_filetypes()))


def picture_option(path: str | None, option: str, force: bool = False):
    """``(robodyn.plot, Path)`` for a picture option given, else ``(None, None)``."""
    if path is None:
        return None, None
    plot = plot_module(option)
    return plot, output_path(path, option, _picture_suffixes(), force)


def writing(path: Path, write, option: str, force: bool = False) -> None:
    """Run ``write(tmp)`` on a temporary file beside ``path`` and put it in place by the
    one rule of :mod:`robodyn.codegen.export.files` (no links followed, no file of the
    user's replaced, an edited one refused unless ``force``); a file system error becomes a
    clear error naming ``path``."""
    try:
        write_output(path, write, force=force, option=option)
    except OSError as exc:
        raise InputError(f"cannot write {excerpt(str(path))}: {exc.strerror or exc}") from None


def format_vector(values, digits: int = 6) -> str:
    """``values`` printed as ``[x1, x2, ...]``, each to ``digits`` significant digits."""
    return "[" + ", ".join(f"{x:.{digits}g}" for x in np.asarray(values, dtype=float).ravel()) \
        + "]"


def report_warnings(caught) -> None:
    """Print each warning ``caught`` (by :func:`warnings.catch_warnings`) on one line of
    stderr, ``robodyn: warning: ...``."""
    for w in caught:
        print(f"robodyn: warning: {w.message}", file=sys.stderr)
