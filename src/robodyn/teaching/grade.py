"""Grading many students' answers against an exercise's solution (``robodyn grade``).

The solution is ``solution/answer.json`` as :meth:`robodyn.symbolic.Equations.json`
writes it (``robodyn exercise`` puts it there): its ``model``, ``method``, ``dof``,
``joint_types`` and ``parameters`` name the equations, its ``M``, ``C``, ``g``, ``tau``
are the answer. :func:`read_solution` checks that it belongs to the model it is graded
with (the same derivation gives the same entries), so a student is graded against the
solution handed out, by the checker of :mod:`robodyn.teaching.compare`.

A submission is one text file per student (:func:`read_submission`)::

    # anything after a hash is a comment
    symbols: theta1=q1, theta2=q2, L1=l1
    define: h = m2*l1*c2*sin(theta2)
    M = [[I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(theta2)), ...],
         [..., I2 + m2*c2^2]]
    C = [[-h*theta2dot, -h*(theta1dot + theta2dot)], [h*theta1dot, 0]]
    g = [..., ...]

``KEY = VALUE`` for ``M``, ``C``, ``g``, ``tau``, ``Cqd`` (or ``V``, lecture 15's name); a value
goes on over the next lines until its brackets close. Intermediate answers too, as
``robodyn check`` takes them: ``K``, ``U``, a Christoffel symbol ``c112`` (or ``c_112``), the
regressor ``Y`` (in the exercise's ``pi``, answer.json's ``"pi"``), and any step of the
derivation by its left side as ``derive --steps`` prints it: a link's Jacobians
``J_P^(l1)``, ``J_O^(l1)`` (the Jacobian route), Newton-Euler's ``omega_2`` (``w_2``),
``vdot_c2`` (``pddc_2``), ``f_2``, ``n_2`` (``mu_2``), ... (:func:`.intermediate.canonical`).
``symbols:`` (``NAME=NAME`` pairs,
comma separated) and ``define:`` (one ``NAME = EXPR`` each, repeatable) are optional. A
file that starts with ``{`` is read as JSON with the same keys (``"symbols"`` and
``"define"`` as objects).

:func:`grade` gives one :class:`Row` per submission and quantity: entries right, entries
in all, and the kinds of mistakes by entry (``M11 factor; g2 missing term``): never an
expected expression. A file that cannot be read or checked (too large, unparsable, past
a budget) is one row with the error, and grading goes on.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from ..core.errors import InputError, RobodynError, excerpt
from ..core.files import LinkRefused, NotRegularFile, read_regular_file

__all__ = ["Row", "grade", "read_limited", "read_solution", "read_submission", "rows_csv",
           "MAX_SUBMISSION_BYTES", "MAX_SOLUTION_BYTES", "MAX_SUBMISSIONS", "QUANTITIES"]

#: The quantities a submission may answer, in the order of the rows.
QUANTITIES = ("M", "C", "g", "tau", "Cqd")
#: Largest submission file (bytes), largest answer.json, most submissions in one run.
MAX_SUBMISSION_BYTES = 200_000
MAX_SOLUTION_BYTES = 5_000_000
MAX_SUBMISSIONS = 2_000
#: Longest error message in a row (characters).
MAX_ERROR_CHARS = 300
#: Most lines of one submission.
MAX_LINES = 2_000
_KEY = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_^()]*)\s*(=|:)\s*(.*)$", re.S)
#: Most intermediate answers in one file.
MAX_INTERMEDIATE = 64
_COLUMNS = ("file", "quantity", "right", "total", "mistakes", "error")


@dataclass(frozen=True)
class Row:
    """One line of the grades: ``file``, ``quantity`` (``""`` for a file-wide error),
    ``right`` and ``total`` entries (None with an error), ``mistakes`` (``"M11 factor;
    M22 index"``), ``error`` (why the file could not be graded)."""

    file: str
    quantity: str
    right: int | None = None
    total: int | None = None
    mistakes: str = ""
    error: str = ""


def read_limited(path: Path, limit: int, what: str, follow_links: bool = True) -> str:
    """The UTF-8 text of the regular file ``path``; ``follow_links=False`` (a student's
    submission) refuses a symbolic link, so no one reads a file through the grader."""
    try:
        data = read_regular_file(path, limit, follow_links)
    except (NotRegularFile, LinkRefused) as exc:
        raise InputError(f"{what} {excerpt(str(path), 80)}: {exc.strerror}") from None
    except OSError as exc:
        raise InputError(f"{what} {excerpt(str(path), 80)}: cannot read it "
                         f"({exc.strerror or exc})") from None
    if len(data) > limit:
        raise InputError(f"{what} {excerpt(str(path), 80)}: larger than {limit:,} bytes")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(f"{what} {excerpt(str(path), 80)}: not UTF-8 text") from None


def read_solution(path: str | Path) -> dict:
    """The parsed ``answer.json`` (a dict with ``model``, ``method``, ``dof``, ``M``, ``C``,
    ``g``, ``tau``, ...), checked for the keys :func:`grade` needs; an
    :class:`~robodyn.core.errors.InputError` naming the file and the key otherwise."""
    path = Path(path)
    text = read_limited(path, MAX_SOLUTION_BYTES, "answer")
    where = f"answer {excerpt(str(path), 80)}"
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{where}: not JSON ({str(exc)[:80]}); give the answer.json that "
                         "robodyn exercise wrote") from None
    if not isinstance(data, dict):
        raise InputError(f"{where}: expected a JSON object as robodyn exercise writes")
    for key in ("method", "dof", "parameters", "M", "C", "g", "tau"):
        if key not in data:
            raise InputError(f"{where}: no {key!r}; give the answer.json that robodyn "
                             "exercise wrote (solution/answer.json)")
    if data["method"] not in ("lagrange", "newton-euler"):
        raise InputError(f"{where}: method {excerpt(str(data['method']), 40)} is not "
                         "lagrange or newton-euler")
    if not isinstance(data["dof"], int) or isinstance(data["dof"], bool) \
            or not 1 <= data["dof"] <= 12:
        raise InputError(f"{where}: dof {excerpt(str(data['dof']), 40)} is not a joint count")
    if not isinstance(data["parameters"], list) \
            or not all(isinstance(p, str) for p in data["parameters"]):
        raise InputError(f"{where}: parameters must be a list of names")
    for key in ("M", "C", "g", "tau"):
        if not isinstance(data[key], (str, list)):
            raise InputError(f"{where}: {key} must be a list of entries (text)")
    return data


