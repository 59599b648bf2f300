"""Models with every inertial parameter symbolic (for identification, teaching, benchmarks).

``with_symbolic_inertia(robot)`` keeps the geometry and replaces each link's mass,
centre of mass and inertia tensor with ten symbols, ``m{i}``, ``cx{i}, cy{i}, cz{i}``,
``Ixx{i}, Iyy{i}, Izz{i}, Ixy{i}, Ixz{i}, Iyz{i}`` (link frame ``i`` of the chain,
inertia about the centre of mass). Their default values are the robot's own numbers,
so the numeric functions of the equations still evaluate.
"""

from __future__ import annotations

from dataclasses import replace

import sympy as sp

from ..model.chain import Chain, Inertial, folded
from ..robot import Robot

INERTIAL_NAMES = ("m", "cx", "cy", "cz", "Ixx", "Iyy", "Izz", "Ixy", "Ixz", "Iyz")


def symbolic_inertials(n: int) -> list[Inertial]:
    """``n`` inertials made of the ten symbols per link listed in the module docstring."""
    out = []
    for i in range(1, n + 1):
        m, cx, cy, cz, xx, yy, zz, xy, xz, yz = (sp.Symbol(f"{p}{i}") for p in INERTIAL_NAMES)
        out.append(Inertial(m, (cx, cy, cz), ((xx, xy, xz), (xy, yy, yz), (xz, yz, zz))))
    return out


def with_symbolic_inertia(robot: Robot | Chain) -> Robot | Chain:
    """``robot`` with ten symbolic inertial parameters per link (see the module)."""
    chain = robot if isinstance(robot, Chain) else robot.chain
    inertials = symbolic_inertials(chain.dof)
    # the ten symbols of a link stand for its body and its point masses together
    links = tuple(replace(link, inertial=inertial, point_masses=())
                  for link, inertial in zip(chain.links, inertials, strict=True))
    new_chain = replace(chain, links=links)
    if isinstance(robot, Chain):
        return new_chain
    values = {k: v for k, v in robot.values.items()
              if sp.Symbol(k) in new_chain.free_symbols()}
    try:
        numeric = robot.numeric_chain
    except Exception:  # defaults are a convenience; symbols stay symbols
        numeric = None
    if numeric is not None:
        for i, link in enumerate(numeric.links, start=1):
            inertial = folded(link).inertial
            inertia = inertial.inertia
            numbers = (inertial.mass, *inertial.com, inertia[0][0], inertia[1][1], inertia[2][2],
                       inertia[0][1], inertia[0][2], inertia[1][2])
            for name, value in zip(INERTIAL_NAMES, numbers, strict=True):
                values[f"{name}{i}"] = float(value)
    return robot.with_chain(new_chain, values, name=f"{robot.name} (symbolic inertia)")


__all__ = ["with_symbolic_inertia", "symbolic_inertials", "INERTIAL_NAMES"]
