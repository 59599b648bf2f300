"""Identification of the inertial parameters from measured motion: excitation
trajectories (:mod:`.excitation`), the estimate (:mod:`.estimate`), models with every
inertial parameter a symbol (:mod:`.parameters`)."""

from .estimate import (
    MAX_ANGLE,
    NOISE_FLOOR,
    PHYSICAL_ABS,
    PHYSICAL_MAX_STEPS,
    PHYSICAL_WORSE,
    Identification,
    IdentificationWarning,
    consistency_problems,
    identify,
    read_csv,
)

__all__ = ["identify", "Identification", "IdentificationWarning", "read_csv",
           "consistency_problems", "NOISE_FLOOR", "PHYSICAL_WORSE", "PHYSICAL_ABS",
           "PHYSICAL_MAX_STEPS", "MAX_ANGLE"]
