"""The result of :func:`robodyn.identify` (:mod:`robodyn.identification.estimate`): the
estimate of the base parameters, its standard errors, residuals and, with the physically
consistent fit, the standard parameters; printed as text, JSON or an HTML table."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..core.display import html_table, number
from ..core.errors import InputError

__all__ = ["Identification"]


@dataclass(frozen=True, eq=False)
class Identification:
    """The result of :func:`~robodyn.identification.estimate.identify`
    (:mod:`robodyn.identification.estimate`): ``names`` (the base
    parameters, ``ZZ1R``...), ``combinations`` (SymPy, in the standard parameters),
    ``estimate``, ``std_errors``, ``relative_std`` (%), ``condition_number`` of the
    weighted stacked regressor, ``residual_rms`` (per joint, unweighted, N·m or N),
    ``weights`` (per joint), ``samples``; with ``physical=True`` also ``standard`` (all
    standard parameters, each link physically consistent), ``physical_estimate``
    (``K standard``), ``physical_residual_rms`` (per joint, of ``physical_estimate``),
    ``physical_steps`` and ``physical_converged`` (the interior-point method's)."""

    robot: object
    base: object
    estimate: np.ndarray
    std_errors: np.ndarray
    covariance: np.ndarray
    condition_number: float
    residual_rms: np.ndarray
    weights: np.ndarray
    samples: int
    standard: np.ndarray | None = None
    physical_estimate: np.ndarray | None = None
    notes: tuple[str, ...] = field(default=())
    physical_residual_rms: np.ndarray | None = None
    physical_steps: int = 0
    physical_converged: bool = True

    @property
    def names(self) -> tuple[str, ...]:
        return self.base.base_names

    @property
    def combinations(self):
        return self.base.combinations

    @property
    def relative_std(self) -> np.ndarray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return 100.0 * self.std_errors / np.abs(self.estimate)

    @property
    def residual_rms_overall(self) -> float:
        """The RMS torque error of the estimate over all joints and samples."""
        return float(np.sqrt(np.mean(self.residual_rms ** 2)))

    @property
    def physical_residual_rms_overall(self) -> float | None:
        """The same for the physically consistent estimate (``None`` without it)."""
        if self.physical_residual_rms is None:
            return None
        return float(np.sqrt(np.mean(self.physical_residual_rms ** 2)))

    def predict(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                physical: bool = False) -> np.ndarray:
        """Torques ``Y_b(q, qd, qdd) pi_b`` of the estimate (``physical=True``: of the
        physically consistent one), ``(..., dof)``."""
        pi = self.physical_estimate if physical else self.estimate
        if pi is None:
            raise InputError("predict(physical=True): identify with physical=True first")
        Y = self.robot.regressor(q, qd, qdd)
        return Y[..., list(self.base.independent)] @ pi

    def robot_estimate(self):
        """The robot with the physically consistent standard parameters
        (:meth:`~robodyn.Robot.with_inertial_parameters`); needs ``physical=True``."""
        if self.standard is None:
            raise InputError("robot_estimate(): identify with physical=True first")
        return self.robot.with_inertial_parameters(self.standard)

    def table(self) -> list[dict]:
        """One row per base parameter: name, combination, estimate, std error, relative
        std (%), and the physical estimate where there is one."""
        rows = []
        for k, name in enumerate(self.names):
            row = {"name": name, "combination": str(self.combinations[k]),
                   "estimate": float(self.estimate[k]), "std_error": float(self.std_errors[k]),
                   "relative_std_percent": float(self.relative_std[k])}
            if self.physical_estimate is not None:
                row["physical"] = float(self.physical_estimate[k])
            rows.append(row)
        return rows

    def as_json(self) -> str:
        """The result as strict JSON (``null`` where a number is not finite, e.g. the
        relative std of an estimate of 0)."""
        data = {"model": self.robot.name, "samples": self.samples,
                "condition_number": self.condition_number,
                "residual_rms": self.residual_rms.tolist(),
                "residual_rms_overall": self.residual_rms_overall,
                "weights": self.weights.tolist(), "parameters": self.table()}
        if self.standard is not None:
            data["standard"] = dict(zip(self.robot.inertial_parameters().names,
                                        self.standard.tolist(), strict=True))
            data["physical_residual_rms"] = self.physical_residual_rms.tolist()
            data["physical_residual_rms_overall"] = self.physical_residual_rms_overall
            data["physical_steps"] = self.physical_steps
            data["physical_converged"] = self.physical_converged
        data["notes"] = list(self.notes)
        return json.dumps(_finite_or_null(data), indent=2, allow_nan=False)

    def __repr__(self) -> str:
        return (f"Identification({self.robot.name!r}, parameters={len(self.names)}, samples="
                f"{self.samples}, condition_number={number(self.condition_number)}, "
                f"residual_rms={number(self.residual_rms_overall)}"
                + (", physical" if self.standard is not None else "") + ")")

    def _repr_html_(self) -> str:
        head = ["name", "estimate", "std error", "rel %"]
        if self.physical_estimate is not None:
            head.append("physical")
        head.append("combination")
        rows = []
        for row in self.table():
            cells = [row["name"], number(row["estimate"], 6), number(row["std_error"], 3),
                     number(row["relative_std_percent"], 3)]
            if "physical" in row:
                cells.append(number(row["physical"], 6))
            rows.append((*cells, row["combination"]))
        caption = (f"{self.robot.name}: {len(self.names)} base parameters from {self.samples} "
                   f"samples; condition number {number(self.condition_number)}; residual RMS "
                   f"{number(self.residual_rms_overall)}")
        return html_table(head, rows, caption=caption, notes=self.notes)

    def __str__(self) -> str:
        head = (f"{self.robot.name}: {len(self.names)} base parameters from {self.samples} "
                f"samples; condition number {self.condition_number:.4g}; residual RMS per "
                f"joint {np.array2string(self.residual_rms, precision=4)} (overall "
                f"{self.residual_rms_overall:.4g})")
        lines = [head]
        if self.physical_residual_rms is not None:
            lines.append(f"physical fit: residual RMS per joint "
                         f"{np.array2string(self.physical_residual_rms, precision=4)} (overall "
                         f"{self.physical_residual_rms_overall:.4g}, least squares "
                         f"{self.residual_rms_overall:.4g}); {self.physical_steps} "
                         "Newton steps")
        lines.append(f"  {'name':<8} {'estimate':>13} {'std error':>11} {'rel %':>8}"
                     + ("  physical" if self.physical_estimate is not None else "")
                     + "  combination")
        for row in self.table():
            text = (f"  {row['name']:<8} {row['estimate']:>13.6g} {row['std_error']:>11.3g} "
                    f"{row['relative_std_percent']:>8.3g}")
            if "physical" in row:
                text += f"  {row['physical']:>8.6g}"
            lines.append(text + f"  {row['combination']}")
        lines += list(self.notes)
        return "\n".join(lines)


def _finite_or_null(value):
    """``value`` (nested dicts, lists, numbers) with every non-finite float as ``None``."""
    if isinstance(value, dict):
        return {k: _finite_or_null(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite_or_null(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value