def check_solution(eq, solution: Mapping, where: str = "answer") -> None:
    """That ``solution`` (an answer.json) holds ``eq``'s equations: the same joints and
    parameters, and every entry of ``M``, ``C``, ``g``, ``tau`` equal (exactly, by
    :func:`~robodyn.teaching.compare.compare`); an :class:`InputError` otherwise."""
    from .compare import compare

    params = sorted(str(s) for s in eq.params)
    if solution["dof"] != eq.dof or sorted(map(str, solution["parameters"])) != params:
        raise InputError(f"{where}: it is not the solution of {eq.name} (it has "
                         f"{solution['dof']} joints and parameters "
                         f"{excerpt(', '.join(map(str, solution['parameters'])), 80)}); give "
                         "the model it was written for with --model")
    try:
        result = compare(eq, **{k: solution[k] for k in ("M", "C", "g", "tau")})
    except InputError as exc:
        raise InputError(f"{where}: cannot read its equations ({exc})") from None
    if not result.ok:
        wrong = ", ".join(sorted({m.entry for m in result.mistakes}))
        raise InputError(f"{where}: its {wrong} differ from {eq.name}'s derivation: it is "
                         "not the solution of this model; give the right one with --model")


def read_submission(text: str, source: str = "submission") -> dict:
    """``{"M": text, ..., "symbols": {...}, "define": {...}}`` from a submission's text
    (the format of the module docstring); an :class:`InputError` naming ``source`` and
    the line otherwise."""
    if text.lstrip().startswith("{"):
        return _json_submission(text, source)
    out: dict = {}
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise InputError(f"{source}: more than {MAX_LINES:,} lines")
    k = 0
    while k < len(lines):
        start = k
        line = lines[k].split("#", 1)[0]
        k += 1
        if not line.strip():
            continue
        m = _KEY.match(line)
        if not m:
            # the line is not quoted: an error row shows only what was written as an answer
            raise InputError(f"{source}, line {start + 1}: not KEY = VALUE (M = [[...]], C, g, "
                             "tau, Cqd, symbols:, define:)")
        key, value = m.group(1), m.group(3)
        if m.group(2) == ":" and key not in QUANTITIES + ("symbols", "define", "V"):
            # an intermediate answer is NAME = VALUE: "user:x:0" is no answer, never quoted
            raise InputError(f"{source}, line {start + 1}: not KEY = VALUE (M = [[...]], C, g, "
                             "tau, Cqd, K, c112, omega_2, ..., symbols:, define:)")
        while _depth(value) > 0 and k < len(lines):  # the brackets go on over lines
            value += " " + lines[k].split("#", 1)[0]
            k += 1
        if _depth(value) != 0:
            raise InputError(f"{source}, line {start + 1}: the brackets of {key} do not close")
        _store(out, key, value.strip(), f"{source}, line {start + 1}")
    return out


