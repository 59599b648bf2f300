"""Closed chains in the description: loop closures, linear joint couplings, actuated joints.

A closed mechanism is described as its spanning tree (the :class:`~robodyn.model.chain.Chain`
the algorithms already read) plus :class:`Closures` (``Chain.closures``):

* :class:`LoopClosure`: two frames (of :func:`closure_frame_names`: ``base``, the links'
  frames, the named frames) on two branches of the tree that must coincide, in ``position``
  (a spherical pair: 3 equations), in the ``planar`` position (a revolute pair of a planar
  mechanism whose plane is the base's x-y plane: 2 equations, x and y) or in full ``pose``
  (a weld: 6 equations). Read from a model file's ``loops:`` and MJCF
  ``<equality connect|weld>``.
* :class:`Coupling`: a linear joint coupling ``q_joint = multiplier * q_source + offset``,
  the URDF ``<mimic joint= multiplier= offset=>`` and the MJCF ``<equality joint>`` with a
  linear ``polycoef`` (``offset`` ``polycoef[0]``, ``multiplier`` ``polycoef[1]``). The
  coupled joints leave the coordinates: :func:`coupling_basis` gives the exact reduction
  ``q = G y + b`` (Pinocchio's ``JointModelMimic``, Featherstone's "Rigid Body Dynamics
  Algorithms" §8.1, ``q = gamma(y)`` with ``G = d gamma / d y`` constant).
* ``actuated``: the names of the driven joints; the others are passive.

Numbers here are floats (a coupling's ``multiplier`` and ``offset``): a closure does not take
part in :meth:`Chain.map` or :meth:`Chain.subs`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError, excerpt

#: The kinds of loop closure and the number of equations each contributes.
CLOSURE_ROWS = {"position": 3, "planar": 2, "pose": 6}


@dataclass(frozen=True)
class LoopClosure:
    """Frames ``frame_a`` and ``frame_b`` (names of :func:`closure_frame_names`) coincide in
    ``kind`` (``"position"``, ``"planar"`` or ``"pose"``, :data:`CLOSURE_ROWS`)."""

    name: str
    frame_a: str
    frame_b: str
    kind: str = "position"

    @property
    def rows(self) -> int:
        """The number of scalar constraint equations."""
        return CLOSURE_ROWS[self.kind]


@dataclass(frozen=True)
class Coupling:
    """``q_joint = multiplier * q_source + offset`` (joint names; revolute or prismatic)."""

    joint: str
    source: str
    multiplier: float = 1.0
    offset: float = 0.0


@dataclass(frozen=True)
class Closures:
    """The loops, couplings and actuated joints of a closed mechanism (``Chain.closures``)."""

    loops: tuple[LoopClosure, ...] = ()
    couplings: tuple[Coupling, ...] = ()
    actuated: tuple[str, ...] = ()


def joint_names(chain) -> tuple[str, ...]:
    """Each link's joint name (the link's name when the joint has none), in ``q`` order."""
    return tuple(link.joint.name or link.name for link in chain.links)


def closure_frame_names(chain) -> tuple[str, ...]:
    """The frame names a loop may join: ``base``, every link, every named frame."""
    return ("base", *(link.name for link in chain.links), *(f.name for f in chain.frames))


def checked_closures(chain, closures: Closures, source: str) -> Closures:
    """``closures`` checked against ``chain``: every frame and joint named exists, loops'
    kinds are known, no joint is coupled twice or to itself, couplings join one-value joints,
    no coupling cycle, actuated joints are independent. A :class:`ModelError` naming the
    field and the fix otherwise."""
    frames = set(closure_frame_names(chain))
    joints = joint_names(chain)
    for k, loop in enumerate(closures.loops):
        where = f"{source}: loops[{k}] ({excerpt(loop.name, 40)})"
        if loop.kind not in CLOSURE_ROWS:
            raise ModelError(f"{where}: type {excerpt(loop.kind)} is not a closure type; use "
                             f"one of {', '.join(CLOSURE_ROWS)}")
        for end in (loop.frame_a, loop.frame_b):
            if end not in frames:
                raise ModelError(f"{where}: frame {excerpt(end, 40)} is not a frame of the "
                                 f"model; frames: {', '.join(sorted(frames))[:300]}")
        if loop.frame_a == loop.frame_b:
            raise ModelError(f"{where}: both ends are frame {excerpt(loop.frame_a, 40)}; a "
                             "loop joins two frames on two branches")
    coupled: dict[str, Coupling] = {}
    for k, c in enumerate(closures.couplings):
        where = f"{source}: couplings[{k}]"
        for role, name in (("joint", c.joint), ("source", c.source)):
            if name not in joints:
                raise ModelError(f"{where}.{role}: {excerpt(name, 40)} is not a joint of the "
                                 f"model; joints: {', '.join(joints)[:300]}")
            if not chain.links[joints.index(name)].joint.model.single:
                raise ModelError(f"{where}.{role}: joint {excerpt(name, 40)} has several "
                                 "values; couplings join revolute or prismatic joints")
        if c.joint == c.source:
            raise ModelError(f"{where}: joint {excerpt(c.joint, 40)} coupled to itself")
        if c.joint in coupled:
            raise ModelError(f"{where}: joint {excerpt(c.joint, 40)} is coupled twice; one "
                             "coupling per joint")
        for name, value in (("multiplier", c.multiplier), ("offset", c.offset)):
            if not isinstance(value, (int, float)) or not np.isfinite(value):
                raise ModelError(f"{where}.{name}: {excerpt(value)} is not a finite number")
        coupled[c.joint] = c
    _resolved(coupled, source)
    for name in closures.actuated:
        if name not in joints:
            raise ModelError(f"{source}: actuated: {excerpt(name, 40)} is not a joint of the "
                             f"model; joints: {', '.join(joints)[:300]}")
        if name in coupled:
            raise ModelError(f"{source}: actuated: joint {excerpt(name, 40)} is coupled to "
                             f"{coupled[name].source!r}; actuate the independent joint")
    if len(set(closures.actuated)) != len(closures.actuated):
        raise ModelError(f"{source}: actuated: a joint is listed twice")
    return closures


def _resolved(coupled: Mapping[str, Coupling], source: str) -> dict[str, tuple]:
    """Each coupled joint as ``(independent joint, multiplier, offset)``, following chains
    of couplings (a mimic of a mimic) at most ``len(coupled)`` steps: a longer walk is a
    cycle, a :class:`ModelError`."""
    out = {}
    for joint in coupled:
        name, mult, off = joint, 1.0, 0.0
        for _ in range(len(coupled) + 1):
            if name not in coupled:
                break
            c = coupled[name]
            # q_name = m q_src + o, and so q_joint = mult (m q_src + o) + off
            name, mult, off = c.source, mult * float(c.multiplier), \
                mult * float(c.offset) + off
        else:
            raise ModelError(f"{source}: couplings: joint {excerpt(joint, 40)} is in a cycle "
                             "of couplings; every chain of couplings must end at a joint that "
                             "moves on its own")
        out[joint] = (name, mult, off)
    return out


def coupling_basis(chain) -> tuple[np.ndarray, np.ndarray, tuple[int, ...]]:
    """``(G, b, independent)`` of the chain's couplings: ``q = G y + b`` maps the
    independent coordinates ``y`` (the joints ``independent``, indices into ``q``, in
    ``q``'s order) to every joint; ``G`` ``(nv, ny)``, ``b`` ``(nv,)``. Without couplings
    ``G`` is the identity. One-value joints only (a model with couplings has no ball or
    free joint: :class:`ModelError`)."""
    closures = chain.closures
    couplings = closures.couplings if closures is not None else ()
    names = joint_names(chain)
    if couplings and not chain.single_valued:
        raise ModelError("couplings: the model has ball or free joints; coupled joints are "
                         "read for models of revolute and prismatic joints only")
    resolved = _resolved({c.joint: c for c in couplings}, "couplings")
    independent = tuple(i for i, n in enumerate(names) if n not in resolved)
    column = {i: k for k, i in enumerate(independent)}
    n = len(names)
    G, b = np.zeros((n, len(independent))), np.zeros(n)
    for i, name in enumerate(names):
        if name in resolved:
            src, mult, off = resolved[name]
            G[i, column[names.index(src)]] = mult
            b[i] = off
        else:
            G[i, column[i]] = 1.0
    return G, b, independent


def closures_of(chain) -> Closures:
    """``chain.closures``, or empty ones."""
    return chain.closures if chain.closures is not None else Closures()


# -- reading the model file's fields ---------------------------------------------------------
_LOOP_KEYS = {"name", "frames", "type"}
_COUPLING_KEYS = {"joint", "source", "multiplier", "offset"}


def parse_closures(data: Mapping, chain, source: str) -> Closures | None:
    """``loops:``, ``couplings:`` and ``actuated:`` of a model file (None when absent)::

        loops:                              # two frames that coincide
          - {name: close, frames: [tip_a, tip_b], type: planar}   # position|planar|pose
        couplings:                          # q_joint = multiplier q_source + offset
          - {joint: finger2, source: finger1, multiplier: -1, offset: 0}
        actuated: [joint1, joint2]          # the driven joints; the others are passive
    """
    if all(data.get(k) is None for k in ("loops", "couplings", "actuated")):
        return None
    loops = tuple(_loop(e, f"{source}: loops[{k}]", k)
                  for k, e in enumerate(_list(data.get("loops"), f"{source}: loops")))
    couplings = tuple(_coupling(e, f"{source}: couplings[{k}]")
                      for k, e in enumerate(_list(data.get("couplings"),
                                                  f"{source}: couplings")))
    actuated = _list(data.get("actuated"), f"{source}: actuated")
    for k, name in enumerate(actuated):
        if not isinstance(name, str):
            raise ModelError(f"{source}: actuated[{k}]: expected a joint name, got "
                             f"{excerpt(name)}")
    return checked_closures(chain, Closures(loops, couplings, tuple(actuated)), source)


def _list(value, field: str) -> list:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelError(f"{field}: expected a list, got {excerpt(value)}")
    return value


def _mapping(entry, keys: set, field: str) -> Mapping:
    if not isinstance(entry, Mapping):
        raise ModelError(f"{field}: expected a mapping with {', '.join(sorted(keys))}, got "
                         f"{excerpt(entry)}")
    unknown = sorted(str(k) for k in entry if k not in keys)
    if unknown:
        raise ModelError(f"{field}: unknown key {excerpt(unknown[0], 40)}; the keys are "
                         f"{', '.join(sorted(keys))}")
    return entry


def _loop(entry, field: str, k: int) -> LoopClosure:
    entry = _mapping(entry, _LOOP_KEYS, field)
    frames = entry.get("frames")
    if not isinstance(frames, Sequence) or isinstance(frames, str) or len(frames) != 2 \
            or not all(isinstance(f, str) for f in frames):
        raise ModelError(f"{field}.frames: expected two frame names [a, b], got "
                         f"{excerpt(frames)}")
    name = entry.get("name", f"loop{k + 1}")
    if not isinstance(name, str):
        raise ModelError(f"{field}.name: expected a string, got {excerpt(name)}")
    return LoopClosure(name, frames[0], frames[1], entry.get("type", "position"))


def _coupling(entry, field: str) -> Coupling:
    entry = _mapping(entry, _COUPLING_KEYS, field)
    for key in ("joint", "source"):
        if not isinstance(entry.get(key), str):
            raise ModelError(f"{field}.{key}: expected a joint name, got "
                             f"{excerpt(entry.get(key))}")
    numbers = []
    for key, default in (("multiplier", 1.0), ("offset", 0.0)):
        value = entry.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ModelError(f"{field}.{key}: expected a number, got {excerpt(value)}")
        numbers.append(float(value))
    return Coupling(entry["joint"], entry["source"], *numbers)
