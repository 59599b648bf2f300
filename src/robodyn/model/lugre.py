"""LuGre friction's parameters (Canudas de Wit, Olsson, Astrom & Lischinsky, IEEE TAC
40(3), 1995), one set per joint: bristle stiffness ``sigma0`` (N m/rad, > 0), bristle
damping ``sigma1`` (N m s/rad, >= 0), viscous ``sigma2`` (N m s/rad, >= 0), Coulomb level
``Fc`` and static level ``Fs >= Fc`` (N m), Stribeck velocity ``vs`` (rad/s, > 0), with
``g(v) = Fc + (Fs - Fc) exp(-(v / vs)^2)``. A model file gives them at the top level::

    lugre: {sigma0: 1.0e4, sigma1: 100, sigma2: 0.1, Fc: 3, Fs: 4, vs: 0.1}

(a number for every joint, or a list of one per joint). The model with its state ``z``
in simulation: :mod:`robodyn.motion.lugre`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError, excerpt

__all__ = ["LuGre", "LUGRE_FIELDS"]

#: The parameters, in order: bristle stiffness, bristle damping, viscous, Coulomb level,
#: static level, Stribeck velocity.
LUGRE_FIELDS = ("sigma0", "sigma1", "sigma2", "Fc", "Fs", "vs")


@dataclass(frozen=True)
class LuGre:
    """LuGre parameters, one value per joint each (module docstring), tuples of floats so
    a model that has them stays hashable; build with :meth:`of` (checked)."""

    sigma0: tuple[float, ...]
    sigma1: tuple[float, ...]
    sigma2: tuple[float, ...]
    Fc: tuple[float, ...]  # noqa: N815 (the paper's names)
    Fs: tuple[float, ...]  # noqa: N815
    vs: tuple[float, ...]

    @classmethod
    def of(cls, params: Mapping, dof: int, field: str = "lugre") -> LuGre:
        """Checked parameters from ``{sigma0, sigma1, sigma2, Fc, Fs, vs}`` (each a number
        for every joint or a list of ``dof``): ``sigma0 > 0``, ``vs > 0``, ``sigma1, sigma2,
        Fc >= 0``, ``Fs >= Fc``. A :class:`ModelError` naming the field otherwise."""
        if not isinstance(params, Mapping):
            raise ModelError(f"{field}: expected a mapping of {', '.join(LUGRE_FIELDS)}")
        unknown = sorted(str(k) for k in params if k not in LUGRE_FIELDS)
        missing = [k for k in LUGRE_FIELDS if k not in params]
        if unknown or missing:
            raise ModelError(f"{field}: unknown {unknown} / missing {missing}; give exactly "
                             f"{', '.join(LUGRE_FIELDS)}")
        out = {}
        for key in LUGRE_FIELDS:
            raw = params[key]
            many = np.ndim(raw) > 0 if isinstance(raw, np.ndarray) else isinstance(
                raw, (list, tuple))
            entries = raw if many else [raw]
            # a list is one value per joint (a one-entry list for two joints is a mistake,
            # not "one for all"); true/false and null are not numbers
            if (many and len(raw) != dof) or (np.asarray(raw).dtype == bool if isinstance(
                    raw, np.ndarray) else any(isinstance(x, bool) or x is None
                                              for x in entries)):
                raise ModelError(f"{field}.{key}: expected a number or {dof} numbers (one per "
                                 f"joint), got {excerpt(raw)}")
            try:
                value = np.broadcast_to(np.asarray(raw, dtype=float), (dof,)).copy()
            except (TypeError, ValueError):
                raise ModelError(f"{field}.{key}: expected a number or {dof} numbers (numbers "
                                 f"only: no values: parameters), got {excerpt(raw)}") from None
            positive = key in ("sigma0", "vs")
            bad = ~np.isfinite(value) | ((value <= 0) if positive else (value < 0))
            if bad.any():
                j = int(np.argmax(bad))
                raise ModelError(f"{field}.{key}[{j}]: {value[j]:g} must be finite and "
                                 f"{'> 0' if positive else '>= 0'}")
            out[key] = value
        low = out["Fs"] < out["Fc"]
        if low.any():
            j = int(np.argmax(low))
            raise ModelError(f"{field}.Fs[{j}]: the static level {out['Fs'][j]:g} is below the "
                             f"Coulomb level Fc = {out['Fc'][j]:g}; give Fs >= Fc")
        return cls(**{k: tuple(float(x) for x in v) for k, v in out.items()})

    def array(self, key: str) -> np.ndarray:
        """Parameter ``key`` as an array ``(n,)``."""
        return np.asarray(getattr(self, key), dtype=float)

    def g(self, v) -> np.ndarray:
        """``g(v) = F_c + (F_s - F_c) exp(-(v / v_s)^2)``, the Stribeck curve's level."""
        fc, fs, vs = self.array("Fc"), self.array("Fs"), self.array("vs")
        return fc + (fs - fc) * np.exp(-(np.asarray(v) / vs) ** 2)
