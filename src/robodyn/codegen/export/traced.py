"""The compiled kernels as standalone source: the traced straight-line programs of
:mod:`robodyn.codegen.kernel` printed in C, C++, Python (NumPy), Java, Julia and MATLAB.

The closed forms (:func:`robodyn.codegen.export.export_code`) are for reading; these are
for running. Every entry of :data:`~robodyn.dynamics.registry.KERNELS` (inverse and
forward dynamics, the mass, Coriolis and gravity terms, kinematics, energies, the
regressor, the derivatives, the ``h_e`` variants) is traced once on the model's chain
(:func:`robodyn.codegen.trace.trace`: constants folded, common subexpressions shared)
and its live instructions printed one statement each, so the exported code computes
exactly what robodyn's own kernels compute, in the same order of operations (a forward
dynamics is the traced articulated-body / Cholesky program: straight-line, no solver).

Names: the functions are the registry's (``NAME_inverse_dynamics`` in C, where ``NAME``
is :func:`~.program.identifier` of the model name or the ``name`` given); the arguments
are ``p`` (parameter mode ``argument``: the model's parameters in the order of
``robot.runner.parameter_names``), then the registry's inputs ``q, qd, qdd, tau, h_e``;
results are row-major, named as the registry entry's ``output`` (``tau``, ``M``, ``T_0e``,
``Jdot``). No user text reaches the code except through the header
comment, escaped for each language (:func:`.base.comment_line`).

How: :func:`~.kernel_program.build` traces the entries into a
:class:`~.kernel_program.TracedProgram`; each language's module prints it (its
``write_kernels``, listed in :data:`~.languages.LANGUAGES`).
"""

from __future__ import annotations

from ...model.source import Provenance
from ..runner import Runner
from .kernel_program import build
from .languages import LANGUAGES, language

__all__ = ["to_code", "usage"]


def to_code(runner: Runner, lang: str, functions=None, parameters: str = "baked",
            name: str | None = None, provenance: Provenance | None = None) -> dict[str, str]:
    """``{file name: text}``: the kernels ``functions`` (``None``: every entry of the
    registry) of the model of ``runner`` in ``lang`` (one of
    :data:`~robodyn.codegen.export.languages.KERNEL_LANGUAGES`); see the module docstring."""
    writer = LANGUAGES[language(lang, kernels=True)].kernels
    return writer(build(runner, functions, parameters, name, provenance))


def usage(lang: str, prog_name: str, argument: bool, directory: str) -> str:
    """How to compile/load the files written to ``directory`` and call them (shell words
    quoted)."""
    return LANGUAGES[language(lang, kernels=True)].kernels_usage(prog_name, argument,
                                                                  directory)
