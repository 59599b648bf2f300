"""The joint torques linear in the dynamic parameters: ``tau = Y(q, qd, qdd) pi``.

Standard parameters (Khalil & Dombre, *Modeling, Identification and Control of
Robots*, §9.3; Siciliano et al. eq. 7.82 with the inertia about the frame origin),
per link ``k`` in the chain's link frame ``k`` (the joint frame: for a standard-DH
model the frame ``k-1`` turned by joint ``k``, origin on joint ``k``'s axis; for a
modified-DH model the DH frame ``k``; for a URDF the joint's child frame)::

    pi_k = [m, m cx, m cy, m cz, XX, XY, XZ, YY, YZ, ZZ]

with ``h = m c`` the first moment and ``I_o = I_c + m (|c|^2 1 - c c^T)`` the inertia
about the frame origin (parallel-axis theorem); then per joint the viscous and
Coulomb friction ``Fv_j, Fs_j``, then the armature ``Ia_j = G_j^2 J_mj``, then, for the
joints whose friction has them (:mod:`robodyn.model.friction`), the half difference of
the Coulomb levels ``Fd_j = (F_c+ - F_c-)/2`` (``Fs_j`` is then their mean, so
``F_c+- = Fs_j +- Fd_j``) and the offset ``Fo_j = tau_0``.

Newton–Euler is linear in ``(m, h, I_o)`` (Atkeson, An & Hollerbach 1986): with
``a`` the acceleration of the frame origin (gravity entered as ``-g0``), the
wrench link ``k`` needs at its origin is::

    n_k = I_o wd + w x (I_o w) + h x a
    f_k = m a + wd x h + w x (w x h)

so each parameter gives a 6-vector column (the 6x10 body regressor). The wrench of
link ``k`` reaches joint ``j <= k`` through the frames in between (the inward
recursion of :mod:`.rnea`, ``f_i = R f_{i+1}``, ``n_i = R n_{i+1} + r x R f_{i+1}``)
and gives ``tau_j = z . n_j`` (revolute) or ``z . f_j`` (prismatic). Friction
columns are ``qd_j`` and ``sign(qd_j)``, the armature column ``qdd_j``, the asymmetry
column ``sign(qd_j)^2`` and the offset column ``1`` (the friction is ``F_v qd + (a + b s)
s + tau_0``, linear in ``a, b, tau_0``; where ``qd_j != 0`` the last two columns are
equal, so only ``Fd_j + Fo_j`` is identifiable from moving data: the base parameters group
them). A Stribeck term or a smooth sign is not linear in its shape: such a model is
refused here (:func:`robodyn.identify_friction` fits its levels). In a tree the
outward step starts from each link's parent, and link ``k``'s wrench reaches only the
joints of its ancestors (the other rows of its columns are zero).

A coupled transmission ``theta = N q`` (:mod:`robodyn.model.transmission`) adds, per motor
``k`` with row ``n_k`` of ``N``, its rotor inertia ``Jm_k``, viscous ``Bm_k`` and Coulomb
``Fm_k`` friction (after every other column: all ``Jm``, then ``Bm``, then ``Fm``): the
drives' torques ``N^T (J_m N qdd + B_m N qd + F_m sign(N qd))`` are linear in them, with
the columns ``n_k^T (n_k . qdd)``, ``n_k^T (n_k . qd)`` and ``n_k^T sign(n_k . qd)``
(:func:`transmission_columns`).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..core import linalg3 as la
from ..core.errors import ModelError
from ..model.chain import REVOLUTE, Chain, origin_inertia
from ..model.friction import is_zero
from ..model.joints import joint_forces
from .friction import multi_value_extras
from .rnea import outward_step

#: The ten standard parameters of a link, in order (``h = m c``; ``XX..ZZ`` about the origin).
LINK_PARAMETERS = ("m", "mx", "my", "mz", "XX", "XY", "XZ", "YY", "YZ", "ZZ")
#: The friction parameters of a joint, in order (viscous, Coulomb).
FRICTION_PARAMETERS = ("Fv", "Fs")
#: The friction parameters of a joint that has them, after the armatures: half the
#: difference of the Coulomb levels, the offset.
EXTRA_FRICTION = ("Fd", "Fo")
#: Columns per link: its ten inertial parameters (the first ``PER_LINK * dof`` columns).
PER_LINK = len(LINK_PARAMETERS)
#: Standard parameters per joint, the columns of :func:`regressor_full` per joint: its
#: link's ten inertial parameters, two friction parameters, the armature and the two
#: extra friction parameters (15).
PARAMETERS_PER_JOINT = PER_LINK + len(FRICTION_PARAMETERS) + 1 + len(EXTRA_FRICTION)

# the six inertia basis tensors E_p in the order XX, XY, XZ, YY, YZ, ZZ: E_p v
_INERTIA_BASIS = (
    lambda v: (v[0], 0, 0),
    lambda v: (v[1], v[0], 0),
    lambda v: (v[2], 0, v[0]),
    lambda v: (0, v[1], 0),
    lambda v: (0, v[2], v[1]),
    lambda v: (0, 0, v[2]),
)
_UNIT = ((1, 0, 0), (0, 1, 0), (0, 0, 1))


def body_regressor(w, wd, a) -> list[tuple]:
    """The ten columns ``(n, f)`` of one link's wrench at its origin (module docstring)."""
    cols = [(la.ZERO3, a)]  # m
    for e in _UNIT:  # h = (mx, my, mz)
        cols.append((la.cross(e, a), la.add(la.cross(wd, e), la.cross(w, la.cross(w, e)))))
    for basis in _INERTIA_BASIS:
        cols.append((la.add(basis(wd), la.cross(w, basis(w))), la.ZERO3))
    return cols


