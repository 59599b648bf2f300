"""Property-based tests (Hypothesis) on random serial arms.

Hypothesis draws arms: DH convention (standard or modified), 1 to 5 joints, each
revolute or prismatic, and every number of the model file: DH parameters, masses
(> 0), centres of mass, inertias ``R diag(Ixx', Iyy', Izz') R^T`` with a random rotation
``R`` and principal moments built from second moments of mass ``s > 0``
(``Ixx' = sy + sz``, ...: positive and strictly satisfying the triangle inequality, as a
real body's do), viscous and Coulomb friction (>= 0) and the gravity vector. Each arm is
written as a model-file mapping and loaded with ``parse_model`` + ``from_source``.

Every number of the file is a *parameter* (``a1``, ``m2``, ``ixy3``, ...), so a drawn arm
is ``base.with_values(drawn numbers)`` of one robot per (convention, joint types): its
kernels are compiled once and serve every example of that shape. They run on the NumPy
backend here: a Numba compile costs 1-8 s per kernel on this machine (a 5-joint shape
about 20 s), the NumPy program about 0.05 s, and ``test_batching.py`` checks that both
backends give the same numbers.

The properties (none uses a value computed by the function under test):
* ``M(q)`` symmetric positive definite;
* ``dM/dt - 2C`` skew-symmetric, ``dM/dt`` by central differences of ``M`` along ``qd``;
* ``C(q, qd) qd + g(q) + friction(qd) = ID(q, qd, 0)`` and
  ``M qdd + C qd + g + friction = ID(q, qd, qdd)`` (CRBA and the spatial C vs RNEA);
* forward dynamics inverts inverse dynamics (backward error ``|M (FD(ID(qdd)) - qdd)|``);
* a batch of states gives the per-sample results;
* for 1-2 joints, Lagrange–Euler and Newton–Euler agree symbolically with every number
  a symbol (so for all values), and the Lagrange–Euler closed form (energies, not RNEA)
  evaluated at drawn values gives the kernels' numbers.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from robodyn.model.yaml_file import parse_model  # noqa: E402
from robodyn.robot import from_source  # noqa: E402
from robodyn.symbolic import verify  # noqa: E402

JOINTS = ("revolute", "prismatic")
CONVENTIONS = ("standard", "modified")
N_STATES = 4

#: Few examples, no deadline (a new arm shape compiles its kernels), and the same examples
#: on every run, so that the suite is reproducible.
SETTINGS = settings(max_examples=20, deadline=None, derandomize=True, database=None)


# ------------------------------------------------------------------------- the arms


def model_data(convention: str, joints: tuple[str, ...]) -> dict:
    """A model-file mapping whose every number is a parameter."""
    links = []
    for i, joint in enumerate(joints, start=1):
        links.append({
            "joint": joint,
            "a": f"a{i}", "alpha": f"al{i}", "d": f"d{i}", "theta": f"th{i}",
            "mass": f"m{i}",
            "com": [f"cx{i}", f"cy{i}", f"cz{i}"],
            "inertia": [f"ixx{i}", f"iyy{i}", f"izz{i}", f"ixy{i}", f"ixz{i}", f"iyz{i}"],
            "friction": {"viscous": f"fv{i}", "coulomb": f"fs{i}"},
        })
    return {"name": f"random-{convention}-{''.join(j[0] for j in joints)}", "dh": convention,
            "gravity": ["gx", "gy", "gz"], "links": links}


_BASE: dict[tuple[str, tuple[str, ...]], object] = {}


def base_robot(convention: str, joints: tuple[str, ...]):
    """The one robot (and so the one set of kernels) of an arm shape."""
    key = (convention, joints)
    if key not in _BASE:
        _BASE[key] = from_source(parse_model(model_data(convention, joints),
                                             source="random arm"))
    return _BASE[key]


@dataclass(frozen=True)
class Arm:
    convention: str
    joints: tuple[str, ...]
    values: dict
    seed: int

    @property
    def robot(self):
        return base_robot(self.convention, self.joints).with_values(self.values)

    def states(self, n: int = N_STATES):
        """``n`` random ``(q, qd, qdd)``, each ``(n, dof)``."""
        rng = np.random.default_rng(self.seed)
        dof = len(self.joints)
        q = rng.uniform(-np.pi, np.pi, (n, dof))
        for j, joint in enumerate(self.joints):
            if joint == "prismatic":
                q[:, j] = rng.uniform(-1.0, 1.0, n)
        return q, rng.normal(size=(n, dof)), rng.normal(size=(n, dof))


def _floats(lo: float, hi: float):
    return st.floats(lo, hi, allow_nan=False, allow_infinity=False)


def _rotation(quaternion) -> np.ndarray:
    w, x, y, z = np.asarray(quaternion) / np.linalg.norm(quaternion)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)],
    ])


@st.composite
def arms(draw, min_dof: int = 1, max_dof: int = 5) -> Arm:
    convention = draw(st.sampled_from(CONVENTIONS))
    joints = tuple(draw(st.lists(st.sampled_from(JOINTS), min_size=min_dof,
                                 max_size=max_dof)))
    values = {"gx": draw(_floats(-10, 10)), "gy": draw(_floats(-10, 10)),
              "gz": draw(_floats(-10, 10))}
    for i in range(1, len(joints) + 1):
        values[f"a{i}"] = draw(_floats(-1, 1))
        values[f"d{i}"] = draw(_floats(-1, 1))
        values[f"al{i}"] = draw(st.one_of(st.sampled_from([0.0, math.pi / 2, -math.pi / 2,
                                                            math.pi]), _floats(-math.pi, math.pi)))
        values[f"th{i}"] = draw(_floats(-math.pi, math.pi))
        values[f"m{i}"] = draw(_floats(0.1, 5))
        for axis in "xyz":
            values[f"c{axis}{i}"] = draw(_floats(-0.5, 0.5))
        sx, sy, sz = (draw(_floats(0.005, 0.5)) for _ in range(3))
        quaternion = draw(st.tuples(*[_floats(-1, 1)] * 4).filter(
            lambda v: np.linalg.norm(v) > 0.1))
        rot = _rotation(quaternion)
        inertia = rot @ np.diag([sy + sz, sx + sz, sx + sy]) @ rot.T
        for name, (r, c) in zip(("ixx", "iyy", "izz", "ixy", "ixz", "iyz"),
                                ((0, 0), (1, 1), (2, 2), (0, 1), (0, 2), (1, 2))):
            values[f"{name}{i}"] = float(inertia[r, c])
        values[f"fv{i}"] = draw(_floats(0, 2))
        values[f"fs{i}"] = draw(_floats(0, 2))
    return Arm(convention, joints, values, draw(st.integers(0, 2**32 - 1)))


@pytest.fixture(scope="module", autouse=True)
def numpy_backend():
    """Kernels of this module's arms on the NumPy backend (see the module docstring)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROBODYN_BACKEND", "numpy")
        yield


