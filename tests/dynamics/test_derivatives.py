"""Derivatives of the dynamics (issue 11): against Pinocchio's analytical derivatives
(``computeRNEADerivatives``, ``computeABADerivatives``) on the Panda, UR5 and double
pendulum, friction off, and against central finite differences of robodyn's own
functions on every built-in model.

Most models run the generated programs on the NumPy backend: the program is the one
Numba compiles (tests/test_kernel_cache.py checks that both backends agree), and Numba
takes ~15 s per derivative kernel of a 7-joint arm to compile on a cold cache. Two
small built-in models (``COMPILED``) run compiled.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

import robodyn as rd
from conftest import MODEL_NAMES, random_states
from robodyn.dynamics.derivatives import Dual, DualOps
from robodyn.dynamics.ops import SYMPY

N_PIN = 8
#: Built-in models whose derivative kernels the tests compile with Numba.
COMPILED = ("planar-2r", "planar-3r")
RTOL = 1e-9


def frictionless(robot):
    """The robot with every joint's friction zero (Pinocchio has none)."""
    chain = robot.chain
    links = tuple(replace(link, friction=replace(link.friction, viscous=0, coulomb=0))
                  for link in chain.links)
    return robot.with_chain(replace(chain, links=links))


def _close(ours, ref, what):
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(ours, ref, rtol=RTOL, atol=RTOL * scale, err_msg=what)


# -- Pinocchio --------------------------------------------------------------------------------
PIN_CASES = ["panda", "ur5", "double_pendulum"]


@pytest.fixture(scope="module", params=PIN_CASES)
def pin_pair(request):
    from test_pinocchio import CASES, Pair  # skips without pinocchio

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ROBODYN_BACKEND", "numpy")
        pair = Pair(CASES[request.param])
        pair.robot = frictionless(pair.robot)
        for kind in ("inverse_dynamics_derivatives", "forward_dynamics_derivatives"):
            pair.robot.runner.kernel(kind)  # built now, on the NumPy backend
    return pair


def test_inverse_dynamics_derivatives_match_pinocchio(pin_pair):
    import pinocchio as pin

    p, r = pin_pair, pin_pair.robot
    q, qd, qdd = p.q[:N_PIN], p.qd[:N_PIN], p.qdd[:N_PIN]
    d_q, d_qd, d_qdd = r.inverse_dynamics_derivatives(q, qd, qdd)
    assert d_q.shape == (N_PIN, r.dof, r.dof)
    for k in range(N_PIN):
        out = pin.computeRNEADerivatives(p.model, p.data, p.pin_q(q[k]), qd[k], qdd[k])
        ref_q, ref_qd, ref_m = (np.array(a) for a in out)
        ref_m = np.triu(ref_m) + np.triu(ref_m, 1).T
        _close(d_q[k], ref_q, f"dtau/dq sample {k}")
        _close(d_qd[k], ref_qd, f"dtau/dqd sample {k}")
        _close(d_qdd[k], ref_m, f"dtau/dqdd sample {k}")


def test_forward_dynamics_derivatives_match_pinocchio(pin_pair):
    import pinocchio as pin

    p, r = pin_pair, pin_pair.robot
    q, qd, tau = p.q[:N_PIN], p.qd[:N_PIN], p.tau[:N_PIN]
    d_q, d_qd, d_tau = r.forward_dynamics_derivatives(q, qd, tau)
    for k in range(N_PIN):
        pin.computeABADerivatives(p.model, p.data, p.pin_q(q[k]), qd[k], tau[k])
        minv = np.triu(p.data.Minv) + np.triu(p.data.Minv, 1).T
        _close(d_q[k], p.data.ddq_dq, f"dqdd/dq sample {k}")
        _close(d_qd[k], p.data.ddq_dv, f"dqdd/dqd sample {k}")
        _close(d_tau[k], minv, f"dqdd/dtau sample {k}")


