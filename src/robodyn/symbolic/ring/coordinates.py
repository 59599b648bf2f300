"""The coordinates of one chain's closed forms, joint by joint: their names, the vector
field each velocity coordinate moves the configuration along, and the brackets of those
fields.

A joint of one value (revolute, prismatic) has the configuration ``q_k`` and the rate
``qd_k = dq_k/dt``. A joint with a quaternion (:mod:`robodyn.model.joints`: ``spherical``,
``free``) has more configuration values than velocity values, and its velocity is *not*
the rate of its configuration: it is the body-frame twist, a set of *quasi-velocities*
(Pinocchio's layout). The configuration moves with it by the tangent map
``dq/dt = T(q) v`` (:func:`~robodyn.model.joints.joint_configuration_rate`)::

    quaternion e = (e_x, e_y, e_z, e_w):  de/dt = 1/2 e ⊗ (w, 0)
    position p of a free joint:           dp/dt = R(e) v

so velocity coordinate ``k`` moves the configuration along the vector field
``X_k = sum_m T_mk(q) d/dq_m`` (the column ``k`` of ``T``), and "the derivative with
respect to coordinate ``k``" of a function of the configuration is ``X_k f`` (for a
one-value joint, ``X_k = d/dq_k``). These fields need not commute: with the motion
subspace ``S`` of the joint (its columns fixed in the link, a Lie subalgebra of the
twists), ``[X_a, X_b] = sum_m c^m_ab X_m`` with the structure constants read off the
spatial cross product of the columns, ``S_a × S_b = sum_m c^m_ab S_m`` (Featherstone,
*Rigid Body Dynamics Algorithms*, §2.9; for a ball joint ``c^m_ab = eps_abm``, the
cross product of ``so(3)``; for a free joint the bracket of ``se(3)``). Fields of
different joints commute, and a one-value joint's bracket is zero. The
Boltzmann–Hamel equations (:mod:`..hamel`) and the Christoffel symbols of a non-holonomic
frame (:func:`..derivation.christoffel`) need these constants.

Names, ``k`` the joint's number (1-based, as the links): one value ``q{k}``, ``qd{k}``,
``qdd{k}``; a ball joint the quaternion ``qx{k}, qy{k}, qz{k}, qw{k}``, the angular
velocity ``w_x{k}, w_y{k}, w_z{k}`` (link frame) and its rate ``wd_x{k}, ...``; a free
joint the position ``x{k}, y{k}, z{k}`` and the quaternion, the linear velocity
``v_x{k}, ...`` then the angular velocity (both in its link frame) and their rates
``vd_x{k}, ..., wd_x{k}, ...``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from types import SimpleNamespace

import sympy as sp
from sympy import QQ

from ...core import linalg3 as la
from ...model.joints import FREE, JOINT_MODELS, joint_columns

__all__ = ["JointCoordinates", "joint_coordinates", "structure_constants", "coordinate_tex"]


@dataclass(frozen=True)
class JointCoordinates:
    """The symbols of one joint: ``q`` (``nq``), ``qd`` (``nv``), ``qdd`` (``nv``), its
    ``type``, its ``number`` (1-based) and the offsets of its first values in the chain's
    ``q`` and ``v``. ``quaternion``: the index of the quaternion's first value in ``q``
    (``None``: none)."""

    type: str
    number: int
    q: tuple[sp.Symbol, ...]
    qd: tuple[sp.Symbol, ...]
    qdd: tuple[sp.Symbol, ...]
    q_offset: int
    v_offset: int
    quaternion: int | None = None

    @property
    def single(self) -> bool:
        return len(self.q) == 1 and len(self.qd) == 1


_QUATERNION = ("qx", "qy", "qz", "qw")


def _names(kind: str, k: int) -> tuple[list[str], list[str], list[str]]:
    """The names of the configuration, velocity and acceleration values of joint ``k``."""
    model = JOINT_MODELS[kind]
    if model.single:
        return [f"q{k}"], [f"qd{k}"], [f"qdd{k}"]
    q = [f"{x}{k}" for x in _QUATERNION]
    if kind == FREE:
        q = [f"{x}{k}" for x in ("x", "y", "z")] + q
    rates = [f"{c}{k}" for c in model.coordinates]             # v_x1, w_x1
    accelerations = [f"{c[0]}d{c[1:]}{k}" for c in model.coordinates]   # vd_x1, wd_x1
    return q, rates, accelerations


def joint_coordinates(joint_types: Sequence[str]) -> tuple[JointCoordinates, ...]:
    """The coordinates of a chain of joints of ``joint_types`` (module docstring)."""
    out, q_off, v_off = [], 0, 0
    for i, kind in enumerate(joint_types):
        q, qd, qdd = _names(kind, i + 1)
        model = JOINT_MODELS[kind]
        out.append(JointCoordinates(kind, i + 1, tuple(sp.Symbol(x) for x in q),
                                    tuple(sp.Symbol(x) for x in qd),
                                    tuple(sp.Symbol(x) for x in qdd), q_off, v_off,
                                    model.quaternion))
        q_off += model.nq
        v_off += model.nv
    return tuple(out)


def structure_constants(kind: str) -> dict[tuple[int, int], tuple[tuple[int, object], ...]]:
    """``{(a, b): ((m, c^m_ab), ...)}``, the nonzero structure constants of a joint type's
    velocity coordinates (0-based within the joint): ``[X_a, X_b] = sum_m c^m_ab X_m``,
    read off ``S_a × S_b = sum_m c^m_ab S_m`` (module docstring; the columns of ``S`` are
    orthonormal here, so ``c^m_ab = S_m . (S_a × S_b)``, and the cross product must lie in
    their span)."""
    out: dict[tuple[int, int], tuple[tuple[int, object], ...]] = {}
    if JOINT_MODELS[kind].single:
        return out  # one column: S × S = 0
    columns = joint_columns(SimpleNamespace(type=kind))  # constant columns: no axis read
    for a, s_a in enumerate(columns):
        for b, s_b in enumerate(columns):
            ang = la.cross(s_a[0], s_b[0])
            lin = la.add(la.cross(s_a[0], s_b[1]), la.cross(s_a[1], s_b[0]))
            coeffs = [la.dot(s[0], ang) + la.dot(s[1], lin) for s in columns]
            rest = (la.sub(ang, _combine(coeffs, columns, 0)),
                    la.sub(lin, _combine(coeffs, columns, 1)))
            if any(x != 0 for v in rest for x in v):  # pragma: no cover - a new joint type
                raise ValueError(f"{kind}: the motion subspace is not closed under the "
                                 "cross product")
            terms = tuple((m, QQ(int(c))) for m, c in enumerate(coeffs) if c != 0)
            if terms:
                out[(a, b)] = terms
    return out


def _combine(coeffs, columns, part: int):
    total = la.ZERO3
    for c, s in zip(coeffs, columns, strict=True):
        total = la.add(total, la.scale(c, s[part]))
    return total



_TEX_PATTERNS = (
    (re.compile(r"q(\d+)"), r"q_{\1}"),
    (re.compile(r"qd(\d+)"), r"\\dot{q}_{\1}"),
    (re.compile(r"qdd(\d+)"), r"\\ddot{q}_{\1}"),
    (re.compile(r"v_([xyz])(\d+)"), r"v_{\1,\2}"),
    (re.compile(r"w_([xyz])(\d+)"), r"\\omega_{\1,\2}"),
    (re.compile(r"vd_([xyz])(\d+)"), r"\\dot{v}_{\1,\2}"),
    (re.compile(r"wd_([xyz])(\d+)"), r"\\dot{\\omega}_{\1,\2}"),
    (re.compile(r"q([xyzw])(\d+)"), r"q_{\1,\2}"),
    (re.compile(r"([xyz])(\d+)"), r"\1_{\2}"),
)


def coordinate_tex(name: str) -> str | None:
    """The LaTeX of a coordinate's name (``v_x1``: ``v_{x,1}``, ``wd_x1``:
    ``\\dot{\\omega}_{x,1}``, ``qw1``: ``q_{w,1}``, ``qd2``: ``\\dot{q}_{2}``), or None for
    a name that is not one."""
    for pattern, tex in _TEX_PATTERNS:
        if pattern.fullmatch(name):
            return pattern.sub(tex, name)
    return None
