"""A coupled transmission: the matrix from joint to motor angles and the motors behind it.

Convention (Spong, Hutchinson & Vidyasagar, *Robot Modeling and Control*, §6.4 and §7.5;
Siciliano et al., *Robotics*, §8.3 for the diagonal case)::

    theta = N q          (motor angles from joint angles; N = diag(G) for independent gears)

so a diagonal ``N`` is today's per-joint ``motor: {gear_ratio: G}``. A wrist whose last
motor's gear train runs through the joint before it (the PUMA 560's joints 4-6, Corke,
*Robotics, Vision and Control*, §9.1, and the differential wrists of many arms) has
off-diagonal entries. The model here is the data and its checks only; what it does to the
equations of motion is :mod:`robodyn.dynamics.transmission`.

Model files: a model-level key ::

    transmission:
      matrix: [[G1, 0], [c, G2]]     # N, dof x dof, non-singular
      motor_inertia: [Jm1, Jm2]      # rotor inertias, kg m^2, >= 0
      motor_viscous: [Bm1, Bm2]      # optional: motor-side viscous friction, N m s/rad, >= 0
      motor_coulomb: [Fm1, Fm2]      # optional: motor-side Coulomb friction, N m, >= 0
      stiffness: [Km1, Km2]          # optional: elastic drives, a spring per motor on the
                                     # motor side of the gear, N m/rad at the motor, > 0;
                                     # null: that motor's drive is rigid
      spring_damping: [Dm1, Dm2]     # optional, with stiffness: the springs' damping, >= 0
                                     # (null or 0 for a rigid motor)

With ``stiffness`` the joints are elastic (Spong's model behind the coupling,
:mod:`robodyn.motion.elastic_coupled`): the motors' angles ``theta_m`` are a state of their
own, the springs pass ``K_m (theta_m - N q)``, and ``theta = N q`` holds only in the rigid
limit ``K_m -> inf``, the model the robot's own functions compute. A ``null`` stiffness
makes that motor's drive rigid (its angle ``n_k . q``, its rotor in ``M``) beside the
elastic ones.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ..core.errors import ModelError

#: Keys under ``transmission:`` in a model file.
TRANSMISSION_KEYS = ("matrix", "motor_inertia", "motor_viscous", "motor_coulomb", "stiffness",
                     "spring_damping")
#: ``N`` is refused as singular when its condition number passes this (``1/eps`` of a float
#: is about 4.5e15; beyond 1e12 the motor torques ``N^-T tau`` have no correct digits left).
MAX_CONDITION = 1e12


@dataclass(frozen=True)
class Transmission:
    """``theta = N q`` with motors of inertia ``motor_inertia`` (``J_m``, one per motor)
    and motor-side friction ``motor_viscous`` (``B_m``) and ``motor_coulomb`` (``F_m``);
    elastic drives have a spring per motor, ``stiffness`` ``K_m`` and ``spring_damping``
    ``D_m`` (``None``: rigid; a ``None`` entry of ``stiffness``: that motor rigid, its
    damping 0). Tuples of floats, so the model stays hashable and comparable; build it with
    :func:`transmission_of` (checked)."""

    matrix: tuple[tuple[float, ...], ...]
    motor_inertia: tuple[float, ...]
    motor_viscous: tuple[float, ...]
    motor_coulomb: tuple[float, ...]
    stiffness: tuple[float | None, ...] | None = None
    spring_damping: tuple[float, ...] | None = None

    @property
    def N(self) -> np.ndarray:  # noqa: N802 (the books' letter)
        """The matrix ``N`` (``theta = N q``), ``(n, n)``."""
        return np.array(self.matrix, dtype=float)

    @property
    def diagonal(self) -> bool:
        """True when ``N`` is diagonal: independent gears, today's per-joint motors."""
        n = self.N
        return bool(np.all(n == np.diag(np.diag(n))))

    @property
    def springs(self) -> tuple[int, ...]:
        """The motors with a spring (0-based): every one, or those whose ``stiffness`` is
        not ``None``; ``()`` without springs."""
        return () if self.stiffness is None else tuple(
            k for k, x in enumerate(self.stiffness) if x is not None)

    def rigid_motors(self) -> Transmission:
        """The rigid motors alone, no springs: the motors with a spring get inertia and
        friction 0 (they sit behind their springs, on the motor side)."""
        springs = set(self.springs)

        def keep(values):
            return tuple(0.0 if k in springs else v for k, v in enumerate(values))
        return Transmission(self.matrix, keep(self.motor_inertia), keep(self.motor_viscous),
                            keep(self.motor_coulomb))


