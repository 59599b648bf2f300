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
from .model import builtin as models
from .motion import control, energy, trajectory
from .motion.checks import EnergyBalanceWarning, JointLimitWarning
from .motion.result import Simulation
from .motion.rollouts import rollout
from .motion.simulation import simulate
from .robot import Robot, TorqueParts, load

__version__ = VERSION
__all__ = ["load", "Robot", "TorqueParts", "models", "trajectory", "energy", "control",
           "simulate", "rollout", "Simulation", "identify", "excitation", "JointLimitWarning",
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