def _depth(text: str) -> int:
    return sum(text.count(c) for c in "([") - sum(text.count(c) for c in ")]")


def _store(out: dict, key: str, value: str, where: str) -> None:
    key = "Cqd" if key == "V" else key  # lecture 15's name for C qd
    if key not in QUANTITIES and key not in ("symbols", "define"):
        _store_intermediate(out, key, value, where)
    elif key in QUANTITIES:
        if key in out:
            raise InputError(f"{where}: {key} is given twice")
        out[key] = value
    elif key == "symbols":
        table = out.setdefault("symbols", {})
        for item in value.split(","):
            if not item.strip():
                continue
            name, eq, target = item.partition("=")
            if not eq or not name.strip() or not target.strip():
                raise InputError(f"{where}: {excerpt(item.strip(), 40)} is not NAME=NAME "
                                 "(symbols: theta1=q1, theta2=q2)")
            table[name.strip()] = target.strip()
    elif key == "define":
        name, eq, expr = value.partition("=")
        if not eq or not name.strip() or not expr.strip():
            raise InputError(f"{where}: define needs NAME = EXPR (define: h = m2*l1*c2*sin(q2))")
        out.setdefault("define", {})[name.strip()] = expr.strip()


def _store_intermediate(out: dict, key: str, value: str, where: str) -> None:
    """An intermediate answer (``K``, ``c112``, ``w_2``, ``Y``, ...) under its canonical name;
    which names the derivation has is checked when it is graded (a row with the error)."""
    from .intermediate import canonical

    table = out.setdefault("intermediate", {})
    name = canonical(key)
    if name in table:
        raise InputError(f"{where}: {_key_name(key)} is given twice")
    if len(table) >= MAX_INTERMEDIATE:
        raise InputError(f"{where}: more than {MAX_INTERMEDIATE} intermediate answers")
    table[name] = value


def _key_name(key) -> str:
    """A key as an error names it: as written when it is a name, else quoted and cut."""
    key = str(key)
    return key if re.fullmatch(r"[A-Za-z_][\w^()]{0,29}", key) else excerpt(key, 30)


