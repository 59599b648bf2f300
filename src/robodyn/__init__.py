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
from .core.version import VERSION
from .identification import excitation
from .identification.estimate import identify
from .identification.friction_fit import identify_friction
from .model import builtin as models
from .motion import control, energy, trajectory
from .motion.checks import EnergyBalanceWarning, JointLimitWarning
from .motion.dataset import dataset
from .motion.result import Simulation
from .motion.rollouts import rollout
from .motion.simulation import simulate
from .motion.time_scaling import scale_trajectory
from .robot import Robot, TorqueParts, load
from .symbolic.equations import Equations as _Equations

__version__ = VERSION
__all__ = ["load", "Robot", "dataset", "TorqueParts", "models", "trajectory", "energy", "control",
           "simulate", "rollout", "scale_trajectory", "Simulation", "identify", "excitation",
           "identify_friction",
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
# facade attaches it
_compare.__name__, _compare.__qualname__ = "compare", "Equations.compare"
_Equations.compare = _compare


def __getattr__(name: str):
    # rd.plot imports Matplotlib, so it loads on first use, not with ``import robodyn``
    if name == "plot":
        import importlib

        return importlib.import_module(".plot", __name__)
    if name == "view":  # rd.view(robot, q): the 3D viewer, rd.plot.show
        from .plot.viewer import show

        return show
    raise AttributeError(f"module 'robodyn' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | {"plot", "view"})
