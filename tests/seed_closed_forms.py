"""Closed-form dynamics of the seed models, written by hand from the seeds.

Each function below returns the equations of motion of one built-in model
(``src/robodyn/models/<name>.yaml``) as exact SymPy expressions,

    tau = M(q) qdd + C(q, qd) qd + g(q) + friction(qd),

taken from the course material in ``shared/seeds`` (the file and the section are
cited in each function). Where a seed slips, the closed form follows the physics and
a comment says what the seed printed and what is right.

Conventions: joint variables ``q1, q2, ...``, rates ``qd1, ...``, accelerations
``qdd1, ...``; parameters are plain SymPy symbols named as in the model file (the
names of the seeds); numbers are exact (``Rational``), never floats. ``C`` is the
Christoffel-form matrix (``C_ij = sum_k c_ijk qd_k``, the one robodyn computes) where
the seed gives it and ``None`` where it does not; ``Cqd`` is always given.

This module holds no tests; ``tests/test_seed_examples.py`` uses it, and symbolic
tests may import it too.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import sympy as sp

__all__ = [
    "ClosedForm",
    "CLOSED_FORMS",
    "christoffel_matrix",
    "joint_symbols",
    "params",
    "cartesian_2p",
    "pendulum",
    "planar_2r",
    "planar_2r_dh",
    "planar_2r_endpoint",
    "planar_2r_point_mass",
    "planar_3r",
    "rp_arm",
]


@dataclass(frozen=True)
class ClosedForm:
    """Hand-written equations of motion of one model.

    ``M`` is (n, n); ``Cqd``, ``g`` and ``friction`` are (n, 1) column matrices;
    ``C`` is (n, n) or ``None``. ``params`` are the parameter symbols that appear.
    """

    model: str
    q: tuple[sp.Symbol, ...]
    qd: tuple[sp.Symbol, ...]
    qdd: tuple[sp.Symbol, ...]
    M: sp.Matrix
    Cqd: sp.Matrix
    C: sp.Matrix | None
    g: sp.Matrix
    friction: sp.Matrix
    source: str

    @property
    def dof(self) -> int:
        return len(self.q)

    @property
    def tau(self) -> sp.Matrix:
        """Inverse dynamics ``M qdd + C qd + g + friction`` as an (n, 1) matrix."""
        return self.M * sp.Matrix(self.qdd) + self.Cqd + self.g + self.friction

    @property
    def params(self) -> tuple[sp.Symbol, ...]:
        """The parameter symbols (everything that is not a joint variable), sorted."""
        joint = set(self.q) | set(self.qd) | set(self.qdd)
        free: set[sp.Symbol] = set()
        for expr in (self.M, self.Cqd, self.g, self.friction):
            free |= expr.free_symbols
        if self.C is not None:
            free |= self.C.free_symbols
        return tuple(sorted(free - joint, key=lambda s: s.name))


def joint_symbols(n: int) -> tuple[tuple[sp.Symbol, ...], ...]:
    """``(q1..qn), (qd1..qdn), (qdd1..qddn)`` as plain SymPy symbols."""
    q = tuple(sp.Symbol(f"q{i}") for i in range(1, n + 1))
    qd = tuple(sp.Symbol(f"qd{i}") for i in range(1, n + 1))
    qdd = tuple(sp.Symbol(f"qdd{i}") for i in range(1, n + 1))
    return q, qd, qdd


def params(names: str) -> tuple[sp.Symbol, ...]:
    """Plain SymPy symbols (no assumptions, as robodyn makes them) for ``names``."""
    return tuple(sp.Symbol(n) for n in names.split())


def christoffel_matrix(M: sp.Matrix, q, qd) -> sp.Matrix:
    """The Christoffel-form C of ``M``: ``C_ij = sum_k c_ijk qd_k`` with
    ``c_ijk = 1/2 (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i)`` (seed 004, Section 7.4;
    seed 002, "Equations of motion in matrix form")."""
    n = M.shape[0]
    C = sp.zeros(n, n)
    for i in range(n):
        for j in range(n):
            C[i, j] = sum(
                sp.Rational(1, 2)
                * (M[i, j].diff(q[k]) + M[i, k].diff(q[j]) - M[j, k].diff(q[i]))
                * qd[k]
                for k in range(n)
            )
    return C


def _col(*entries) -> sp.Matrix:
    return sp.Matrix(entries)


def _two_link_C(h: sp.Expr, qd) -> sp.Matrix:
    """Seed 003: ``C = [[-h qd2, -h (qd1 + qd2)], [h qd1, 0]]`` for a planar 2R arm whose
    only configuration dependence is ``M11 = a + 2 h' cos q2``, ``M12 = b + h' cos q2``
    with ``h = h' sin q2`` (the Christoffel C, which is unique given M)."""
    qd1, qd2 = qd
    return sp.Matrix([[-h * qd2, -h * (qd1 + qd2)], [h * qd1, 0]])


