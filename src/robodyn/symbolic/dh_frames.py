"""Standard DH as Siciliano writes it, for the printed derivation.

The core computes in *joint frames* (:mod:`robodyn.model.dh`): with standard DH its link
frame ``k`` is DH frame ``k-1`` turned by joint ``k``, and the constant ``X_k`` leads from
it to DH frame ``k`` (at the distal end of link ``k``). A student's derivation is written
in the DH frames themselves, so the steps of a standard-DH model are shown there:

* ``A_k = Rz(theta_k) Tz(d_k) Tx(a_k) Rx(alpha_k)``, row ``k`` of the DH table
  (:func:`dh_links`);
* the centre of mass ``r_{k,C_k}^k`` and the inertia tensor ``I_k^k`` in DH frame ``k``,
  as the model file gives them (the core's joint-frame data carried back by ``X_k``);
* Newton–Euler as Siciliano §7.5 writes it (:func:`siciliano_recursion`): the forward
  recursion for ``omega_k^k``, ``domega_k^k``, ``ddp_k^k``, ``ddp_{C_k}^k`` and the
  backward one for ``f_k^k``, ``mu_k^k``, ``tau_k`` (moments about the origin of frame
  ``k-1``), with ``R_k^{k-1}`` and ``r_{k-1,k}^k = R_k^{k-1 T} o_k^{k-1}``.

On a tree each DH row is placed in its parent's DH frame (:mod:`robodyn.model.dh`), so
``k-1`` reads "the parent of ``k``" throughout and the backward recursion sums over the
children of each link.

The torques of :func:`siciliano_recursion` equal the core's recursion
(:func:`robodyn.dynamics.rnea.rnea`) identically (a test proves it for every standard-DH
built-in); the equations of motion are still taken from the core.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ..core import linalg3 as la
from ..dynamics.kinematics import joint_transform
from ..model.chain import REVOLUTE, Chain, Transform

Z0 = (0, 0, 1)


@dataclass(frozen=True)
class DHLink:
    """One link in its standard DH frame (ring scalars): ``rot``/``origin`` of ``A_k``
    (``R_k^{k-1}``, ``o_k^{k-1}``), ``r`` = ``r_{k-1,k}^k``, ``com`` = ``r_{k,C_k}^k``,
    ``inertia`` = ``I_k^k`` about the centre of mass, ``mass``, ``armature``."""

    rot: Any
    origin: Any
    r: Any
    com: Any
    inertia: Any
    mass: Any
    armature: Any
    revolute: bool


def constant_part(row) -> Transform:
    """``X_k``: from the core's joint frame ``k`` to DH frame ``k`` (SymPy constants):
    ``Tz(d) Tx(a) Rx(alpha)`` for a revolute joint, ``Rz(theta) Tx(a) Rx(alpha)`` for a
    prismatic one (:mod:`robodyn.model.dh`)."""
    first = Transform.trans(z=row.d) if row.joint == REVOLUTE else Transform.rot_z(row.theta)
    return first @ Transform.trans(x=row.a) @ Transform.rot_x(row.alpha)


def dh_links(ring, chain: Chain, dh_rows) -> list[DHLink]:
    """Every link of the standard-DH ``chain`` (the SymPy chain, before the ring) in its
    DH frame: ``A_k`` of row ``k`` and the inertial data as the model file gives them."""
    from .derivation import tidy_transform

    chain_r = ring.chain(chain)
    q_args = ring.joint_arguments()[0]
    ops = ring.ops()
    out = []
    for link, link_r, row, qk in zip(chain.links, chain_r.links, dh_rows, q_args, strict=True):
        x = tidy_transform(constant_part(row)).map(ring.scalar)
        joint = replace(link_r.joint, placement=Transform())
        motion_rot, motion_origin = joint_transform(joint, qk, ops)
        rot = la.matmul(motion_rot, x.rotation)
        origin = la.add(la.matvec(motion_rot, x.translation), motion_origin)
        inertial = link_r.inertial
        # the core's joint-frame data, carried back into DH frame k by X_k^-1
        com = la.tmatvec(x.rotation, la.sub(inertial.com, x.translation))
        inertia = la.rotate_tensor(la.transpose(x.rotation), inertial.inertia)
        out.append(DHLink(rot, origin, la.tmatvec(rot, origin), com, inertia, inertial.mass,
                          link_r.motor.armature, link.joint.type == REVOLUTE))
    return out


def siciliano_recursion(links: list[DHLink], gravity, qd, qdd, record,
                        parents=None) -> list:
    """Siciliano's recursive Newton–Euler in DH frames (eqs. 7.107–7.111 without the
    rotors' gyroscopic terms; a rotor's reflected inertia ``G^2 Jm qdd`` is added to
    ``tau`` as the core does). ``record(name, k, value)`` receives ``w``, ``wd``,
    ``pdd``, ``pddc`` forward and ``f``, ``mu``, ``tau`` backward (``k`` from 1).

    ``parents`` (0-based, ``-1`` the base; default the link before): a tree, each
    ``A_k`` given in its parent's DH frame. The forward recursion then starts from the
    parent's motion and the backward one sums the force and moment of every child (its
    ``mu`` is about the origin of this link's DH frame, as a single child's is)."""
    n = len(links)
    parents = list(parents) if parents is not None else list(range(-1, n - 1))
    base = (la.ZERO3, la.ZERO3, la.neg(gravity))
    ws, wds, pdds, pddcs = [], [], [], []
    for k, link in enumerate(links):
        p = parents[k]
        w, wd, pdd = (ws[p], wds[p], pdds[p]) if p >= 0 else base
        rot, r = link.rot, link.r
        if link.revolute:
            w_k = la.tmatvec(rot, la.add(w, la.scale(qd[k], Z0)))
            wd_k = la.tmatvec(rot, la.add(la.add(wd, la.scale(qdd[k], Z0)),
                                          la.scale(qd[k], la.cross(w, Z0))))
            pdd_k = la.add(la.tmatvec(rot, pdd),
                           la.add(la.cross(wd_k, r), la.cross(w_k, la.cross(w_k, r))))
        else:
            w_k = la.tmatvec(rot, w)
            wd_k = la.tmatvec(rot, wd)
            pdd_k = la.add(la.tmatvec(rot, la.add(pdd, la.scale(qdd[k], Z0))),
                           la.add(la.scale(2 * qd[k], la.cross(w_k, la.tmatvec(rot, Z0))),
                                  la.add(la.cross(wd_k, r), la.cross(w_k, la.cross(w_k, r)))))
        c = link.com
        pddc = la.add(pdd_k, la.add(la.cross(wd_k, c), la.cross(w_k, la.cross(w_k, c))))
        for name, value in (("w", w_k), ("wd", wd_k), ("pdd", pdd_k), ("pddc", pddc)):
            record(name, k + 1, value)
        ws.append(w_k)
        wds.append(wd_k)
        pdds.append(pdd_k)
        pddcs.append(pddc)

    tau = [None] * n
    forces: list = [None] * n  # per link: (f, mu) in its DH frame, once computed
    for k in reversed(range(n)):
        link = links[k]
        f_child = mu_child = la.ZERO3
        for c in (c for c in range(k + 1, n) if parents[c] == k):
            f_child = la.add(f_child, la.matvec(links[c].rot, forces[c][0]))
            mu_child = la.add(mu_child, la.matvec(links[c].rot, forces[c][1]))
        f = la.add(f_child, la.scale(link.mass, pddcs[k]))
        Iw = la.matvec(link.inertia, ws[k])
        mu = la.add(la.neg(la.cross(f, la.add(link.r, link.com))), mu_child)
        mu = la.add(mu, la.cross(f_child, link.com))
        mu = la.add(mu, la.add(la.matvec(link.inertia, wds[k]), la.cross(ws[k], Iw)))
        axis = la.tmatvec(link.rot, Z0)
        tau[k] = la.dot(mu if link.revolute else f, axis) + link.armature * qdd[k]
        record("f", k + 1, f)
        record("mu", k + 1, mu)
        record("tau", k + 1, tau[k])
        forces[k] = (f, mu)
    return tau


__all__ = ["DHLink", "constant_part", "dh_links", "siciliano_recursion"]