def _number(x: object, field: str) -> float:
    """One entry of the transmission: a number, or text that is one (YAML 1.1 reads
    ``1e-4``, without a dot, as text; ``2*pi`` is a constant too); not a ``values:``
    parameter (the transmission holds numbers only), a bool or anything else."""
    from ..core.errors import excerpt
    from .expressions import parse_expression

    if isinstance(x, bool) or not isinstance(x, (int, float, str, np.floating, np.integer)):
        raise ModelError(f"{field}: expected a number, got {type(x).__name__} {excerpt(x)}")
    if not isinstance(x, str):
        try:
            finite = np.isfinite(float(x))
        except OverflowError:  # an integer past a double's range
            finite = False
        if not finite:
            raise ModelError(f"{field}: {excerpt(x)} is not finite (as a double); give a finite "
                             "number")
    expr = parse_expression(x, field)   # checked: finite, real, bounded size
    if expr.free_symbols:
        raise ModelError(f"{field}: expected a number, got {excerpt(x)}; the transmission "
                         "holds numbers only (no values: parameters): write the number")
    return float(expr)


def _numbers(value: object, field: str, n: int, nonnegative: bool,
             positive: bool = False, rigid: bool = False) -> tuple[float, ...]:
    """``value`` as ``n`` finite floats (``>= 0`` when ``nonnegative``, ``> 0`` when
    ``positive``; ``rigid``: a ``null`` entry kept as ``None``), or a ModelError; the
    length is checked before any entry (a list of a million entries is refused at once)."""
    if isinstance(value, (str, bytes)) or not isinstance(value, (Sequence, np.ndarray)):
        raise ModelError(f"{field}: expected a list of {n} numbers, got {type(value).__name__}")
    if len(value) != n:
        raise ModelError(f"{field}: {len(value)} entries for {n} joints; give one per joint")
    out = []
    for k, x in enumerate(value):
        if rigid and x is None:
            out.append(None)
            continue
        x = _number(x, f"{field}[{k}]")
        if nonnegative and x < 0 and not positive:
            raise ModelError(f"{field}[{k}]: {x:g} is negative; a motor's inertia or friction "
                             "is >= 0")
        if positive and not x > 0:
            raise ModelError(f"{field}[{k}]: {x:g}; a spring's stiffness is > 0 (null "
                             "for a rigid motor, or leave stiffness out for rigid drives)")
        out.append(x)
    return tuple(out)