class _DuplicateKey(Exception):
    pass


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """A JSON object whose keys are each given once (``json`` keeps the last otherwise)."""
    out: dict = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _json_submission(text: str, source: str) -> dict:
    try:
        data = json.loads(text, object_pairs_hook=_unique_keys)
    except _DuplicateKey as exc:
        raise InputError(f"{source}: key {excerpt(exc.args[0], 40)} is given twice; give "
                         "each quantity once") from None
    except (ValueError, RecursionError) as exc:
        raise InputError(f"{source}: not JSON ({str(exc)[:80]})") from None
    if not isinstance(data, dict):
        raise InputError(f"{source}: expected a JSON object with M, C, g, tau")
    out: dict = {}
    for key, value in data.items():
        if key not in ("symbols", "define"):
            if not isinstance(value, (str, list)):
                raise InputError(f"{source}: {_key_name(key)} must be text or a list of "
                                 "rows")
            text = value if isinstance(value, str) else json.dumps(value).replace('"', "")
            if key in QUANTITIES:
                out[key] = text
            else:
                _store_intermediate(out, str(key), text, source)
        elif key in ("symbols", "define"):
            if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, str)
                                                      for k, v in value.items()):
                raise InputError(f"{source}: {key} must be an object of names to text")
            out[key] = dict(value)
    return out


def grade(eq, submissions: Iterable[tuple[str, str | Path]], *,
          asked: Iterable[str] | None = None, pi: Sequence[str] | None = None) -> list[Row]:
    """Grade each ``(name, path)`` against ``eq`` (the solution's equations): rows as the
    module docstring says, in the order given, a file's quantities in the order of
    :data:`QUANTITIES`, then its intermediate answers in the file's order (named as the
    derivation names them: ``w_2`` for ``omega_2``). At most :data:`MAX_SUBMISSIONS` files.

    ``asked``: the quantities the exercise asked (``answer.json``'s ``asked``, written by
    ``robodyn exercise``, and intermediate ones a lecturer adds: ``K``, ``c112``, ``w_2``;
    ``regressor`` is ``Y`` when ``pi`` is given). Then an asked quantity the file does not
    answer is a row ``0/N`` with ``unanswered``, each file gets a ``total`` row, and a ``C``
    that is a valid factorisation of ``C qd`` but not the Christoffel ``C`` the sheet asked
    for scores 0 with ``not the Christoffel C`` (the checker alone calls it right).
    ``pi``: the parameters of the regressor ``Y`` (answer.json's ``"pi"``)."""
    from .compare import compare

    submissions = list(submissions)
    if len(submissions) > MAX_SUBMISSIONS:
        raise InputError(f"grade: more than {MAX_SUBMISSIONS:,} submissions; grade them in "
                         "groups")
    names = _Names(eq, pi)
    asked = names.asked(asked)
    rows: list[Row] = []
    for name, path in submissions:
        try:
            if str(name).startswith("-"):
                raise InputError(f"{excerpt(str(name), 80)}: a submission name that starts "
                                 "with '-' (an option's look); rename the file, or give it as "
                                 f"./{excerpt(str(name), 80)}")
            answer = read_submission(read_limited(Path(path), MAX_SUBMISSION_BYTES,
                                                 "submission", follow_links=False), name)
            answer["intermediate"] = names.rename(answer.get("intermediate", {}))
            given = {k: answer[k] for k in QUANTITIES if k in answer}
            given.update(answer["intermediate"])
            if not given:
                raise InputError(f"{name}: no {', '.join(QUANTITIES)} in the file")
            try:
                result = compare(eq, symbols=answer.get("symbols"), pi=pi,
                                 define=answer.get("define"), **_compare_args(given))
            except InputError:
                if len(given) == 1:
                    raise
                # one quantity that cannot be read must not discard the others: grade each
                # on its own, the unreadable ones as rows with their error
                for quantity in names.order(given, asked):
                    if quantity in given:
                        rows += grade_one(eq, name, answer, quantity, asked, names)
                    elif quantity in asked:
                        rows.append(Row(name, quantity, 0, names.total(quantity),
                                        "unanswered"))
                continue
        except (RobodynError, RecursionError, MemoryError) as exc:
            text = str(exc) if isinstance(exc, RobodynError) else \
                "too large or nested too deeply to check"
            rows.append(Row(name, "", error=text if len(text) <= MAX_ERROR_CHARS
                            else text[:MAX_ERROR_CHARS] + "…"))
            continue
        rows += grade_result(eq, name, result, tuple(given), asked, names)
    if not asked:  # an answer.json of old: the rows as before
        return rows
    return _with_totals(rows, [name for name, _ in submissions], names, asked)


