"""The export languages, in one table: for each, the writer of its closed forms, the
writer of its compiled kernels, and how to use what they write.

Each language lives in one module (:mod:`.python`, :mod:`.c` for C and C++,
:mod:`.matlab`, :mod:`.java`, :mod:`.julia`, :mod:`.mathematica`) that holds both its
writers; :data:`LANGUAGES` lists them, and everything that offers a language (the
``robodyn export`` command, :func:`robodyn.codegen.export.export_code`,
``robot.to_code``) reads it from here.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

from ...core.errors import InputError

__all__ = ["Language", "LANGUAGES", "KERNEL_LANGUAGES", "ALIASES", "PARAMETER_MODES",
           "language"]

#: How the model's parameter values enter exported code: ``baked`` (numbers in the code)
#: or ``argument`` (a vector ``p`` each function takes first).
PARAMETER_MODES = ("baked", "argument")


@dataclass(frozen=True)
class Language:
    """One export language, its writers named in its module (imported at first use: the
    writers print with SymPy, and a table of names costs no import):
    ``closed_forms(program) -> {file name: text}`` of the closed forms (a
    :class:`~.program.Program`) and ``closed_forms_usage(program, directory)``;
    ``kernels(program) -> {file name: text}`` of the compiled kernels (a
    :class:`~.kernel_program.TracedProgram`; ``None``: this language has the closed forms
    only) and ``kernels_usage(name, argument, directory)``: how to compile or load the
    files written to ``directory`` and call them."""

    name: str
    module: str
    writers: tuple[str, str, str | None, str | None]

    def _writer(self, k: int) -> Callable | None:
        name = self.writers[k]
        if name is None:
            return None
        return getattr(importlib.import_module(f".{self.module}", __package__), name)

    @property
    def closed_forms(self) -> Callable[..., dict[str, str]]:
        return self._writer(0)

    @property
    def closed_forms_usage(self) -> Callable[..., str]:
        return self._writer(1)

    @property
    def kernels(self) -> Callable[..., dict[str, str]] | None:
        return self._writer(2)

    @property
    def kernels_usage(self) -> Callable[..., str] | None:
        return self._writer(3)


#: Every export language, by its canonical name.
LANGUAGES: dict[str, Language] = {lang.name: lang for lang in (
    Language("python", "python", ("write", "usage", "write_kernels", "usage_kernels")),
    Language("c", "c", ("write_c", "usage_c", "write_c_kernels", "usage_c_kernels")),
    Language("cpp", "c", ("write_cpp", "usage_cpp", "write_cpp_kernels", "usage_cpp_kernels")),
    Language("matlab", "matlab", ("write", "usage", "write_kernels", "usage_kernels")),
    Language("java", "java", ("write", "usage", "write_kernels", "usage_kernels")),
    Language("julia", "julia", ("write", "usage", "write_kernels", "usage_kernels")),
    Language("mathematica", "mathematica", ("write", "usage", None, None)),
)}
#: The languages of the compiled kernels (those of :data:`LANGUAGES` with a kernel writer).
KERNEL_LANGUAGES = tuple(name for name, lang in LANGUAGES.items()
                         if lang.writers[2] is not None)
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
