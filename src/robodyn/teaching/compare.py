"""Checking a student's answer against the derived equations, entry by entry.

:func:`compare` (``eq.compare(M=..., C=..., g=..., tau=..., symbols={...})``) takes the
student's matrices as text (``"[[I1 + m1*c1**2, 0], [0, m2]]"``), as SymPy or as nested
lists, renames the student's symbols to the model's (``theta2 -> q2``; the rates
``theta2dot``, ``dtheta2``, ... follow), and decides each entry by the normal form of
``given - expected`` in the ring of the closed forms
(:mod:`~robodyn.symbolic.ring.trig_ring`): zero is a proof of equality, not a numerical
test. A wrong entry is diagnosed (:mod:`.diagnose`): the kind of mistake and a hint in the
student's names; the expected entry and the difference are kept only with ``reveal=True``
(the teacher's view), so that a student cannot read the solution off the checker.

For ``C`` another answer that is still a valid factorisation of the velocity terms
(``C qd`` right: the equations of motion are right) is right, with a note that it is
not the Christoffel form and whether ``Mdot - 2C`` is skew-symmetric for it.

Text is parsed safely (:func:`~robodyn.symbolic.parse.parse_matrix`): Python's :mod:`ast`
is translated node by node as the model files are (:mod:`robodyn.model.expressions`),
extended to lists of lists and to the joint variables ``q1``, ``qd1``, ``qdd1``; nothing
is evaluated and ``sympify`` never sees the student's text. ``^`` is read as a power
(``l1^2``), as students write it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import sympy as sp

from ..core.errors import ExpansionError, InputError, ModelError, excerpt
from ..model import expressions as ex
from ..model.expansion import MAX_EXPANDED_TERMS, describe_terms, expanded_terms
from ..symbolic.parse import entry_label, parse_matrix, transliterate
from ..symbolic.ring.trig_ring import TrigRing
from ..symbolic.simplify import textbook
from .diagnose import Entry, Origins, diagnose, student_namer
from .intermediate import entry_name, scalar_answers, step_answers
from .numeric_check import (
    HALF_ANGLE_NOTE,
    NUMERIC_TOLERANCE,
    fractional_angles,
    numerically_equal,
    rationalize,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..symbolic.equations import Equations

__all__ = ["compare", "Comparison", "Mistake", "parse_matrix", "QUANTITIES"]

#: Quantities a student may give, and what they are.
QUANTITIES = {"M": "inertia matrix", "C": "Coriolis and centrifugal matrix",
              "g": "gravity torques", "tau": "joint torques", "Cqd": "velocity terms C qd"}
#: Most terms the answer may expand to, all its entries together once the symbols are
#: mapped (:func:`robodyn.model.expansion.expanded_terms`, bounded before anything
#: expands), or four times the terms of the derived entries where that is more.
MAX_ANSWER_TERMS = MAX_EXPANDED_TERMS
ANSWER_TERMS_PER_DERIVED = 4
#: A difference of more terms than this is counted in its message, not printed.
MAX_PRINTED_TERMS = 500

_RATE_FORMS = ("{b}dot{i}", "{b}{i}dot", "{b}{i}_dot", "d{b}{i}", "{b}d{i}", "{b}_dot{i}")
_ACCEL_FORMS = ("{b}ddot{i}", "{b}{i}ddot", "{b}{i}_ddot", "dd{b}{i}", "{b}dd{i}",
                "{b}_ddot{i}")
_JOINT = re.compile(r"^(q|qd|qdd)(\d+)$")


@dataclass(frozen=True)
class Mistake:
    """One mistake in the answer, said without the answer.

    ``quantity``: ``"M"``, ``"C"``, ``"g"``, ``"tau"``, ``"Cqd"`` (or ``"symbols"`` for a
    name the model does not have); ``index``: 0-based tuple (``(0, 1)`` is ``M12``, ``()``
    for a whole quantity); :attr:`entry` its name (``"M12"``); ``kind``: one of
    :data:`~.diagnose.KINDS` (``"sign"``, ``"factor"``, ``"missing term"``, ``"extra
    term"``, ``"index"``, ``"wrong"``; ``"symbol"`` for an unknown name); ``hint``: what
    went wrong in words, in the student's names, never the expected expression;
    ``given``: the student's entry (SymPy, in the model's names).

    Only when the comparison was made with ``reveal=True`` (the teacher's view) are
    ``expected`` and ``difference`` (``given - expected`` in compact form; None when it
    has more than :data:`MAX_PRINTED_TERMS` terms) set; otherwise they are None.
    One wrong entry may hold several mistakes (one per wrong term).
    """

    quantity: str
    index: tuple[int, ...]
    kind: str
    hint: str
    given: Any = None
    expected: Any = None
    difference: Any = None
    revealed: bool = False

    @property
    def entry(self) -> str:
        """The entry's name as the books write it: ``M12``, ``g2``, ``C[10,3]``."""
        if self.quantity == "symbols":
            return "symbols"
        return entry_name(self.quantity, self.index)

    @property
    def message(self) -> str:
        """``M11: factor: the term in ... is off by a constant factor`` (and, revealed,
        the expected entry, the given one and their difference)."""
        if self.quantity == "symbols":
            return self.hint
        text = f"{self.entry}: {self.kind}: {self.hint}"
        if self.revealed:
            diff = ("(more than " f"{MAX_PRINTED_TERMS} terms, not printed)"
                    if self.difference is None else self.difference)
            text += (f"\n      expected {self.expected}\n      given    {self.given}"
                     f"\n      given - expected = {diff}")
        return text

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class Comparison:
    """Outcome of :func:`compare`. ``ok``: every given quantity equals the derived one
    (a ``C`` that is a valid factorisation other than Christoffel's counts as right);
    ``mistakes``: the mistakes (:class:`Mistake`); ``notes``: remarks that are not
    mistakes (a valid non-Christoffel ``C``, renamed symbols); ``c_form``:
    ``"christoffel"``, ``"valid"`` (same ``C qd``, another factorisation), ``"wrong"``,
    or ``None`` when no ``C`` was given; ``revealed``: whether the mistakes carry the
    expected entries (``reveal=True``)."""

    name: str
    checked: tuple[str, ...]
    mistakes: tuple[Mistake, ...] = ()
    notes: tuple[str, ...] = ()
    c_form: str | None = None
    revealed: bool = False

    @property
    def ok(self) -> bool:
        return not self.mistakes

    def __bool__(self) -> bool:
        return self.ok

    def __str__(self) -> str:
        what = ", ".join(self.checked) or "nothing"
        if self.ok:
            lines = [f"{self.name}: {what} correct"]
        else:
            order = [*QUANTITIES, "symbols"]
            wrong = sorted({m.quantity for m in self.mistakes},
                           key=lambda q: (order.index(q) if q in order else len(order), q))
            lines = [f"{self.name}: {len(self.mistakes)} mistake(s) in {', '.join(wrong)} "
                     f"(checked {what})"]
            lines += [f"  - {m.message}" for m in self.mistakes]
        lines += [f"  note: {n}" for n in self.notes]
        return "\n".join(lines)

    __repr__ = __str__


def _as_matrix(value: Any, field: str) -> sp.Matrix:
    if isinstance(value, str):
        return parse_matrix(value, field)
    if isinstance(value, sp.MatrixBase):
        return sp.Matrix(value)
    if isinstance(value, sp.Expr):
        return sp.Matrix([[value]])
    if isinstance(value, (list, tuple)):
        def one(x, label):
            if isinstance(x, str):
                m = parse_matrix(x, f"{field}{label}")
                if m.shape != (1, 1):
                    raise InputError(f"{field}{label}: expected one expression")
                return m[0, 0]
            try:
                return ex.to_sympy(x)
            except TypeError:
                raise InputError(f"{field}{label}: {excerpt(x)} is not an expression") from None
        if value and all(isinstance(r, (list, tuple)) for r in value):
            return sp.Matrix([[one(x, entry_label(i, j)) for j, x in enumerate(r)]
                              for i, r in enumerate(value)])
        return sp.Matrix([one(x, entry_label(i)) for i, x in enumerate(value)])
    raise InputError(f"{field}: expected text, a SymPy matrix or a list, got "
                     f"{type(value).__name__}")


# -- symbols -------------------------------------------------------------------------------
def _symbol_table(symbols: Mapping | None, used: set[str], model: set[str], eq: Equations,
                  rates_of: set[str], joints: dict | None = None) -> dict[sp.Symbol, sp.Expr]:
    """``{student's symbol: model expression}``; a joint variable's rates follow it
    (``theta2 -> q2`` also maps ``theta2dot``, ``dtheta2``, ``theta2ddot``, ...), and the
    rates of the model's own ``q1`` written as ``q1dot``, ``dq1``, ... are recognised
    unless the model has a parameter of that name.

    The model's own joint variables may be renumbered (``q1 -> q2, q2 -> q1``: the
    student numbered the joints the other way; all names are replaced at once), and their
    rates ``qd1``, ``qdd1`` follow unless mapped themselves. A mapping to a name the model
    does not have, or a renumbering that leaves the answer's own ``q2`` reading as ``q2``
    too, is an :class:`~robodyn.core.errors.InputError` saying what to map. The keys whose
    rates were mapped are added to ``rates_of``. On a one-joint arm the names need no
    index (``theta=q1`` reads ``thetadot``, ``dtheta``, ``thetaddot``; the model's own
    ``q``, ``qdot``, ``qddot`` are read as ``q1``, ``qd1``, ``qdd1``).

    ``joints``, when given, receives ``{k: (stem, index, key)}`` for each joint variable
    ``q<k>`` the student renamed (``theta2 -> q2``: ``(theta, 2, theta2)``) and, under
    ``-1``, the rate and acceleration forms the student used (``("{b}dot{i}",
    "{b}ddot{i}", "")``), for writing hints in the student's names."""
    joints = {} if joints is None else joints
    one = eq.dof == 1
    table: dict[sp.Symbol, sp.Expr] = {}
    renamed: list[tuple[str, str, str, bool, str]] = []  # (base, i, k, key is q_i, key)
    for key, target in dict(symbols or {}).items():
        name = transliterate(str(key))  # θ1 = q1 reads the answer's θ1 (theta1)
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name):
            raise InputError(f"symbols: {excerpt(name, 40)} is not a name")
        if isinstance(target, str):
            value = parse_matrix(target, f"symbols[{name!r}]")
            if value.shape != (1, 1):
                raise InputError(f"symbols[{name!r}]: expected one expression")
            value = value[0, 0]
        else:
            try:
                value = ex.to_sympy(target)
            except TypeError:
                raise InputError(f"symbols[{name!r}]: {excerpt(target)} is not a name or "
                                 "an expression") from None
        foreign = sorted(s.name for s in getattr(value, "free_symbols", ()) if s.name not in model)
        if foreign:
            raise InputError(f"symbols[{name!r}]: {foreign[0]} is not a symbol of {eq.name}; "
                             f"map {name} to the model's names ({_model_names(eq)})")
        table[ex.symbol(name)] = value
        joint = _JOINT.match(str(value)) if isinstance(value, sp.Symbol) else None
        split = re.match(r"^(.*?)(\d+)$", name) or (re.match(r"^(.*?)()$", name) if one
                                                     else None)
        if joint and joint.group(1) == "q" and split:
            renamed.append((split.group(1), split.group(2), joint.group(2), name in model,
                            name))
            joints[int(joint.group(2))] = (split.group(1), split.group(2), name)
    own = [("q", str(i), str(i), False, "") for i in range(1, 100) if f"q{i}" in model]
    if one:  # q, qdot, qddot on a one-joint arm
        own.append(("q", "", "1", False, ""))
        if "q" in used and "q" not in model and ex.symbol("q") not in table:
            table[ex.symbol("q")] = ex.symbol("q1")
    forms_used = ["{b}{i}dot", "{b}{i}ddot"]
    for base, i, k, follows, key in renamed + own:  # the user's mappings first: they win
        for forms, prefix in ((_ACCEL_FORMS, "qdd"), (_RATE_FORMS, "qd")):
            for form in forms:
                alias = form.format(b=base, i=i)
                if alias in used and (follows or alias not in model) \
                        and ex.symbol(alias) not in table:
                    table[ex.symbol(alias)] = ex.symbol(f"{prefix}{k}")
                    family = _RATE_FORMS if prefix == "qd" else _ACCEL_FORMS
                    at = family.index(form)  # the rate and acceleration forms go together
                    forms_used[:] = [_RATE_FORMS[at], _ACCEL_FORMS[at]]
                    if key:
                        rates_of.add(key)
    joints[-1] = (*forms_used, "")
    _check_renumbering(table, used, model)
    return table


