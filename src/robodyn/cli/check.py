"""``robodyn check MODEL --M "[[...], [...]]"``: check a student's answer.

    robodyn check planar-2r --M "[[I1 + I2 + m1*c1^2 + ..., ...], [..., I2 + m2*c2^2]]"
    robodyn check rp-arm --g "[g*(m1*l1 + m2*d2)*cos(theta1), g*m2*sin(theta1)]" \\
        --symbols theta1=q1,d2=q2
    robodyn check planar-2r --C "[[...], [...]]" --method newton-euler

    robodyn check pendulum --tau "(Izz + m*l^2)*thetaddot + F*thetadot + m*g*l*sin(theta)" \\
        --symbols theta=q1
    robodyn check planar-2r --C "[[-h*qd2, -h*(qd1 + qd2)], [h*qd1, 0]]" \\
        --define "h=m2*l1*c2*sin(q2)"
    robodyn check rp-arm --Cqd "[2*m2*d2*theta1dot*d2dot, -m2*d2*theta1dot^2]" \\
        --symbols theta1=q1,d2=q2

Each entry is compared exactly with the derived one (the normal form of the difference
is zero). A wrong entry is named with the kind of mistake (sign, factor, missing term,
extra term, index, wrong) and a hint in the answer's own names; the expected entries
are shown only with --reveal (for the teacher). For C a valid factorisation other than
Christoffel's is right, with a note. The text is parsed, never evaluated (numbers,
names, + - * / ** ^, parentheses, pi, sqrt, sin, cos, sign). Exit status 0 when every given
quantity is right, 1 otherwise.

    robodyn grade --out grades.csv exercise/solution/answer.json -- alice.txt bob.txt

grades many answers (one file each) against an exercise's solution: see robodyn grade -h.
"""

from __future__ import annotations

import argparse
import itertools
import re
import sys
import tempfile
from pathlib import Path

from .common import model_command

#: Largest joint number of the ``--cIJK`` options (exercise arms have at most 3 joints).
MAX_C_INDEX = 3
_PAIR = re.compile(r"^\s*([^\W\d]\w*)\s*=\s*(.+?)\s*$")  # θ1=q1 too


def parse_symbols(text: str) -> dict[str, str]:
    """``--symbols theta1=q1,d2=q2``: ``{student's name: model expression}``."""
    out = {}
    for item in text.split(","):
        if not item.strip():
            continue
        m = _PAIR.match(item)
        if not m:
            raise argparse.ArgumentTypeError(
                f"{item.strip()[:40]!r} is not NAME=NAME (e.g. --symbols theta2=q2,L1=l1)")
        out[m.group(1)] = m.group(2)
    return out


