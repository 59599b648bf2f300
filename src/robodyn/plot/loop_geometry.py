"""What a picture of a closed mechanism draws for its loops (``chain.closures``), shared by
the stick figure (:func:`robodyn.plot.arm`) and the 3D viewer (:mod:`robodyn.plot.viewer`):
the two frames each loop joins, and the part of a link from its frame to a closure frame it
carries (the side of a parallelogram, a platform's corner, that the chain of link frames
leaves out)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..dynamics.kinematics import frame_table

__all__ = ["LoopPicture", "loop_picture"]


@dataclass(frozen=True)
class LoopPicture:
    """``ends[k]`` ``(2, 3)``: the points of loop ``k``'s two frames (equal where it is
    closed); ``on_base[k]`` whether each is fixed to the base (a ground pivot); ``parts``:
    ``(start, end)`` segments, a link's frame to a closure frame on that link."""

    ends: list[np.ndarray]
    on_base: list[tuple[bool, bool]]
    parts: list[tuple[np.ndarray, np.ndarray]]


def loop_picture(robot, q) -> LoopPicture | None:
    """The loops of ``robot`` at its joint values ``q`` (None: a model without loops)."""
    closures = robot.chain.closures
    if closures is None or not closures.loops:
        return None
    table = robot.numeric_chain
    owner = {name: link for name, link, _ in frame_table(table)}
    ends, on_base, parts = [], [], []
    for loop in closures.loops:
        names = (loop.frame_a, loop.frame_b)
        points = np.stack([robot.forward_kinematics(q, f)[:3, 3] for f in names])
        ends.append(points)
        on_base.append(tuple(owner.get(name, -1) < 0 for name in names))
        for name, point in zip(names, points, strict=True):
            link = owner.get(name, -1)
            if link >= 0 and name != table.links[link].name:  # a frame on a moving link
                parts.append((robot.forward_kinematics(q, table.links[link].name)[:3, 3],
                              point))
    return LoopPicture(ends, on_base, parts)