def transmission_of(data: object, dof: int, field: str = "transmission") -> Transmission:
    """The checked :class:`Transmission` of a mapping ``{matrix, motor_inertia,
    motor_viscous?, motor_coulomb?}`` for a model of ``dof`` joints: ``matrix`` square,
    ``dof x dof``, finite and non-singular (condition number below :data:`MAX_CONDITION`),
    the motor lists ``dof`` numbers ``>= 0``; ``stiffness`` (optional) ``dof`` numbers
    ``> 0`` with every ``motor_inertia > 0``, ``spring_damping`` only with it. A
    :class:`ModelError` naming the field otherwise."""
    if not isinstance(data, Mapping):
        raise ModelError(f"{field}: expected a mapping {{matrix: [[...]], motor_inertia: [...]}}"
                         f", got {type(data).__name__}")
    unknown = sorted(str(k) for k in data if k not in TRANSMISSION_KEYS)
    if unknown:
        raise ModelError(f"{field}: unknown key(s) {', '.join(unknown)}; the keys are "
                         f"{', '.join(TRANSMISSION_KEYS)}")
    for key in ("matrix", "motor_inertia"):
        if key not in data:
            raise ModelError(f"{field}: missing {key}; give the joint-to-motor matrix N "
                             "(theta = N q) and the motors' inertias")
    rows = data["matrix"]
    if isinstance(rows, (str, bytes)) or not isinstance(rows, (Sequence, np.ndarray)):
        raise ModelError(f"{field}.matrix: expected a list of {dof} rows")
    if len(rows) != dof:
        raise ModelError(f"{field}.matrix: {len(rows)} rows for {dof} joints; N is "
                         f"{dof} x {dof} (theta = N q)")
    matrix = tuple(_numbers(row, f"{field}.matrix[{i}]", dof, False)
                   for i, row in enumerate(rows))
    cond = np.linalg.cond(np.array(matrix, dtype=float)) if dof else 1.0
    if not cond < MAX_CONDITION:
        raise ModelError(f"{field}.matrix: singular (condition number {cond:.3g}); each motor "
                         "must move a different combination of joints, so N must be invertible")
    zeros = (0.0,) * dof
    inertia = _numbers(data["motor_inertia"], f"{field}.motor_inertia", dof, True)
    stiffness = damping = None
    if "stiffness" in data:
        stiffness = _numbers(data["stiffness"], f"{field}.stiffness", dof, True, True, True)
        if dof and all(x is None for x in stiffness):
            raise ModelError(f"{field}.stiffness: every entry null (rigid); leave stiffness "
                             "out for rigid drives")
        damping = _numbers(data.get("spring_damping", zeros), f"{field}.spring_damping", dof,
                           True, rigid=True)
        for k, (x, d) in enumerate(zip(stiffness, damping, strict=True)):
            if x is None and d:
                raise ModelError(f"{field}.spring_damping[{k}]: {d:g} for a rigid motor "
                                 f"(stiffness[{k}] null); a damping without a stiffness: "
                                 "give it null or 0")
            if x is not None and not inertia[k] > 0:
                raise ModelError(f"{field}.motor_inertia[{k}]: {inertia[k]:g}; an elastic "
                                 "drive's motor side needs a rotor inertia > 0 (J_m theta_m'' "
                                 "= ...)")
        damping = tuple(0.0 if d is None else d for d in damping)
    elif "spring_damping" in data:
        raise ModelError(f"{field}.spring_damping: a damping without a stiffness; give the "
                         "springs (stiffness: [K_m, ...]) or remove spring_damping")
    return Transmission(
        matrix, inertia,
        _numbers(data.get("motor_viscous", zeros), f"{field}.motor_viscous", dof, True),
        _numbers(data.get("motor_coulomb", zeros), f"{field}.motor_coulomb", dof, True),
        stiffness, damping)


class TransmissionWarning(UserWarning):
    """Kept for code that filters it: a coupled transmission is now in the robot's numeric
    methods, its closed forms (the regressor included) and every function of its exported
    code, so nothing warns."""


