"""The export languages, in one table: for each, the writer of its closed forms, the
writer of its compiled kernels, and how to use what they write.

Each language lives in one module (:mod:`.python`, :mod:`.c` for C and C++,
:mod:`.matlab`, :mod:`.java`, :mod:`.julia`, :mod:`.mathematica`) that holds both its
writers; :data:`LANGUAGES` lists them, and everything that offers a language (the
``robodyn export`` command, :func:`robodyn.codegen.export.export_code`,
``robot.to_code``) reads it from here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...core.errors import InputError
from . import c, java, julia, mathematica, matlab, python
from .kernel_program import TracedProgram
from .program import Program

__all__ = ["Language", "LANGUAGES", "KERNEL_LANGUAGES", "ALIASES", "language"]


@dataclass(frozen=True)
class Language:
    """One export language: ``closed_forms(program) -> {file name: text}`` of the closed
    forms (a :class:`~.program.Program`) and ``closed_forms_usage(program, directory)``;
    ``kernels(program) -> {file name: text}`` of the compiled kernels (a
    :class:`~.kernel_program.TracedProgram`; ``None``: this language has the closed forms
    only) and ``kernels_usage(name, argument, directory)``: how to compile or load the
    files written to ``directory`` and call them."""

    name: str
    closed_forms: Callable[[Program], dict[str, str]]
    closed_forms_usage: Callable[[Program, str], str]
    kernels: Callable[[TracedProgram], dict[str, str]] | None = None
    kernels_usage: Callable[[str, bool, str], str] | None = None


#: Every export language, by its canonical name.
LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language("python", python.write, python.usage, python.write_kernels, python.usage_kernels),
    Language("c", c.write_c, c.usage_c, c.write_c_kernels, c.usage_c_kernels),
    Language("cpp", c.write_cpp, c.usage_cpp, c.write_cpp_kernels, c.usage_cpp_kernels),
    Language("matlab", matlab.write, matlab.usage, matlab.write_kernels, matlab.usage_kernels),
    Language("java", java.write, java.usage, java.write_kernels, java.usage_kernels),
    Language("julia", julia.write, julia.usage, julia.write_kernels, julia.usage_kernels),
    Language("mathematica", mathematica.write, mathematica.usage),
)}
#: The languages of the compiled kernels (those of :data:`LANGUAGES` with a kernel writer).
KERNEL_LANGUAGES = tuple(name for name, lang in LANGUAGES.items() if lang.kernels is not None)
#: Other spellings of the languages' names.
ALIASES = {"c++": "cpp", "cxx": "cpp", "octave": "matlab", "numpy": "python",
           "wolfram": "mathematica", "py": "python", "jl": "julia", "m": "matlab"}


def language(lang, kernels: bool = False) -> str:
    """The canonical name of ``lang`` (``"C++"`` -> ``"cpp"``), or an InputError; with
    ``kernels``, a language of the compiled kernels (:data:`KERNEL_LANGUAGES`)."""
    key = str(lang).strip().lower()
    key = ALIASES.get(key, key)
    if kernels and key not in KERNEL_LANGUAGES:
        closed_only = ", ".join(n for n in LANGUAGES if n not in KERNEL_LANGUAGES)
        raise InputError(f"lang: {str(lang)[:40]!r} is not a language of the compiled export; "
                         f"use one of {', '.join(KERNEL_LANGUAGES)} ({closed_only}: the closed "
                         "forms, eq.to_code)")
    if key not in LANGUAGES:
        raise InputError(f"lang: {str(lang)[:40]!r} is not a language; use one of "
                         f"{', '.join(LANGUAGES)}")
    return key