# -- finite differences on every built-in model ----------------------------------------------
def central(f, x, h=1e-6):
    """``[..., i, j] = d f_i / d x_j`` by central differences over the last axis of ``x``."""
    cols = []
    for j in range(x.shape[-1]):
        e = np.zeros(x.shape[-1])
        e[j] = h
        cols.append((f(x + e) - f(x - e)) / (2 * h))
    return np.stack(cols, axis=-1)


def _fd_close(ours, ref, what):
    scale = max(1.0, float(np.abs(ref).max()))
    np.testing.assert_allclose(ours, ref, rtol=1e-6, atol=1e-6 * scale, err_msg=what)


@pytest.fixture(scope="module")
def fd_robots():
    """Built-in models; two compiled with Numba, the others' derivative kernels on the
    NumPy backend (the same generated program, see the module docstring)."""
    out = {}
    with pytest.MonkeyPatch.context() as mp:
        for name in MODEL_NAMES:
            robot = rd.load(name)
            mp.setenv("ROBODYN_BACKEND", "numba" if name in COMPILED else "numpy")
            for kind in ("inverse_dynamics_derivatives", "forward_dynamics_derivatives",
                         "mass_matrix_derivatives", "jacobian_derivative"):
                robot.runner.kernel(kind)
            out[name] = robot
    return out


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_derivatives_match_finite_differences(fd_robots, name):
    """Each derivative against central differences of the function it differentiates,
    friction included (states with |qd| >= 0.2, away from Coulomb friction's jump)."""
    r = fd_robots[name]
    q, qd, qdd = random_states(r, 4, seed=11)
    qd = np.where(np.abs(qd) < 0.2, 0.2 * np.sign(qd) + (qd == 0) * 0.2, qd)
    tau = r.inverse_dynamics(q, qd, qdd) + 0.5

    d_q, d_qd, d_qdd = r.inverse_dynamics_derivatives(q, qd, qdd)
    _fd_close(d_q, central(lambda x: r.inverse_dynamics(x, qd, qdd), q), "dtau/dq")
    _fd_close(d_qd, central(lambda x: r.inverse_dynamics(q, x, qdd), qd), "dtau/dqd")
    _fd_close(d_qdd, central(lambda x: r.inverse_dynamics(q, qd, x), qdd), "dtau/dqdd")
    np.testing.assert_allclose(d_qdd, r.mass_matrix(q), rtol=1e-13, atol=1e-13)

    f_q, f_qd, f_tau = r.forward_dynamics_derivatives(q, qd, tau)
    _fd_close(f_q, central(lambda x: r.forward_dynamics(x, qd, tau), q), "dqdd/dq")
    _fd_close(f_qd, central(lambda x: r.forward_dynamics(q, x, tau), qd), "dqdd/dqd")
    _fd_close(f_tau, central(lambda x: r.forward_dynamics(q, qd, x), tau), "dqdd/dtau")
    np.testing.assert_allclose(f_tau @ r.mass_matrix(q), np.broadcast_to(np.eye(r.dof),
                               f_tau.shape), atol=1e-10)

    dm = r.mass_matrix_derivatives(q)
    assert dm.shape == (4, r.dof, r.dof, r.dof)
    _fd_close(dm, central(r.mass_matrix, q), "dM/dq [i, j, k] = dM_ij/dq_k")

    jdot = r.jacobian_derivative(q, qd)
    h = 1e-6  # d/dt J(q + t qd) at t = 0
    ref = (r.jacobian(q + h * qd) - r.jacobian(q - h * qd)) / (2 * h)
    _fd_close(jdot, ref, "Jdot")


def test_contact_wrench_derivatives_match_finite_differences(fd_robots, monkeypatch):
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")  # the contact kernels: not compiled
    r = fd_robots["planar-3r"]
    q, qd, qdd = random_states(r, 3, seed=5)
    h_e = np.random.default_rng(1).normal(size=(3, 6))
    d_q, d_qd, _ = r.inverse_dynamics_derivatives(q, qd, qdd, h_e=h_e)
    _fd_close(d_q, central(lambda x: r.inverse_dynamics(x, qd, qdd, h_e), q), "dtau/dq, h_e")
    tau = r.inverse_dynamics(q, qd, qdd, h_e)
    f_q, _, _ = r.forward_dynamics_derivatives(q, qd, tau, h_e=h_e)
    _fd_close(f_q, central(lambda x: r.forward_dynamics(x, qd, tau, h_e), q), "dqdd/dq, h_e")