def _check_renumbering(table: dict, used: set[str], model: set[str]) -> None:
    """A joint variable (or rate) of the model mapped to another one, while the answer
    also uses the target's own name unmapped: two of the student's joints would read as
    one (``q1 -> q2`` without ``q2 -> q1``)."""
    for key, value in table.items():
        if not (key.name in model and _JOINT.match(key.name) and isinstance(value, sp.Symbol)) \
                or value == key:
            continue
        if value.name in used and value not in table and _JOINT.match(value.name):
            raise InputError(
                f"symbols: {key.name}={value.name} renumbers the joints, but the answer's own "
                f"{value.name} is not mapped, so {key.name} and {value.name} would both read "
                f"as {value.name}; map it too, e.g. symbols={{'{key.name}': '{value.name}', "
                f"'{value.name}': '{key.name}'}} (robodyn check --symbols "
                f"{key.name}={value.name},{value.name}={key.name})")


def _model_names(eq: Equations) -> str:
    """The model's symbols for a message: its parameters and joint variables."""
    params = [s.name for s in eq.params]
    shown = ", ".join(params[:12]) + (", ..." if len(params) > 12 else "")
    joints = ", ".join(s.name for s in eq.q[:6]) + (", ..." if eq.dof > 6 else "")
    return (f"parameters {shown}; " if params else "") + f"joint variables {joints} " \
        "(rates qd1.., qdd1..)"