def parse_step(text: str) -> tuple[str, str]:
    """``--step w_2=[0, 0, qd1 + qd2]``: ``(step's left side, answer text)``."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip() or not value.strip() or len(name) > 40:
        raise argparse.ArgumentTypeError(
            f"{text.strip()[:40]!r} is not NAME=TEXT (e.g. --step \"w_2=[0, 0, qd1 + qd2]\")")
    return name.strip(), value.strip()


def parse_define(text: str) -> tuple[str, str]:
    """``--define h=m2*l1*c2*sin(q2)``: ``(name, expression text)``."""
    m = _PAIR.match(text)
    if not m:
        raise argparse.ArgumentTypeError(
            f"{text.strip()[:40]!r} is not NAME=EXPR (e.g. --define h=m2*l1*c2*sin(theta2))")
    return m.group(1), m.group(2)


def add_check_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``check`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = model_command(sub, "check", parents, __doc__,
                      help="check a student's M, C, g or tau against the derivation",
                      description="Compare a given M, C, g, tau (as text) with the derived "
                                  "equations, entry by entry.")
    for name, what in (("M", "inertia matrix, [[..], [..]]"),
                       ("C", "Coriolis/centrifugal matrix, [[..], [..]]"),
                       ("g", "gravity torques, [.., ..]"), ("tau", "joint torques, [.., ..]"),
                       ("Cqd", "vector C(q, qd) qd of Coriolis and centrifugal terms (lecture "
                               "15's V), [.., ..]")):
        p.add_argument(f"--{name}", metavar="TEXT", help=f"the {what}")
    p.add_argument("--K", metavar="TEXT", help="the kinetic energy (an intermediate answer)")
    p.add_argument("--U", metavar="TEXT", help="the potential energy (right up to a constant: "
                                               "its zero)")
    for i, j, k in itertools.product(range(1, MAX_C_INDEX + 1), repeat=3):
        p.add_argument(f"--c{i}{j}{k}", metavar="TEXT", dest=f"c{i}{j}{k}",
                       help=("one Christoffel symbol c_ijk, --c111 to "
                             f"--c{MAX_C_INDEX}{MAX_C_INDEX}{MAX_C_INDEX} (1-based)")
                       if (i, j, k) == (1, 1, 1) else argparse.SUPPRESS)
    p.add_argument("--step", type=parse_step, action="append", metavar="NAME=TEXT",
                   help="any step of the derivation by its left side, as derive --steps "
                        "prints it, e.g. --step \"w_2=[0, 0, qd1 + qd2]\" (Newton-Euler's "
                        "w_i, wd_i, pddc_i, f_i, mu_i with --method newton-euler; repeatable)")
    p.add_argument("--symbols", type=parse_symbols, action="append", metavar="NAME=NAME,..",
                   help="the answer's names for the model's symbols, e.g. theta2=q2 (rates "
                        "theta2dot, dtheta2, ... follow)")
    p.add_argument("--define", type=parse_define, action="append", metavar="NAME=EXPR",
                   help="a named term the answer uses, substituted first, e.g. "
                        "h=m2*l1*c2*sin(theta2) (repeatable)")
    p.add_argument("--reveal", action="store_true",
                   help="show the expected entries, the given ones and their difference "
                        "(for the teacher; by default only the kind of mistake and a hint)")
    p.add_argument("--method", default="lagrange", choices=("lagrange", "newton-euler"),
                   help="how the reference equations are derived (they agree)")
    p.add_argument("--values", nargs="?", const=True, default=None, metavar="NAME=NUM,..",
                   help="substitute numbers in the reference first (as for derive)")
    p.set_defaults(func=_cmd_check)
    return p


def _cmd_check(args: argparse.Namespace) -> int:
    from ..symbolic import equations
    from .common import load_model
    from .derive import parse_values

    answers = {k: getattr(args, k) for k in ("M", "C", "g", "tau", "Cqd", "K", "U")
               if getattr(args, k) is not None}
    christoffel = {f"c{i}{j}{k}": getattr(args, f"c{i}{j}{k}") for i, j, k in
                   itertools.product(range(1, MAX_C_INDEX + 1), repeat=3)
                   if getattr(args, f"c{i}{j}{k}") is not None}
    if christoffel:
        answers["christoffel"] = christoffel
    if args.step:
        answers["steps"] = dict(args.step)
    if not answers:
        args.command_parser.error("give at least one of --M, --C, --g, --tau, --Cqd, --K, --U, "
                                  "--c111 ..., --step")
    define: dict[str, str] = {}
    for name, text in args.define or []:
        if name in define:
            args.command_parser.error(f"--define: {name} is defined twice")
        define[name] = text
    values = args.values
    if isinstance(values, str):
        try:
            values = parse_values(values)
        except argparse.ArgumentTypeError as exc:
            args.command_parser.error(f"--values: {exc}")
    symbols = {}
    for table in args.symbols or []:
        symbols.update(table)
    if args.reveal and _assessment_model(args.model):
        args.command_parser.error(
            f"--reveal: {args.model[:80]} is an assessment's model file (robodyn exercise "
            "--mode assessment); the expected entries are not shown for it. A lecturer "
            "reads them in lecturer/solution.* or with robodyn derive")
    robot = load_model(args.model, args)
    eq = equations(robot, method=args.method, values=values)
    result = eq.compare(symbols=symbols, define=define, reveal=args.reveal, **answers)
    sys.stdout.write(str(result) + "\n")
    return 0 if result.ok else 1


def _assessment_model(model: str) -> bool:
    """Whether ``model`` is a file that starts with the assessment's mark
    (:data:`~robodyn.teaching.exercise.ASSESSMENT_MARK`)."""
    from ..teaching.exercise import ASSESSMENT_MARK

    path = Path(model)
    if not path.is_file():
        return False
    try:
        with path.open("rb") as handle:
            head = handle.read(len(ASSESSMENT_MARK) + 4)
    except OSError:
        return False
    return head.decode("utf-8", "replace").lstrip("\ufeff").startswith(ASSESSMENT_MARK)


GRADE_EPILOG = """\
    robodyn grade --out grades.csv ex7/solution/answer.json -- alice.txt bob.txt
    robodyn grade --model planar-2r answer.json -- submissions/*.txt

Options go first and -- ends them: after it every name is a file, so a student's file
named --out=x.txt is graded (and refused: a submission name must not start with -),
never read as an option. An option given twice is an error, for the same reason.

A submission (one file per student):

    # anything after a hash is a comment
    symbols: theta1=q1, theta2=q2
    define: h = m2*l1*c2*sin(theta2)
    M = [[I1 + I2 + m1*c1^2 + m2*(l1^2 + c2^2 + 2*l1*c2*cos(theta2)), ...],
         [..., I2 + m2*c2^2]]
    C = [[-h*theta2dot, -h*(theta1dot + theta2dot)], [h*theta1dot, 0]]
    g = [..., ...]

KEY = VALUE for M, C, g, tau, Cqd (or V); a value goes on over lines until its brackets
close; symbols: and define: are optional; a file starting with { is JSON with the
same keys. The CSV has the columns file, quantity, right, total, mistakes (the entries
and kinds, e.g. "M11 factor; g2 missing term"), error (a file that could not be
graded: too large, unparsable, past a budget). Exit status 0 when all were graded.
"""


class _Once(argparse.Action):
    """An option that may be given once: a second ``--out`` is a submission file named like
    an option (``*.txt`` matching ``--out=x.txt``), not the teacher's choice."""

    def __call__(self, parser, namespace, values, option_string=None):
        if getattr(namespace, f"_{self.dest}_given", False):
            parser.error(f"{option_string} is given twice (is a submission file named like "
                         "an option? put the options first and -- before the submissions)")
        setattr(namespace, f"_{self.dest}_given", True)
        setattr(namespace, self.dest, True if self.nargs == 0 else values)


class _OnceFlag(_Once):
    pass


def add_grade_command(sub, parents: list[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Add the ``grade`` command to the sub-parsers ``sub`` of ``robodyn``."""
    p = sub.add_parser("grade", parents=parents,
                       help="grade many students' answers against an exercise's solution",
                       description="Grade submissions (one text file per student) against "
                       "an exercise's solution/answer.json; one CSV row per file and "
                       "quantity, with the kinds of mistakes, never the expected entries.",
                       epilog=GRADE_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("answer", metavar="ANSWER_JSON",
                   help="the solution's answer.json, as robodyn exercise writes it")
    p.add_argument("submissions", nargs="+", metavar="SUBMISSION",
                   help="the students' files (M = [[...]], C = ..., g = ..., tau = ...)")
    p.add_argument("--model", metavar="MODEL", action=_Once,
                   help="the model the answer is for (default: the answer's own model when "
                        "it is a built-in, or the exercise's task/arm.yaml beside it)")
    p.add_argument("--out", metavar="FILE", action=_Once,
                   help="write the CSV there (default: print it)")
    p.add_argument("--ask", metavar="NAMES", action=_Once,
                   help="intermediate answers asked besides the answer's own (counted in "
                        "each total; unanswered ones score 0), comma separated: K,U,c112,"
                        "omega_2,f_2,J_P^(l1),Y")
    p.add_argument("--force", action=_OnceFlag, nargs=0, default=False,
                   help="overwrite --out even when robodyn did not write it")
    p.set_defaults(func=_cmd_grade, command_parser=p, models_of=lambda a: [a.model or ""])
    return p


def _cmd_grade(args: argparse.Namespace) -> int:
    from ..symbolic import equations
    from ..teaching import grade as grading
    from .common import load_model

    key = _identification_key(args.answer)
    if key is not None:  # robodyn exercise --identification: base parameters, no equations
        from ..teaching.identification import grade_identification

        return _write_grades(args, grade_identification(
            key, [(path, path) for path in args.submissions]))
    solution = grading.read_solution(args.answer)
    embedded = solution.get("model_file")
    if args.model is None and isinstance(embedded, str):
        # robodyn exercise stores the task's arm.yaml in the answer: read (never run) it
        # through the model-file reader, from a private folder robodyn makes and removes
        if len(embedded) > 1_000_000:
            args.command_parser.error("the answer's model_file is over 1 MB; give the model "
                                      "with --model")
        with tempfile.TemporaryDirectory(prefix="robodyn-grade-") as folder:
            path = Path(folder) / "arm.yaml"
            path.write_text(embedded, encoding="utf-8")
            robot = load_model(str(path), args)
    else:
        model = args.model or grading.find_model(solution, args.answer)
        if model is None:
            args.command_parser.error(
                f"the answer's model {str(solution.get('model'))[:60]!r} is not a built-in "
                "and no task/arm.yaml of that name is beside it; give the model with --model")
        robot = load_model(model, args)
    route = solution.get("route") if solution["method"] == "lagrange" else None
    eq = equations(robot, method=solution["method"],
                   **({"route": route} if isinstance(route, str) else {}))
    grading.check_solution(eq, solution, f"answer {args.answer[:80]!r}")
    asked = solution.get("asked") if isinstance(solution.get("asked"), list) else []
    asked = asked + [a.strip() for a in (args.ask or "").split(",") if a.strip()]
    pi = solution.get("pi")
    rows = grading.grade(eq, [(path, path) for path in args.submissions], asked=asked or None,
                         pi=pi if isinstance(pi, list) and all(isinstance(p, str) for p in pi)
                         else None)
    return _write_grades(args, rows)


def _identification_key(path: str) -> dict | None:
    """The answer.json of an identification exercise (``"kind": "identification"``), else
    None (the equations' answer.json, read by :func:`.grade.read_solution`)."""
    import json

    from ..core.errors import InputError
    from ..teaching import grade as grading

    try:
        data = json.loads(grading.read_limited(Path(path), grading.MAX_SOLUTION_BYTES,
                                              "answer"))
    except (ValueError, RecursionError, InputError):
        return None  # read_solution says what is wrong
    if not isinstance(data, dict) or data.get("kind") != "identification":
        return None
    ok = all(isinstance(data.get(k), list) for k in ("names", "values", "sigma")) and \
        len(data["names"]) == len(data["values"]) == len(data["sigma"]) and \
        all(isinstance(v, (int, float)) and not isinstance(v, bool)
            for v in data["values"] + data["sigma"])
    if not ok:
        raise InputError(f"answer {path[:80]!r}: an identification answer needs names, "
                         "values and sigma of one length; give the answer.json that "
                         "robodyn exercise --identification wrote")
    return data


def _write_grades(args: argparse.Namespace, rows) -> int:
    from ..teaching import grade as grading

    text = grading.rows_csv(rows)
    if args.out:
        from ..codegen.export.files import MARKER, write_file

        write_file(args.out, f"# {MARKER}\n" + text, force=args.force, option="--out")
        sys.stdout.write(f"{args.out}: {len(args.submissions)} submission(s) graded\n")
    else:
        sys.stdout.write(text)
    return 0
