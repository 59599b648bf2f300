"""LuGre friction in the closed forms (Canudas de Wit, Olsson, Astrom & Lischinsky, IEEE TAC
40(3), 1995; the numeric model is :mod:`robodyn.motion.lugre`): each joint ``i`` of a
model with ``lugre:`` has a bristle deflection ``z_i``, a state symbol beside ``q_i`` and
``qd_i``::

    dz_i/dt = qd_i - sigma0_i |qd_i| z_i / g_i(qd_i),
    g_i(qd) = Fc_i + (Fs_i - Fc_i) exp(-(qd / vs_i)^2),
    F_i     = sigma0_i z_i + sigma1_i dz_i/dt + sigma2_i qd_i,

``F_i`` (with ``dz_i/dt`` written out) added to the joint's friction in every route, so
``tau = M qdd + C qd + g + friction(qd, z)``. A joint with ``Fc = Fs = 0`` has ``g = 0``:
its bristles follow the joint (``dz/dt = qd``), as :func:`~robodyn.motion.lugre.lugre_rates`
takes it. The parameters are the model's numbers (a :class:`~robodyn.model.lugre.LuGre`
holds floats), written as SymPy ``Float`` so the closed form evaluates to the same doubles.
"""

from __future__ import annotations

import sympy as sp

from ..core.errors import InputError

__all__ = ["bristle_symbols", "lugre_terms", "LUGRE_FORMULA", "BRISTLE_FORMULA"]

#: The friction step's LuGre part (text, LaTeX) and the bristle step's formula.
LUGRE_FORMULA = (" + sigma0 z + sigma1 dz/dt + sigma2 qd",
                 r" + \sigma_0 z + \sigma_1 \dot z + \sigma_2 \dot q")
BRISTLE_FORMULA = ("qd - sigma0 |qd| z / g(qd), g = Fc + (Fs - Fc) exp(-(qd/vs)^2)",
                   r"\dot q - \sigma_0 |\dot q|\, z / g(\dot q),\ g = F_c + (F_s - F_c)\, "
                   r"e^{-(\dot q / v_s)^2}")


def bristle_symbols(chain, name: str = "robot") -> tuple[sp.Symbol, ...]:
    """``z1 .. zn``, the bristle deflections of ``chain``'s joints, or ``()`` for a chain
    without LuGre parameters. Refused (:class:`InputError` naming the model): LuGre on a
    chain with ball or free joints (whose coordinates include ``z1``), or a model
    parameter named like a bristle state."""
    lugre = getattr(chain, "lugre", None)
    if lugre is None:
        return ()
    if not chain.single_valued:
        raise InputError(f"{name}: lugre: LuGre friction on a model with ball or free joints "
                         "is not in the closed forms; derive a model of one-value joints")
    z = sp.symbols(f"z1:{chain.dof + 1}")
    clash = sorted({str(s) for s in chain.free_symbols()} & {str(s) for s in z})
    if clash:
        raise InputError(f"{name}: model parameter(s) {', '.join(clash)} have the name of a "
                         "LuGre bristle state (z1, z2, ...); rename them")
    return tuple(z)


def lugre_terms(lugre, qd, z) -> tuple[list[sp.Expr], list[sp.Expr]]:
    """``(dz/dt, F)`` per joint as SymPy expressions of the rates ``qd`` and the bristle
    states ``z`` (the module's equations), the parameters of ``lugre`` as Floats."""
    rates, forces = [], []
    for i, (v, zi) in enumerate(zip(qd, z, strict=True)):
        values = [getattr(lugre, key)[i] for key in ("sigma0", "sigma1", "sigma2", "Fc",
                                                     "Fs", "vs")]
        s0, s1, s2, fc, fs, vs = (sp.Float(x) for x in values)
        g = fc + (fs - fc) * sp.exp(-(v / vs) ** 2) if values[4] != values[3] else fc
        rate = v - s0 * sp.Abs(v) * zi / g if values[4] > 0 else v  # Fs = 0: g = 0
        rates.append(rate)
        forces.append(s0 * zi + s1 * rate + s2 * v)
    return rates, forces