def _mv(a, x):
    return np.einsum("...ij,...j->...i", a, x)


def _scale(*arrays) -> float:
    return max(1.0, *(float(np.abs(a).max()) for a in arrays))


# ------------------------------------------------------------------------ properties


@pytest.mark.slow
@SETTINGS
@given(arms())
def test_mass_matrix_is_symmetric_positive_definite(arm):
    robot = arm.robot
    q, _, _ = arm.states()
    m = robot.mass_matrix(q)
    np.testing.assert_allclose(m, np.swapaxes(m, -1, -2), rtol=0, atol=1e-12 * _scale(m))
    # Cholesky succeeds exactly for symmetric positive definite matrices
    np.linalg.cholesky(m)
    assert (np.linalg.eigvalsh(m) > 0).all()


@pytest.mark.slow
@SETTINGS
@given(arms())
def test_mdot_minus_2c_is_skew_symmetric(arm):
    """``dM/dt = sum_k dM/dq_k qd_k`` by central differences of M along ``qd``."""
    robot = arm.robot
    q, qd, _ = arm.states()
    eps = 1e-6
    mdot = (robot.mass_matrix(q + eps * qd) - robot.mass_matrix(q - eps * qd)) / (2 * eps)
    c = robot.coriolis_matrix(q, qd)
    n = mdot - 2 * c
    np.testing.assert_allclose(n, -np.swapaxes(n, -1, -2), rtol=0,
                               atol=1e-6 * _scale(mdot, c))