def _suggest(name: str, model_names: set[str], dof: int = 0) -> str:
    """A mapping the student probably meant, for an unknown name such as ``theta2``
    (``theta2=q2``): its target is always a symbol of the model; ``""`` if none fits."""
    candidates = []
    split = re.match(r"^([A-Za-z_]+?)_?(\d+)$", name)
    if split is None and dof == 1 and re.match(r"^[A-Za-z_]+$", name):
        split = re.match(r"^(.*)()$", name)  # theta, thetadot: one joint needs no index
        if name.lower() in ("theta", "th", "q", "d", "x"):
            candidates.append("q1")
    if split:
        base, i = split.groups()
        low = base.lower()
        if low in ("theta", "th", "d", "q", "x"):
            candidates.append(f"q{i or 1}")
        elif low.endswith("ddot") or low.startswith("dd"):
            candidates.append(f"qdd{i or 1}")
        elif low.endswith("dot") or low.startswith("d"):
            candidates.append(f"qd{i or 1}")
    lowered = {n.lower(): n for n in model_names}
    candidates.append(lowered.get(name.lower(), ""))
    for target in candidates:
        if target in model_names and target != name:
            return f"{name}={target}"
    return ""


def _unknown_message(name: str, eq: Equations, model: set[str]) -> str:
    """Why ``name`` of the answer is not the model's, and a mapping with real names."""
    hint = _suggest(name, model, eq.dof)
    if hint:
        key, target = hint.split("=")
        return (f"{name} is not a symbol of {eq.name}; map it, e.g. symbols={{'{key}': "
                f"'{target}'}} (robodyn check --symbols {hint})")
    joint = re.match(r"^(q|qd|qdd)(\d+)$", name)
    if joint:  # q9 of a 2-joint model
        last = f"{joint.group(1)}{eq.dof}"
        return (f"{name} is not a symbol of {eq.name}: it has {eq.dof} joint(s), "
                f"{', '.join(s.name for s in eq.q[:6])}{', ...' if eq.dof > 6 else ''}; if the "
                f"answer numbers them differently, map them, e.g. symbols={{'{name}': "
                f"'{last}'}} (robodyn check --symbols {name}={last})")
    return (f"{name} is not a symbol of {eq.name} ({_model_names(eq)}); map it with "
            f"symbols={{'{name}': ...}} (robodyn check --symbols {name}=...)")


