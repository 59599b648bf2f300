"""A joint's friction, as the model describes it (the algorithm is
:mod:`robodyn.dynamics.friction`).

The torque (or force) friction adds to a single-valued joint's equation,
``tau = M qdd + C qd + g + tau_f``, is (Armstrong-Helouvry, Dupont and Canudas de Wit,
"A survey of models ... for control of machines with friction", Automatica 30(7) 1994,
the Stribeck curve; Siciliano et al., *Robotics*, eq. 7.83 for the first two terms)::

    tau_f = F_v qd + F_c(qd) s(qd) + (F_st - F_c(qd)) exp(-|qd / v_st|^delta) s(qd) + tau_0

* ``viscous`` ``F_v``;
* ``coulomb`` ``F_c+`` (the level for ``qd > 0``) and ``coulomb_negative`` ``F_c-`` (for
  ``qd < 0``; the same as ``coulomb`` unless given): ``F_c(qd) = a + b s(qd)`` with
  ``a = (F_c+ + F_c-)/2``, ``b = (F_c+ - F_c-)/2`` (``F_c+`` for ``s = 1``, ``F_c-`` for
  ``s = -1``);
* ``static`` ``F_st`` (the breakaway level, ``>= F_c+-``), ``stribeck_velocity`` ``v_st``
  (``> 0``) and ``stribeck_exponent`` ``delta`` (``> 0``, 2 by default: Gaussian): the
  Stribeck hump; ``static: 0`` (the default) leaves it out;
* ``offset`` ``tau_0``: a constant torque (a sensor bias or an uncompensated load, as
  identification fits it); it does no dissipation, and a simulation treats it as a
  constant applied torque;
* ``smooth_velocity`` ``v_s``: ``s(qd) = tanh(qd / v_s)`` when ``v_s > 0`` (smooth, for
  simulation and optimisation), ``sign(qd)`` when 0 (the default).

With only ``viscous`` and ``coulomb`` this is ``F_v qd + F_c sign(qd)``, computed as
before, term for term; a term whose coefficient is 0 is not computed at all.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from ..core.errors import ModelError


@dataclass(frozen=True)
class Friction:
    """Joint friction (module docstring): ``viscous`` ``F_v``, ``coulomb`` ``F_c+``,
    ``coulomb_negative`` ``F_c-`` (``None``: as ``coulomb``), ``offset`` ``tau_0``,
    ``static`` ``F_st`` (0: no Stribeck term), ``stribeck_velocity`` ``v_st``,
    ``stribeck_exponent`` ``delta``, ``smooth_velocity`` ``v_s`` (0: ``sign``)."""

    viscous: Any = 0
    coulomb: Any = 0
    coulomb_negative: Any = None
    offset: Any = 0
    static: Any = 0
    stribeck_velocity: Any = 0
    stribeck_exponent: Any = 2
    smooth_velocity: Any = 0

    @property
    def negative(self):
        """``F_c-``, the Coulomb level for ``qd < 0``: ``coulomb_negative``, or ``coulomb``
        when that is ``None`` (so that ``replace(f, coulomb=c)`` keeps a symmetric model
        symmetric)."""
        return self.coulomb if self.coulomb_negative is None else self.coulomb_negative

    @property
    def symmetric(self) -> bool:
        """Whether the Coulomb levels of both directions are the same value."""
        return self.coulomb_negative is None or self.coulomb_negative is self.coulomb or bool(
            self.coulomb_negative == self.coulomb)

    @property
    def extended(self) -> bool:
        """Whether it has more than ``F_v qd + F_c sign(qd)`` (what URDF and MJCF hold)."""
        return not (self.symmetric and is_zero(self.offset) and is_zero(self.static)
                    and is_zero(self.smooth_velocity))

    @property
    def breakaway(self) -> tuple:
        """``(positive, negative)``: the torque a joint at rest holds before it slides,
        ``F_st`` with a Stribeck term, else the Coulomb levels (Karnopp's stiction)."""
        if is_zero(self.static):
            return self.coulomb, self.negative
        return self.static, self.static


#: The fields of :class:`Friction`, in order (a model file's keys under ``friction:``).
FRICTION_FIELDS = tuple(f.name for f in fields(Friction))


def is_zero(x) -> bool:
    """Whether ``x`` is exactly the number 0 (a float, an int, a SymPy or ring zero; a
    traced value or a symbol is not: their ``==`` is structural)."""
    return x is not None and bool(x == 0)


def check_friction(friction: Friction, where: str) -> None:
    """The numeric friction ``friction`` physical: levels ``>= 0``, ``static`` 0 or at
    least both Coulomb levels with ``stribeck_velocity > 0``; ``stribeck_velocity >= 0``
    and ``stribeck_exponent > 0`` even when unused, ``smooth_velocity >= 0``; a
    :class:`ModelError` naming ``where.friction.field`` and the fix otherwise."""
    def fail(name, problem):
        raise ModelError(f"{where}.friction.{name}: {getattr(friction, name):g} {problem}")

    for name in ("viscous", "coulomb", "coulomb_negative", "static", "smooth_velocity"):
        if getattr(friction, name) is not None and not getattr(friction, name) >= 0:
            fail(name, "is negative; must be >= 0 (friction opposes the motion)")
    # the shape's numbers are refused even while static is 0 (unused): a nonsense value
    # would otherwise wait, silently accepted, for the day a static level is added
    if not friction.stribeck_velocity >= 0:
        fail("stribeck_velocity", "is negative; a speed must be >= 0 (> 0 with a static level)")
    if not friction.stribeck_exponent > 0:
        fail("stribeck_exponent", "must be > 0 (2: Gaussian, 1: exponential)")
    if not is_zero(friction.static):
        if not friction.static >= max(friction.coulomb, friction.negative):
            fail("static", "is below a Coulomb level; the static (breakaway) level must be "
                 ">= coulomb and coulomb_negative (or 0: no Stribeck term)")
        if not friction.stribeck_velocity > 0:
            fail("stribeck_velocity", "must be > 0 with a static level (the speed at which "
                 "friction falls from static to Coulomb, e.g. 0.01 rad/s)")


def check_plain(friction: Friction, where: str, form: str) -> None:
    """A :class:`ModelError` when ``friction`` has more than ``F_v qd + F_c sign(qd)``,
    which is all ``form`` (URDF's ``<dynamics damping friction>``, MJCF's ``damping`` and
    ``frictionloss``) holds: an export must not drop a term silently."""
    if friction.extended:
        extra = [name for name in FRICTION_FIELDS[2:] if name != "stribeck_exponent"
                 and getattr(friction, name) is not None and not is_zero(getattr(friction, name))
                 and not (name == "coulomb_negative" and friction.symmetric)]
        raise ModelError(f"{where}: friction {', '.join(extra)} has no {form} form ({form} "
                         "holds viscous and one Coulomb level only); keep the YAML model, or "
                         "export robot.without_friction(viscous=False), which drops every "
                         "term but the viscous one")
