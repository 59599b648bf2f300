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

On a tree (``chain.parents``) every step reads from the link's parent instead of the link
before (titled ``Link 3 from link 1``), and the inward ``f_i``, ``n_i`` sum the forces of
all the link's children (``Link 1, from links 2 and 3``); a link without children starts
from ``f = n = 0``.

``M`` is read off ``tau`` as the coefficients of ``qdd``, ``g`` is ``tau`` at
``qd = qdd = 0`` and ``C`` is formed from the Christoffel symbols of ``M``
(:func:`~.derivation.collect`).

A ball or free joint moves its link by the twist ``S v`` in the link frame (its angular
velocity ``w_J`` and, for a free joint, its linear velocity ``v_J``: the body twist,
Pinocchio's layout; ``S`` constant there, no bias), which adds ``w_J`` to ``w_k``,
``(R_k^T w_p) x w_J + wd_J`` to ``wd_k`` and ``vd_J + (w_k + R_k^T w_p) x v_J`` to
``vd_k``; its generalised forces are ``S^T (n_k, f_k)``, a free joint's ``(f_k, n_k)``
and a ball joint's ``n_k`` (Featherstone, *Rigid Body Dynamics Algorithms*, §5.3;
:func:`robodyn.dynamics.rnea.outward_step`). ``C`` then comes from the Christoffel
symbols of ``M`` in the frame of these quasi-velocities (:func:`.derivation.christoffel`).