# -- comparing -----------------------------------------------------------------------------
def _shape(eq: Equations, quantity: str) -> tuple[int, int]:
    return (eq.dof, eq.dof) if quantity in ("M", "C") else (eq.dof, 1)


def compare(eq: Equations, *, M=None, C=None, g=None, tau=None, Cqd=None, K=None, U=None,
            christoffel: Mapping | None = None, steps: Mapping | None = None, pi=None,
            symbols: Mapping | None = None,
            define: Mapping | None = None, reveal: bool = False) -> Comparison:
    """Compare a student's ``M``, ``C``, ``g``, ``tau`` (or ``Cqd``, the vector ``C qd`` of
    velocity terms, lecture 15's ``V``) with ``eq``'s, and say what went wrong.

    Each is text, SymPy or nested lists (see :func:`parse_matrix`); vectors may be rows
    or columns. ``symbols`` maps the student's names to the model's (``{"theta2": "q2",
    "L1": "l1"}``; targets may be expressions; on a one-joint arm ``{"theta": "q1"}``
    also reads ``thetadot``, ``thetaddot``). ``define`` names terms the student used
    (``{"h": "m2*l1*c2*sin(theta2)"}``, in the student's names), substituted first. An
    entry is correct when the normal form of ``given - expected`` is zero
    (:mod:`.trig_ring`: exact, for all ``q``, ``qd`` and parameter values); a wrong one
    gets mistakes with a kind and a hint (:mod:`.diagnose`) in the student's names. For
    ``C`` another valid factorisation (``C qd`` equal to the derived velocity terms) is
    right, with a note that it is not Christoffel's and whether ``Mdot - 2C`` is
    skew-symmetric for it (Siciliano §7.2).

    Intermediate answers, with the same diagnoses: ``K`` (the kinetic energy), ``U`` (the
    potential energy; one that differs by a constant, another zero of ``U``, is right with
    a note) and ``christoffel``, single Christoffel symbols ``{"c112": text}`` (1-based
    indices ``c_ijk``, :attr:`.Equations.christoffel`); ``steps``, any step of the
    derivation by its left side (``{"w_2": "[0, 0, qd1 + qd2]"}``: Newton-Euler's
    ``w_i``, ``wd_i``, ``pddc_i``, ``f_i``, ``mu_i`` in the frames of ``eq.steps``, the
    Jacobians ``J_P^(l1)``, a link's ``K_1``; ``Y``, the regressor in the parameters
    ``pi``, a list of the model's names, when ``pi`` is given).

    Nothing of the derived answer is in the result unless ``reveal`` (the teacher's
    view): then each mistake has ``expected`` and ``difference`` too.
    """
    given: dict[str, sp.Matrix] = {}
    scalars = scalar_answers(eq, K, U, christoffel)
    scalars.update(step_answers(eq, steps, pi))
    for quantity, value in (("M", M), ("C", C), ("g", g), ("tau", tau), ("Cqd", Cqd),
                            *((k, v) for k, (v, _) in scalars.items())):
        if value is None:
            continue
        m = _as_matrix(value, quantity)
        if quantity in scalars:
            want = scalars[quantity][1].shape
            if want[1] == 1 and m.shape == (1, want[0]):
                m = m.T
            if m.shape != want:
                raise InputError(f"{quantity}: expected {want[0]}x{want[1]}, got "
                                 f"{m.shape[0]}x{m.shape[1]}")
            given[quantity] = m
            continue
        want = _shape(eq, quantity)
        if want[1] == 1 and m.shape == (1, want[0]):
            m = m.T
        if m.shape != want:
            raise InputError(f"{quantity}: expected {want[0]}x{want[1]} for {eq.name} "
                             f"({eq.dof} joints), got {m.shape[0]}x{m.shape[1]}")
        given[quantity] = m
    if not given:
        raise InputError("compare: give at least one of M, C, g, tau, Cqd, K, U, c_ijk")

    model = {s.name for s in eq.params} | {s.name for s in eq.q + eq.qd + eq.qdd + eq.h_e}
    notes: list[str] = []
    given, inexact = rationalize(given)
    if inexact:
        notes.append("decimals " + ", ".join(inexact) + " are not a simple fraction: "
                     f"compared numerically (relative tolerance {NUMERIC_TOLERANCE:g})")
    given = _substitute_defines(given, define, model, symbols, notes)
    used = {s.name for m in given.values() for s in m.free_symbols}
    rates_of: set[str] = set()
    joints: dict[int, tuple[str, str, str]] = {}
    table = _symbol_table(symbols, used, model, eq, rates_of, joints)
    given = {k: m.xreplace(table) for k, m in given.items()}
    read = sorted((k.name, v) for k, v in table.items() if k.name in used)
    if read:
        relabelled = any(k in model and _JOINT.match(k) and _JOINT.match(str(v)) and str(v) != k
                         for k, v in read)
        notes.append("symbols read as " + ", ".join(f"{k} = {v}" for k, v in read)
                     + (" (names only: rows and columns stay in the model's joint order)"
                        if relabelled else ""))
    idle = sorted(str(k) for k in dict(symbols or {})
                  if transliterate(str(k)) not in used | rates_of)
    if idle:
        notes.append(f"symbols {', '.join(idle)} given but not in the answer (not used)")
    show = student_namer(_inverse_names(table, used, joints, eq))
    mistakes: list[Mistake] = []
    unknown = sorted({s.name for m in given.values() for s in m.free_symbols} - model)
    for name in unknown:
        mistakes.append(Mistake("symbols", (), "symbol", _unknown_message(name, eq, model),
                                ex.symbol(name)))

    expected = {k: scalars[k][1] if k in scalars else getattr(eq, k) for k in given}
    _check_answer_size(given, expected)
    exprs = [x for k in given for x in list(expected[k]) + list(given[k])]
    if "C" in given:  # its classification needs M and C qd in the same ring
        exprs += list(eq.M) + list(eq.Cqd)
    ring = TrigRing(list(eq.joint_types), exprs)
    origins = Origins.of_chain(eq.chain)
    unknown_symbols = {ex.symbol(n) for n in unknown}

    def poly(x, label):
        try:
            return ring.poly(x)
        except ExpansionError as exc:  # the ring's own budget: never fall back to simplify
            raise InputError(f"{label}: {exc}") from None
        except (ValueError, TypeError):
            return None

    entry_mistakes: dict[str, list[Mistake]] = {}
    for quantity, m in given.items():
        want = expected[quantity]
        found = entry_mistakes.setdefault(quantity, [])
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                index = (i, j) if quantity in ("M", "C") or m.shape[1] > 1 else () \
                    if m.shape == (1, 1) and quantity in scalars else (i,)
                label = entry_name(quantity, index)
                x, y = m[i, j], want[i, j]
                a, b = poly(x, label), poly(y, label)
                if a is not None and b is not None:
                    if a == b:
                        continue
                    if quantity == "U" and not (textbook(ring, a - b).free_symbols
                                                & set(eq.q)):  # another zero of U
                        notes.append("U differs from the derived one by a constant: right, "
                                     "with its zero elsewhere")
                        continue
                    many = len(a - b) > MAX_PRINTED_TERMS  # printing it would take long
                    diff = None if many or not reveal else textbook(ring, a - b)
                else:  # outside the ring (sign(qd) of friction, ...)
                    diff = sp.simplify(x - y)
                    if diff == 0:
                        continue
                    many = False
                if (x.has(sp.Float) or fractional_angles(x, eq.q)) \
                        and numerically_equal(x, y):
                    if not x.has(sp.Float) and HALF_ANGLE_NOTE not in notes:
                        notes.append(HALF_ANGLE_NOTE)
                    continue
                if x.free_symbols & unknown_symbols:
                    names = ", ".join(sorted(show(s) for s in x.free_symbols & unknown_symbols))
                    kinds = [("symbol", f"uses {names}, not a symbol of {eq.name} (see above)")]
                elif many:
                    kinds = [("wrong", "the entry differs in more than "
                                       f"{MAX_PRINTED_TERMS} terms")]
                else:
                    kinds = diagnose(ring, Entry(quantity, j if quantity == "C" else None, x, y),
                                     origins, show) or [("wrong", "the entry is not right")]
                for kind, hint in kinds:
                    found.append(Mistake(quantity, index, kind, hint, x,
                                         y if reveal else None, diff if reveal else None,
                                         reveal))

    c_form = None
    if "C" in given:
        c_form, note = _classify_c(eq, ring, given["C"], entry_mistakes["C"])
        if note:
            notes.append(note)
        if c_form == "valid":  # another factorisation of the same C qd: right
            entry_mistakes["C"] = []
        elif entry_mistakes["C"] and all(
                poly(given["C"][j, i], "C") == poly(eq.C[i, j], "C") is not None
                for i in range(eq.dof) for j in range(eq.dof)):
            entry_mistakes["C"] = [Mistake(
                "C", (), "transposed", "C is transposed: each C_ij of the answer is the "
                "right C_ji (the row is the torque's joint i: C_ij = sum_k c_ijk qd_k)",
                given["C"], eq.C if reveal else None, None, reveal)]
    for found in entry_mistakes.values():
        mistakes += found
    return Comparison(eq.name, tuple(given), tuple(mistakes), tuple(notes), c_form, reveal)