def regressor_full(chain: Chain, q: Sequence, qd: Sequence, qdd: Sequence, ops) -> list[list]:
    """``Y`` with every column: ``nv`` rows, :func:`regressor_width` columns (ten per link,
    then ``Fv_j, Fs_j`` per joint, then ``Ia_j`` per joint, whether or not joint ``j`` has
    a motor, then ``Fd_j, Fo_j`` per joint if one joint has them; :func:`parameter_columns`
    picks a model's columns). A multi-value
    joint (spherical, free) has rows ``S^T (n, f)`` and no friction or armature (zero
    columns)."""
    n = chain.dof
    offsets = chain.v_offsets()
    q = chain.per_joint(q, velocity=False)
    qd, qdd = chain.per_joint(qd), chain.per_joint(qdd)
    base = (la.ZERO3, la.ZERO3, la.neg(chain.gravity))
    rotations, origins, bodies, states = [], [], [], []
    for i, link in enumerate(chain.links):
        parent = chain.parent(i)
        w, wd, a = states[parent] if parent >= 0 else base
        rot, r, w, wd, a = outward_step(link.joint, q[i], qd[i], qdd[i], w, wd, a, ops)
        states.append((w, wd, a))
        rotations.append(rot)
        origins.append(r)
        bodies.append(body_regressor(w, wd, a))

    rows = [[0] * regressor_width(chain) for _ in range(chain.nv)]
    for k in range(n):
        for p, (nm, f) in enumerate(bodies[k]):
            col = PER_LINK * k + p
            child = None
            for j in chain.ancestors(k):
                if child is not None:  # carry the wrench from the child's frame into j's
                    rot, r = rotations[child], origins[child]
                    f = la.matvec(rot, f)
                    nm = la.add(la.matvec(rot, nm), la.cross(r, f))
                child = j
                link = chain.links[j]
                z = link.joint.axis
                if not link.joint.model.single:
                    for b, value in enumerate(joint_forces(link.joint, nm, f)):
                        rows[offsets[j] + b][col] = value
                    continue
                rows[offsets[j]][col] = la.dot(z, nm) if link.joint.type == REVOLUTE \
                    else la.dot(z, f)
    for j in range(n):
        if not chain.links[j].joint.model.single:
            continue
        row = offsets[j]
        rows[row][friction_column(n, j)] = qd[j]
        s = rows[row][friction_column(n, j) + 1] = ops.sign(qd[j])
        rows[row][armature_column(n, j)] = qdd[j]
        asymmetric, offset = extra_friction(chain.links[j])
        if asymmetric:
            rows[row][extra_column(n, j)] = s * s
        if offset:
            rows[row][extra_column(n, j) + 1] = 1
    return rows


