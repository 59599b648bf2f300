"""Equations of motion by Newton–Euler (lecture notes, Advanced Robotics, Lecture 15; Craig §6.5).

The core's recursion :func:`robodyn.dynamics.rnea.rnea` is run once on closed forms
(polynomials of a :class:`~.trig_ring.TrigRing`) with symbolic ``q``, ``qd``, ``qdd``;
its ``record`` hook hands over every intermediate vector, which become the steps:

* outward, per link ``i`` in link frame ``i``: ``w_i``, ``wd_i``, ``vd_i``, ``vdc_i``
  (gravity enters as the base acceleration ``vd_0 = -g0``), then Newton and Euler,
  ``F_i = m_i vdc_i``, ``N_i = I_i wd_i + w_i x I_i w_i``;
* per point mass ``m_{i,k}`` of link ``i`` at ``c_{i,k}`` (a motor, a payload): its
  acceleration ``vdc_{i,k}`` and force ``F_{i,k} = m_{i,k} vdc_{i,k}``, which add to
  ``f_i`` and (as ``c_{i,k} x F_{i,k}``) to ``n_i``;
* inward, from the tip: ``f_i``, ``n_i`` and ``tau_i``.

``M`` is read off ``tau`` as the coefficients of ``qdd``, ``g`` is ``tau`` at
``qd = qdd = 0`` and ``C`` is formed from the Christoffel symbols of ``M``
(:func:`~.derivation.collect`). There is no second copy of the recursion here.
"""

from __future__ import annotations

from sympy import QQ

from ..dynamics.kinematics import joint_transform
from ..dynamics.rnea import rnea
from ..model.chain import REVOLUTE, Chain
from .derivation import Derivation, RawStep, finish, poly, pose_list, potential_energy, vec
from .ring.trig_ring import TrigRing

SECTION_FRAMES = "Link frames"
SECTION_OUTWARD = "Outward iteration (link i in frame i)"
SECTION_INWARD = "Inward iteration (link i in frame i)"

_OUTWARD = {
    # name: (title, text lhs, latex lhs, text formula R/P, latex formula R/P)
    "w": ("angular velocity", "w_{k}", r"\omega_{{{k}}}",
          ("R_{k}^T w_{p} + qd{k} z_{k}", "R_{k}^T w_{p}"),
          (r"R_{{{k}}}^T \omega_{{{p}}} + \dot q_{{{k}}}\, z_{{{k}}}",
           r"R_{{{k}}}^T \omega_{{{p}}}")),
    "wd": ("angular acceleration", "wd_{k}", r"\dot\omega_{{{k}}}",
           ("R_{k}^T wd_{p} + (R_{k}^T w_{p}) x qd{k} z_{k} + qdd{k} z_{k}", "R_{k}^T wd_{p}"),
           (r"R_{{{k}}}^T \dot\omega_{{{p}}} + R_{{{k}}}^T \omega_{{{p}}} \times \dot q_{{{k}}}"
            r" z_{{{k}}} + \ddot q_{{{k}}}\, z_{{{k}}}", r"R_{{{k}}}^T \dot\omega_{{{p}}}")),
    "vd": ("linear acceleration of the frame origin", "vd_{k}", r"\dot v_{{{k}}}",
           ("R_{k}^T (vd_{p} + wd_{p} x r_{k} + w_{p} x (w_{p} x r_{k}))",
            "R_{k}^T (vd_{p} + wd_{p} x r_{k} + w_{p} x (w_{p} x r_{k}))"
            " + 2 w_{k} x qd{k} z_{k} + qdd{k} z_{k}"),
           (r"R_{{{k}}}^T \left(\dot v_{{{p}}} + \dot\omega_{{{p}}} \times r_{{{k}}} + "
            r"\omega_{{{p}}} \times (\omega_{{{p}}} \times r_{{{k}}})\right)",
            r"R_{{{k}}}^T \left(\dot v_{{{p}}} + \dot\omega_{{{p}}} \times r_{{{k}}} + "
            r"\omega_{{{p}}} \times (\omega_{{{p}}} \times r_{{{k}}})\right) + 2\,\omega_{{{k}}}"
            r" \times \dot q_{{{k}}} z_{{{k}}} + \ddot q_{{{k}}}\, z_{{{k}}}")),
    "vdc": ("linear acceleration of the centre of mass", "vdc_{k}", r"\dot v_{{c{k}}}",
            ("vd_{k} + wd_{k} x c_{k} + w_{k} x (w_{k} x c_{k})",) * 2,
            (r"\dot v_{{{k}}} + \dot\omega_{{{k}}} \times \mathbf{{c}}_{{{k}}} + "
             r"\omega_{{{k}}} \times (\omega_{{{k}}} \times \mathbf{{c}}_{{{k}}})",) * 2),
    "F": ("Newton: inertial force", "F_{k}", r"F_{{{k}}}",
          ("m_{k} vdc_{k}",) * 2, (r"m_{{{k}}}\, \dot v_{{c{k}}}",) * 2),
    "N": ("Euler: inertial moment", "N_{k}", r"N_{{{k}}}",
          ("I_{k} wd_{k} + w_{k} x I_{k} w_{k}",) * 2,
          (r"I_{{{k}}} \dot\omega_{{{k}}} + \omega_{{{k}}} \times I_{{{k}}} \omega_{{{k}}}",) * 2),
}