#: Most named terms (``define``) one answer may use.
MAX_DEFINES = 50


def _substitute_defines(given: dict[str, sp.Matrix], define: Mapping | None, model: set[str],
                        symbols: Mapping | None, notes: list[str]) -> dict[str, sp.Matrix]:
    """``given`` with the student's named terms (``define``: ``{"h": "m2*l1*c2*sin(q2)"}``)
    substituted, as often as they refer to each other (a cycle is an error)."""
    if not define:
        return given
    define = dict(define)
    if len(define) > MAX_DEFINES:
        raise InputError(f"define: more than {MAX_DEFINES} named terms")
    values: dict[sp.Symbol, sp.Expr] = {}
    for name, value in define.items():
        name = str(name)
        if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", name) or name in ex.FUNCTIONS \
                or name in ex.CONSTANTS:
            raise InputError(f"define: {excerpt(name, 40)} is not a free name (write NAME=EXPR, "
                             "e.g. --define h=m2*l1*c2*sin(theta2))")
        if name in model:
            raise InputError(f"define: {name} is a symbol of the model; name the term "
                             "otherwise, e.g. h")
        if name in dict(symbols or {}):
            raise InputError(f"define: {name} is also in symbols; give it once")
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            value = ex.to_sympy(value)
        m = _as_matrix(value, f"define[{name!r}]") if not isinstance(value, sp.Expr) \
            else sp.Matrix([[value]])
        if m.shape != (1, 1):
            raise InputError(f"define[{name!r}]: expected one expression")
        values[ex.symbol(name)] = m[0, 0]
    resolved = _resolve(values)
    used = {s for mat in given.values() for s in mat.free_symbols}
    given = {k: mat.xreplace(resolved) for k, mat in given.items()}
    used |= {s for k in used & resolved.keys() for s in values[k].free_symbols}
    while True:  # names used only inside other definitions
        more = {s for k in used & values.keys() for s in values[k].free_symbols} - used
        if not more:
            break
        used |= more
    idle = sorted(str(k) for k in values if k not in used)
    notes.append("terms substituted: " + ", ".join(f"{k} = {v}" for k, v in values.items()
                                                   if k in used)
                 + (f"; {', '.join(idle)} defined but not used" if idle else ""))
    return given


