"""The few non-arithmetic functions the algorithms need, per scalar type."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import sympy as sp

#: SymPy expressions (closed forms).
SYMPY = SimpleNamespace(sin=sp.sin, cos=sp.cos, sqrt=sp.sqrt, sign=sp.sign, name="sympy")

#: NumPy arrays or floats, evaluated directly.
NUMPY = SimpleNamespace(sin=np.sin, cos=np.cos, sqrt=np.sqrt, sign=np.sign, name="numpy")

#: Python floats.
MATH = SimpleNamespace(
    sin=math.sin, cos=math.cos, sqrt=math.sqrt,
    sign=lambda x: (x > 0) - (x < 0), name="math",
)