_POINT = {
    # name: (title, text lhs, latex lhs, text formula, latex formula); k link, j point mass
    "vdp": ("point mass {j}: linear acceleration", "vdc_{k},{j}", r"\dot v_{{c{k},{j}}}",
            "vd_{k} + wd_{k} x c_{k},{j} + w_{k} x (w_{k} x c_{k},{j})",
            r"\dot v_{{{k}}} + \dot\omega_{{{k}}} \times \mathbf{{c}}_{{{k},{j}}} + "
            r"\omega_{{{k}}} \times (\omega_{{{k}}} \times \mathbf{{c}}_{{{k},{j}}})"),
    "Fp": ("point mass {j}: Newton, inertial force", "F_{k},{j}", r"F_{{{k},{j}}}",
           "m_{k},{j} vdc_{k},{j}", r"m_{{{k},{j}}}\, \dot v_{{c{k},{j}}}"),
}

_INWARD = {
    "f": ("force exerted on link {k} by link {p}", "f_{k}", r"f_{{{k}}}",
          ("R_{c} f_{c} + F_{k}", "F_{k}"),
          (r"R_{{{c}}} f_{{{c}}} + F_{{{k}}}", r"F_{{{k}}}")),
    "n": ("moment exerted on link {k} by link {p}", "n_{k}", r"n_{{{k}}}",
          ("N_{k} + R_{c} n_{c} + c_{k} x F_{k} + r_{c} x R_{c} f_{c}", "N_{k} + c_{k} x F_{k}"),
          (r"N_{{{k}}} + R_{{{c}}} n_{{{c}}} + \mathbf{{c}}_{{{k}}} \times F_{{{k}}} + "
           r"r_{{{c}}} \times R_{{{c}}} f_{{{c}}}",
           r"N_{{{k}}} + \mathbf{{c}}_{{{k}}} \times F_{{{k}}}")),
    "tau": ("joint torque (without friction)", "tau{k}", r"\tau_{{{k}}}",
            ("z_{k}^T n_{k}", "z_{k}^T f_{k}"),
            (r"z_{{{k}}}^T n_{{{k}}}", r"z_{{{k}}}^T f_{{{k}}}")),
}


def _with_point_masses(name: str, k: int, link, formula: str, latex: str) -> tuple[str, str]:
    """The inward ``f_k`` / ``n_k`` formula with link ``k``'s point masses' terms added."""
    for j in range(1, len(link.point_masses) + 1):
        if name == "f":
            formula += f" + F_{k},{j}"
            latex += rf" + F_{{{k},{j}}}"
        else:
            formula += f" + c_{k},{j} x F_{k},{j}"
            latex += rf" + \mathbf{{c}}_{{{k},{j}}} \times F_{{{k},{j}}}"
    return formula, latex


def newton_euler(chain: Chain, ring: TrigRing) -> Derivation:
    """Run the core's RNEA on ``chain``'s closed forms in ``ring``; see the module."""
    n = chain.dof
    chain_r = ring.chain(chain)
    q_args, qd_args, qdd_args = ring.joint_arguments()
    ops = ring.ops()
    records: list[tuple[str, int, object]] = []
    tau_s = rnea(chain_r, q_args, qd_args, qdd_args, ops,
                 record=lambda name, i, value: records.append((name, i, value)))
    tau = [poly(t, ring) for t in tau_s]

    steps: list[RawStep] = []
    for i, link in enumerate(chain_r.links):
        rot, origin = joint_transform(link.joint, q_args[i], ops)
        k = i + 1
        steps.append(RawStep(
            SECTION_FRAMES, f"Frame {k} in frame {k - 1}: rotation", f"R_{k}", f"R_{{{k}}}",
            [list(vec(row, ring)) for row in rot]))
        steps.append(RawStep(
            SECTION_FRAMES, f"Frame {k} in frame {k - 1}: origin", f"r_{k}", f"r_{{{k}}}",
            vec(origin, ring)))
    for name, i, value in records:
        if name in _POINT:
            j, value = value
            title, lhs, latex_lhs, formula, latex_formula = (
                x.format(k=i, j=j + 1) for x in _POINT[name])
            steps.append(RawStep(SECTION_OUTWARD, f"Link {i}: {title}", lhs, latex_lhs,
                                 vec(value, ring), formula, latex_formula))
            continue
        revolute = chain.links[i - 1].joint.type == REVOLUTE
        table = _OUTWARD if name in _OUTWARD else _INWARD
        title, lhs, latex_lhs, formulas, latex_formulas = table[name]
        fmt = dict(k=i, p=i - 1, c=i + 1)
        if name in ("f", "n"):
            which = 1 if i == n else 0     # the last link has no child pushing on it
        else:
            which = 0 if revolute else 1
        section = SECTION_OUTWARD if table is _OUTWARD else SECTION_INWARD
        value = poly(value, ring) if name == "tau" else vec(value, ring)
        formula, latex_formula = formulas[which].format(**fmt), latex_formulas[which].format(**fmt)
        if name in ("f", "n"):
            formula, latex_formula = _with_point_masses(name, i, chain.links[i - 1],
                                                        formula, latex_formula)
        steps.append(RawStep(
            section, f"Link {i}: {title.format(**fmt)}", lhs.format(**fmt),
            latex_lhs.format(**fmt), value, formula, latex_formula))

    poses = pose_list(chain_r, q_args, ring)
    U_links, _ = potential_energy(ring, chain_r, poses)
    d = Derivation(method="newton-euler", ring=ring, chain=chain, tau=tau, steps=steps)
    finish(d, chain_r, q_args)
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    d.kinetic = ring.reduce(sum((d.M[i][j] * qd[i] * qd[j] for i in range(n) for j in range(n)),
                                ring.zero) * QQ(1, 2))
    d.potential = ring.reduce(sum(U_links, ring.zero))
    return d