#: Most nodes a named term may have once the names it uses are substituted (counted as a
#: tree: ``h2 = h1*h1``, ``h1 = h0*h0`` doubles at each step).
MAX_DEFINE_NODES = 20_000


def _resolve(values: dict[sp.Symbol, sp.Expr]) -> dict[sp.Symbol, sp.Expr]:
    """Each named term with the names it uses substituted (each definition once: the
    results share their parts), its size bounded by :data:`MAX_DEFINE_NODES` and its
    exponents as a model file's; a cycle is an :class:`InputError`."""
    done: dict[sp.Symbol, sp.Expr] = {}
    sizes: dict[int, int] = {}

    def size(node) -> int:  # tree size of a DAG, linear in the DAG
        key = id(node)
        if key not in sizes:
            sizes[key] = 1 + sum(size(a) for a in node.args)
        return sizes[key]

    def visit(name: sp.Symbol, path: tuple) -> sp.Expr:
        if name in done:
            return done[name]
        if name in path:
            cycle = " -> ".join(str(s) for s in (*path[path.index(name):], name))
            raise InputError(f"define: {cycle} refer to each other in a cycle")
        value = values[name]
        deps = {s: visit(s, (*path, name)) for s in value.free_symbols if s in values}
        value = value.xreplace(deps) if deps else value
        if size(value) > MAX_DEFINE_NODES:
            raise InputError(f"define: {name} is larger than {MAX_DEFINE_NODES:,} terms once "
                             "the names it uses are substituted; define fewer, smaller terms")
        try:
            ex.checked_expression(value, f"define[{str(name)!r}]", str(values[name]))
        except ModelError as exc:
            raise InputError(str(exc)) from None
        done[name] = value
        return value

    for name in values:
        visit(name, ())
    return done