def _compare_args(given: Mapping[str, str]) -> dict:
    """``compare``'s keywords for answers by name: ``M`` ... ``Cqd``, ``K``, ``U``,
    ``christoffel`` (``c112``), ``steps`` (the rest: ``w_2``, ``J_P^(l1)``, ``Y``)."""
    args: dict = {}
    for key, value in given.items():
        if key in QUANTITIES or key in ("K", "U"):
            args[key] = value
        elif re.fullmatch(r"c\d\d\d", key):
            args.setdefault("christoffel", {})[key] = value
        else:
            args.setdefault("steps", {})[key] = value
    return args


class _Names:
    """The intermediate answers of ``eq`` by the derivation's names, and their sizes."""

    def __init__(self, eq, pi):
        self.eq, self.pi = eq, list(pi) if pi else None
        self.names: dict[str, str] = {}                  # a key -> the derivation's name
        self.shapes: dict[str, tuple[int, int]] = {}     # the derivation's name -> shape

    def resolve(self, key: str) -> str:
        """The derivation's name of the answer ``key`` (``w2`` -> ``w_2``), its shape kept;
        an :class:`InputError` naming the derivation's steps when it has no such one."""
        from .intermediate import scalar_answers, step_answers

        if key in QUANTITIES:
            return key
        if key not in self.names:
            if key in ("K", "U") or re.fullmatch(r"c\d\d\d", key):
                found = scalar_answers(self.eq, *(("0" if key == k else None) for k in "KU"),
                                       {key: "0"} if key[0] == "c" else None)
            elif key == "Y" and not self.pi:
                raise InputError("Y: the answer.json names no pi (the regressor's "
                                 "parameters); write the exercise again with robodyn "
                                 "exercise --questions regressor")
            else:
                found = step_answers(self.eq, {key: "0"}, self.pi)
            (name, (_, value)), = found.items()
            self.names[key] = self.names[name] = name
            self.shapes[name] = value.shape
        return self.names[key]

    def rename(self, answers: Mapping[str, str]) -> dict:
        """``answers`` under the derivation's names; a name it has not stays (its row says
        why when it is graded)."""
        out: dict = {}
        for key, value in answers.items():
            try:
                out[self.resolve(key)] = value
            except InputError:
                out[key] = value
        return out

    def asked(self, asked) -> tuple:
        """The quantities asked: :data:`QUANTITIES`' first, then intermediate ones by the
        derivation's names; an :class:`InputError` for one the derivation does not have."""
        from .intermediate import canonical

        asked = [str(a) for a in (asked or ())]
        asked = ["Y" if a == "regressor" else a for a in asked
                 if a != "regressor" or self.pi]
        extra = [self.resolve(canonical(a)) for a in asked if a not in QUANTITIES]
        return tuple(q for q in QUANTITIES if q in asked) + tuple(dict.fromkeys(extra))

    def order(self, given, asked) -> tuple:
        return tuple(dict.fromkeys([*QUANTITIES, *given, *asked]))

    def total(self, quantity: str) -> int:
        if quantity in QUANTITIES:
            return _total(self.eq, quantity)
        return math.prod(self.shapes[self.resolve(quantity)])


def _with_totals(rows: list[Row], names: list[str], table: _Names, asked: tuple) -> list[Row]:
    """After each file's rows a row ``total``: the entries right and in all over the asked
    quantities (per-entry partial credit; an unanswered or unreadable one counts 0 of its
    entries, a file that could not be read 0 of all)."""
    by_file: dict[str, list[Row]] = {}
    for row in rows:
        by_file.setdefault(row.file, []).append(row)
    out: list[Row] = []
    for name in dict.fromkeys(names):
        mine = by_file.get(name, [])
        out += mine
        right = {r.quantity: r.right or 0 for r in mine if r.quantity in asked}
        out.append(Row(name, "total", sum(right.values()),
                       sum(table.total(q) for q in asked)))
    return out