def with_friction(robot, viscous, coulomb):
    chain = robot.chain
    links = tuple(replace(link, friction=replace(link.friction, viscous=v, coulomb=c))
                  for link, v, c in zip(chain.links, viscous, coulomb))
    return robot.with_chain(replace(chain, links=links))


def test_coulomb_friction_is_differentiated_as_zero(fd_robots):
    """Away from qd = 0 the derivative of F_s sign(qd) is 0: with friction, dtau/dqd
    differs from the frictionless model's by exactly diag(F_v), and dtau/dq not at all."""
    bare = frictionless(fd_robots["planar-2r"])
    rough = with_friction(bare, (0.3, 0.1), (0.7, 1.5))
    q, qd, qdd = random_states(bare, 5, seed=2)
    d_q, d_qd, _ = rough.inverse_dynamics_derivatives(q, qd, qdd)
    d_q0, d_qd0, _ = bare.inverse_dynamics_derivatives(q, qd, qdd)
    np.testing.assert_allclose(d_qd - d_qd0, np.broadcast_to(np.diag([0.3, 0.1]), d_qd.shape),
                               atol=1e-12)
    np.testing.assert_allclose(d_q, d_q0, atol=1e-12)
    # and the torques do differ by the Coulomb term: the friction is really there
    diff = rough.inverse_dynamics(q, qd, qdd) - bare.inverse_dynamics(q, qd, qdd)
    np.testing.assert_allclose(diff, 0.3 * qd * [1, 0] + 0.1 * qd * [0, 1]
                               + np.sign(qd) * [0.7, 1.5], atol=1e-12)


def test_dual_numbers_follow_the_chain_rule():
    """The dual arithmetic itself, on SymPy scalars: tangents are exact derivatives."""
    import sympy as sp

    x = sp.Symbol("x")
    ops = DualOps(SYMPY)
    d = Dual(x, (1,))
    expr = ops.sin(d * d) / (2 + ops.cos(d)) - ops.sqrt(d) * 3 + 1 / d - (d - 4) ** 2
    value = sp.sin(x**2) / (2 + sp.cos(x)) - 3 * sp.sqrt(x) + 1 / x - (x - 4) ** 2
    assert sp.simplify(expr.v - value) == 0
    assert sp.simplify(expr.t[0] - sp.diff(value, x)) == 0
    assert ops.sign(Dual(x, (1,))) == sp.sign(x)  # derivative 0: a plain value


def test_effort_gradient_matches_finite_differences(fd_robots):
    """The exact gradient ``energy.optimize`` uses for ``objective="effort"``: the effort
    of ``consumed`` and its central differences over the via points."""
    from robodyn.motion.energy import EffortGradient, consumed
    from robodyn.motion.trajectory import Motion, spline

    r = fd_robots["planar-2r"]
    t, knots = np.linspace(0, 1.5, 101), np.linspace(0, 1.5, 5)
    ends = np.zeros(2), np.array([1.0, -0.5])

    def path(x):
        return spline(knots, np.vstack([ends[0], x.reshape(3, 2), ends[1]]))(t)

    gradient = EffortGradient(r, t, path, 6)
    x = np.random.default_rng(0).normal(size=6)
    value, grad = gradient(x)
    assert value == pytest.approx(consumed(r, Motion(t, *path(x))).effort, rel=1e-12)
    h = 1e-6
    ref = np.array([(gradient(x + h * e)[0] - gradient(x - h * e)[0]) / (2 * h)
                    for e in np.eye(6)])
    np.testing.assert_allclose(grad, ref, rtol=1e-6, atol=1e-6 * np.abs(ref).max())