def with_transmission(chain, tr: Transmission, field: str = "transmission"):
    """``chain`` with the drives of ``tr``. A diagonal ``N`` is exactly today's per-joint
    motors, so it is folded into them (``Motor(inertia=J_m, gear_ratio=N_ii)``, the motor
    friction into the joint's: ``F_v += N_ii^2 B_m``, ``F_c+-  += |N_ii| F_m``) and every
    numeric function, closed form and exported code includes it. A coupled ``N`` is kept
    as ``chain.transmission``: the robot's numeric methods add it
    (:mod:`robodyn.codegen.driven`), so do the closed forms
    (:func:`robodyn.symbolic.derivation.finish`, :mod:`robodyn.symbolic.regressor`) and
    every function of the exported code (:mod:`robodyn.dynamics.driven_dynamics`). Joints
    that already have a ``motor`` are refused.

    Elastic drives (``tr.stiffness``): a diagonal ``N`` without motor friction is folded
    the same way, the spring reflected to the joint, ``stiffness = N_ii^2 K_m`` and
    ``spring_damping = N_ii^2 D_m`` (the energy ``1/2 K_m (theta_m - G q)^2 = 1/2 G^2 K_m
    (theta_m / G - q)^2``: today's per-joint springs); with motor friction it stays a
    transmission, whose friction acts on the motor side of the springs."""
    from dataclasses import replace

    from .friction import is_zero
    from .joints import JOINT_MODELS

    if any(not JOINT_MODELS[link.joint.type].single for link in chain.links):
        raise ModelError(f"{field}: every joint must be revolute or prismatic (one motor per "
                         "joint); remove the free or ball joint or the transmission")
    for i, link in enumerate(chain.links):
        if not (is_zero(link.motor.inertia) and link.motor.gear_ratio == 1):
            raise ModelError(f"{field}: links[{i}] already has a motor (inertia or gear_ratio); "
                             "give the drives either per joint or in transmission, not both")
    elastic = tr.stiffness is not None
    if not tr.diagonal:
        for i, link in enumerate(chain.links):
            if link.motor.stiffness is not None:  # the check of the rotor then misled
                raise ModelError(f"{field}: links[{i}].motor.stiffness: the springs behind a "
                                 "coupled transmission are its own, transmission.stiffness "
                                 "(one per motor); leave the link's out")
    if not tr.diagonal or (elastic and any(tr.motor_viscous + tr.motor_coulomb)):
        return replace(chain, transmission=tr)
    links = []
    for i, link in enumerate(chain.links):
        g = tr.matrix[i][i]
        fr = link.friction
        extra_c = abs(g) * tr.motor_coulomb[i]
        if tr.motor_viscous[i] or extra_c:
            fr = replace(fr, viscous=fr.viscous + g * g * tr.motor_viscous[i],
                         coulomb=fr.coulomb + extra_c,
                         coulomb_negative=(None if fr.coulomb_negative is None
                                           else fr.coulomb_negative + extra_c))
        spring = {} if not elastic or tr.stiffness[i] is None else {  # null: rigid
            "stiffness": g * g * tr.stiffness[i], "spring_damping": g * g * tr.spring_damping[i]}
        links.append(replace(link, friction=fr,
                             motor=replace(link.motor, inertia=tr.motor_inertia[i],
                                           gear_ratio=g, **spring)))
    return replace(chain, links=tuple(links))


def drive_notes(chain) -> list[str]:
    """What an export to URDF or MJCF leaves out of ``chain``'s drives: a coupled
    transmission (neither format has one; a diagonal one is the links' motors), LuGre
    parameters, elastic joints, the gears' efficiencies and DC motors' electrics (a note
    each for the written file)."""
    notes = []
    if getattr(chain, "transmission", None) is not None:
        notes.append("the coupled transmission (theta = N q, N^T Jm N) is left out: the "
                     "format has per-joint armature only")
        if chain.transmission.stiffness is not None:
            notes.append("the elastic drives (transmission stiffness, spring_damping) are "
                         "left out: the file's joints are rigid")
    if getattr(chain, "lugre", None) is not None:
        notes.append("the LuGre friction parameters are left out")
    motors = [link.motor for link in chain.links]
    if any(m.stiffness is not None for m in motors):
        notes.append("the elastic joints (motor stiffness, spring_damping) are left out: the "
                     "file's joints are rigid")
    lossy = [i + 1 for i, m in enumerate(motors)
             if m.efficiency != 1 or (m.efficiency_back is not None and m.efficiency_back != 1)]
    if lossy:
        notes.append("the gears' efficiencies (efficiency, efficiency_back) of joint(s) "
                     f"{', '.join(map(str, lossy))} are left out: the file's gears are ideal")
    if any(m.resistance is not None for m in motors):
        notes.append("the DC motors' electrics (resistance, inductance, torque and back-EMF "
                     "constants) are left out")
    return notes
