"""Closed-form equations of motion exported as standalone code.

``export_code(eq, "c")`` (and :meth:`robodyn.symbolic.Equations.to_code`) returns
``{file name: text}`` for one of :data:`LANGUAGES`: ``python`` (NumPy only), ``c`` (C99,
``.h`` + ``.c``), ``cpp`` (Eigen, header-only), ``matlab`` (Octave-compatible ``.m``
files), ``java`` (a class of static methods), ``julia`` (a module) and ``mathematica``
(a Wolfram Language package). The functions are the same in every language:
``inverse_dynamics(q, qd, qdd) -> tau``, ``mass_matrix(q) -> M``,
``coriolis_matrix(q, qd) -> C``, ``gravity_torques(q) -> g``, ``friction_torques(qd)``
(and ``regressor(q, qd, qdd) -> Y`` where the equations have one), prefixed with the
model's name where the language has no modules (C: ``NAME_mass_matrix``; MATLAB:
``NAME_mass_matrix.m``). How they are built: :mod:`.program`; printing: SymPy's code
printers (:mod:`.printers`) inside small per-language writers, one module a language
beside its writer of the compiled kernels (:mod:`.traced`), all listed in
:data:`.languages.LANGUAGES`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from ...core.progress import ProgressOption
from .languages import LANGUAGES, PARAMETER_MODES, language

if TYPE_CHECKING:
    import sympy as sp

    from .program import Program

__all__ = ["LANGUAGES", "PARAMETER_MODES", "FUNCTIONS", "export_code", "program_of",
           "write_files", "usage", "language", "build_program", "equation_matrices", "Program",
           "MARKER"]

# The program's builder prints with SymPy: its names load at first use (``robodyn --help``
# and the file writers of every command need none of it)
_FROM_PROGRAM = ("FUNCTIONS", "MARKER", "Program", "build_program", "equation_matrices")


def __getattr__(name: str):
    if name in _FROM_PROGRAM:
        from . import program

        return getattr(program, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def program_of(eq, parameters: str = "baked", name: str | None = None,
               values: Mapping[str, float] | None = None,
               matrices: Mapping[str, tuple[sp.Matrix, tuple[str, ...]]] | None = None,
               progress: ProgressOption = None) -> Program:
    """The language-independent :class:`~.program.Program` (see :mod:`.program`); ``q``
    has ``nq`` entries with free or ball joints (:attr:`~.program.Program.nq`)."""
    from .program import build_program

    return build_program(eq, parameters, name, values, matrices, progress=progress)


def export_code(eq, lang: str, parameters: str = "baked", name: str | None = None,
                values: Mapping[str, float] | None = None,
                matrices: Mapping[str, tuple[sp.Matrix, tuple[str, ...]]] | None = None,
                progress: ProgressOption = None) -> dict[str, str]:
    """``{file name: text}`` of the equations ``eq`` in ``lang``.

    ``parameters``: ``"baked"`` (numbers in the code: the equations' default values,
    updated by ``values``) or ``"argument"`` (each function takes the vector ``p`` first,
    ordered as ``eq.params``; the order is in every file's header). ``name``: the prefix/
    module/class name (default: the model name made an identifier of every language,
    :func:`.program.identifier`: ``planar-2r`` -> ``planar_2r``, ``class`` -> ``class_``).
    The model's own name and symbols appear only in the header comment, escaped for the
    language (:func:`.base.comment`). ``matrices``: ``{function name: (SymPy matrix,
    argument names)}`` to export instead of the default set (:func:`equation_matrices`).
    ``progress`` counts the functions prepared (:mod:`robodyn.core.progress`: a bar on a
    terminal by default, ``False`` for none, or a callable ``(done, total, label)``).
    """
    writer = LANGUAGES[language(lang)].closed_forms
    return writer(program_of(eq, parameters, name, values, matrices, progress))


def usage(lang: str, program: Program, directory: str) -> str:
    """How to compile/load the files written to ``directory`` and call them."""
    return LANGUAGES[language(lang)].closed_forms_usage(program, str(directory))


def write_files(files: Mapping[str, str], directory: str | Path, force: bool = False,
                option: str = "--out") -> list[Path]:
    """Write ``files`` into ``directory`` (created if missing); the paths written. A file
    there that robodyn did not write is not overwritten unless ``force``, and a symbolic
    link never is (see :mod:`.files`)."""
    from .files import write_files as write

    return write(files, directory, force=force, option=option)