def regressor_width(chain: Chain) -> int:
    """The columns of :func:`regressor_full`: :data:`PARAMETERS_PER_JOINT` per joint when a
    joint has the extra friction columns (:func:`extra_friction`), else two fewer (a model
    without them pays nothing for them)."""
    n = chain.dof
    if any(any(extra_friction(link)) for link in chain.links):
        return PARAMETERS_PER_JOINT * n
    return (PARAMETERS_PER_JOINT - len(EXTRA_FRICTION)) * n


def friction_column(dof: int, j: int) -> int:
    """The column of ``Fv_j`` (0-based joint ``j``) in :func:`regressor_full` and in
    :func:`parameter_columns`' order; ``Fs_j`` is the next one."""
    return PER_LINK * dof + len(FRICTION_PARAMETERS) * j


def armature_column(dof: int, j: int) -> int:
    """The column of ``Ia_j`` (0-based joint ``j``) in :func:`regressor_full`: the armature
    columns come after every link's and every joint's friction columns."""
    return (PER_LINK + len(FRICTION_PARAMETERS)) * dof + j


def extra_column(dof: int, j: int) -> int:
    """The column of ``Fd_j`` (0-based joint ``j``) in :func:`regressor_full`, after the
    armature columns; ``Fo_j`` is the next one."""
    return (PER_LINK + len(FRICTION_PARAMETERS) + 1) * dof + len(EXTRA_FRICTION) * j


def extra_friction(link) -> tuple[bool, bool]:
    """Whether a one-value joint's friction has the columns ``Fd`` (Coulomb levels given
    per direction) and ``Fo`` (an offset that is not the literal 0)."""
    if not link.joint.model.single:
        return False, False
    fr = link.friction
    return fr.coulomb_negative is not None, not is_zero(fr.offset)


def has_motor(link) -> bool:
    """Whether a link's joint has a motor: its rotor inertia is not the literal 0."""
    value = link.motor.inertia
    try:
        return not bool(value == 0)
    except TypeError:
        return True


def parameter_columns(chain: Chain) -> tuple[list[int], list[str]]:
    """The columns of :func:`regressor_full` a model has, and their names: ``m1, mx1, ...,
    ZZ1, ..., Fv1, Fs1, ..., Ia_j, ..., Fd_j, Fo_j`` (armature only for joints with a
    motor, ``Fd_j`` and ``Fo_j`` only for joints whose friction has them:
    :func:`extra_friction`). A ball or free joint with armature, damping or dry friction: a
    :class:`ModelError` (no column for them yet)."""
    _refuse_multi_value_extras(chain)
    n = chain.dof
    cols = list(range(armature_column(n, 0)))
    names = [f"{p}{k + 1}" for k in range(n) for p in LINK_PARAMETERS]
    names += [f"{p}{j + 1}" for j in range(n) for p in FRICTION_PARAMETERS]
    for j, link in enumerate(chain.links):
        if has_motor(link):
            cols.append(armature_column(n, j))
            names.append(f"Ia{j + 1}")
    for j, link in enumerate(chain.links):
        for k, present in enumerate(extra_friction(link)):
            if present:
                cols.append(extra_column(n, j) + k)
                names.append(f"{EXTRA_FRICTION[k]}{j + 1}")
    if getattr(chain, "transmission", None) is not None:  # after the tree's columns
        width = regressor_width(chain)
        cols += range(width, width + len(TRANSMISSION_PARAMETERS) * n)
        names += [f"{p}{k + 1}" for p in TRANSMISSION_PARAMETERS for k in range(n)]
    return cols, names


