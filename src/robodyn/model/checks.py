"""The checks of a model's numbers: each number finite and real (named by its field when it
is not), each body's mass and inertia physical, a ``planar`` model's axes parallel.

:meth:`Chain.evaluate <robodyn.model.chain.Chain.evaluate>` makes the numeric chain with
:func:`as_float` (every number, labelled by :func:`labelled_numbers`) and
:func:`check_physical`; the file readers check each body they read with
:func:`check_inertia`. Every function here takes a :class:`~robodyn.model.chain.Chain` (or
one body's numbers) and reads only its fields, so this module imports nothing of
:mod:`robodyn.model.chain` (which imports it). Errors name the field, the value and the fix.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..core import linalg3 as la
from ..core.errors import ModelError, PhysicalConsistencyWarning, excerpt, warn
from ..core.lazy import is_sympy, sp
from .friction import FRICTION_FIELDS, check_friction
from .joints import REVOLUTE


def as_float(x, table) -> tuple[float, str]:
    """``x`` with the values of ``table`` substituted, as a float; and what is wrong
    with it ("" if it is a finite real number)."""
    if is_sympy(x):
        x = x.xreplace(table)
        if x is sp.nan:
            return math.nan, "is not a finite number (it is undefined, e.g. 0/0)"
        if x in (sp.zoo, sp.oo, -sp.oo):
            return math.inf, "is not a finite number (a division by zero)"
        try:
            value = float(x)
        except TypeError:
            return math.nan, f"is not a real number (it evaluates to {excerpt(x)})"
    else:
        try:
            value = float(x)
        except (TypeError, ValueError):
            return math.nan, "is not a number"
    if math.isnan(value):
        return value, "is not a finite number (it is undefined, e.g. 0/0)"
    if math.isinf(value):
        return value, ("is not a finite number (it is infinite, or beyond the largest float "
                       "1.8e308)")
    return value, ""


#: Names of the inertia tensor's entries, as a model file writes them.
_INERTIA_NAMES = (("xx", "xy", "xz"), ("xy", "yy", "yz"), ("xz", "yz", "zz"))


def labelled_numbers(chain) -> list[tuple[str, object]]:
    """``(field, number)`` for every number of ``chain``, in the order of
    :meth:`Chain.numbers <robodyn.model.chain.Chain.numbers>` (``chain`` a
    :class:`~robodyn.model.chain.Chain`), fields named as a model file names them where one can:
    ``links[1].mass``, ``links[1].com[0]``, ``links[1].inertia.xy``,
    ``links[1].friction.viscous``, ``gravity[2]``; geometry as
    ``links[1].joint.placement.rotation[0][1]`` (from the DH table or URDF origin)."""
    out: list = []

    def vector(prefix, values):
        for k, v in enumerate(values):
            out.append((f"{prefix}[{k}]", v))

    def transform(prefix, t):
        for r, row in enumerate(t.rotation):
            vector(f"{prefix}.rotation[{r}]", row)
        vector(f"{prefix}.translation", t.translation)

    for i, link in enumerate(chain.links):
        where = link_field(chain, i)
        vector(f"{where}.joint.axis", link.joint.axis)
        out.append((f"{where}.joint.offset", link.joint.offset))
        transform(f"{where}.joint.placement", link.joint.placement)
        out.append((f"{where}.mass", link.inertial.mass))
        vector(f"{where}.com", link.inertial.com)
        for r, row in enumerate(link.inertial.inertia):
            for c, v in enumerate(row):
                out.append((f"{where}.inertia.{_INERTIA_NAMES[r][c]}", v))
        for name in FRICTION_FIELDS:  # coulomb_negative None: as coulomb, not a number
            if getattr(link.friction, name) is not None:
                out.append((f"{where}.friction.{name}", getattr(link.friction, name)))
        out.append((f"{where}.motor.inertia", link.motor.inertia))
        out.append((f"{where}.motor.gear_ratio", link.motor.gear_ratio))
        out.append((f"{where}.motor.efficiency", link.motor.efficiency))
        for name in MOTOR_OPTIONAL:  # None: the model has none (not a number)
            if getattr(link.motor, name) is not None:
                out.append((f"{where}.motor.{name}", getattr(link.motor, name)))
        for k, point in enumerate(link.point_masses):
            out.append((f"{where}.point_masses[{k}].mass", point.mass))
            vector(f"{where}.point_masses[{k}].at", point.at)
    vector("gravity", chain.gravity)
    transform("tip", chain.tip)
    for k, frame in enumerate(chain.frames):
        transform(f"frames[{k}].placement", frame.placement)
    return out


def link_field(chain, i: int) -> str:
    """How a model file names link ``i``: ``links[k]`` counting from the file's first link,
    ``base`` for a free-flying base (the chain's first link, the file's ``base:``)."""
    if chain.floating:
        return "base" if i == 0 else f"links[{i - 1}]"
    return f"links[{i}]"


#: Tolerance of the physics checks of an inertia tensor (symmetry, eigenvalues >= 0, triangle
#: inequality), relative to ``max(1, largest entry)``: files round their numbers, and a thin
#: rod's smallest moment rounds to -1e-22.
INERTIA_TOL = 1e-9


def check_physical(chain, source: str = "model", tol: float = INERTIA_TOL) -> None:
    """Each link's mass and inertia physical (:func:`check_inertia`); friction >= 0; motor
    inertia >= 0; unit joint axes. ``chain``: a numeric :class:`~robodyn.model.chain.Chain`."""
    if chain.planar:
        _check_planar(chain, source)
    for i, link in enumerate(chain.links):
        where = f"{source}: {link_field(chain, i)}"
        with warnings.catch_warnings():
            if chain.planar:
                warnings.simplefilter("ignore", PhysicalConsistencyWarning)
            check_inertia(link.inertial.mass, link.inertial.inertia,
                          mass_field=f"{where}.mass", inertia_field=f"{where}.inertia", tol=tol)
        check_friction(link.friction, where)
        for k, point in enumerate(link.point_masses):
            if not point.mass >= 0:
                raise ModelError(f"{where}.point_masses[{k}].mass: "
                                 f"{_sign_problem(point.mass)}; a mass must be >= 0")
        for name in ("efficiency", "efficiency_back"):
            value = getattr(link.motor, name)
            if value is not None and not 0 < value <= 1:
                raise ModelError(f"{where}.motor.{name}: {value:g} is not in (0, 1]; a gear's "
                                 "efficiency is output power over input power (e.g. 0.9)")
        if not link.motor.inertia >= 0:
            raise ModelError(f"{where}.motor.inertia: {_sign_problem(link.motor.inertia)}; a "
                             "rotor inertia must be >= 0")
        norm = float(np.linalg.norm(link.joint.axis))
        if abs(norm - 1) > 1e-6:
            raise ModelError(f"{where}.joint.axis: {link.joint.axis} is not a unit vector")
    check_drives(chain, source)


#: The optional fields of :class:`~robodyn.model.chain.Motor` (``None``: absent), in its order.
MOTOR_OPTIONAL = ("efficiency_back", "stiffness", "spring_damping", "resistance", "inductance",
                  "torque_constant", "back_emf_constant")
#: A DC motor's fields; the first two are required when any is given.
ELECTRIC_FIELDS = ("resistance", "torque_constant", "inductance", "back_emf_constant")
#: Each optional number's bound: > 0 (True) or >= 0 (False).
_POSITIVE = {"stiffness": True, "spring_damping": False, "resistance": False,
             "inductance": False, "torque_constant": True, "back_emf_constant": False}


def check_drives(chain, source: str = "model") -> None:
    """The elastic joints and DC motors of a numeric ``chain`` (``Motor``'s optional
    fields): each value in its range (``stiffness``, ``torque_constant`` > 0; the others
    >= 0); springs on any joints (the others rigid), DC motors on every joint or on none
    (``links[2].motor.resistance: missing``), both only on revolute and prismatic joints;
    ``spring_damping`` only with a ``stiffness``; a spring only before a rotor of inertia
    > 0 (the motor side's ``B = G^2 J_m``); a DC motor only with its ``resistance`` and
    ``torque_constant``."""
    links = chain.links
    for i, link in enumerate(links):
        where = f"{source}: {link_field(chain, i)}.motor"
        for name, positive in _POSITIVE.items():
            value = getattr(link.motor, name)
            if value is not None and not (value > 0 if positive else value >= 0):
                raise ModelError(f"{where}.{name}: {value:g}; give a number "
                                 + ("> 0" if positive else ">= 0"))
        if link.motor.spring_damping is not None and link.motor.stiffness is None:
            raise ModelError(f"{where}.spring_damping: a damping without a stiffness; give "
                             "the joint's spring (stiffness: K) or remove spring_damping")
        given = [n for n in ELECTRIC_FIELDS if getattr(link.motor, n) is not None]
        for name in ELECTRIC_FIELDS[:2]:
            if given and getattr(link.motor, name) is None:
                raise ModelError(f"{where}.{name}: missing; a DC motor ({', '.join(given)} "
                                 "given) needs its resistance and torque_constant")
        if given and link.motor.gear_ratio == 0:
            raise ModelError(f"{where}.gear_ratio: 0 with a DC motor ({', '.join(given)}); "
                             "the motor drives its joint through the gear: give a ratio != 0 "
                             "(motor turns per joint turn)")
        if link.motor.stiffness is not None and not link.motor.armature > 0:
            raise ModelError(f"{where}.inertia: {float(link.motor.inertia):g} (gear_ratio "
                             f"{float(link.motor.gear_ratio):g}); an elastic joint's motor side "
                             "needs a rotor inertia > 0 (B = G^2 J_m): give motor.inertia")
    for name, what in (("stiffness", "elastic joints"), ("resistance", "DC motors")):
        has = [getattr(link.motor, name) is not None for link in links]
        if any(has) and not chain.single_valued:
            raise ModelError(f"{source}: {link_field(chain, has.index(True))}.motor.{name}: "
                             f"{what} need revolute or prismatic joints only; this model has "
                             "a free or ball joint")
        if name == "resistance" and any(has) and not all(has):  # springs: on any joints
            i, j = has.index(True), has.index(False)
            raise ModelError(f"{source}: {link_field(chain, j)}.motor.{name}: missing, and "
                             f"{link_field(chain, i)}.motor has one; {what} are all or none: "
                             f"give every joint's motor its {name}, or none")


#: Two unit vectors are parallel (or opposite) when ``|a x b|``, the sine of the angle
#: between them, is at most this; a unit vector ``a`` lies in the plane of unit normal ``n``
#: when ``|a . n|`` is.
PARALLEL_TOL = 1e-9


def parallel(a, b) -> np.ndarray:
    """Whether the unit vectors ``a`` and ``b`` (``(..., 3)``) are parallel or opposite:
    ``|a x b| <= PARALLEL_TOL``, per vector of the leading axes."""
    return np.linalg.norm(np.cross(a, b), axis=-1) <= PARALLEL_TOL


def _check_planar(chain, source: str) -> None:
    """``planar: true`` holds: every revolute axis is parallel to the first at ``q = 0``
    (rotations about parallel axes keep them parallel, so then at every ``q``); a tree's
    link is turned from its parent's frame."""
    rotations: list = []  # each link frame's rotation at q = 0, base frame
    first = None
    for i, link in enumerate(chain.links):
        p = chain.parent(i)
        rot = (rotations[p] if p >= 0 else np.eye(3)) @ np.array(link.joint.placement.rotation,
                                                                   dtype=float)
        rotations.append(rot)
        if link.joint.type != REVOLUTE:
            continue
        axis = rot @ np.array(link.joint.axis, dtype=float)
        offset = float(link.joint.offset)
        if first is None:
            first = axis
        elif not parallel(first, axis):
            raise ModelError(f"{source}: planar: true, but joint {i + 1}'s axis "
                             f"{np.round(axis, 6).tolist()} is not parallel to joint 1's "
                             f"{np.round(first, 6).tolist()}; remove 'planar' or fix the table")
        c, s_ = math.cos(offset), math.sin(offset)
        rotations[i] = rot @ np.array(la.rotation_about_axis(tuple(link.joint.axis), c, s_),
                                      dtype=float)


def _sign_problem(value: float) -> str:
    return f"{value:g} is negative" if value < 0 else f"{value} is not a finite number"


def check_inertia(mass, inertia, mass_field: str, inertia_field: str,
                  tol: float = INERTIA_TOL) -> None:
    """One rigid body's mass and inertia tensor ``I`` about its centre of mass are physical:
    ``mass >= 0``; ``I = I^T``; its eigenvalues (principal moments) ``a <= b <= c`` are
    ``>= 0`` and should satisfy the triangle inequality ``a + b >= c`` (``c = int (x^2 +
    y^2) dm <= a + b``). Differences up to ``tol * max(1, max |I_ij|)`` are rounding.

    Raises :class:`ModelError` starting with ``mass_field`` or ``inertia_field``, the
    caller's name of the field (``links[1].inertia``, ``link 'x' <inertial> <inertia>``).
    A positive semi-definite tensor that breaks the triangle inequality (the planar
    ``[0, 0, I]`` of the lecture) only warns (:class:`PhysicalConsistencyWarning`):
    Pinocchio and the Robotics Toolbox accept it, and the dynamics are well defined.
    """
    m = float(mass)
    if not m >= 0:
        raise ModelError(f"{mass_field}: {_sign_problem(m)}; a mass must be >= 0")
    inertia = np.array(inertia, dtype=float)
    scale = max(1.0, float(np.abs(inertia).max()))
    if not np.isfinite(scale):
        raise ModelError(f"{inertia_field}: has entries that are not finite numbers")
    if float(np.abs(inertia - inertia.T).max()) > tol * scale:  # (np.allclose: 10x slower)
        raise ModelError(f"{inertia_field}: not symmetric ({inertia.tolist()})")
    a, b, c = np.linalg.eigvalsh(inertia)
    if a < -tol * scale:
        raise ModelError(
            f"{inertia_field}: not positive semi-definite (eigenvalues {a:.6g}, {b:.6g}, "
            f"{c:.6g}); the principal moments of inertia must be >= 0"
        )
    if a + b < c - tol * scale:
        # one line; the explanation is PhysicalConsistencyWarning's docstring and the docs
        warn(PhysicalConsistencyWarning(
            f"{inertia_field}: moments {a:.4g} + {b:.4g} < {c:.4g} "
            f"({PhysicalConsistencyWarning.DOCS})"))


