"""Errors raised by robodyn.

Every error names the field that is wrong, the value found and, where there is
one, the fix: ``links[1].inertia: not positive semi-definite (eigenvalues
-0.2, 0.1, 0.3)``.
"""


class RobodynError(Exception):
    """Base class of robodyn's errors."""


class ModelError(RobodynError, ValueError):
    """A robot description (model file, URDF, parameters) is malformed or non-physical."""


class InputError(RobodynError, ValueError):
    """A numeric argument has the wrong shape or is not finite."""
