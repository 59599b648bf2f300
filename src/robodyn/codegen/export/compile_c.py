"""The C export built and loaded in one call: ``robot.compile_c()`` -> Python callables.

robodyn writes the C files of :func:`.c.write_c_kernels` and a small batch driver of its own
into a private temporary directory it creates (mode 0700), runs the C compiler found on
``PATH`` (``cc``, ``gcc`` or ``clang``, or the one given) on exactly those files, loads the
shared library it produced there with :mod:`ctypes` and deletes what it wrote. Nothing
else is compiled, loaded or deleted.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from ...core.errors import InputError, RobodynError
from ...model.source import Provenance
from ..batch_inputs import as_real_array
from ..runner import Runner
from .c import write_c_kernels
from .kernel_program import TracedProgram, build

#: The compilers looked for on PATH, in this order.
COMPILERS = ("cc", "gcc", "clang")
#: The longest a compilation may take, in seconds (the Panda's full set: about 30 s).
COMPILE_TIMEOUT = 600.0

_DOUBLE_P = ctypes.POINTER(ctypes.c_double)


def find_compiler(compiler: str | None = None) -> str:
    """The path of the C compiler: ``compiler`` (a name on PATH or a path) or the first of
    :data:`COMPILERS` on PATH; a :class:`RobodynError` saying how to get one otherwise."""
    if compiler is not None:
        found = shutil.which(str(compiler))
        if found is None:
            raise RobodynError(f"compiler: {str(compiler)[:80]!r} is not an executable on PATH; "
                               "give the name or path of a C compiler (gcc, clang)")
        return found
    for name in COMPILERS:
        found = shutil.which(name)
        if found is not None:
            return found
    raise RobodynError("compile_c: no C compiler on PATH (looked for cc, gcc, clang); install "
                       "one (Debian: apt-get install gcc) or pass compiler='/path/to/cc'")


def _driver(prog: TracedProgram) -> str:
    """C source of the batch loops ``NAME_FUNCTION_batch(n, [p,] inputs..., out)``: sample
    ``k`` of every input at ``k * width`` (a stride of 0 repeats one value)."""
    lines = [f'#include "{prog.name}.h"', ""]
    for f in prog.functions:
        args = prog.args(f)
        params = ", ".join(["long n"] + [f"const double *{a}, long s_{a}" for a in args]
                           + ["double *out"])
        call = ", ".join([f"{a} + k * s_{a}" for a in args] + [f"out + k * {f.size}"])
        lines += [f"void {prog.name}_{f.name}_batch({params});",
                  f"void {prog.name}_{f.name}_batch({params})", "{",
                  "    long k;", "    for (k = 0; k < n; ++k)",
                  f"        {prog.name}_{f.name}({call});", "}", ""]
    return "\n".join(lines)


class CompiledFunction:
    """One compiled kernel: call it with arrays of shape ``(..., width)`` (broadcast
    together) to get ``batch + shape``."""

    def __init__(self, prog: TracedProgram, index: int, library):
        f = prog.functions[index]
        self.name = f.name
        self.shape = f.shape
        self.args = tuple(prog.args(f))
        self._widths = prog.widths(f)
        self._size = f.size
        self._fn = getattr(library, f"{prog.name}_{f.name}_batch")
        self._fn.restype = None
        self._fn.argtypes = ([ctypes.c_long] + [_DOUBLE_P, ctypes.c_long] * len(self.args)
                             + [_DOUBLE_P])
        self._library = library  # keeps the library loaded while this function lives
        self.__doc__ = f"{f.doc} (compiled C): {self.name}({', '.join(self.args)})"

    def __call__(self, *arrays):
        if len(arrays) != len(self.args):
            raise InputError(f"{self.name}: takes {len(self.args)} arrays "
                             f"({', '.join(self.args)}), got {len(arrays)}")
        checked = []
        for name, value in zip(self.args, arrays):
            width = self._widths[name]
            a = as_real_array(name, value)  # no bools, complex numbers, text
            if a.ndim == 0 or a.shape[-1] != width:
                raise InputError(f"{name}: expected shape (..., {width}), got {a.shape}")
            finite = np.isfinite(a)
            if not finite.all():  # the C code would return NaN rows without a word
                where = tuple(int(k) for k in np.argwhere(~finite)[0])
                raise InputError(f"{self.name}: {name}{list(where)} = {a[where]} is not finite; "
                                 "pass finite numbers")
            checked.append(a)
        try:
            batch = np.broadcast_shapes(*(a.shape[:-1] for a in checked))
        except ValueError:
            detail = ", ".join(f"{n} {a.shape}" for n, a in zip(self.args, checked))
            raise InputError(f"{self.name}: batch shapes do not broadcast: {detail}") from None
        n = int(np.prod(batch, dtype=np.int64))
        out = np.empty((n, self._size))
        call = [ctypes.c_long(n)]
        keep = []
        for name, a in zip(self.args, checked):
            if a.shape[:-1] == batch:
                flat = np.ascontiguousarray(a.reshape(-1, a.shape[-1]))
                stride = self._widths[name]
            elif a.ndim == 1:  # one value for every sample
                flat, stride = np.ascontiguousarray(a), 0
            else:
                flat = np.ascontiguousarray(np.broadcast_to(a, batch + a.shape[-1:])
                                            ).reshape(-1, a.shape[-1])
                stride = self._widths[name]
            keep.append(flat)
            call += [flat.ctypes.data_as(_DOUBLE_P), ctypes.c_long(stride)]
        call.append(out.ctypes.data_as(_DOUBLE_P))
        if n:
            self._fn(*call)
        return out.reshape(batch + self.shape)

    def __repr__(self):
        return f"<compiled C {self.name}({', '.join(self.args)})>"


class CompiledC:
    """The compiled kernels of one model: ``kernels.inverse_dynamics(q, qd, qdd)``,
    ``kernels["mass_matrix"](q)``; ``names`` lists them, ``files`` holds the C source."""

    def __init__(self, prog: TracedProgram, library, files: dict[str, str]):
        self.name = prog.name
        self.parameters = prog.parameters if prog.argument else ()
        self.files = dict(files)
        self._functions = {f.name: CompiledFunction(prog, k, library)
                           for k, f in enumerate(prog.functions)}
        self.names = tuple(self._functions)

    def __getitem__(self, name: str) -> CompiledFunction:
        try:
            return self._functions[name]
        except KeyError:
            raise InputError(f"{str(name)[:60]!r} was not compiled; compiled are "
                             f"{', '.join(self.names)}") from None

    def __getattr__(self, name: str) -> CompiledFunction:
        if name.startswith("_"):
            raise AttributeError(name)
        functions = self.__dict__.get("_functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(f"{name!r} was not compiled; compiled are "
                             f"{', '.join(functions)}")

    def __dir__(self):
        return [*super().__dir__(), *self._functions]

    def __repr__(self):
        return f"<compiled C kernels of {self.name}: {', '.join(self.names)}>"


def compile_c(runner: Runner, functions=None, parameters: str = "baked",
              compiler: str | None = None, flags: Sequence[str] = ("-O2",),
              timeout: float = COMPILE_TIMEOUT, provenance: Provenance | None = None
              ) -> CompiledC:
    """Generate, compile and load the C kernels ``functions`` (``None``: all) of the model
    of ``runner``
    (see the module docstring). ``parameters="argument"``: each callable takes the
    parameter vector ``p`` first (order ``robot.runner.parameter_names``)."""
    flags = [str(f) for f in ([flags] if isinstance(flags, str) else flags)]
    for flag in flags:
        if not flag.startswith("-") or "\n" in flag:
            raise InputError(f"flags: {flag[:40]!r} is not a compiler option (one starting "
                             "with -)")
    cc = find_compiler(compiler)
    prog = build(runner, functions, parameters, provenance=provenance)
    files = write_c_kernels(prog)
    driver = f"{prog.name}_robodyn_batch.c"
    sources = {**files, driver: _driver(prog)}
    folder = Path(tempfile.mkdtemp(prefix="robodyn-cc-"))  # private: mode 0700, unique
    written: list[Path] = []
    library_name = f"lib{prog.name}.so"
    try:
        for fname, text in sources.items():
            path = folder / fname
            with open(path, "x", encoding="utf-8") as handle:  # never through a planted file
                handle.write(text)
            written.append(path)
        library = folder / library_name
        command = [cc, *flags, "-std=c99", "-shared", "-fPIC", "-o", library_name,
                   f"{prog.name}.c", driver, "-lm"]
        written.append(library)
        try:
            result = subprocess.run(command, cwd=folder, capture_output=True, text=True,
                                    timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise RobodynError(f"compile_c: {Path(cc).name} took more than {timeout:g} s on "
                               f"{len(prog.functions)} functions; compile fewer (functions=[...]) "
                               "or pass a larger timeout") from None
        if result.returncode != 0:
            raise RobodynError(f"compile_c: {Path(cc).name} failed (exit {result.returncode}): "
                               + (result.stderr.strip() or result.stdout.strip())[-800:])
        st = os.lstat(library)
        if not stat.S_ISREG(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()):
            raise RobodynError(f"compile_c: {library} is not the library the compiler wrote")
        loaded = ctypes.CDLL(str(library))
    finally:
        if sys.platform != "win32":  # a loaded library stays mapped after its file is gone
            for path in written:
                with contextlib.suppress(OSError):
                    path.unlink()
            with contextlib.suppress(OSError):
                folder.rmdir()
    return CompiledC(prog, loaded, files)


__all__ = ["compile_c", "CompiledC", "CompiledFunction", "find_compiler", "COMPILERS"]