def grade_result(eq, name: str, result, given: tuple, asked: tuple,
                 names: _Names | None = None) -> list[Row]:
    """The rows of one checked submission: its answered quantities, the asked ones it left
    out (``unanswered``), its unknown symbols."""
    names = names or _Names(eq, None)
    rows: list[Row] = []
    unknown = [m for m in result.mistakes if m.quantity == "symbols"]
    for quantity in names.order(given, asked):
        total = names.total(quantity)
        if quantity not in given:
            if quantity in asked:
                rows.append(Row(name, quantity, 0, total, "unanswered"))
            continue
        found = [m for m in result.mistakes if m.quantity == quantity]
        wrong = {m.index for m in found}
        kinds = "; ".join(dict.fromkeys(f"{m.entry} {m.kind}" for m in found))
        if quantity == "C" and "C" in asked and result.c_form == "valid":
            rows.append(Row(name, quantity, 0, total, "not the Christoffel C asked for "
                            "(a valid factorisation: C qd is right)"))
            continue
        rows.append(Row(name, quantity, total - len(wrong), total, kinds))
    if unknown:
        rows.append(Row(name, "symbols", None, None,
                        "; ".join(f"{m.given} unknown" for m in unknown)))
    return rows


def _total(eq, quantity: str) -> int:
    return eq.dof * eq.dof if quantity in ("M", "C") else eq.dof


def grade_one(eq, name: str, answer: Mapping, quantity: str,
              asked: tuple = (), names: _Names | None = None) -> list[Row]:
    """The rows of one quantity of a submission graded alone (used when another quantity
    of the same file cannot be read): its row, or a row with its error."""
    from .compare import compare

    names = names or _Names(eq, None)
    value = answer[quantity] if quantity in QUANTITIES else answer["intermediate"][quantity]
    try:
        rows = grade_result(eq, name, compare(eq, symbols=answer.get("symbols"), pi=names.pi,
                                             define=answer.get("define"),
                                             **_compare_args({quantity: value})),
                            (quantity,), tuple(q for q in asked if q == quantity), names)
    except (RobodynError, RecursionError, MemoryError) as exc:
        text = str(exc) if isinstance(exc, RobodynError) else \
            "too large or nested too deeply to check"
        try:
            total = names.total(quantity)
        except InputError:
            total = None
        return [Row(name, quantity, 0 if total is not None else None, total,
                    error=text if len(text) <= MAX_ERROR_CHARS
                    else text[:MAX_ERROR_CHARS] + "…")]
    return rows


def _cell(value) -> str:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else str(value)
    text = " ".join(text.split())  # one line per row
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def rows_csv(rows: Iterable[Row]) -> str:
    """The grades as CSV: a header ``file,quantity,right,total,mistakes,error`` and one
    line per :class:`Row`."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(_COLUMNS)
    for r in rows:
        writer.writerow([_cell(getattr(r, c)) for c in _COLUMNS])
    return buf.getvalue()


def find_model(solution: Mapping, answer_path: str | Path) -> str | None:
    """The model an answer.json belongs to, when it can tell: its ``model`` if that is a
    built-in model's name, else ``../task/arm.yaml`` beside it (the layout of
    ``robodyn exercise``) when that file's name is the answer's ``model``; None else."""
    from ..model import builtin

    name = solution.get("model")
    if isinstance(name, str) and name in builtin.names():
        return name
    task = Path(answer_path).resolve().parent.parent / "task" / "arm.yaml"
    try:
        head = read_limited(task, 1_000_000, "model") if task.is_file() else ""
    except InputError:
        return None
    m = re.search(r"^name:\s*(\S+)\s*$", head, re.M)
    if m and isinstance(name, str) and m.group(1).strip("'\"") == name:
        return str(task)
    return None