def pendulum() -> ClosedForm:
    """Seed 002 (Section 7.1, "An example": the 1-D manipulator),
    ``I th'' + F th' + m g l sin(th) = tau`` with T = 1/2 I th'^2 and
    U = m g l (1 - cos th), th = 0 hanging down.

    The model file stores the inertia about the centre of mass, ``Izz``; the seed's I
    is the inertia about the joint axis, I = Izz + m l^2 (parallel-axis theorem).

    Seed 002 slips elsewhere (physics followed wherever robodyn uses them):
    * "Static friction: -F_s sign(q)" -> -F_s sign(qd) (the boxed model below it has
      sign(qd)).
    * In the exercise, h_ijk = db_ij/dq_k - 1/2 db_ik/dq_j -> db_ij/dq_k - 1/2 db_jk/dq_i
      (as defined earlier in the same notes; the worked h_111..h_122 are right).
    """
    (q1,), (qd1,), qdd = joint_symbols(1)
    m, l, Izz, F, g = params("m l Izz F g")
    I = Izz + m * l**2  # the seed's I: inertia about the joint axis
    return ClosedForm(
        model="pendulum",
        q=(q1,),
        qd=(qd1,),
        qdd=qdd,
        M=sp.Matrix([[I]]),
        Cqd=_col(0),
        C=sp.zeros(1, 1),
        g=_col(m * g * l * sp.sin(q1)),
        friction=_col(F * qd1),  # seed: xi = tau - F th'  (viscous friction)
        source="seed 002, Section 7.1, pendulum example",
    )


def rp_arm() -> ClosedForm:
    """Seed 000 (Lecture 15), example 1: RP arm by Lagrange-Euler; q1 = th1, q2 = d2.

    K = 1/2 (m1 l1^2 + Izz1 + Izz2 + m2 d2^2) th1'^2 + 1/2 m2 d2'^2,
    U = m1 l1 g sin th1 + m2 g d2 sin th1 (+ constant references),
    M = [[m1 l1^2 + Izz1 + Izz2 + m2 d2^2, 0], [0, m2]],
    V = [2 m2 d2 th1' d2', -m2 d2 th1'^2], G = [(m1 l1 + m2 d2) g cos th1, m2 g sin th1].

    The seed's G is consistent with its U (dU/dth1, dU/dd2); its constant reference
    terms m1 l1 g and m2 g d2max drop out of G (the lecture's remark that without them
    "no torque is required" at the horizontal is wrong, but it does not change G).

    Seed slips, physics followed:
    * tau1 is dictated as "... + 2 m2 d2 theta1 dot theta2 dot ..."; there is no theta2:
      the Coriolis term is 2 m2 d2 th1' d2' (as the lecture's V matrix then says).
    * dU/dth is first dictated as "g (m1 l1 + m2 l2) cos theta1"; it is
      (m1 l1 + m2 d2) g cos th1 (the lecturer corrects himself: "there is a d2 here").
    """
    q, qd, qdd = joint_symbols(2)
    th1, d2 = q
    th1d, d2d = qd
    m1, l1, Izz1, Izz2, m2, g = params("m1 l1 Izz1 Izz2 m2 g")
    M = sp.Matrix([[m1 * l1**2 + Izz1 + Izz2 + m2 * d2**2, 0], [0, m2]])
    # Christoffel C of M (M11 depends on d2 only): c112 = c121 = m2 d2, c211 = -m2 d2.
    C = sp.Matrix([[m2 * d2 * d2d, m2 * d2 * th1d], [-m2 * d2 * th1d, 0]])
    return ClosedForm(
        model="rp-arm",
        q=q,
        qd=qd,
        qdd=qdd,
        M=M,
        Cqd=_col(2 * m2 * d2 * th1d * d2d, -m2 * d2 * th1d**2),
        C=C,
        g=_col((m1 * l1 + m2 * d2) * g * sp.cos(th1), m2 * g * sp.sin(th1)),
        friction=sp.zeros(2, 1),
        source="seed 000, Lecture 15, example 1 (RP arm, Lagrange-Euler)",
    )