def _inverse_names(table: dict, used: set[str], joints: dict, eq: Equations) -> dict:
    """``{model symbol: the student's symbol}`` for the hints: the names the student used,
    and for the rates of a renamed joint the student never wrote, the rate form they
    used elsewhere (``theta1dot`` by default)."""
    inverse: dict[sp.Symbol, sp.Symbol] = {}
    for key, value in table.items():
        if isinstance(value, sp.Symbol) and key.name in used:
            inverse.setdefault(value, key)
    for key, value in table.items():
        if isinstance(value, sp.Symbol):
            inverse.setdefault(value, key)
    rate, accel = joints.get(-1, ("{b}{i}dot", "{b}{i}ddot", ""))[:2]
    for k, (base, i, _) in joints.items():
        if k < 0:
            continue
        for prefix, form in (("qd", rate), ("qdd", accel)):
            inverse.setdefault(ex.symbol(f"{prefix}{k}"), ex.symbol(form.format(b=base, i=i)))
    return inverse


def _check_answer_size(given: dict[str, sp.Matrix], expected: dict[str, sp.Matrix]) -> None:
    """Every entry of ``given``, and all of them together, within the term budget
    (:data:`MAX_ANSWER_TERMS`, or four times the derived entries' terms): else an
    :class:`~robodyn.core.errors.InputError` naming the entry, before anything expands."""
    def terms(x, cap):
        return expanded_terms(x, cap) if isinstance(x, sp.Basic) else 1

    derived = sum(terms(x, 10**7) for m in expected.values() for x in m)
    budget = max(MAX_ANSWER_TERMS, ANSWER_TERMS_PER_DERIVED * derived)
    total = 0
    for quantity, m in given.items():
        for i in range(m.shape[0]):
            for j in range(m.shape[1]):
                label = f"{quantity}{entry_label(*((i, j) if quantity in ('M', 'C') else (i,)))}"
                n = terms(m[i, j], budget)
                if n > budget:
                    want = terms(expected[quantity][i, j], 10**7)
                    raise InputError(
                        f"{label}: {excerpt(str(m[i, j]))} expands to "
                        f"{describe_terms(m[i, j])} terms, more than the {budget:,} an answer "
                        f"may have (the derived {label} has at most {want:,}); write it with fewer "
                        "terms, e.g. in the form the derivation prints")
                total += n
                if total > budget:
                    raise InputError(
                        f"{label}: the answer expands to more than the {budget:,} terms an "
                        f"answer may have in all ({total - n:,} before {label}, which adds "
                        f"{n:,}); check fewer entries at a time")