@pytest.mark.slow
@SETTINGS
@given(arms())
def test_equation_of_motion_is_newton_euler(arm):
    """``C qd + g + friction = ID(q, qd, 0)`` and ``M qdd + C qd + g + friction = ID``:
    the spatial C and CRBA's M against RNEA."""
    robot = arm.robot
    q, qd, qdd = arm.states()
    bias = robot.inverse_dynamics(q, qd, np.zeros_like(qdd))
    c_qd = _mv(robot.coriolis_matrix(q, qd), qd)
    g = robot.gravity_torques(q)
    friction = robot.friction_torques(qd)
    np.testing.assert_allclose(c_qd + g, bias - friction, rtol=0,
                               atol=1e-10 * _scale(bias, c_qd, g))
    tau = robot.inverse_dynamics(q, qd, qdd)
    m_qdd = _mv(robot.mass_matrix(q), qdd)
    np.testing.assert_allclose(m_qdd + c_qd + g + friction, tau, rtol=0,
                               atol=1e-10 * _scale(tau, m_qdd, bias))


@pytest.mark.slow
@SETTINGS
@given(arms())
def test_forward_dynamics_inverts_inverse_dynamics(arm):
    """Backward error: ``M (FD(q, qd, ID(q, qd, qdd)) - qdd)`` is rounding-small relative
    to the torques (a forward error would depend on the conditioning of M)."""
    robot = arm.robot
    q, qd, qdd = arm.states()
    tau = robot.inverse_dynamics(q, qd, qdd)
    m = robot.mass_matrix(q)
    residual = _mv(m, robot.forward_dynamics(q, qd, tau) - qdd)
    assert np.abs(residual).max() <= 1e-9 * _scale(tau, _mv(m, qdd))


@pytest.mark.slow
@SETTINGS
@given(arms())
def test_batched_equals_per_sample(arm):
    robot = arm.robot
    q, qd, qdd = arm.states()
    calls = {
        "inverse_dynamics": lambda *s: robot.inverse_dynamics(*s),
        "mass_matrix": lambda q, qd, qdd: robot.mass_matrix(q),
        "coriolis_matrix": lambda q, qd, qdd: robot.coriolis_matrix(q, qd),
        "gravity_torques": lambda q, qd, qdd: robot.gravity_torques(q),
        "forward_dynamics": lambda *s: robot.forward_dynamics(*s),
        "friction_torques": lambda q, qd, qdd: robot.friction_torques(qd),
    }
    for name, call in calls.items():
        batch = call(q, qd, qdd)
        single = np.array([call(*s) for s in zip(q, qd, qdd, strict=True)])
        assert batch.shape == single.shape, name
        np.testing.assert_allclose(batch, single, rtol=1e-13, atol=1e-13 * _scale(single),
                                   err_msg=name)


# ------------------------------------------- closed forms: Lagrange–Euler vs Newton–Euler

SMALL_SHAPES = [(c, joints) for c in CONVENTIONS for n in (1, 2)
                for joints in itertools.product(JOINTS, repeat=n)]
_EQUATIONS: dict = {}


def _equations(convention, joints, method):
    key = (convention, joints, method)
    if key not in _EQUATIONS:
        _EQUATIONS[key] = base_robot(convention, joints).equations(method=method)
    return _EQUATIONS[key]


@pytest.mark.parametrize("convention, joints", SMALL_SHAPES,
                         ids=[f"{c}-{''.join(j[0] for j in js)}" for c, js in SMALL_SHAPES])
def test_lagrange_equals_newton_euler_symbolically(convention, joints):
    """Every number a symbol (DH angles and offsets included): the routes agree as
    expressions, so for every value of every parameter."""
    le = _equations(convention, joints, "lagrange")
    ne = _equations(convention, joints, "newton-euler")
    agreement = verify(le, ne)
    assert agreement.holds and agreement.exact, str(agreement)
    assert all(d == 0 for d in agreement.difference)
    assert le.M == ne.M and le.g == ne.g


@settings(max_examples=12, deadline=None, derandomize=True, database=None)
@given(arms(min_dof=1, max_dof=2))
def test_lagrange_closed_form_at_random_values_is_the_kernels(arm):
    """The Lagrange–Euler closed form (energies and Euler–Lagrange, no RNEA) evaluated at
    the drawn values gives the kernels' M, C, g and tau."""
    robot = arm.robot
    num = _equations(arm.convention, arm.joints, "lagrange").numeric(arm.values)
    q, qd, qdd = arm.states()
    for name, ours, closed in (
        ("M", robot.mass_matrix(q), num.M(q)),
        ("C", robot.coriolis_matrix(q, qd), num.C(q, qd)),
        ("g", robot.gravity_torques(q), num.g(q)),
        ("tau", robot.inverse_dynamics(q, qd, qdd), num.tau(q, qd, qdd)),
    ):
        np.testing.assert_allclose(ours, closed, rtol=0, atol=1e-10 * _scale(closed),
                                   err_msg=name)