def planar_2r() -> ClosedForm:
    """Seed 003, 2-DOF planar R-R arm: M (M11, M12, M22), C with h = m2 l1 c2 sin q2,
    and g as printed (equations and the numpy/C++/Java/MATLAB reference code agree)."""
    q, qd, qdd = joint_symbols(2)
    q1, q2 = q
    qd1, qd2 = qd
    m1, m2, l1, c1, c2, I1, I2, g = params("m1 m2 l1 c1 c2 I1 I2 g")
    M11 = I1 + I2 + m1 * c1**2 + m2 * (l1**2 + c2**2 + 2 * l1 * c2 * sp.cos(q2))
    M12 = I2 + m2 * (c2**2 + l1 * c2 * sp.cos(q2))
    M22 = I2 + m2 * c2**2
    h = m2 * l1 * c2 * sp.sin(q2)
    C = _two_link_C(h, qd)
    return ClosedForm(
        model="planar-2r",
        q=q,
        qd=qd,
        qdd=qdd,
        M=sp.Matrix([[M11, M12], [M12, M22]]),
        Cqd=_col(-h * qd2 * (2 * qd1 + qd2), h * qd1**2),  # = C qd
        C=C,
        g=_col(
            (m1 * c1 + m2 * l1) * g * sp.cos(q1) + m2 * c2 * g * sp.cos(q1 + q2),
            m2 * c2 * g * sp.cos(q1 + q2),
        ),
        friction=sp.zeros(2, 1),
        source="seed 003, 2-DOF planar R-R arm (M, C, g)",
    )


def planar_2r_point_mass() -> ClosedForm:
    """Seed 000 (Lecture 15), example 2: planar 2R, point masses m1, m2 at the link tips
    l1, l2, Newton-Euler in Craig's frames; the torques collected at the end:

    tau1 = m2 l2^2 (th1'' + th2'') + m2 l1 l2 c2 (2 th1'' + th2'') + (m1 + m2) l1^2 th1''
           - m2 l1 l2 s2 th2'^2 - 2 m2 l1 l2 s2 th1' th2' + m2 l2 g c12 + (m1 + m2) l1 g c1
    tau2 = m2 l1 l2 c2 th1'' + m2 l1 l2 s2 th1'^2 + m2 l2 g c12 + m2 l2^2 (th1'' + th2'')

    Seed slips, physics followed:
    * final tau1: "M2 L2 g sin 1 2" -> m2 l2 g cos(th1 + th2) (the inward iteration n_1
      and tau2 have c12; the potential m2 g l2 s12 gives c12).
    * final tau1: "M2 L1 L2 sin 2 theta 2 squared theta 2 dot squared" -> -m2 l1 l2 s2
      th2'^2 (the centrifugal term of joint 2's rate).
    * f_2 (second row) "m2 l2 theta1 double dot c2" -> m2 l1 th1'' c2 (from the
      acceleration of frame 2, which carries l1).
    * f_1^1 (inward): "m2 l1 s2 theta 1" -> m2 l1 s2 th1'^2 and "plus m1 l1 theta1 dot
      square" -> -m1 l1 th1'^2 (centripetal acceleration of the point mass m1).
    """
    q, qd, qdd = joint_symbols(2)
    q1, q2 = q
    qd1, qd2 = qd
    m1, m2, l1, l2, g = params("m1 m2 l1 l2 g")
    c2, s2 = sp.cos(q2), sp.sin(q2)
    M11 = m2 * l2**2 + 2 * m2 * l1 * l2 * c2 + (m1 + m2) * l1**2
    M12 = m2 * l2**2 + m2 * l1 * l2 * c2
    M22 = m2 * l2**2
    h = m2 * l1 * l2 * s2
    return ClosedForm(
        model="planar-2r-point-mass",
        q=q,
        qd=qd,
        qdd=qdd,
        M=sp.Matrix([[M11, M12], [M12, M22]]),
        Cqd=_col(
            -m2 * l1 * l2 * s2 * qd2**2 - 2 * m2 * l1 * l2 * s2 * qd1 * qd2,
            m2 * l1 * l2 * s2 * qd1**2,
        ),
        # Not printed in the lecture (it gives V only); the 2R structure of seed 003
        # with h = m2 l1 l2 sin q2 is the Christoffel C of this M.
        C=_two_link_C(h, qd),
        g=_col(
            m2 * l2 * g * sp.cos(q1 + q2) + (m1 + m2) * l1 * g * sp.cos(q1),
            m2 * l2 * g * sp.cos(q1 + q2),
        ),
        friction=sp.zeros(2, 1),
        source="seed 000, Lecture 15, example 2 (2R point masses, Newton-Euler)",
    )


