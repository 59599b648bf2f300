"""Figures: motions, torques, energy, the arm and its animation (Matplotlib); the arm in
a browser (:func:`show`, viser).

``rd.plot`` loads this package (and Matplotlib) on first use, not with ``import robodyn``.
"""

from .figures import (
    MAX_FRAMES,
    TRAJECTORY_SAMPLES,
    animate,
    animation_writer,
    arm,
    energy,
    energy_comparison,
    motion,
    torques,
    tracking,
)
from .viewer import Viewer, show

__all__ = ["motion", "torques", "energy", "tracking", "energy_comparison", "arm", "animate",
           "animation_writer", "MAX_FRAMES", "TRAJECTORY_SAMPLES", "show", "Viewer"]