def _classify_c(eq: Equations, ring: TrigRing, C: sp.Matrix, c_mistakes) -> tuple[str, str]:
    """``"christoffel"`` / ``"valid"`` / ``"wrong"`` for the given ``C``, and a note."""
    if not c_mistakes:
        return "christoffel", ""
    n = eq.dof
    try:
        Cp = [[ring.poly(C[i, j]) for j in range(n)] for i in range(n)]
        Mp = [[ring.poly(eq.M[i, j]) for j in range(n)] for i in range(n)]
        Cqd = [ring.poly(x) for x in eq.Cqd]
    except (ValueError, TypeError):
        return "wrong", ""
    qd = [ring.ring.gens[k] for k in ring.qd_index]
    velocity = [ring.reduce(sum((Cp[i][j] * qd[j] for j in range(n)), ring.zero))
                for i in range(n)]
    if velocity != Cqd:
        return "wrong", "C qd differs from the velocity terms of tau: C is not a valid " \
                        "factorisation"
    N = [[ring.time_derivative(Mp[i][j]) - 2 * Cp[i][j] for j in range(n)] for i in range(n)]
    skew = all(ring.reduce(N[i][j] + N[j][i]) == ring.zero for i in range(n)
               for j in range(i, n))
    head = ("C is right: a valid factorisation (C qd equals the velocity terms, so tau is "
            "right), but not the Christoffel C")
    if skew:
        return "valid", head + "; Mdot - 2C is skew-symmetric for it"
    return "valid", head + "; Mdot - 2C is not skew-symmetric for it"

