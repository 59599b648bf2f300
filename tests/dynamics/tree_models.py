"""Random kinematic trees as robodyn Chains, and the same trees built in Pinocchio.

Shared by the tree tests (tests/dynamics/test_trees.py, tests/motion, tests/identification):
random parent arrays (each link's parent an earlier link or the base), random joint
placements (rotations from random unit quaternions), revolute and prismatic joints about
random unit axes, physical inertias (positive principal moments obeying the triangle
inequality, rotated), and a few named frames fixed to links.
"""

from __future__ import annotations

import numpy as np

import robodyn as rd
from robodyn.model.chain import (
    PRISMATIC,
    REVOLUTE,
    Chain,
    Frame,
    Friction,
    Inertial,
    Joint,
    Link,
    Transform,
)


def _rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    x, y, z, w = q / np.linalg.norm(q)
    return np.array([
        [1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
        [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
        [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)],
    ])


def _tuple(a) -> tuple:
    a = np.asarray(a, dtype=float)
    return tuple(_tuple(r) for r in a) if a.ndim > 1 else tuple(float(x) for x in a)


def random_inertia(rng) -> np.ndarray:
    """A physical inertia about the centre of mass: principal moments ``a, b, c`` with
    each smaller than the sum of the others, rotated at random."""
    while True:
        moments = rng.uniform(0.01, 0.3, size=3)
        if all(2 * m < moments.sum() for m in moments):
            break
    r = _rotation(rng)
    return r @ np.diag(moments) @ r.T


def random_parents(rng, n: int, depth_first: bool = False) -> tuple[int, ...]:
    """A random parent array: link ``i``'s parent is the base or one of links ``0..i-1``;
    ``depth_first``: one of link ``i-1``'s ancestors (or the base), so that every subtree
    is a contiguous range of links, the order Pinocchio's ``crba`` and Coriolis matrix
    assume (its ``nvSubtree``)."""
    parents: list[int] = []
    for i in range(n):
        if not depth_first:
            parents.append(int(rng.integers(-1, i)) if i else -1)
            continue
        path = [-1]
        k = i - 1
        while k >= 0:
            path.append(k)
            k = parents[k]
        parents.append(int(path[rng.integers(len(path))]))
    return tuple(parents)


def random_tree(seed: int, n: int = 5, parents=None, prismatic: float = 0.3,
                friction: bool = False, frames: int = 2, depth_first: bool = False) -> Chain:
    """A random tree of ``n`` links (``parents``: the given parent array, else random, in
    depth-first order with ``depth_first``)."""
    rng = np.random.default_rng(seed)
    parents = random_parents(rng, n, depth_first) if parents is None else tuple(parents)
    links = []
    for i in range(n):
        axis = rng.normal(size=3)
        axis /= np.linalg.norm(axis)
        kind = PRISMATIC if rng.uniform() < prismatic else REVOLUTE
        placement = Transform(_tuple(_rotation(rng)), _tuple(rng.uniform(-0.5, 0.5, 3)))
        joint = Joint(kind, _tuple(axis), float(rng.uniform(-0.3, 0.3)), placement,
                      name=f"j{i}")
        inertial = Inertial(float(rng.uniform(0.5, 3.0)), _tuple(rng.uniform(-0.2, 0.2, 3)),
                            _tuple(random_inertia(rng)))
        fr = (Friction(float(rng.uniform(0, 0.5)), float(rng.uniform(0, 0.5))) if friction
              else Friction())
        links.append(Link(f"link{i}", joint, inertial, fr))
    named = tuple(
        Frame(f"frame{k}", int(rng.integers(-1, n)),
              Transform(_tuple(_rotation(rng)), _tuple(rng.uniform(-0.3, 0.3, 3))))
        for k in range(frames))
    return Chain(tuple(links), (0.0, 0.0, -9.81),
                 tip=Transform(_tuple(_rotation(rng)), _tuple(rng.uniform(-0.2, 0.2, 3))),
                 parents=parents, frames=named)


def robot_of(chain: Chain, name: str = "tree") -> rd.Robot:
    """A robot of a numeric chain (no parameters)."""
    return rd.Robot(name, chain)


def random_states(chain: Chain, n: int, seed: int = 0):
    """``n`` random ``(q, qd, qdd)``, shape ``(n, dof)`` each."""
    rng = np.random.default_rng(seed)
    shape = (n, chain.dof)
    return (rng.uniform(-np.pi, np.pi, shape), rng.normal(size=shape), rng.normal(size=shape))


def pinocchio_model(chain: Chain):
    """``(model, frame ids)``: the tree in Pinocchio, joint ``i`` with
    ``JointModelRevoluteUnaligned``/``PrismaticUnaligned`` about the same axis, placed as
    robodyn places it (the joint offset folded into the placement, so the joint values
    are equal), each link's inertia appended to its joint; the named frames of
    ``robodyn``'s ``frame_table`` as Pinocchio frames, ids in that order."""
    import pinocchio as pin

    from robodyn.dynamics.kinematics import frame_table

    model = pin.Model()
    model.gravity = pin.Motion(np.array(chain.gravity, dtype=float), np.zeros(3))
    ids = []
    for i, link in enumerate(chain.links):
        joint = link.joint
        axis = np.array(joint.axis, dtype=float)
        rot = np.array(joint.placement.rotation, dtype=float)
        pos = np.array(joint.placement.translation, dtype=float)
        offset = float(joint.offset)
        if joint.type == REVOLUTE:
            jm = pin.JointModelRevoluteUnaligned(axis)
            rot = rot @ pin.AngleAxis(offset, axis).toRotationMatrix()
        else:
            jm = pin.JointModelPrismaticUnaligned(axis)
            pos = pos + rot @ (offset * axis)
        parent = ids[chain.parent(i)] if chain.parent(i) >= 0 else 0
        jid = model.addJoint(parent, jm, pin.SE3(rot, pos), joint.name or f"j{i}")
        inertial = link.inertial
        model.appendBodyToJoint(jid, pin.Inertia(float(inertial.mass),
                                                 np.array(inertial.com, dtype=float),
                                                 np.array(inertial.inertia, dtype=float)),
                                pin.SE3.Identity())
        ids.append(jid)
    frame_ids = []
    for name, link, placement in frame_table(chain):
        parent = ids[link] if link >= 0 else 0
        se3 = pin.SE3.Identity() if placement is None else pin.SE3(
            np.array(placement.rotation, dtype=float),
            np.array(placement.translation, dtype=float))
        frame_ids.append(model.addFrame(pin.Frame(f"rd_{name}", parent, 0, se3,
                                                  pin.FrameType.OP_FRAME)))
    return model, frame_ids


def _planar_link(name, kind, placement, mass, com, axis=(0.0, 0.0, 1.0)) -> Link:
    inertia = ((0.01, 0.0, 0.0), (0.0, 0.02, 0.0), (0.0, 0.0, 0.03))
    return Link(name, Joint(kind, axis, 0.0, Transform(translation=placement), name=f"{name}_j"),
                Inertial(mass, com, inertia))


def y_tree() -> Chain:
    """A "Y": one revolute joint on the base, two revolute branches on its link (axes z,
    links along x), and a hand frame on each branch."""
    links = (_planar_link("stem", REVOLUTE, (0.0, 0.0, 0.0), 2.0, (0.25, 0.0, 0.0)),
             _planar_link("left", REVOLUTE, (0.5, 0.0, 0.0), 1.0, (0.2, 0.05, 0.0)),
             _planar_link("right", REVOLUTE, (0.5, 0.0, 0.0), 1.5, (0.3, -0.05, 0.0)))
    frames = (Frame("left_hand", 1, Transform(translation=(0.4, 0.0, 0.0))),
              Frame("right_hand", 2, Transform(translation=(0.4, 0.0, 0.0))))
    return Chain(links, (0.0, -9.81, 0.0), parents=(-1, 0, 0), frames=frames)