def planar_2r_dh() -> ClosedForm:
    """Seed 004 (Siciliano Section 7.4), two-link planar arm: B(q), C with the seed's
    h = -ml2 a1 l2 sin q2, and g (g0 = [0, -g, 0]).

    B = [[ml1 l1^2 + ml2 (a1^2 + l2^2 + 2 a1 l2 c2) + Il1 + Il2, ml2 (a1 l2 c2 + l2^2) + Il2],
         [ml2 (a1 l2 c2 + l2^2) + Il2, ml2 l2^2 + Il2]]
    C = [[h qd2, h (qd1 + qd2)], [-h qd1, 0]]
    g = [ml1 g l1 c1 + ml2 g (a1 c1 + l2 c12), ml2 g l2 c12]

    Seed slips, physics followed:
    * C122 is worked out as 1/2(db12/dq2 + db12/dq2 - db22/dq2) "= 0"; the last term is
      db22/dq1 and C122 = db12/dq2 = -ml2 a1 l2 s2 = h, as the final C (C12 = h qd1 + h
      qd2) uses.
    * N = B' - 2C is printed [[0, -2h th2' - h th2'], [2h th2' + h th2', 0]]; it is
      [[0, -2h th1' - h th2'], [2h th1' + h th2', 0]] (still skew-symmetric).
    * Equation I mixes names (m2 for ml2, m1 for ml1, I2 for Il2) and the regressor line
      "tau1 = y11 ml1 + y12 Il1 + y21 ml2 + y22 Il2" means y111, y112, y121, y122.
    """
    q, qd, qdd = joint_symbols(2)
    q1, q2 = q
    qd1, qd2 = qd
    a1, l1, l2, ml1, ml2, Il1, Il2, g = params("a1 l1 l2 ml1 ml2 Il1 Il2 g")
    c2 = sp.cos(q2)
    b11 = ml1 * l1**2 + ml2 * (a1**2 + l2**2 + 2 * a1 * l2 * c2) + Il1 + Il2
    b12 = ml2 * (a1 * l2 * c2 + l2**2) + Il2
    b22 = ml2 * l2**2 + Il2
    h = -ml2 * a1 * l2 * sp.sin(q2)  # the seed's h (note the sign: h = C112 = C121)
    C = sp.Matrix([[h * qd2, h * (qd1 + qd2)], [-h * qd1, 0]])
    return ClosedForm(
        model="planar-2r-dh",
        q=q,
        qd=qd,
        qdd=qdd,
        M=sp.Matrix([[b11, b12], [b12, b22]]),
        # Equations I and II: (h qd2) qd1 + (h qd1 + h qd2) qd2 and (-h qd1) qd1
        Cqd=_col(h * qd2 * qd1 + (h * qd1 + h * qd2) * qd2, -h * qd1**2),
        C=C,
        g=_col(
            ml1 * g * l1 * sp.cos(q1) + ml2 * g * (a1 * sp.cos(q1) + l2 * sp.cos(q1 + q2)),
            ml2 * g * l2 * sp.cos(q1 + q2),
        ),
        friction=sp.zeros(2, 1),
        source="seed 004, Siciliano 7.4, the two-link planar arm",
    )


