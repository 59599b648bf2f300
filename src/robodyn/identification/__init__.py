"""Identification of the inertial parameters from measured motion: excitation
trajectories (:mod:`.excitation`), the estimate (:mod:`.estimate`) of the samples read and
checked by :mod:`.samples`, with the physically consistent fit of :mod:`.physical`, as an
:class:`~.result.Identification` (:mod:`.result`); models with every inertial parameter a
symbol (:mod:`.parameters`)."""

from .estimate import (
    NOISE_FLOOR,
    PHYSICAL_ABS,
    PHYSICAL_WORSE,
    IdentificationWarning,
    identify,
)
from .physical import PHYSICAL_MAX_STEPS, consistency_problems
from .result import Identification
from .samples import MAX_ANGLE, read_csv

__all__ = ["identify", "Identification", "IdentificationWarning", "read_csv",
           "consistency_problems", "NOISE_FLOOR", "PHYSICAL_WORSE", "PHYSICAL_ABS",
           "PHYSICAL_MAX_STEPS", "MAX_ANGLE"]
