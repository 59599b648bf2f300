"""Denavit–Hartenberg geometry, standard or modified, as a :class:`Chain`.

* ``standard`` (Siciliano §2.8, Spong): ``A_i = Rz(theta_i) Tz(d_i) Tx(a_i) Rx(alpha_i)``;
  frame ``i`` sits at the distal end of link ``i`` and joint ``i`` moves about or
  along ``z_{i-1}``.
* ``modified`` (Craig §3.4, the frames of the Newton–Euler lecture):
  ``A_i = Rx(alpha_{i-1}) Tx(a_{i-1}) Rz(theta_i) Tz(d_i)``; frame ``i`` sits on joint
  ``i``'s axis. Each row gives the ``a``, ``alpha`` that precede its joint.

For a revolute joint ``theta`` is a constant offset added to the joint variable,
for a prismatic joint ``d`` is.

In a :class:`Chain` a link frame is its joint frame. With modified DH that is
the DH frame itself. With standard DH the link frame ``i`` of the chain is frame
``i-1`` moved by joint ``i`` (same origin, ``z`` along joint ``i``), and the
constant ``X_i`` (``Tz(d_i) Tx(a_i) Rx(alpha_i)`` for a revolute joint) leads
from it to DH frame ``i``: centre of mass and inertia given in DH frame ``i``
are carried over by ``X_i``, and ``X_n`` is the chain's tip.

A tree (``parents``): each row places its DH frame in its *parent's* DH frame (standard:
``A_i`` leads from DH frame ``parent(i)`` to DH frame ``i``; modified: the row's ``a``,
``alpha`` are measured from the parent's frame), not in the frame of the row before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..core import linalg3 as la
from ..core.lazy import sp
from .chain import (
    PRISMATIC,
    REVOLUTE,
    Chain,
    Friction,
    Inertial,
    Joint,
    Link,
    Motor,
    PointMass,
    Transform,
)

STANDARD = "standard"
MODIFIED = "modified"
CONVENTIONS = (STANDARD, MODIFIED)


def dh_matrix(a, alpha, d, theta, modified: bool = False, symbolic: bool = False):
    """The homogeneous transform of one DH row, 4 x 4: standard (Siciliano eq. 2.52)
    ``A = Rot_z(theta) Trans_z(d) Trans_x(a) Rot_x(alpha)``, or modified (Craig eq. 3.6)
    ``Rot_x(alpha) Trans_x(a) Rot_z(theta) Trans_z(d)``; a SymPy matrix when ``symbolic``,
    else a float NumPy array."""
    m = sp if symbolic else np
    ct, st, ca, sa = m.cos(theta), m.sin(theta), m.cos(alpha), m.sin(alpha)
    if modified:
        rows = [[ct, -st, 0, a], [st * ca, ct * ca, -sa, -sa * d],
                [st * sa, ct * sa, ca, ca * d], [0, 0, 0, 1]]
    else:
        rows = [[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                [0, sa, ca, d], [0, 0, 0, 1]]
    return sp.Matrix(rows) if symbolic else np.array(rows, dtype=float)


@dataclass(frozen=True)
class DHRow:
    """One row of a DH table (SymPy expressions); ``joint`` is revolute or prismatic."""

    joint: str
    a: object = 0
    alpha: object = 0
    d: object = 0
    theta: object = 0

    @property
    def offset(self):
        return self.theta if self.joint == REVOLUTE else self.d


def dh_chain(
    convention: str,
    rows: Sequence[DHRow],
    inertials: Sequence[Inertial],
    frictions: Sequence[Friction],
    gravity: la.Vec3,
    names: Sequence[str] | None = None,
    motors: Sequence[Motor] | None = None,
    limits: Sequence[tuple | None] | None = None,
    point_masses: Sequence[Sequence[PointMass]] | None = None,
    parents: Sequence[int] | None = None,
) -> Chain:
    """Build the chain of a DH table; ``inertials`` and ``point_masses`` (per link, their
    positions) are given in the DH link frames. ``parents``: each link's parent (0-based,
    ``-1`` the base, earlier links only; default the row before): a tree, each row's frame
    placed in its parent's DH frame (the module docstring)."""
    names = names or [f"link{i + 1}" for i in range(len(rows))]
    motors = motors or [Motor() for _ in rows]
    limits = limits or [None for _ in rows]
    point_masses = point_masses or [() for _ in rows]
    parents = list(parents) if parents is not None else list(range(-1, len(rows) - 1))
    links = []
    afters = []  # per link: from its chain link frame to its DH frame
    for i, (row, inertial, friction, name, motor, limit, points) in enumerate(zip(
            rows, inertials, frictions, names, motors, limits, point_masses, strict=True)):
        if convention == MODIFIED:
            placement = Transform.rot_x(row.alpha) @ Transform.trans(x=row.a)
            placement = placement @ (
                Transform.trans(z=row.d) if row.joint == REVOLUTE else Transform.rot_z(row.theta)
            )
        else:
            # the joint frame starts at the parent's DH frame
            placement = afters[parents[i]] if parents[i] >= 0 else Transform()
        after = dh_frame_offset(convention, row)
        afters.append(after)
        joint = Joint(type=row.joint, axis=(0, 0, 1), offset=row.offset, placement=placement,
                      name=f"joint{len(links) + 1}", limits=limit)
        links.append(Link(name=name, joint=joint, inertial=_moved(inertial, after),
                          friction=friction, motor=motor,
                          point_masses=tuple(PointMass(p.mass, after.apply(p.at))
                                             if after != Transform() else p for p in points)))
    tip = afters[-1] if convention == STANDARD and afters else Transform()
    return Chain(links=tuple(links), gravity=tuple(gravity), tip=tip,
                 parents=tuple(parents))


def dh_frame_offset(convention: str, row: DHRow) -> Transform:
    """``X_i``: DH frame ``i`` in the chain's link frame ``i`` (the module docstring):
    ``Tz(d) Tx(a) Rx(alpha)`` (revolute) or ``Rz(theta) Tx(a) Rx(alpha)`` (prismatic) with
    standard DH, the identity with modified DH (the link frame is the DH frame)."""
    if convention == MODIFIED:
        return Transform()
    first = Transform.trans(z=row.d) if row.joint == REVOLUTE else Transform.rot_z(row.theta)
    return first @ Transform.trans(x=row.a) @ Transform.rot_x(row.alpha)


def _moved(inertial: Inertial, x: Transform) -> Inertial:
    """Inertial data given in frame B, expressed in frame A where ``x`` maps B to A."""
    if x == Transform():
        return inertial
    return Inertial(
        mass=inertial.mass,
        com=x.apply(inertial.com),
        inertia=la.rotate_tensor(x.rotation, inertial.inertia),
    )


__all__ = ["DHRow", "dh_chain", "dh_frame_offset", "STANDARD", "MODIFIED", "CONVENTIONS",
           "REVOLUTE", "PRISMATIC"]