def planar_2r_endpoint() -> ClosedForm:
    """Seed 001 (tutorial, "Euler-Lagrange Equations"): 2R with rotational inertias I1,
    I2, a point mass m2 at joint 2 and mE at the end effector (chi = q):

    joint 1: [I1 + I2 + (m2 + mE) l1^2 + mE l2^2 + 2 mE l1 l2 c2] q1''
             + [I2 + mE l2^2 + mE l1 l2 c2] q2'' - mE l1 l2 s2 (2 q1' q2' + q2'^2)
             + (m2 + mE) g l1 c1 + mE g l2 c12 = tau1
    joint 2: [I2 + mE l2^2 + mE l1 l2 c2] q1'' + [I2 + mE l2^2] q2''
             + mE l1 l2 s2 q1'^2 + mE g l2 c12 = tau2

    The seed's list of energy terms also names distributed link masses m1^L, m2^L and a
    point mass m1, but its K and U (and so these equations) contain none of them; the
    model follows the equations.
    """
    q, qd, qdd = joint_symbols(2)
    q1, q2 = q
    qd1, qd2 = qd
    I1, I2, m2, mE, l1, l2, g = params("I1 I2 m2 mE l1 l2 g")
    c2, s2 = sp.cos(q2), sp.sin(q2)
    M11 = I1 + I2 + (m2 + mE) * l1**2 + mE * l2**2 + 2 * mE * l1 * l2 * c2
    M12 = I2 + mE * l2**2 + mE * l1 * l2 * c2
    M22 = I2 + mE * l2**2
    h = mE * l1 * l2 * s2
    return ClosedForm(
        model="planar-2r-endpoint",
        q=q,
        qd=qd,
        qdd=qdd,
        M=sp.Matrix([[M11, M12], [M12, M22]]),
        Cqd=_col(-mE * l1 * l2 * s2 * (2 * qd1 * qd2 + qd2**2), mE * l1 * l2 * s2 * qd1**2),
        # Not printed in the tutorial; seed 003's 2R structure with h = mE l1 l2 sin q2.
        C=_two_link_C(h, qd),
        g=_col(
            (m2 + mE) * g * l1 * sp.cos(q1) + mE * g * l2 * sp.cos(q1 + q2),
            mE * g * l2 * sp.cos(q1 + q2),
        ),
        friction=sp.zeros(2, 1),
        source="seed 001, 2R planar robot, Euler-Lagrange equations for joints 1 and 2",
    )


