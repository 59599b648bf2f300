"""What the figures of :mod:`robodyn.plot` share: a figure on its own Agg canvas
(:func:`new_figure`), saving it (:func:`save_figure`), and their inputs checked
(:func:`finite_array`, :func:`sampled`, :func:`check_dof`)."""

from __future__ import annotations

import io
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..core.errors import InputError, excerpt
from ..motion.trajectory import Trajectory

__all__ = ["TRAJECTORY_SAMPLES", "new_figure", "save_figure", "finite_array", "sampled",
           "check_dof"]

#: Samples a :class:`~robodyn.motion.trajectory.Trajectory` is drawn with (``dt = duration / 500``).
TRAJECTORY_SAMPLES = 501


# -- figures and files -----------------------------------------------------------------------
class ShownFigure(Figure):
    """A :class:`~matplotlib.figure.Figure` that Jupyter draws by itself: its PNG
    (``_repr_png_``), without ``%matplotlib inline`` (figures outside ``pyplot`` are
    otherwise shown as ``<Figure size 600x600 with 1 Axes>``)."""

    def _repr_png_(self) -> bytes:
        buffer = io.BytesIO()
        self.savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()


def new_figure(figsize) -> Figure:
    """A constrained-layout :class:`ShownFigure` of size ``figsize`` (inches) on its own
    Agg canvas: no ``pyplot``, nothing global changes, works headless, and a notebook shows
    it when a cell returns it."""
    fig = ShownFigure(figsize=figsize, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Figure, path, dpi: float = 110) -> None:
    """Save ``fig`` to ``path`` (nothing when ``path`` is None); a suffix that is no picture
    format of the canvas is an :class:`InputError` naming ``path``."""
    if path is None:
        return
    path = Path(path)
    suffix = path.suffix.lower().lstrip(".")
    supported = fig.canvas.get_supported_filetypes()
    if suffix not in supported:
        raise InputError(f"path: {excerpt(path.name)} has no picture suffix; use .png (or "
                         f"one of {', '.join('.' + s for s in sorted(supported))})")
    fig.savefig(path, dpi=dpi)


# -- inputs ------------------------------------------------------------------------------------
def finite_array(value, name: str) -> np.ndarray:
    """``value`` as a float array of finite numbers, else an :class:`InputError` naming
    ``name``."""
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name}: expected real numbers, got {excerpt(value)}") from None
    if not np.isfinite(arr).all():
        raise InputError(f"{name}: every value must be finite")
    return arr


def sampled(motion, dt=None, need=("q", "qd", "qdd")) -> SimpleNamespace:
    """``t`` and the arrays ``need`` of a Simulation or Motion, or of a Trajectory sampled at
    ``dt`` (default: :data:`TRAJECTORY_SAMPLES` samples), checked for shape."""
    if isinstance(motion, Trajectory):
        motion = motion.sample(dt if dt is not None
                               else motion.duration / (TRAJECTORY_SAMPLES - 1))
    if getattr(motion, "t", None) is None or getattr(motion, "q", None) is None:
        raise InputError(f"motion: expected a Simulation, a Motion or a Trajectory (with t, "
                         f"q, qd, qdd), got {type(motion).__name__}")
    t = finite_array(motion.t, "motion.t")
    if t.ndim != 1 or t.shape[0] < 1:
        raise InputError(f"motion.t: expected sample times of shape (T,), got {t.shape}")
    if (np.diff(t) <= 0).any():
        raise InputError("motion.t: the sample times must increase")
    out = SimpleNamespace(t=t)
    dof = None
    for name in need:
        value = getattr(motion, name, None)
        if value is None:
            raise InputError(f"motion.{name}: missing; give a Simulation, Motion or Trajectory")
        arr = finite_array(value, f"motion.{name}")
        # q has nq values (a quaternion per ball or free joint), the rates nv
        if arr.ndim != 2 or arr.shape[0] != t.shape[0] or (
                name != "q" and dof is not None and arr.shape[1] != dof):
            raise InputError(f"motion.{name}: expected shape ({t.shape[0]}, dof) to match "
                             f"motion.t, got {arr.shape}")
        if name != "q":
            dof = arr.shape[1]
        setattr(out, name, arr)
    if "q" in need and dof is not None and out.q.shape[1] < dof:
        raise InputError(f"motion.q: {out.q.shape[1]} values a sample for {dof} velocities")
    out.dof = dof if dof is not None else out.q.shape[1]
    return out


def check_dof(robot, dof: int) -> None:
    """A motion of ``dof`` joints fits ``robot`` (any motion fits no robot, ``None``)."""
    if robot is not None and robot.dof != dof:
        raise InputError(f"motion: has {dof} joints, the robot {robot.name!r} {robot.dof}")
