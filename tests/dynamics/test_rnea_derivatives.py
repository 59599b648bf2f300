"""The analytical Newton–Euler derivatives (robodyn/dynamics/rnea_derivatives.py) against two
independent routes: forward-mode dual numbers through the Newton–Euler program
(``dual_id_jacobians``, the chain rule applied operation by operation) with the
composite-rigid-body ``M``, and central differences of the torques. Random trees with
prismatic and revolute joints about random axes, point masses, rotors and friction, and
every built-in model; Pinocchio's ``computeRNEADerivatives`` is the oracle in
test_derivatives.py and test_trees.py.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import numpy as np
import pytest
from tree_models import random_states, random_tree

import robodyn as rd
from robodyn.dynamics.coriolis import coriolis_matrix
from robodyn.dynamics.crba import mass_matrix
from robodyn.dynamics.derivatives import dual_id_jacobians
from robodyn.dynamics.inverse_dynamics import inverse_dynamics
from robodyn.dynamics.rnea_derivatives import rnea_derivatives
from robodyn.model.chain import Chain, Friction, Motor, PointMass

FLOATS = SimpleNamespace(sin=math.sin, cos=math.cos, sqrt=math.sqrt,
                         sign=lambda x: float(np.sign(x)), name="math")


def _dressed(chain: Chain, seed: int) -> Chain:
    """The chain with a point mass on every other link, a rotor behind every joint and
    viscous and Coulomb friction: every term the derivatives must carry."""
    rng = np.random.default_rng(seed)
    links = []
    for i, link in enumerate(chain.links):
        points = ((PointMass(float(rng.uniform(0.1, 1.0)), tuple(rng.uniform(-0.3, 0.3, 3))),)
                  if i % 2 == 0 else ())
        links.append(dataclasses.replace(
            link, point_masses=points,
            motor=Motor(float(rng.uniform(1e-4, 1e-3)), float(rng.uniform(10, 100))),
            friction=Friction(float(rng.uniform(0.1, 0.5)), float(rng.uniform(0.1, 0.5)))))
    return dataclasses.replace(chain, links=tuple(links))


def _routes(chain: Chain, q, qd, qdd):
    analytic = [np.array(a, dtype=float) for a in rnea_derivatives(chain, q, qd, qdd, FLOATS)]
    d_q, d_qd = dual_id_jacobians(chain, q, qd, qdd, FLOATS)
    dual = [np.array(d_q, dtype=float), np.array(d_qd, dtype=float),
            np.array(mass_matrix(chain, q, FLOATS), dtype=float)]
    return analytic, dual


def _close(a, b, what):
    scale = max(1.0, float(np.abs(b).max()))
    np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12 * scale, err_msg=what)


CASES = [(seed, n, depth) for seed, n, depth in ((0, 1, False), (1, 4, False), (2, 7, True),
                                                 (3, 9, False), (4, 6, True))]


@pytest.mark.parametrize("seed,n,depth_first", CASES)
def test_analytical_derivatives_equal_the_dual_route_on_random_trees(seed, n, depth_first):
    chain = _dressed(random_tree(seed, n, prismatic=0.4, friction=True,
                                 depth_first=depth_first), seed)
    for q, qd, qdd in zip(*random_states(chain, 3, seed), strict=True):
        analytic, dual = _routes(chain, list(q), list(qd), list(qdd))
        for a, b, what in zip(analytic, dual, ("dtau/dq", "dtau/dqd", "M"), strict=True):
            _close(a, b, f"{what}, tree {seed}")


def test_analytical_derivatives_are_zero_between_branches():
    """Two joints of which neither supports the other do not move each other's torque."""
    chain = random_tree(5, 5, parents=(-1, 0, 0, 1, 2))
    q, qd, qdd = (list(x[0]) for x in random_states(chain, 1, 5))
    d_q, d_qd, m = rnea_derivatives(chain, q, qd, qdd, FLOATS)
    related = {(i, k) for i in range(5) for k in chain.ancestors(i)}
    for i in range(5):
        for k in range(5):
            if (i, k) not in related and (k, i) not in related:
                assert d_q[i][k] == 0 and d_qd[i][k] == 0 and m[i][k] == 0, (i, k)


@pytest.mark.parametrize("name", rd.models.names())
def test_analytical_derivatives_on_every_built_in_model(name):
    chain = rd.load(name).runner.numeric_chain
    rng = np.random.default_rng(7)
    q, qd, qdd = (list(rng.uniform(-1.5, 1.5, chain.dof)) for _ in range(3))
    analytic, dual = _routes(chain, q, qd, qdd)
    for a, b, what in zip(analytic, dual, ("dtau/dq", "dtau/dqd", "M"), strict=True):
        _close(a, b, f"{what}, {name}")


def test_analytical_derivatives_equal_central_differences():
    """A third route, no differentiation rule at all: ``(tau(x + h e_k) - tau(x - h e_k)) / 2h``."""
    chain = _dressed(random_tree(11, 6, prismatic=0.5, friction=True), 11)
    q, qd, qdd = (np.array(x[0]) for x in random_states(chain, 1, 11))
    qd = np.where(np.abs(qd) < 0.2, 0.5, qd)  # away from Coulomb friction's jump
    d_q, d_qd, m = (np.array(a) for a in rnea_derivatives(chain, q, qd, qdd, FLOATS))

    def tau(q_, qd_, qdd_):
        return np.array(inverse_dynamics(chain, list(q_), list(qd_), list(qdd_), FLOATS))

    h = 1e-6
    for k in range(chain.dof):
        e = np.zeros(chain.dof)
        e[k] = h
        for got, x, f in ((d_q, q, lambda x_: tau(x_, qd, qdd)),
                          (d_qd, qd, lambda x_: tau(q, x_, qdd)),
                          (m, qdd, lambda x_: tau(q, qd, x_))):
            np.testing.assert_allclose(got[:, k], (f(x + e) - f(x - e)) / (2 * h),
                                       rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seed", [21, 22])
def test_velocity_derivative_is_twice_the_christoffel_coriolis_matrix(seed):
    """``tau`` is quadratic in ``qd`` through ``C(q, qd) qd = sum_jk c_ijk qd_j qd_k`` with
    ``c_ijk = c_ikj``, so ``dtau/dqd = 2 C(q, qd) + F_v`` (Siciliano eq. 7.44; C from
    robodyn/dynamics/coriolis.py, a different formula)."""
    chain = _dressed(random_tree(seed, 7, prismatic=0.3, friction=True), seed)
    q, qd, qdd = (list(x[0]) for x in random_states(chain, 1, seed))
    _, d_qd, _ = rnea_derivatives(chain, q, qd, qdd, FLOATS)
    c = np.array(coriolis_matrix(chain, q, qd, FLOATS), dtype=float)
    viscous = np.diag([link.friction.viscous for link in chain.links])
    _close(np.array(d_qd, dtype=float), 2 * c + viscous, "dtau/dqd")
