"""Generated code: the scalar algorithms traced into straight-line programs and
compiled (Numba) or run vectorised (NumPy). See :mod:`robodyn.codegen.tape`."""
