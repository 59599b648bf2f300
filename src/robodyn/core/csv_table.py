"""The one strict reader of CSV number tables (``identify``'s samples, ``simulate --tau``'s
torques), so the two file formats cannot drift apart.

Rules, each broken one an :class:`~robodyn.core.errors.InputError` naming the file, the line
and (for a value) the column, e.g. ``data.csv, line 7, column qd2: '1_0' is not a number``:

- UTF-8, with or without the byte-order mark spreadsheets write (``utf-8-sig``); at most
  ``max_bytes`` bytes (:data:`MAX_TABLE_BYTES` by default); a regular file (a FIFO or a
  device would block or never end).
- Commas separate the values (CSV quoting allowed); ``#`` starts a comment to the end of
  the line; blank lines (and lines of empty cells only, as spreadsheets export) are
  skipped.
- A header line names the columns (letter case aside); each name at most once; the
  columns asked for are picked by name (any order), the others are ignored (but a name
  that looks like one asked for with another index, ``q3`` for a 2-joint robot, is an
  error: the wrong model).
  Where the header is optional, a first line that starts with a number is data, its
  columns the ones asked for in order.
- Every row has exactly as many values as the header (or the columns asked for).
- A value is a plain decimal number, optionally signed, with an optional exponent:
  ``-1.5``, ``.5``, ``2.``, ``3e-4``, ``1E+3``; blanks around it are allowed. Not accepted
  (though Python's ``float`` takes them): ``1_0`` (read as 10), ``nan``, ``inf``,
  ``infinity``, digits of other scripts (``١٢``), ``0x10``, ``1+2j``, an empty cell; and a
  number that overflows to infinity (``1e999``).
"""

from __future__ import annotations

import csv
import math
import os
import re
from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .errors import PATH_CHARS, InputError, excerpt, excerpt_path
from .files import NotRegularFile, open_regular_file

__all__ = ["NumberTable", "read_number_table", "parse_number", "MAX_TABLE_BYTES"]

#: Largest table file read, in bytes.
MAX_TABLE_BYTES = 100_000_000
#: A number as the tables take it: ASCII digits only (``re.ASCII``), no underscores.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
#: Blanks allowed around a value (not every character ``str.strip`` removes).
_BLANKS = " \t"


def parse_number(text: str) -> float | str:
    """``text`` as a finite float, or why not (a string: ``'is not a number'``...)."""
    cell = text.strip(_BLANKS)
    if not cell:
        return "is empty; every value must be a number"
    if not _NUMBER.fullmatch(cell):
        low = cell.lower().lstrip("+-")
        if low in ("nan", "inf", "infinity"):
            return "is not a finite number"
        return "is not a number (plain decimal numbers only, e.g. -1.5 or 2e-3)"
    value = float(cell)
    if not math.isfinite(value):
        return "is too large: it overflows a 64-bit float"
    return value


def _label(path: Path) -> str:
    """The file as the messages name it: as given, quoted only where it holds odd
    characters (a newline in a file name must not break the one-line error)."""
    text = str(path)
    if text.isprintable() and len(text) <= PATH_CHARS and "'" not in text and "," not in text:
        return text
    return excerpt_path(text)


@dataclass(frozen=True, eq=False)
class NumberTable:
    """A table read by :func:`read_number_table`: ``values[r, c]`` of ``columns[c]`` from
    file line ``lines[r]``; ``name`` is how messages name the file."""

    name: str
    columns: tuple[str, ...]
    values: np.ndarray
    lines: np.ndarray

    def where(self, row: int, column: int) -> str:
        """``data.csv, line 7, column qd2``: where value ``[row, column]`` came from."""
        return f"{self.name}, line {int(self.lines[row])}, column {self.columns[column]}"


