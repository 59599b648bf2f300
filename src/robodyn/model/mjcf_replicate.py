"""MuJoCo 3's ``<replicate>``, expanded before the bodies are read.

``<replicate count="n" offset="dx dy dz" euler="a b c" sep="s">`` holds elements (bodies,
geoms, sites, frames, other replicates) that MuJoCo's compiler copies ``n`` times (MuJoCo's
XML reference, ``replicate``). Copy ``i`` (``i = 0 .. n-1``) is placed by the frame

    R_i = R(i euler),    p_i = sum_{k < i} R_k offset

(a point ``x`` of copy ``i`` is at ``R_i x + p_i`` in the replicate's parent; ``R(i euler)``
the rotation of ``i`` times the Euler angles, read in the compiler's ``angle`` units and
``eulerseq``: each copy moved from the previous one by ``offset`` turned as that copy is.
These are MuJoCo's compiled ``body_pos`` and ``body_quat``; the powers ``T^i`` of one
transform differ from them for rotations about several axes), and every ``name`` in it
gets the suffix ``sep`` followed by ``i`` written with as many digits as ``n`` has
(``count="12"``: ``x00 .. x11``). A replicate inside a replicate is expanded first, so
the outer suffix follows the inner one (``n_ji`` for inner copy ``j`` of outer copy
``i``), and its copies sit in outer copy ``i``'s frame. Each copy becomes a ``<frame>``
element with that pose (``pos`` and ``quat``), which the body reader already places
(:mod:`robodyn.model.mjcf_bodies`). All this was checked against MuJoCo's compiled
models (``body_pos``, ``body_quat``, the names; tests/model/test_mjcf_replicate.py).
"""

from __future__ import annotations

import copy

import numpy as np
from scipy.spatial.transform import Rotation

from ..core.errors import ModelError
from .mjcf_compiler import Compiler, attribute_floats
from .mjcf_xml import MAX_MJCF_DEPTH, MAX_MJCF_ELEMENTS, MjcfElement

_ATTRS = {"count", "offset", "euler", "sep"}


def expand_replicates(node: MjcfElement, compiler: Compiler) -> None:
    """Replace every ``<replicate>`` below ``node`` by its copies (module docstring), in
    place; the copies of all of them together stay under ``MAX_MJCF_ELEMENTS``."""
    budget = [MAX_MJCF_ELEMENTS]
    _expand(node, compiler, budget, 1)


def _size(node: MjcfElement) -> int:
    return 1 + sum(_size(child) for child in node.children)


def _expand(node: MjcfElement, compiler: Compiler, budget: list[int], level: int) -> None:
    if level > MAX_MJCF_DEPTH:
        raise ModelError(f"{node.where()}: is nested more than {MAX_MJCF_DEPTH} elements deep")
    out: list[MjcfElement] = []
    for child in node.children:
        _expand(child, compiler, budget, level + 1)  # inner replicates first
        if child.tag != "replicate":
            out.append(child)
            continue
        out.extend(_copies(child, compiler, budget))
    node.children = out


def _copies(node: MjcfElement, compiler: Compiler, budget: list[int]) -> list[MjcfElement]:
    """The ``count`` ``<frame>`` elements of one ``<replicate>`` (its own replicates
    already expanded)."""
    unknown = sorted(set(node.attrib) - _ATTRS)
    if unknown:
        raise ModelError(f"{node.where(unknown[0])}: not an attribute of <replicate> "
                         f"({', '.join(sorted(_ATTRS))})")
    text = node.attrib.get("count")
    if text is None:
        raise ModelError(f"{node.where()}: no count=; say how many copies, count=\"2\"")
    try:
        count = int(text)
    except ValueError:
        count = 0
    if count < 1:
        raise ModelError(f"{node.where('count')}: {text[:40]!r} is not a positive whole number")
    cost = count * sum(_size(child) for child in node.children)
    if cost > budget[0]:
        raise ModelError(f"{node.where('count')}: {count} copies of its "
                         f"{len(node.children)} element(s) make more than "
                         f"{MAX_MJCF_ELEMENTS:,} elements; robodyn reads at most that many")
    budget[0] -= cost
    euler = attribute_floats(node, "euler", 3) if "euler" in node.attrib else np.zeros(3)
    offset = attribute_floats(node, "offset", 3) if "offset" in node.attrib else np.zeros(3)
    sep = node.attrib.get("sep", "")
    digits = len(str(count))
    out, pos = [], np.zeros(3)
    for i in range(count):
        turn = compiler.rotation(node, {"euler": _text(i * euler)})
        quat = Rotation.from_matrix(turn).as_quat(scalar_first=True)
        frame = MjcfElement("frame", {"pos": _text(pos), "quat": _text(quat)},
                            node.source, node.line)
        suffix = f"{sep}{i:0{digits}d}"
        for child in node.children:
            twin = copy.deepcopy(child)
            _suffix(twin, suffix)
            frame.children.append(twin)
        out.append(frame)
        pos = pos + turn @ offset
    return out


def _text(values) -> str:
    """Numbers as the file's text, each to the last bit (``repr`` of a float)."""
    return " ".join(repr(float(x)) for x in values)


def _suffix(node: MjcfElement, suffix: str) -> None:
    """Append ``suffix`` to every ``name`` in ``node`` and below it, as MuJoCo does."""
    stack = [node]
    while stack:  # bounded: the copy's elements, counted in the budget
        item = stack.pop()
        if "name" in item.attrib:
            item.attrib["name"] += suffix
        stack.extend(item.children)