That is the presentation of a modified-DH (Craig) or URDF model, whose link frames are
the core's. A standard-DH model's steps are written as Siciliano §7.5 writes them
instead, in the DH frames (:func:`.dh_frames.siciliano_recursion`: ``omega_i^i``,
``domega_i^i``, ``ddp_i^i``, ``ddp_Ci^i`` forward; ``f_i^i``, ``mu_i^i``, ``tau_i``
backward, with ``R_i^{i-1}`` and ``r_{i-1,i}^i``); the equations of motion still come
from the core's recursion (a test proves that both give the same ``tau``).
"""

from __future__ import annotations

from sympy import QQ

from ..dynamics.kinematics import joint_transform
from ..dynamics.rnea import rnea
from ..model.chain import REVOLUTE, Chain
from .derivation import Derivation, RawStep, finish, poly, pose_list, potential_energy, vec
from .dh_frames import dh_links, siciliano_recursion
from .ring.coordinates import coordinate_tex
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


#: The outward steps and the torque of a ball or free joint (its relative twist ``S v``
#: in link frame ``k``, ``c_J = 0``; :func:`robodyn.dynamics.rnea.outward_step`): name ->
#: (text, LaTeX) with ``{wJ}``, ``{wdJ}``, ``{vJ}``, ``{vdJ}`` the joint's velocity and
#: acceleration vectors, per joint type where they differ.
_QUASI = {
    "w": ("R_{k}^T w_{p} + {wJ}", r"R_{{{k}}}^T \omega_{{{p}}} + {wJ}"),
    "wd": ("R_{k}^T wd_{p} + (R_{k}^T w_{p}) x {wJ} + {wdJ}",
           r"R_{{{k}}}^T \dot\omega_{{{p}}} + (R_{{{k}}}^T \omega_{{{p}}}) \times {wJ} + {wdJ}"),
    "vd": {"spherical": _OUTWARD["vd"][3][0],
           "free": _OUTWARD["vd"][3][0] + " + {vdJ} + (w_{k} + R_{k}^T w_{p}) x {vJ}"},
    "vd_tex": {"spherical": _OUTWARD["vd"][4][0],
               "free": _OUTWARD["vd"][4][0] + r" + {vdJ} + (\omega_{{{k}}} + R_{{{k}}}^T "
               r"\omega_{{{p}}}) \times {vJ}"},
    "tau": {"spherical": ("n_{k}", r"n_{{{k}}}"), "free": ("[f_{k}; n_{k}]",
                                                            r"\begin{{bmatrix}} f_{{{k}}} \\ "
                                                            r"n_{{{k}}}\end{{bmatrix}}")},
}
_QUASI_TAU_TITLE = {
    "spherical": "joint torque S^T (n, f) = n (ball joint, link frame; without friction)",
    "free": "joint force and moment S^T (n, f) = (f, n) (free joint, link frame)",
}


def _quasi_formula(name: str, kind: str, fmt: dict, coordinates) -> tuple[str, str]:
    """The formula of step ``name`` for a ball or free joint of ``coordinates``
    (:class:`~.ring.coordinates.JointCoordinates`), text and LaTeX."""
    n = len(coordinates.qd)
    angular = slice(n - 3, n)  # a free joint's (v, w), a ball joint's w

    def vector(symbols, tex: bool) -> str:
        if tex:
            return r"\left[" + ", ".join(coordinate_tex(str(x)) or str(x)
                                         for x in symbols) + r"\right]^T"
        return "[" + ", ".join(str(x) for x in symbols) + "]"

    names = {}
    for tex in (False, True):
        names[tex] = dict(fmt, wJ=vector(coordinates.qd[angular], tex),
                          wdJ=vector(coordinates.qdd[angular], tex),
                          vJ=vector(coordinates.qd[:3], tex),
                          vdJ=vector(coordinates.qdd[:3], tex))
    if name == "tau":
        text, latex = _QUASI["tau"][kind]
    elif name == "vd":
        text, latex = _QUASI["vd"][kind], _QUASI["vd_tex"][kind]
    else:
        text, latex = _QUASI[name]
    return text.format(**names[False]), latex.format(**names[True])


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


#: Siciliano §7.5 in DH frames (standard DH): name -> (title, text lhs, LaTeX lhs, text
#: formula R/P, LaTeX formula R/P); ``{k}`` the link, ``{p}`` = k - 1, ``{c}`` = k + 1.
_SICILIANO = {
    "w": ("angular velocity", "w_{k}", r"\omega_{{{k}}}^{{{k}}}",
          ("R_{k}^T (w_{p} + qd{k} z_0)", "R_{k}^T w_{p}"),
          (r"(R_{{{k}}}^{{{p}}})^T \left(\omega_{{{p}}}^{{{p}}} + \dot q_{{{k}}}\, z_0\right)",
           r"(R_{{{k}}}^{{{p}}})^T \omega_{{{p}}}^{{{p}}}")),
    "wd": ("angular acceleration", "wd_{k}", r"\dot\omega_{{{k}}}^{{{k}}}",
           ("R_{k}^T (wd_{p} + qdd{k} z_0 + qd{k} w_{p} x z_0)", "R_{k}^T wd_{p}"),
           (r"(R_{{{k}}}^{{{p}}})^T \left(\dot\omega_{{{p}}}^{{{p}}} + \ddot q_{{{k}}}\, z_0"
            r" + \dot q_{{{k}}}\, \omega_{{{p}}}^{{{p}}} \times z_0\right)",
            r"(R_{{{k}}}^{{{p}}})^T \dot\omega_{{{p}}}^{{{p}}}")),
    "pdd": ("linear acceleration of the origin of frame {k}", "pdd_{k}", r"\ddot p_{{{k}}}^{{{k}}}",
            ("R_{k}^T pdd_{p} + wd_{k} x r_{p}{k} + w_{k} x (w_{k} x r_{p}{k})",
             "R_{k}^T (pdd_{p} + qdd{k} z_0) + 2 qd{k} w_{k} x R_{k}^T z_0 + wd_{k} x r_{p}{k}"
             " + w_{k} x (w_{k} x r_{p}{k})"),
            (r"(R_{{{k}}}^{{{p}}})^T \ddot p_{{{p}}}^{{{p}}} + \dot\omega_{{{k}}}^{{{k}}} \times "
             r"r_{{{p},{k}}}^{{{k}}} + \omega_{{{k}}}^{{{k}}} \times (\omega_{{{k}}}^{{{k}}}"
             r" \times r_{{{p},{k}}}^{{{k}}})",
             r"(R_{{{k}}}^{{{p}}})^T (\ddot p_{{{p}}}^{{{p}}} + \ddot q_{{{k}}}\, z_0) + 2\dot "
             r"q_{{{k}}}\, \omega_{{{k}}}^{{{k}}} \times (R_{{{k}}}^{{{p}}})^T z_0 + \dot\omega"
             r"_{{{k}}}^{{{k}}} \times r_{{{p},{k}}}^{{{k}}} + \omega_{{{k}}}^{{{k}}} \times "
             r"(\omega_{{{k}}}^{{{k}}} \times r_{{{p},{k}}}^{{{k}}})")),
    "pddc": ("linear acceleration of the centre of mass", "pddc_{k}",
             r"\ddot p_{{C_{k}}}^{{{k}}}",
             ("pdd_{k} + wd_{k} x c_{k} + w_{k} x (w_{k} x c_{k})",) * 2,
             (r"\ddot p_{{{k}}}^{{{k}}} + \dot\omega_{{{k}}}^{{{k}}} \times \mathbf{{c}}_{{{k}}}"
              r" + \omega_{{{k}}}^{{{k}}} \times (\omega_{{{k}}}^{{{k}}} \times "
              r"\mathbf{{c}}_{{{k}}})",) * 2),
    "f": ("force exerted on link {k} by link {p}", "f_{k}", r"f_{{{k}}}^{{{k}}}",
          ("R_{c} f_{c} + m_{k} pddc_{k}", "m_{k} pddc_{k}"),
          (r"R_{{{c}}}^{{{k}}} f_{{{c}}}^{{{c}}} + m_{{{k}}}\, \ddot p_{{C_{k}}}^{{{k}}}",
           r"m_{{{k}}}\, \ddot p_{{C_{k}}}^{{{k}}}")),
    "mu": ("moment exerted on link {k} by link {p} (about the origin of frame {p})",
           "mu_{k}", r"\mu_{{{k}}}^{{{k}}}",
           ("-f_{k} x (r_{p}{k} + c_{k}) + R_{c} mu_{c} + R_{c} f_{c} x c_{k} + I_{k} wd_{k}"
            " + w_{k} x I_{k} w_{k}",
            "-f_{k} x (r_{p}{k} + c_{k}) + I_{k} wd_{k} + w_{k} x I_{k} w_{k}"),
           (r"-f_{{{k}}}^{{{k}}} \times (r_{{{p},{k}}}^{{{k}}} + \mathbf{{c}}_{{{k}}}) + "
            r"R_{{{c}}}^{{{k}}} \mu_{{{c}}}^{{{c}}} + R_{{{c}}}^{{{k}}} f_{{{c}}}^{{{c}}} \times "
            r"\mathbf{{c}}_{{{k}}} + \mathbf{{I}}_{{{k}}} \dot\omega_{{{k}}}^{{{k}}} + "
            r"\omega_{{{k}}}^{{{k}}} \times \mathbf{{I}}_{{{k}}} \omega_{{{k}}}^{{{k}}}",
            r"-f_{{{k}}}^{{{k}}} \times (r_{{{p},{k}}}^{{{k}}} + \mathbf{{c}}_{{{k}}}) + "
            r"\mathbf{{I}}_{{{k}}} \dot\omega_{{{k}}}^{{{k}}} + \omega_{{{k}}}^{{{k}}} \times "
            r"\mathbf{{I}}_{{{k}}} \omega_{{{k}}}^{{{k}}}")),
    "tau": ("joint torque (without friction)", "tau{k}", r"\tau_{{{k}}}",
            ("mu_{k}^T R_{k}^T z_0", "f_{k}^T R_{k}^T z_0"),
            (r"(\mu_{{{k}}}^{{{k}}})^T (R_{{{k}}}^{{{p}}})^T z_0",
             r"(f_{{{k}}}^{{{k}}})^T (R_{{{k}}}^{{{p}}})^T z_0")),
}

SECTION_FORWARD = "Forward recursion (Siciliano 7.5: link i in DH frame i)"
SECTION_BACKWARD = "Backward recursion (Siciliano 7.5: link i in DH frame i)"


def _tree_fmt(chain: Chain, i: int) -> tuple[dict, list[int]]:
    """The names of link ``i`` (1-based) in the formulas: ``k`` itself, ``p`` its parent
    (0: the base), ``c`` its child; and all its children (1-based; a tree's link may have
    several, a chain's has one, ``i + 1``, or none)."""
    children = [c + 1 for c in chain.children(i - 1)]
    return dict(k=i, p=chain.parent(i - 1) + 1, c=children[0] if children else i + 1), children


def _with_children(template: str, fmt: dict, children: list[int]) -> str:
    """``template`` formatted with ``fmt``; where a link has several children, each term
    (split at `` + ``) naming the child ``{c}`` is written once per child, summed."""
    if len(children) <= 1:
        return template.format(**fmt)
    terms = []
    for term in template.split(" + "):
        if "{c}" in term:
            terms += [term.format(**dict(fmt, c=c)) for c in children]
        else:
            terms.append(term.format(**fmt))
    return " + ".join(terms)


def _tree_title(chain: Chain, i: int, outward: bool, fmt: dict, children: list[int]) -> str:
    """``Link i`` and, in a tree, where its step comes from: ``Link 3 from link 1`` (the
    parent, outward), ``Link 1, from links 2 and 3`` (the children, inward)."""
    if chain.is_serial:
        return f"Link {i}"
    if outward:
        return f"Link {i} from " + (f"link {fmt['p']}" if fmt["p"] else "the base")
    if not children:
        return f"Link {i} (no child)"
    if len(children) == 1:
        return f"Link {i}, from link {children[0]}"
    return (f"Link {i}, from links {', '.join(map(str, children[:-1]))} and "
            f"{children[-1]}")


def newton_euler(chain: Chain, ring: TrigRing, standard_dh: tuple = ()) -> Derivation:
    """Run the core's RNEA on ``chain``'s closed forms in ``ring``; see the module.
    ``standard_dh``: the rows of the model's standard DH table, if it has one: the steps
    are then Siciliano's recursion in the DH frames (:mod:`.dh_frames`)."""
    n = ring.dof  # velocity coordinates: the joints, or more with ball and free joints
    chain_r = ring.chain(chain)
    q_args, qd_args, qdd_args = ring.joint_arguments()
    ops = ring.ops()
    records: list[tuple[str, int, object]] = []
    tau_s = rnea(chain_r, q_args, qd_args, qdd_args, ops,
                 record=lambda name, i, value: records.append((name, i, value)))
    tau = [poly(t, ring) for t in tau_s]

    if standard_dh:
        steps = _siciliano_steps(chain, chain_r, ring, standard_dh, qd_args, qdd_args)
    else:
        steps = _craig_steps(chain, chain_r, ring, records, q_args, ops)

    poses = pose_list(chain_r, q_args, ring)
    U_links, _ = potential_energy(ring, chain_r, poses)
    d = Derivation(method="newton-euler", ring=ring, chain=chain, tau=tau, steps=steps)
    finish(d, chain_r, q_args)
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    d.kinetic = ring.reduce(sum((d.M[i][j] * qd[i] * qd[j] for i in range(n) for j in range(n)),
                                ring.zero) * QQ(1, 2))
    d.potential = ring.reduce(sum(U_links, ring.zero))
    return d


def _siciliano_steps(chain, chain_r, ring, rows, qd_args, qdd_args) -> list[RawStep]:
    """The steps of Siciliano's recursion in the DH frames (:mod:`.dh_frames`)."""
    links = dh_links(ring, chain, rows)
    steps: list[RawStep] = []
    for k, link in enumerate(links, start=1):
        p = chain.parent(k - 1) + 1  # the frame A_k is given in (k - 1 in a chain)
        steps.append(RawStep(
            SECTION_FRAMES, f"Frame {k} in frame {p}: rotation (of A_{k})", f"R_{k}",
            f"R_{{{k}}}^{{{p}}}", [list(vec(row, ring)) for row in link.rot]))
        steps.append(RawStep(
            SECTION_FRAMES, f"Origin of frame {k} seen from frame {p}, in frame {k}",
            f"r_{p}{k}", f"r_{{{p},{k}}}^{{{k}}}", vec(link.r, ring),
            f"R_{k}^T o_{k}", rf"(R_{{{k}}}^{{{p}}})^T o_{{{k}}}^{{{p}}}"))
    records: list[tuple[str, int, object]] = []
    siciliano_recursion(links, chain_r.gravity, qd_args, qdd_args,
                        lambda name, i, value: records.append((name, i, value)),
                        parents=chain.parent_indices)
    for name, i, value in records:
        title, lhs, latex_lhs, formulas, latex_formulas = _SICILIANO[name]
        fmt, children = _tree_fmt(chain, i)
        if name in ("f", "mu"):
            which = 0 if children else 1
        else:
            which = 0 if links[i - 1].revolute else 1
        section = SECTION_BACKWARD if name in ("f", "mu", "tau") else SECTION_FORWARD
        value = poly(value, ring) if name == "tau" else vec(value, ring)
        if name == "tau" and chain.links[i - 1].joint.type != REVOLUTE:
            title = "joint force (prismatic joint; without friction)"
        head = _tree_title(chain, i, section == SECTION_FORWARD, fmt, children)
        steps.append(RawStep(
            section, f"{head}: {title.format(**fmt)}", lhs.format(**fmt),
            latex_lhs.format(**fmt), value, _with_children(formulas[which], fmt, children),
            _with_children(latex_formulas[which], fmt, children)))
    return steps


def _craig_steps(chain, chain_r, ring, records, q_args, ops) -> list[RawStep]:
    """The steps of the core's recursion in its link frames (Craig §6.5, lecture 15)."""
    steps: list[RawStep] = []
    q_args = chain_r.per_joint(q_args, velocity=False)
    for i, link in enumerate(chain_r.links):
        rot, origin = joint_transform(link.joint, q_args[i], ops)
        k, p = i + 1, chain.parent(i) + 1  # p: the parent's frame (k - 1 in a chain)
        steps.append(RawStep(
            SECTION_FRAMES, f"Frame {k} in frame {p}: rotation", f"R_{k}", f"R_{{{k}}}",
            [list(vec(row, ring)) for row in rot]))
        steps.append(RawStep(
            SECTION_FRAMES, f"Frame {k} in frame {p}: origin", f"r_{k}", f"r_{{{k}}}",
            vec(origin, ring)))
    for name, i, value in records:
        if name in _POINT:
            j, value = value
            title, lhs, latex_lhs, formula, latex_formula = (
                x.format(k=i, j=j + 1) for x in _POINT[name])
            fmt, children = _tree_fmt(chain, i)
            head = _tree_title(chain, i, True, fmt, children)
            steps.append(RawStep(SECTION_OUTWARD, f"{head}: {title}", lhs, latex_lhs,
                                 vec(value, ring), formula, latex_formula))
            continue
        revolute = chain.links[i - 1].joint.type == REVOLUTE
        table = _OUTWARD if name in _OUTWARD else _INWARD
        title, lhs, latex_lhs, formulas, latex_formulas = table[name]
        fmt, children = _tree_fmt(chain, i)
        if name in ("f", "n"):
            which = 0 if children else 1     # a link without children: nothing pushes on it
        else:
            which = 0 if revolute else 1
        section = SECTION_OUTWARD if table is _OUTWARD else SECTION_INWARD
        kind = chain.links[i - 1].joint.type
        multi = not chain.links[i - 1].joint.model.single
        value = vec(value, ring) if name != "tau" or multi else poly(value, ring)
        if name == "tau" and kind != REVOLUTE:
            title = _QUASI_TAU_TITLE.get(kind, "joint force (prismatic joint; without friction)")
        formula = _with_children(formulas[which], fmt, children)
        latex_formula = _with_children(latex_formulas[which], fmt, children)
        if multi and name in _QUASI:  # a ball or free joint: its twist S v in link frame k
            formula, latex_formula = _quasi_formula(name, kind, fmt, ring.coordinates[i - 1])
        if name in ("f", "n"):
            formula, latex_formula = _with_point_masses(name, i, chain.links[i - 1],
                                                        formula, latex_formula)
        head = _tree_title(chain, i, table is _OUTWARD, fmt, children)
        steps.append(RawStep(
            section, f"{head}: {title.format(**fmt)}", lhs.format(**fmt),
            latex_lhs.format(**fmt), value, formula, latex_formula))
    return steps
