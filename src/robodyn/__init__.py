"""robodyn: rigid-body dynamics of serial robot manipulators.

>>> import robodyn as rd
>>> robot = rd.load("planar-2r")
>>> robot.dof
2
"""

from . import models
from .errors import InputError, ModelError, RobodynError
from .robot import Robot, load

__version__ = "0.1.0"
__all__ = ["load", "Robot", "models", "ModelError", "InputError", "RobodynError", "__version__"]