def read_number_table(path, columns: Sequence[str], *, header: bool | None = True,
                      aliases: Mapping[str, str] | None = None,
                      foreign: Callable[[str], bool] | None = None,
                      label: str = "", expected: str = "",
                      max_bytes: int = MAX_TABLE_BYTES) -> NumberTable:
    """The columns ``columns`` of the CSV file ``path`` as finite float64 numbers (module
    docstring). ``header``: ``True`` a header line is required, ``None`` optional.
    ``columns`` and ``aliases`` (other header names of a column, ``{"time": "t"}``) are
    lower case. ``foreign``: true for a header name that must not appear (``q3`` for a
    2-joint robot). ``label`` starts every message (``"--tau: "``); ``expected`` says what
    a row holds (``"t,tau1..tau2"``)."""
    path = Path(path)
    name = _label(path)
    pre = f"{label}{name}"
    aliases = dict(aliases or {})
    want = list(columns)
    try:
        handle = open_regular_file(path)
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            handle.close()
            raise InputError(f"{pre}: {size:,} bytes; at most {max_bytes:,} are read "
                             "(split the file)")
    except NotRegularFile as exc:
        raise InputError(f"{pre}: {exc.strerror}; a CSV file is expected") from None
    except OSError as exc:
        raise InputError(f"{pre}: cannot be read ({exc.strerror or exc})") from None
    flat = array("d")
    lines = array("q")
    index: list[int] | None = None
    width = 0
    budget = max_bytes
    with handle:
        number = 0
        while True:
            raw = handle.readline(budget + 1)
            if not raw:
                break
            budget -= len(raw)
            number += 1
            if budget < 0:  # the file grew after the check
                raise InputError(f"{pre}: more than {max_bytes:,} bytes (split the file)")
            cells = _cells(raw, number, pre)
            if cells is None:
                continue
            if index is None:
                first = cells[0].strip(_BLANKS)
                if header or not isinstance(parse_number(first), float):
                    index, width = _header(cells, want, aliases, foreign, pre, number)
                    continue
                index, width = list(range(len(want))), len(want)
            if len(cells) != width:
                what = f" ({expected})" if expected and width == len(want) else \
                    " (as many as the header)"
                raise InputError(f"{pre}, line {number}: {len(cells)} column"
                                 f"{'' if len(cells) == 1 else 's'}; expected {width}{what}"
                                 f"{_separator(cells)}")
            for col, k in zip(want, index, strict=True):
                value = parse_number(cells[k])
                if isinstance(value, str):
                    raise InputError(f"{pre}, line {number}, column {col}: "
                                     f"{excerpt(cells[k].strip(_BLANKS), 40)} {value}")
                flat.append(value)
            lines.append(number)
    if index is None:
        raise InputError(f"{pre}: the file is empty; it needs "
                         + (f"a header line {_names(want)}" if header else
                            f"rows of {expected or _names(want)}"))
    if not lines:
        raise InputError(f"{pre}: holds no rows"
                         + (f" of {expected}" if expected else " of data after the header"))
    values = np.frombuffer(flat, dtype=np.float64).reshape(len(lines), len(want)).copy()
    return NumberTable(pre, tuple(want), values, np.frombuffer(lines, dtype=np.int64).copy())


def _cells(raw: bytes, number: int, pre: str) -> list[str] | None:
    """The cells of one line (``None`` for a blank or comment line)."""
    if number == 1 and raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{pre}, line {number}: not UTF-8 text (byte {exc.start + 1} of the "
                         "line); save the file as UTF-8 CSV") from None
    text = text.rstrip("\n").rstrip("\r").split("#", 1)[0]
    if not text.strip():
        return None
    try:
        rows = list(csv.reader([text], strict=True))
    except csv.Error as exc:
        raise InputError(f"{pre}, line {number}: not a CSV line ({excerpt(str(exc), 60)})"
                         ) from None
    if len(rows) != 1:
        raise InputError(f"{pre}, line {number}: not a CSV line")
    cells = rows[0]
    if all(not cell.strip(_BLANKS) for cell in cells):
        return None
    return cells


def _header(cells, want, aliases, foreign, pre, number) -> tuple[list[int], int]:
    """Where each wanted column is in the header line ``cells``, and its width."""
    names = [c.strip(_BLANKS).lower() for c in cells]
    names = [aliases.get(n, n) for n in names]
    seen: dict[str, int] = {}
    for k, n in enumerate(names):
        if not n:
            continue
        if n in seen:
            raise InputError(f"{pre}, line {number} (header): the column {excerpt(n, 40)} "
                             f"appears twice (columns {seen[n] + 1} and {k + 1}); name each "
                             "column once")
        seen[n] = k
        if foreign is not None and n not in want and foreign(n):
            raise InputError(f"{pre}, line {number} (header): column {excerpt(n, 40)} does not "
                             f"fit; the columns are {_names(want)} (is it the file of another "
                             "model?)")
    missing = [w for w in want if w not in seen]
    if missing:
        raise InputError(f"{pre}, line {number} (header) lacks the column(s) "
                         f"{', '.join(missing[:8])}{' ...' if len(missing) > 8 else ''}; "
                         f"the columns are {_names(want)} (found "
                         f"{excerpt(','.join(c.strip(_BLANKS) for c in cells), 60)})"
                         f"{_separator(cells)}")
    return [seen[w] for w in want], len(cells)


def _separator(cells) -> str:
    """A hint where a line is one cell holding semicolons or tabs (another separator)."""
    if len(cells) == 1 and any(sep in cells[0] for sep in ";\t"):
        return "; the values must be separated by commas"
    return ""


def _names(want: Sequence[str]) -> str:
    return ",".join(want) if len(want) <= 6 else f"{','.join(want[:4])},...,{want[-1]}"