def _refuse_multi_value_extras(chain: Chain) -> None:
    extras = multi_value_extras(chain)
    if extras:
        raise ModelError(f"joint(s) {', '.join(extras[:5])}: armature, damping or dry "
                         "friction on a ball or free joint has no regressor column yet (the "
                         "regressor would not equal the inverse dynamics); use a model "
                         "without them")


def standard_columns(chain: Chain, full):
    """The columns of ``chain``'s standard parameters (:func:`parameter_columns`) of a
    regressor ``full`` ``(..., dof, all columns)``: ``Y`` with ``Y @ pi = tau``."""
    cols, _ = parameter_columns(chain)
    if len(cols) == full.shape[-1]:
        return full
    return full[..., cols].copy()  # C-contiguous


def standard_parameters(chain: Chain) -> list:
    """The values of the standard parameters of ``chain`` (floats or SymPy), in the order
    of :func:`parameter_columns`."""
    _refuse_multi_value_extras(chain)
    out = []
    for link in chain.links:
        m, h, io = origin_inertia(link)  # the point masses of a link are part of its ten
        out += [m, *h, io[0][0], io[0][1], io[0][2], io[1][1], io[1][2], io[2][2]]
    extras = []
    for i, link in enumerate(chain.links):
        fr = link.friction
        if not (is_zero(fr.static) and is_zero(fr.smooth_velocity)):
            raise ModelError(f"links[{i}].friction: a Stribeck term or a smooth sign is not "
                             "linear in its shape, and the regressor has no columns for it; "
                             "fit its levels with rd.identify_friction (the links known), or "
                             "identify robot.without_friction(viscous=False)")
        asymmetric, offset = extra_friction(link)
        if asymmetric:  # Fs is the mean level, Fd half the difference
            out += [fr.viscous, (fr.coulomb + fr.coulomb_negative) / 2]
            extras.append((fr.coulomb - fr.coulomb_negative) / 2)
        else:
            out += [fr.viscous, fr.coulomb]
        if offset:
            extras.append(fr.offset)
    out += [link.motor.armature for link in chain.links if has_motor(link)]
    tr = getattr(chain, "transmission", None)
    if tr is not None:
        extras += [*tr.motor_inertia, *tr.motor_viscous, *tr.motor_coulomb]
    return out + extras


#: The parameters of each motor of a coupled transmission: rotor inertia, viscous and
#: Coulomb friction (motor side).
TRANSMISSION_PARAMETERS = ("Jm", "Bm", "Fm")


def transmission_columns(tr, qd, qdd):
    """The regressor columns ``(..., n, 3 n)`` of a coupled transmission ``tr`` (module
    docstring): ``Jm_k, ..., Bm_k, ..., Fm_k, ...``."""
    import numpy as np

    N = tr.N
    thetad, thetadd = np.asarray(qd) @ N.T, np.asarray(qdd) @ N.T  # motor rates (..., n)
    # column k of each block: n_k^T times the motor's rate (a broadcast outer product)
    return np.concatenate([x[..., None, :] * N.T for x in (thetadd, thetad, np.sign(thetad))],
                          axis=-1)


__all__ = ["regressor_full", "body_regressor", "parameter_columns", "standard_columns",
           "standard_parameters", "transmission_columns", "TRANSMISSION_PARAMETERS",
           "has_motor", "friction_column", "armature_column", "extra_column", "extra_friction",
           "regressor_width",
           "LINK_PARAMETERS", "FRICTION_PARAMETERS", "EXTRA_FRICTION", "PER_LINK",
           "PARAMETERS_PER_JOINT"]
