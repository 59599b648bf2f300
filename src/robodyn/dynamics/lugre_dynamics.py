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
:func:`~robodyn.motion.lugre.lugre_rates` takes it. With a coupled transmission
(``chain.transmission``) the terms without ``F`` are the drives'
(:mod:`robodyn.dynamics.driven_dynamics`: ``M_d``, the motors' friction), LuGre's ``F``
acting on the joints beside them, as the numeric robot adds it.

The derivatives (``F`` and ``dz/dt`` are per joint, so their Jacobians are diagonal)::

    d(dz/dt)/dz  = -sigma0 |qd| / g(qd)
    d(dz/dt)/dqd = 1 - sigma0 z (sign(qd) g - |qd| g'(qd)) / g^2,
                   g'(qd) = -2 qd (Fs - Fc) exp(-(qd/vs)^2) / vs^2
    dF/dz  = sigma0 + sigma1 d(dz/dt)/dz,    dF/dqd = sigma1 d(dz/dt)/dqd + sigma2
    dtau/dqd = (the links' or drives') + diag(dF/dqd),   dtau/dz = diag(dF/dz)
    dqdd/dqd = dFD/dqd - M^-1 diag(dF/dqd),   dqdd/dz = -M^-1 diag(dF/dz)

taken by running :func:`lugre_forces` on dual numbers (:mod:`robodyn.dynamics.dual`:
the chain rule above, ``sign`` differentiated as 0, exact away from ``qd = 0``) and, for
the forward dynamics, the links' (or drives') derivatives at ``tau - F`` with their
``M^-1`` (Carpentier & Mansard 2018). :data:`LUGRE` lists the registry entries these
replace (``z`` added as their last input) and :data:`LUGRE_ADDED` the ones they add:
``bristle_rate`` ``dz/dt = f(qd, z)``, which a simulation of the exported code integrates
beside ``q`` and ``qd``, and its Jacobian ``bristle_rate_derivatives`` (implicit steps,
MPC).
"""

from __future__ import annotations

from dataclasses import replace
from functools import partial

from ..core.errors import InputError
from .dual import Dual, DualOps
from .registry import KERNELS, KernelSpec

__all__ = ["LUGRE", "LUGRE_NOT_YET", "LUGRE_ADDED", "BRISTLE_RATE", "lugre_spec",
           "lugre_closed_spec",
           "has_lugre_form", "lugre_forces", "lugre_slopes", "lugre_names"]


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


def _part(x, k: int):
    """``(value, tangent k)`` of a dual (a constant: no tangent)."""
    return (x.v, x.t[k]) if isinstance(x, Dual) else (x, 0.0)


def lugre_slopes(lugre, qd, z, ops) -> dict[str, list]:
    """``F`` and the diagonals of the Jacobians ``d(dz/dt)/dqd``, ``d(dz/dt)/dz``,
    ``dF/dqd``, ``dF/dz`` (module docstring), by one run of :func:`lugre_forces` on duals:
    every joint's ``qd`` seeded in direction 0 and its ``z`` in direction 1 (the joints do
    not mix, so two directions serve them all)."""
    rates, forces = lugre_forces(lugre, [Dual(v, (1.0, 0.0)) for v in qd],
                                 [Dual(x, (0.0, 1.0)) for x in z], DualOps(ops))
    return {"F": [_part(f, 0)[0] for f in forces],
            "rate_qd": [_part(r, 0)[1] for r in rates], "rate_z": [_part(r, 1)[1] for r in rates],
            "F_qd": [_part(f, 0)[1] for f in forces], "F_z": [_part(f, 1)[1] for f in forces]}


def _plus(a, b) -> list:
    return [x + y for x, y in zip(a, b, strict=True)]


def _diag(d) -> list[list]:
    return [[x if i == j else 0.0 for j in range(len(d))] for i, x in enumerate(d)]


def lugre_inverse_dynamics(chain, q, qd, qdd, z, ops, lugre, base, h_e=None) -> list:
    """``tau`` with LuGre's ``F(qd, z)`` (module docstring); ``base``: the links' (or
    drives') inverse dynamics."""
    return _plus(base(chain, q, qd, qdd, ops, h_e=h_e), lugre_forces(lugre, qd, z, ops)[1])


def lugre_forward_dynamics(chain, q, qd, tau, z, ops, lugre, base, **wrench) -> list:
    """``base`` (the forward dynamics of the links, the drives or a closed mechanism) with
    LuGre's ``F(qd, z)`` acting against ``tau`` (module docstring); ``wrench``: ``h_e``
    where ``base`` takes it."""
    force = lugre_forces(lugre, qd, z, ops)[1]
    return base(chain, q, qd, [t - f for t, f in zip(tau, force, strict=True)], ops, **wrench)


def lugre_friction_torques(chain, qd, z, ops, lugre, base) -> list:
    """The joints' (and motors') friction and LuGre's, ``tau_f(qd) + F(qd, z)``."""
    return _plus(base(chain, qd, ops), lugre_forces(lugre, qd, z, ops)[1])


def lugre_torque_parts(chain, q, qd, qdd, z, ops, lugre, base, h_e=None) -> list[list]:
    """The torque parts of ``base`` with LuGre's ``F(qd, z)`` in the friction row and the
    total."""
    parts = base(chain, q, qd, qdd, ops, h_e=h_e)
    force = lugre_forces(lugre, qd, z, ops)[1]
    return [_plus(row, force) if k in (3, 5) else row for k, row in enumerate(parts)]


def lugre_inverse_dynamics_derivatives(chain, q, qd, qdd, z, ops, lugre, base,
                                       h_e=None) -> list:
    """``[dtau/dq, dtau/dqd, dtau/dqdd, dtau/dz]``: ``base``'s three with ``diag(dF/dqd)``
    added to the second, and ``diag(dF/dz)`` (module docstring)."""
    d_q, d_qd, d_qdd = base(chain, q, qd, qdd, ops, h_e=h_e)
    slopes = lugre_slopes(lugre, qd, z, ops)
    return [d_q, [_plus(row, drow) for row, drow in zip(d_qd, _diag(slopes["F_qd"]),
                                                        strict=True)],
            d_qdd, _diag(slopes["F_z"])]


def lugre_forward_dynamics_derivatives(chain, q, qd, tau, z, ops, lugre, base,
                                       h_e=None) -> list:
    """``[dqdd/dq, dqdd/dqd, dqdd/dtau, dqdd/dz]``: ``base``'s three at ``tau - F`` (the
    third is ``M^-1``), with ``-M^-1 diag(dF/dqd)`` added to the second, and
    ``-M^-1 diag(dF/dz)`` (module docstring)."""
    slopes = lugre_slopes(lugre, qd, z, ops)
    d_q, d_qd, m_inv = base(chain, q, qd, [t - f for t, f in zip(tau, slopes["F"],
                                                                  strict=True)],
                            ops, h_e=h_e)
    n = len(qd)
    return [d_q, [[d_qd[i][j] - m_inv[i][j] * slopes["F_qd"][j] for j in range(n)]
                  for i in range(n)],
            m_inv, [[-(m_inv[i][j] * slopes["F_z"][j]) for j in range(n)] for i in range(n)]]


def bristle_rate(chain, qd, z, ops, lugre) -> list:
    """``dz/dt`` of the bristle deflections (module docstring)."""
    return lugre_forces(lugre, qd, z, ops)[0]


def bristle_rate_derivatives(chain, qd, z, ops, lugre) -> list:
    """``[d(dz/dt)/dqd, d(dz/dt)/dz]``, both diagonal (module docstring)."""
    slopes = lugre_slopes(lugre, qd, z, ops)
    return [_diag(slopes["rate_qd"]), _diag(slopes["rate_z"])]


#: The registry entries LuGre changes (``z`` their last input), and their algorithms.
LUGRE = {"inverse_dynamics": lugre_inverse_dynamics,
         "forward_dynamics": lugre_forward_dynamics,
         "friction_torques": lugre_friction_torques,
         "torque_parts": lugre_torque_parts,
         "inverse_dynamics_derivatives": lugre_inverse_dynamics_derivatives,
         "forward_dynamics_derivatives": lugre_forward_dynamics_derivatives}
#: Entries LuGre changes that have no traced form with ``z``: the regressor (``F`` is not
#: linear in LuGre's parameters: ``g`` divides).
LUGRE_NOT_YET = ("regressor",)
#: The derivative entries, which gain a fourth result ``d/dz``.
_WITH_DZ = {"inverse_dynamics_derivatives": "dtau_dz", "forward_dynamics_derivatives": "dqdd_dz"}
#: The entry LuGre adds: its bristles' rates.
BRISTLE_RATE = KernelSpec(bristle_rate, ("qd", "z"), lambda n, links: (n,),
                          name="bristle_rate", output="zd",
                          doc="LuGre bristle rates dz/dt = qd - sigma0 |qd| z / g(qd), "
                              "g = Fc + (Fs - Fc) exp(-(qd/vs)^2)")
#: The entries LuGre adds: the bristles' rates and their Jacobian.
LUGRE_ADDED = {
    BRISTLE_RATE.name: BRISTLE_RATE,
    "bristle_rate_derivatives": KernelSpec(
        bristle_rate_derivatives, ("qd", "z"), lambda n, links: (2, n, n),
        name="bristle_rate_derivatives", output="dzd", parts=("dzd_dqd", "dzd_dz"),
        doc="d(dz/dt)/dqd, d(dz/dt)/dz of the LuGre bristle rates (diagonal)")}


def _with_z(spec: KernelSpec, lugre) -> KernelSpec:
    """``spec`` (an entry of :data:`LUGRE` or its ``h_e`` variant, the links' or the
    drives') with ``z`` its last input and LuGre's algorithm around its own."""
    base = spec.name.removesuffix("_contact")
    extra = {}
    if base in _WITH_DZ:
        extra = {"shape": lambda n, links: (4, n, n), "parts": (*spec.parts, _WITH_DZ[base])}
    return replace(spec, algorithm=partial(LUGRE[base], lugre=lugre, base=spec.algorithm),
                   inputs=(*spec.inputs, "z"),
                   doc=f"{spec.doc}, with LuGre friction F(qd, z) of the bristle "
                       "deflections z" + (", and d/dz" if extra else ""), **extra)


def lugre_closed_spec(spec: KernelSpec, lugre) -> KernelSpec:
    """The forward dynamics of a closed mechanism (``q, qd, tau`` to ``[qdd, lambda]``,
    :mod:`robodyn.dynamics.closed_forward_dynamics`) with LuGre's ``F(qd, z)`` against the
    tree's torques, ``M qdd + h + F = tau + K^T lambda``; ``z`` its last input."""
    return replace(spec, algorithm=partial(lugre_forward_dynamics, lugre=lugre,
                                           base=spec.algorithm),
                   inputs=(*spec.inputs, "z"),
                   doc=f"{spec.doc}, with LuGre friction F(qd, z) against tau")


def lugre_spec(kind: str, chain) -> KernelSpec:
    """The registry entry ``kind`` of a model with LuGre parameters ``chain.lugre``: the
    entries of :data:`LUGRE` (and their ``h_e`` variants) take ``z``, :data:`LUGRE_ADDED`
    are added, the entries LuGre leaves as they are are the links' (with a coupled
    transmission: the drives', :func:`~robodyn.dynamics.driven_dynamics.driven_spec`,
    LuGre's ``F`` added to them); an :class:`InputError` for :data:`LUGRE_NOT_YET`."""
    if kind in LUGRE_ADDED:
        spec = LUGRE_ADDED[kind]
        return replace(spec, algorithm=partial(spec.algorithm, lugre=chain.lugre))
    base = kind.removesuffix("_contact")
    if base in LUGRE_NOT_YET:
        raise InputError(f"functions: {kind} of a model with LuGre friction is not exported: "
                         "F(qd, z) is not linear in LuGre's parameters; export the other "
                         f"entries (those of {', '.join(LUGRE)} take the bristle deflections "
                         "z) or a model without lugre:")
    if getattr(chain, "transmission", None) is not None:
        from .driven_dynamics import driven_spec

        spec = driven_spec(kind, chain)
    else:
        spec = KERNELS[kind]
    return _with_z(spec, chain.lugre) if base in LUGRE else spec


def has_lugre_form(kind: str) -> bool:
    """Whether the exported code of a model with LuGre friction has ``kind``."""
    return kind.removesuffix("_contact") not in LUGRE_NOT_YET


def lugre_names(names: tuple[str, ...], chain, every: bool) -> tuple[str, ...]:
    """The functions to export of ``chain``: ``names`` as given, or (``every``: the
    default, all of the registry) those a model with LuGre friction has, and
    :data:`LUGRE_ADDED`; ``names`` unchanged for a model without ``lugre``."""
    if getattr(chain, "lugre", None) is None or not every:
        return names
    return tuple(k for k in names if has_lugre_form(k)) + tuple(LUGRE_ADDED)
