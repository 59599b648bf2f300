"""The manipulability ellipsoids (robodyn.dynamics.manipulability) and their figure."""

from __future__ import annotations

import warnings

import numpy as np

import robodyn as rd
from robodyn.dynamics.manipulability import dynamic_ellipsoid, kinematic_ellipsoid


def test_planar_2r_ellipses_are_the_images_of_unit_torques_and_rates():
    arm = rd.load("planar-2r")
    q = np.array([0.4, 1.3])
    J, M = arm.jacobian(q)[:2], arm.mass_matrix(q)
    dyn, kin = dynamic_ellipsoid(M, J), kinematic_ellipsoid(J)
    s = np.linspace(0, 2 * np.pi, 50)
    unit = np.stack([np.cos(s), np.sin(s)])          # |tau| = 1 (J square: onto the boundary)
    x_dd = J @ np.linalg.solve(M, unit)
    np.testing.assert_allclose(np.einsum("is,ij,js->s", x_dd, np.linalg.inv(dyn.Q), x_dd), 1.0,
                               rtol=1e-12)
    v = J @ unit
    np.testing.assert_allclose(np.einsum("is,ij,js->s", v, np.linalg.inv(kin.Q), v), 1.0,
                               rtol=1e-12)
    Minv = np.linalg.inv(M)
    assert np.isclose(dyn.measure, np.sqrt(np.linalg.det(J @ Minv @ Minv @ J.T)), rtol=1e-12)
    assert np.isclose(kin.measure, abs(np.linalg.det(J)), rtol=1e-12)  # square: |det J|


def test_figures_planar_and_spatial(tmp_path):
    fig = rd.plot.manipulability(rd.load("planar-2r"), [0.4, 1.3], path=tmp_path / "m.png")
    assert (tmp_path / "m.png").stat().st_size > 0 and len(fig.axes) == 2
    assert "w_d = " in fig.axes[1].get_title()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rd.PhysicalConsistencyWarning)
        puma = rd.load("puma560")
    fig = rd.plot.manipulability(puma, [0.2, -0.6, 0.9, 0.3, 0.5, 0.1])
    assert [ax.name for ax in fig.axes] == ["3d", "3d"]
