"""Figures: motions, torques, energy, the arm and its animation (Matplotlib).

``rd.plot`` loads this package (and Matplotlib) on first use, not with ``import robodyn``.
"""

from .figures import MAX_FRAMES, TRAJECTORY_SAMPLES, animate, arm, energy, motion, torques

__all__ = ["motion", "torques", "energy", "arm", "animate", "MAX_FRAMES", "TRAJECTORY_SAMPLES"]
