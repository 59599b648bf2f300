"""A first look at robodyn: load an arm, evaluate its dynamics, check a property.

    python examples/quickstart.py
"""

import numpy as np

import robodyn as rd

robot = rd.load("planar-2r")  # the course notes' planar 2R arm: m1, m2, c1, c2, I1, I2
print(robot, "parameters:", robot.values)

q = np.array([0.3, -0.5])
qd = np.array([1.0, 2.0])
qdd = np.array([0.5, -0.2])

M = robot.mass_matrix(q)
C = robot.coriolis_matrix(q, qd)
g = robot.gravity_torques(q)
tau = robot.inverse_dynamics(q, qd, qdd)
print("M(q) =\n", M)
print("C(q, qd) qd =", C @ qd)
print("g(q) =", g)
print("tau = M qdd + C qd + g =", tau)

# the closed form of M11 in the course notes = I1 + I2 + m1 c1^2 + m2 (l1^2 + c2^2 + 2 l1 c2 cos q2)
p = robot.values
m11 = p["I1"] + p["I2"] + p["m1"] * p["c1"] ** 2 + p["m2"] * (
    p["l1"] ** 2 + p["c2"] ** 2 + 2 * p["l1"] * p["c2"] * np.cos(q[1]))
print(f"M11: robodyn {M[0, 0]:.12f}, closed form {m11:.12f}")

# batched: a thousand states in one call, and forward dynamics inverts inverse dynamics
rng = np.random.default_rng(0)
Q, QD, QDD = rng.normal(size=(3, 1000, robot.dof))
TAU = robot.inverse_dynamics(Q, QD, QDD)
print("max |FD(ID(qdd)) - qdd| over 1000 states:",
      np.abs(robot.forward_dynamics(Q, QD, TAU) - QDD).max())