def planar_3r() -> ClosedForm:
    """Seed 003, 3-DOF planar R-R-R arm. The seed gives only the structure
    M = M0 + M1 cos q2 + M2 cos q3 + M3 cos(q2 + q3) and
    g = g1 cos q1 + g2 cos(q1 + q2) + g3 cos(q1 + q2 + q3); the entries are derived here
    by hand from the COM positions (Lagrange, as the seed's flowchart says):

    p1 = c1 e(q1), p2 = l1 e(q1) + c2 e(q12), p3 = l1 e(q1) + l2 e(q12) + c3 e(q123),
    e(x) = (cos x, sin x); link angular rates qd1, qd1 + qd2, qd1 + qd2 + qd3;
    U = g (m1 y1 + m2 y2 + m3 y3).

    With a = m2 l1 c2 + m3 l1 l2, b = m3 l1 c3, e = m3 l2 c3 (the coefficients of
    cos q2, cos(q2 + q3), cos q3):
      M11 = I1 + I2 + I3 + m1 c1^2 + m2 (l1^2 + c2^2) + m3 (l1^2 + l2^2 + c3^2)
            + 2 a cos q2 + 2 b cos(q2 + q3) + 2 e cos q3
      M12 = I2 + I3 + m2 c2^2 + m3 (l2^2 + c3^2) + a cos q2 + b cos(q2 + q3) + 2 e cos q3
      M13 = I3 + m3 c3^2 + b cos(q2 + q3) + e cos q3
      M22 = I2 + I3 + m2 c2^2 + m3 (l2^2 + c3^2) + 2 e cos q3
      M23 = I3 + m3 c3^2 + e cos q3
      M33 = I3 + m3 c3^2
    and, from the Christoffel symbols of this M (worked by hand; s = sin):
      (C qd)1 = -a s2 qd2 (2 qd1 + qd2) - b s23 (qd2 + qd3)(2 qd1 + qd2 + qd3)
                - e s3 qd3 (2 qd1 + 2 qd2 + qd3)
      (C qd)2 = (a s2 + b s23) qd1^2 - e s3 qd3 (2 qd1 + 2 qd2 + qd3)
      (C qd)3 = b s23 qd1^2 + e s3 (qd1 + qd2)^2
    The seed prints no C matrix, so ``C`` is None (``christoffel_matrix(M)`` gives it).
    """
    q, qd, qdd = joint_symbols(3)
    q1, q2, q3 = q
    qd1, qd2, qd3 = qd
    m1, m2, m3, l1, l2, c1, c2, c3, I1, I2, I3, g = params("m1 m2 m3 l1 l2 c1 c2 c3 I1 I2 I3 g")
    a = m2 * l1 * c2 + m3 * l1 * l2
    b = m3 * l1 * c3
    e = m3 * l2 * c3
    M0 = sp.Matrix(
        [
            [
                I1 + I2 + I3 + m1 * c1**2 + m2 * (l1**2 + c2**2) + m3 * (l1**2 + l2**2 + c3**2),
                I2 + I3 + m2 * c2**2 + m3 * (l2**2 + c3**2),
                I3 + m3 * c3**2,
            ],
            [
                I2 + I3 + m2 * c2**2 + m3 * (l2**2 + c3**2),
                I2 + I3 + m2 * c2**2 + m3 * (l2**2 + c3**2),
                I3 + m3 * c3**2,
            ],
            [I3 + m3 * c3**2, I3 + m3 * c3**2, I3 + m3 * c3**2],
        ]
    )
    M1 = sp.Matrix([[2 * a, a, 0], [a, 0, 0], [0, 0, 0]])  # times cos q2
    M2 = sp.Matrix([[2 * e, 2 * e, e], [2 * e, 2 * e, e], [e, e, 0]])  # times cos q3
    M3 = sp.Matrix([[2 * b, b, b], [b, 0, 0], [b, 0, 0]])  # times cos(q2 + q3)
    M = M0 + M1 * sp.cos(q2) + M2 * sp.cos(q3) + M3 * sp.cos(q2 + q3)
    s2, s3, s23 = sp.sin(q2), sp.sin(q3), sp.sin(q2 + q3)
    Cqd = _col(
        -a * s2 * qd2 * (2 * qd1 + qd2)
        - b * s23 * (qd2 + qd3) * (2 * qd1 + qd2 + qd3)
        - e * s3 * qd3 * (2 * qd1 + 2 * qd2 + qd3),
        (a * s2 + b * s23) * qd1**2 - e * s3 * qd3 * (2 * qd1 + 2 * qd2 + qd3),
        b * s23 * qd1**2 + e * s3 * (qd1 + qd2) ** 2,
    )
    gv1 = _col((m1 * c1 + m2 * l1 + m3 * l1) * g, 0, 0)  # times cos q1
    gv2 = _col((m2 * c2 + m3 * l2) * g, (m2 * c2 + m3 * l2) * g, 0)  # times cos(q1 + q2)
    gv3 = _col(m3 * c3 * g, m3 * c3 * g, m3 * c3 * g)  # times cos(q1 + q2 + q3)
    gvec = gv1 * sp.cos(q1) + gv2 * sp.cos(q1 + q2) + gv3 * sp.cos(q1 + q2 + q3)
    return ClosedForm(
        model="planar-3r",
        q=q,
        qd=qd,
        qdd=qdd,
        M=M,
        Cqd=Cqd,
        C=None,
        g=gvec,
        friction=sp.zeros(3, 1),
        source="seed 003, 3-DOF planar R-R-R arm (structure; entries derived by hand)",
    )


def cartesian_2p() -> ClosedForm:
    """Seed 004 (Siciliano Section 7.4), the two-link Cartesian arm, q = [d1, d2]:
    B = diag(ml1 + ml2, ml2), C = 0, g = [(ml1 + ml2) g, 0] (g0 = [0, 0, -g]).

    Seed slips (no effect on the result): B is written with R_i^T I R_i where R_i I R_i^T
    is meant (J_theta = 0 here), and J_P uses P_i - P_{j-1} where the COM P_{l_i} is meant.
    """
    q, qd, qdd = joint_symbols(2)
    ml1, ml2, g = params("ml1 ml2 g")
    return ClosedForm(
        model="cartesian-2p",
        q=q,
        qd=qd,
        qdd=qdd,
        M=sp.Matrix([[ml1 + ml2, 0], [0, ml2]]),
        Cqd=sp.zeros(2, 1),
        C=sp.zeros(2, 2),
        g=_col((ml1 + ml2) * g, 0),
        friction=sp.zeros(2, 1),
        source="seed 004, Siciliano 7.4, the two-link Cartesian arm",
    )


#: Model name -> function returning its closed form.
CLOSED_FORMS: dict[str, Callable[[], ClosedForm]] = {
    "pendulum": pendulum,
    "rp-arm": rp_arm,
    "planar-2r": planar_2r,
    "planar-2r-point-mass": planar_2r_point_mass,
    "planar-2r-dh": planar_2r_dh,
    "planar-2r-endpoint": planar_2r_endpoint,
    "planar-3r": planar_3r,
    "cartesian-2p": cartesian_2p,
}
