"""What :func:`robodyn.simulate` returns: a :class:`Simulation`, one run or a batch of
rollouts (arrays with a leading rollout axis), which prints as a few lines, draws itself in
Jupyter and saves to ``.npz`` or ``.csv``."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..core.display import number, numbers, png, span
from ..core.errors import InputError, excerpt

__all__ = ["Simulation", "finished"]


@dataclass
class Simulation:
    """A simulated motion: ``t`` ``(T,)``; ``q``, ``qd``, ``qdd``, ``tau`` ``(T, dof)``; the
    ``kinetic``, ``potential`` and ``total`` energy ``(T,)``; ``info`` (method, steps,
    wall time, real-time factor, the
    :class:`~robodyn.motion.checks.EnergyBalance` as ``energy_balance``, ...);
    ``solution`` (the dense output of adaptive runs). A batch of ``N`` rollouts
    (:mod:`robodyn.motion.rollouts`) has ``q`` ... ``(N, T, dof)`` and the energies ``(N,
    T)``; :meth:`rollout` gives one."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    tau: np.ndarray
    kinetic: np.ndarray
    potential: np.ndarray
    info: dict = field(default_factory=dict)
    solution: object = None

    @property
    def total(self) -> np.ndarray:
        """Mechanical energy ``K + U``."""
        return self.kinetic + self.potential

    @property
    def dof(self) -> int:
        """Values of a velocity (``nv``; ``q`` has ``nq``, more with quaternion joints)."""
        return self.qd.shape[-1]

    @property
    def rollouts(self) -> int | None:
        """The number ``N`` of rollouts of a batched run (arrays ``(N, T, ...)``), else None."""
        return self.q.shape[0] if self.q.ndim == 3 else None

    def rollout(self, i: int) -> Simulation:
        """Rollout ``i`` of a batched run as a run of its own (views of the arrays; ``info``
        with that rollout's energy balance and limit reports)."""
        n = self.rollouts
        if n is None:
            raise InputError("rollout: this Simulation is a single run, not a batch")
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)) or not -n <= i < n:
            raise InputError(f"rollout: expected an index from 0 to {n - 1}, got {excerpt(i)}")
        i = int(i) % n
        info = {k: v for k, v in self.info.items()
                if k not in ("energy_balance", "limits_crossed", "failed", "rollouts")}
        if isinstance(info.get("steps"), list):  # rollouts run one by one: steps of each
            info["steps"] = info["steps"][i]
        if np.ndim(info.get("closure")) == 2:  # a closed mechanism's batch: |phi| per run
            info["closure"] = info["closure"][i]
        for name in ("current", "voltage", "electric_power", "drive_torque", "electric_energy",
                     "copper_loss"):  # a voltage-driven batch's motors, by rollout
            if name in info:
                info[name] = info[name][i]
        if self.info.get("energy_balance") is not None:
            info["energy_balance"] = self.info["energy_balance"][i]
        if i in self.info.get("limits_crossed", {}):
            info["limits_crossed"] = self.info["limits_crossed"][i]
        if i in self.info.get("failed", {}):
            info["failed"] = self.info["failed"][i]
        return Simulation(self.t, self.q[i], self.qd[i], self.qdd[i], self.tau[i],
                          self.kinetic[i], self.potential[i], info)

    def __repr__(self) -> str:
        method = self.info.get("method", "?")
        many = f", rollouts={self.rollouts}" if self.rollouts is not None else ""
        return (f"Simulation({method}, dof={self.dof}{many}, samples={len(self.t)}, "
                f"t={span(self.t)})")

    def __str__(self) -> str:
        """A few lines: sizes, time span, method and steps, the final state, the peak
        torques and the energy balance (not the arrays); for a batch, its size, the
        rollouts that failed and the worst energy balance."""
        if self.rollouts is not None:
            return self._batch_str()
        info = self.info
        method = info.get("method", "an unknown method")
        how = f"dt = {number(info['dt'])} s" if info.get("dt") else \
            (f"rtol = {number(info['rtol'])}, atol = {number(info['atol'])}"
             if "rtol" in info else "")
        steps = f"{info['steps']:,} steps" if "steps" in info else ""
        grid = (f"every {number(info['sample_dt'])} s (dense output)"
                if info.get("sample_dt") and not info.get("dt") else "")
        if info.get("sample_dt") and info.get("dt"):
            grid = f"every {number(info['sample_dt'])} s"
        lines = [f"Simulation: {self.dof} DOF, {len(self.t)} samples {grid}".rstrip()
                 + f" over {span(self.t)}",
                 "  " + ", ".join(x for x in (method, how, steps) if x)
                 + (", compiled loop" if info.get("compiled") else "")
                 + (f"; wall time {info['wall_time']:.3g} s" if "wall_time" in info else "")]
        if len(self.t):
            lines.append(f"  final q = {numbers(self.q[-1])}, qd = {numbers(self.qd[-1])}")
            lines.append(f"  peak |tau| = {numbers(np.abs(self.tau).max(axis=0))}")
            total = self.total
            balance = info.get("energy_balance")
            line = f"  energy K+U: {number(total[0], 6)} -> {number(total[-1], 6)} J"
            if balance is not None:
                line += f" (balance off by {balance.relative:.2g} of the scale)"
            lines.append(line)
        if "electric_energy" in info:  # driven by the motors' voltages
            lines.append(f"  motors: peak |i| = {numbers(np.abs(info['current']).max(axis=0))} "
                         f"A, drawn {number(float(info['electric_energy'].sum()), 6)} J "
                         f"(copper loss {number(float(info['copper_loss'].sum()), 6)} J)")
        if info.get("limits_crossed"):
            lines.append(f"  joint limits crossed: {len(info['limits_crossed'])}")
        return "\n".join(lines)

    def _batch_str(self) -> str:
        info = self.info
        failed = info.get("failed", {})
        how = f", dt = {number(info['dt'])} s" if info.get("dt") else ""
        lines = [f"Simulation: {self.rollouts} rollouts of {self.dof} DOF, {len(self.t)} "
                 f"samples over {span(self.t)}",
                 f"  {info.get('method', 'an unknown method')}{how}"
                 + (", compiled loop" if info.get("compiled") else "")
                 + (f"; wall time {info['wall_time']:.3g} s" if "wall_time" in info else "")]
        balances = [b for b in info.get("energy_balance") or () if b is not None]
        if balances:
            worst = max(range(len(balances)), key=lambda i: balances[i].relative)
            lines.append(f"  worst energy balance off by {balances[worst].relative:.2g} of the "
                         "scale")
        if failed:
            lines.append(f"  failed rollouts: {', '.join(map(str, sorted(failed)))}")
        if info.get("limits_crossed"):
            lines.append(f"  rollouts that crossed joint limits: {len(info['limits_crossed'])}")
        return "\n".join(lines)

    def _repr_png_(self) -> bytes:
        """A small picture for Jupyter: ``q`` and ``tau`` against time, a line per joint
        (of the first rollout of a batch)."""
        if self.rollouts is not None:
            return self.rollout(0)._repr_png_()
        def draw(fig):
            top, bottom = fig.subplots(2, 1, sharex=True)
            for j in range(self.q.shape[-1]):
                top.plot(self.t, self.q[:, j], color=f"C{j % 10}", lw=1.2, label=f"q{j + 1}")
            for j in range(self.dof):
                bottom.plot(self.t, self.tau[:, j], color=f"C{j % 10}", lw=1.2)
            top.set_ylabel("q")
            bottom.set_ylabel("tau")
            bottom.set_xlabel("t [s]")
            top.legend(loc="best", ncol=min(self.q.shape[-1], 6), fontsize="x-small")
            for ax in (top, bottom):
                ax.grid(True, alpha=0.3)

        return png(draw)

    def columns(self) -> dict[str, np.ndarray]:
        """Every recorded series by name: ``t``, ``q1..``, ``qd1..``, ``qdd1..``, ``tau1..``,
        ``kinetic``, ``potential``, ``total``; a run driven by voltages also ``current1..``,
        ``voltage1..``, ``electric_power1..``; for a batch, ``(N, T)`` each."""
        out = {"t": self.t}
        series = [(name, getattr(self, name)) for name in ("q", "qd", "qdd", "tau")]
        for name in ("current", "voltage", "electric_power"):  # the motors' (voltage runs)
            if isinstance(self.info.get(name), np.ndarray):
                series.append((name, self.info[name]))
        for name, values in series:  # q: nq values (quaternions), the others nv
            for j in range(values.shape[-1]):
                out[f"{name}{j + 1}"] = values[..., j]
        out.update(kinetic=self.kinetic, potential=self.potential, total=self.total)
        return out

    def save(self, path: str | Path) -> Path:
        """Write the run to ``.npz`` (arrays by name) or ``.csv`` (a header, one row per
        sample)."""
        path = Path(path)
        columns = self.columns()
        if path.suffix.lower() == ".npz":
            np.savez(path, **columns)
        elif path.suffix.lower() == ".csv" and self.rollouts is not None:
            raise InputError(f"save: {path.name!r}: a batch of {self.rollouts} rollouts goes to "
                             ".npz (arrays (N, T)); for .csv save one, sim.rollout(i).save(...)")
        elif path.suffix.lower() == ".csv":
            data = np.column_stack(list(columns.values()))
            np.savetxt(path, data, delimiter=",", header=",".join(columns), comments="",
                       fmt="%.17g")
        else:
            raise InputError(f"save: {path.name!r}: use a .npz or .csv file name")
        return path


def finished(robot, t, q, qd, qdd, tau, info, solution=None) -> Simulation:
    """The :class:`Simulation` of one run of ``robot`` with its kinetic and potential energy
    along the motion."""
    return Simulation(t, q, qd, qdd, tau, robot.kinetic_energy(q, qd), robot.potential_energy(q),
                      info, solution)
