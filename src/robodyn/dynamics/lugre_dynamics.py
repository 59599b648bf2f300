"""The equations of motion with LuGre friction as traced algorithms, for the exported code
(:mod:`robodyn.codegen.export`) of a model with ``chain.lugre`` (Canudas de Wit, Olsson,
Astrom & Lischinsky, IEEE TAC 40(3), 1995; the numeric model and its simulation are
:mod:`robodyn.motion.lugre`). Each joint's bristle deflection ``z`` is one more input::

    dz/dt = qd - sigma0 |qd| z / g(qd),   g(qd) = Fc + (Fs - Fc) exp(-(qd / vs)^2)
    F     = sigma0 z + sigma1 dz/dt + sigma2 qd
    tau   = M(q) qdd + C qd + g(q) + tau_f(qd) + F(qd, z)       (+ J^T h_e)
    qdd   = M(q)^-1 (tau - C qd - g(q) - tau_f(qd) - F(qd, z))  (- J^T h_e)

``|qd|`` is traced as ``qd sign(qd)`` (exact in floating point); a joint with ``Fs = 0``
(so ``Fc = 0``, ``g = 0``) has ``dz/dt = qd``, as
:func:`~robodyn.motion.lugre.lugre_rates` takes it. :data:`LUGRE` lists the registry
entries these replace (``z`` added as their last input) and :data:`BRISTLE_RATE` the one
they add, ``dz/dt = f(qd, z)``, which a simulation of the exported code integrates beside
``q`` and ``qd``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from ..core.errors import InputError
from .forward_dynamics import forward_dynamics
from .friction import friction_torques
from .inverse_dynamics import inverse_dynamics, torque_parts
from .registry import KERNELS, KernelSpec

__all__ = ["LUGRE", "LUGRE_NOT_YET", "BRISTLE_RATE", "lugre_spec", "has_lugre_form",
           "has_lugre_state", "lugre_forces"]


def lugre_forces(lugre, qd, z, ops) -> tuple[list, list]:
    """``(dz/dt, F)`` per joint (the module's equations) on the scalars of ``ops``."""
    rates, forces = [], []
    for i, (v, zi) in enumerate(zip(qd, z, strict=True)):
        s0, s1, s2 = lugre.sigma0[i], lugre.sigma1[i], lugre.sigma2[i]
        fc, fs, vs = lugre.Fc[i], lugre.Fs[i], lugre.vs[i]
        if fs > 0:
            g = fc + (fs - fc) * ops.exp(-(v / vs) * (v / vs)) if fs != fc else fc
            rate = v - s0 * (v * ops.sign(v)) * zi / g
        else:  # no dry friction: the bristles follow the joint
            rate = v
        rates.append(rate)
        forces.append(s0 * zi + s1 * rate + s2 * v)
    return rates, forces


def _plus(a, b) -> list:
    return [x + y for x, y in zip(a, b, strict=True)]


def lugre_inverse_dynamics(chain, q, qd, qdd, z, ops, lugre, h_e=None) -> list:
    """``tau`` with LuGre's ``F(qd, z)`` (module docstring)."""
    return _plus(inverse_dynamics(chain, q, qd, qdd, ops, h_e),
                 lugre_forces(lugre, qd, z, ops)[1])


def lugre_forward_dynamics(chain, q, qd, tau, z, ops, lugre, h_e=None) -> list:
    """``qdd`` with LuGre's ``F(qd, z)`` acting against ``tau`` (module docstring)."""
    force = lugre_forces(lugre, qd, z, ops)[1]
    return forward_dynamics(chain, q, qd, [t - f for t, f in zip(tau, force, strict=True)],
                            ops, h_e)


def lugre_friction_torques(chain, qd, z, ops, lugre) -> list:
    """The joints' friction and LuGre's, ``tau_f(qd) + F(qd, z)``."""
    return _plus(friction_torques(chain, qd, ops), lugre_forces(lugre, qd, z, ops)[1])


def lugre_torque_parts(chain, q, qd, qdd, z, ops, lugre, h_e=None) -> list[list]:
    """:func:`~.inverse_dynamics.torque_parts` with LuGre's ``F(qd, z)`` in the friction
    row and the total."""
    parts = torque_parts(chain, q, qd, qdd, ops, h_e)
    force = lugre_forces(lugre, qd, z, ops)[1]
    return [_plus(row, force) if k in (3, 5) else row for k, row in enumerate(parts)]


def bristle_rate(chain, qd, z, ops, lugre) -> list:
    """``dz/dt`` of the bristle deflections (module docstring)."""
    return lugre_forces(lugre, qd, z, ops)[0]


#: The registry entries LuGre changes (``z`` their last input), and their algorithms.
LUGRE = {"inverse_dynamics": lugre_inverse_dynamics,
         "forward_dynamics": lugre_forward_dynamics,
         "friction_torques": lugre_friction_torques,
         "torque_parts": lugre_torque_parts}
#: Entries LuGre changes that have no traced form with ``z`` yet.
LUGRE_NOT_YET = ("inverse_dynamics_derivatives", "forward_dynamics_derivatives", "regressor")
#: The entry LuGre adds: its bristles' rates.
BRISTLE_RATE = KernelSpec(bristle_rate, ("qd", "z"), lambda n, links: (n,),
                          name="bristle_rate", output="zd",
                          doc="LuGre bristle rates dz/dt = qd - sigma0 |qd| z / g(qd), "
                              "g = Fc + (Fs - Fc) exp(-(qd/vs)^2)")


def _with_z(spec: KernelSpec, lugre) -> KernelSpec:
    """``spec`` (an entry of :data:`LUGRE` or its ``h_e`` variant) with ``z`` its last
    input and LuGre's algorithm (which takes ``h_e`` by name)."""
    return replace(spec, algorithm=partial(LUGRE[spec.name.removesuffix("_contact")],
                                           lugre=lugre),
                   inputs=(*spec.inputs, "z"),
                   doc=f"{spec.doc}, with LuGre friction F(qd, z) of the bristle "
                       "deflections z")


def lugre_spec(kind: str, chain) -> KernelSpec:
    """The registry entry ``kind`` of a model with LuGre parameters ``chain.lugre``: the
    entries of :data:`LUGRE` (and their ``h_e`` variants) take ``z``, :data:`BRISTLE_RATE`
    is added, the entries LuGre leaves as they are are the links'; an :class:`InputError`
    for :data:`LUGRE_NOT_YET` and a coupled transmission beside LuGre."""
    if getattr(chain, "transmission", None) is not None:
        raise InputError("functions: a model with both a coupled transmission and LuGre "
                         "friction is not exported yet; drop one of transmission: or lugre:")
    if kind == BRISTLE_RATE.name:
        return replace(BRISTLE_RATE, algorithm=partial(bristle_rate, lugre=chain.lugre))
    spec = KERNELS[kind]
    base = kind.removesuffix("_contact")
    if base in LUGRE:
        return _with_z(spec, chain.lugre)
    if base in LUGRE_NOT_YET:
        raise InputError(f"functions: {kind} of a model with LuGre friction is not exported "
                         f"yet; export {', '.join(LUGRE)} and {BRISTLE_RATE.name} (which take "
                         "the bristle deflections z) or the entries LuGre leaves unchanged")
    return spec


def has_lugre_state(kind: str) -> bool:
    """Whether ``kind`` of a model with LuGre friction reads the bristle states ``z``."""
    base = kind.removesuffix("_contact")
    return kind == BRISTLE_RATE.name or base in LUGRE or base in LUGRE_NOT_YET


def has_lugre_form(kind: str) -> bool:
    """Whether the exported code of a model with LuGre friction has ``kind``."""
    return kind.removesuffix("_contact") not in LUGRE_NOT_YET
