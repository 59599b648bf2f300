"""What the commands share: loading a model with the URDF options, and argparse types
(bounded integers and tolerances) whose messages name the value."""

from __future__ import annotations

import argparse
import math
import re
import sys

from ..core.errors import ModelError, excerpt
from ..robot import load


def _integral(text: str) -> int:
    """``text`` written as a float with an integer value (``1e6``, ``2.0``), else an
    argparse error."""
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not (math.isfinite(x) and x == int(x)) or "_" in text:
        raise argparse.ArgumentTypeError(f"{excerpt(text, 40)} is not an integer") from None
    return int(x)


def integer_between(text: str, least: int, most: int) -> int:
    """``text`` as an integer ``least <= n <= most``, else an argparse error saying why."""
    try:
        value = int(text) if "_" not in text else _integral(text)  # int() reads 1_0 as 10
    except ValueError:
        value = _integral(text)  # 1e6, as people write counts
    if not least <= value <= most:
        raise argparse.ArgumentTypeError(f"{value} is not between {least} and {most}")
    return value


#: Most samples ``robodyn demo`` prints (one line each).
MAX_PRINTED_SAMPLES = 10_000


def positive_int(text: str, most: int = MAX_PRINTED_SAMPLES) -> int:
    """An argparse type: an integer ``1 <= n <= most``."""
    return integer_between(text, 1, most)


def tolerance(text: str) -> float:
    """An argparse type: an angle tolerance in radians, ``0 <= tol < pi/4``."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a number") from None
    if not 0 <= value < math.pi / 4:
        raise argparse.ArgumentTypeError(f"{text[:40]} is not a tolerance in radians from 0 to "
                                         "below pi/4 (e.g. 1e-3)")
    return value


#: What a MODEL argument may be, in every command's help.
MODEL_HELP = "a built-in model name (robodyn models) or a model file: YAML, URDF or MJCF (.xml)"


def model_command(sub, name: str, parents, doc: str | None, help: str,
                  description: str) -> argparse.ArgumentParser:
    """A sub-command ``name`` of ``robodyn`` that takes a model as its first argument
    ``MODEL``: ``help`` for the command list, ``description`` on top of its ``--help`` and
    the module docstring ``doc`` (after its first paragraph: the usage lines) below it, as
    written (without ``doc``, argparse wraps the description)."""
    p = sub.add_parser(name, parents=list(parents), help=help, description=description,
                       epilog=doc.split("\n\n", 1)[1] if doc and "\n\n" in doc else None,
                       formatter_class=argparse.RawDescriptionHelpFormatter if doc
                       else argparse.HelpFormatter)
    p.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    p.set_defaults(models_of=lambda a: [a.model], command_parser=p)
    return p


def model_options() -> argparse.ArgumentParser:
    """The options of every command that takes a model (a parent parser)."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("URDF files")
    group.add_argument("--base", metavar="LINK",
                       help="the link fixed to the world (default: the root link)")
    group.add_argument("--tip", metavar="LINK",
                       help="the end-effector link: load the chain to it (default: the "
                            "movable joints, a chain or the whole tree where they branch)")
    group.add_argument("--allow-massless", action="store_true",
                       help="accept moving links without <inertial> as massless")
    group.add_argument("--snap-angles", type=tolerance, metavar="TOL",
                       help="round <origin rpy> angles within TOL rad of a multiple of pi/2 to "
                            "it (e.g. 1e-3; the changes are printed on stderr)")
    group.add_argument("--floating", action="store_true",
                       help="the root link's body is a free-flying base (a free joint: q "
                            "gains x, y, z and a quaternion; robodyn export takes it)")
    files = parent.add_argument_group("URDF and MJCF files")
    files.add_argument("--mimic", choices=("coupled", "independent"), default=None,
                       help="coupled (default): a URDF <mimic> or MJCF <equality joint> joint "
                            "follows the joint it names (fewer degrees of freedom); "
                            "independent: every joint its own coordinate")
    files.add_argument("--asset-root", metavar="DIR",
                       help="MJCF: a folder holding the model file under which its meshes may "
                            "be read (default: the model's own folder), e.g. dm_control's "
                            "dog_v2, whose meshes lie beside its folder")
    return parent


_URDF_OPTIONS = ("base", "tip", "allow_massless", "snap_angles", "floating")
#: The options of files of both formats (URDF and MJCF: ``mimic``), of MJCF files only.
_FILE_OPTIONS = ("mimic",)
_MJCF_OPTIONS = ("asset_root",)


def _is_urdf(name: str) -> bool:
    return name.lower().endswith(".urdf")


def _is_mjcf(name: str) -> bool:
    return name.lower().endswith(".xml")


def urdf_options(args: argparse.Namespace, models: list[str]) -> str | None:
    """What is wrong with the file options given for ``models``, or ``None``."""
    for names, fits, kind in ((_URDF_OPTIONS, _is_urdf, "URDF files"),
                              (_FILE_OPTIONS, lambda m: _is_urdf(m) or _is_mjcf(m),
                               "URDF and MJCF files"),
                              (_MJCF_OPTIONS, _is_mjcf, "MJCF files")):
        given = [name for name in names if getattr(args, name, None) not in (None, False)]
        others = [m for m in models if not fits(m)]
        if given and others:
            flags = ", ".join("--" + name.replace("_", "-") for name in given)
            verb = "applies" if len(given) == 1 else "apply"
            return f"{flags} {verb} to {kind} only, not to {others[0][:80]!r}"
    return None


# rd.load's keyword arguments as the command line spells them, in the loader's messages
_OPTION_SPELLING = ((re.compile(r"\ballow_massless=True\b"), "--allow-massless"),
                    (re.compile(r"\bfloating=True\b"), "--floating"),
                    (re.compile(r"\b(base|tip)=(\.\.\.)?"), r"--\1 "),
                    (re.compile(r"\bsnap_angles=(\S+)"), r"--snap-angles \1"),
                    (re.compile(r"\basset_root=(\S+)?"), r"--asset-root \1"),
                    (re.compile(r"\bmimic=(['\"]?)(\w+)\1"), r"--mimic \2"))


def _as_options(message: str) -> str:
    """A loader's message with ``tip=...`` written as the command's ``--tip``."""
    for pattern, spelling in _OPTION_SPELLING:
        message = pattern.sub(spelling, message)
    return message.replace("  ", " ")


def load_model(name: str, args: argparse.Namespace):
    """``robodyn.load(name)`` with the command's URDF options; notes (angles snapped)
    go to stderr. Every command takes every joint type (``q`` of ``nq`` values with ball and
    free joints: the quaternions ``x y z w``)."""
    if not (_is_urdf(name) or _is_mjcf(name)):
        return load(name)
    keys = _FILE_OPTIONS + (_URDF_OPTIONS if _is_urdf(name) else _MJCF_OPTIONS)
    options = {key: getattr(args, key) for key in keys
               if getattr(args, key, None) not in (None, False)}
    try:
        robot = load(name, **options)
    except ModelError as exc:
        raise ModelError(_as_options(str(exc))) from None
    for note in robot.provenance.notes:
        print(f"robodyn: note: {_as_options(note)}", file=sys.stderr)
    return robot
