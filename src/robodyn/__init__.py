"""robodyn: rigid-body dynamics of serial robot manipulators.

>>> import robodyn as rd
>>> robot = rd.load("planar-2r")
>>> robot.dof
2
"""

from .core.errors import (
    InputError,
    ModelError,
    PhysicalConsistencyWarning,
    RobodynError,
    UrdfWarning,
)
from .core.provided import provide
from .core.version import VERSION
from .model import builtin as models
from .robot import Robot, TorqueParts, load

# The rest loads on first use (PEP 562): ``import robodyn`` brings NumPy and robodyn's own
# model and numeric layers, not SymPy, SciPy, Numba or Matplotlib (issue 32: 0.5 s -> 0.2 s).
_LAZY = {
    "dataset": (".motion.dataset", "dataset"),
    "Simulation": (".motion.result", "Simulation"),
    "rollout": (".motion.rollouts", "rollout"),
    "simulate": (".motion.simulation", "simulate"),
    "scale_trajectory": (".motion.time_scaling", "scale_trajectory"),
    "identify": (".identification.estimate", "identify"),
    "identify_friction": (".identification.friction_shape", "identify_friction"),
    "identify_efficiency": (".identification.efficiency", "identify_efficiency"),
    "simulate_lugre": (".motion.lugre", "simulate_lugre"),
    "excitation": (".identification.excitation", None),
    "control": (".motion.control", None),
    "energy": (".motion.energy", None),
    "trajectory": (".motion.trajectory", None),
    "JointLimitWarning": (".motion.checks", "JointLimitWarning"),
    "EnergyBalanceWarning": (".motion.checks", "EnergyBalanceWarning"),
    "plot": (".plot", None),
    "view": (".plot.viewer", "show"),  # rd.view(robot, q): the 3D viewer
}

__version__ = VERSION
__all__ = ["load", "Robot", "dataset", "TorqueParts", "models", "trajectory", "energy", "control",
           "simulate", "rollout", "scale_trajectory", "Simulation", "identify", "excitation",
           "identify_friction", "identify_efficiency", "simulate_lugre",
           "JointLimitWarning",
           "ModelError", "InputError", "RobodynError", "UrdfWarning",
           "PhysicalConsistencyWarning", "EnergyBalanceWarning", "__version__"]


def _show(self, q=None, sim=None, **options):
    """Serve a 3D view of this robot at ``q`` in a browser on 127.0.0.1 and return the
    running viewer (:func:`robodyn.plot.viewer.show`, the optional extra
    ``robodyn[viewer]``)."""
    from .plot.viewer import show

    return show(self, q, sim, **options)


# robot.show(q): the model layer cannot import the plot layer, so the facade attaches it
_show.__name__ = _show.__qualname__ = "show"
Robot.show = _show


def _compare(self, *, M=None, C=None, g=None, tau=None, Cqd=None, K=None, U=None,
             christoffel=None, steps=None, symbols=None, define=None, reveal=False):
    """Check a student's answer entry by entry (:func:`robodyn.teaching.compare.compare`):
    returns a :class:`~robodyn.teaching.compare.Comparison` with ``.ok``, ``.mistakes``
    (each with a ``kind`` and a ``hint``, never the expected entry unless ``reveal``) and a
    readable ``str()``. ``define`` names terms the answer uses (``{"h":
    "m2*l1*c2*sin(q2)"}``).

    >>> import robodyn as rd
    >>> eq = rd.load("rp-arm").equations()
    >>> print(eq.compare(M="[[Izz1 + Izz2 + m1*l1**2 + d2**2, 0], [0, m2]]",
    ...                  symbols={"d2": "q2"}))
    rp-arm: 2 mistake(s) in M (checked M)
      - M11: extra term: the term in d2^2 should not be there
      - M11: missing term: the parallel-axis term of link 2 (m2 d2^2) is missing
      note: symbols read as d2 = q2
    """
    from .teaching.compare import compare

    return compare(self, M=M, C=C, g=g, tau=tau, Cqd=Cqd, K=K, U=U, christoffel=christoffel,
                   steps=steps, symbols=symbols, define=define, reveal=reveal)


# eq.compare(...): the symbolic layer cannot import the teaching layer (the checker), so the
# facade provides it; Equations.compare calls it (robodyn.core.provided)
provide("Equations.compare", _compare)


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'robodyn' has no attribute {name!r}")
    import importlib

    module, attribute = _LAZY[name]
    value = importlib.import_module(module, __name__)
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))
