"""Built-in models: worked examples of textbooks and lecture notes, and classic arms, as YAML files
(and MJCF files, for mechanisms a DH table cannot place, such as the Delta robot) shipped
inside the package (``robodyn models`` lists them), and the lookup of the URDFs of the
optional ``example-robot-data`` package."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = Path(__file__).parent

#: The file types of built-in models, in the order a name is looked up.
_SUFFIXES = (".yaml", ".xml")
#: Where the example-robot-data package keeps its robots, below its install prefix.
_ERD_ROBOTS = "example-robot-data/robots"


def names() -> list[str]:
    """Names of the built-in models, sorted."""
    return sorted(p.stem for suffix in _SUFFIXES for p in _HERE.glob(f"*{suffix}"))


def path(name: str) -> Path:
    """The file of a built-in model (YAML, or MJCF for the Delta robot)."""
    for suffix in _SUFFIXES:
        file = _HERE / f"{name}{suffix}"
        if name in names() and file.is_file():
            return file
    from ...core.errors import ModelError

    raise ModelError(f"no built-in model {name!r}; built-in models: {', '.join(names())}")


def example_robot_data(relative_path: str) -> Path:
    """A file of the installed ``example-robot-data`` package, e.g.
    ``example_robot_data("panda_description/urdf/panda.urdf")``.

    Found offline from the package's list of installed files (recent versions ship the
    robots under ``<prefix>/share/example-robot-data/robots`` and have no Python module
    to ask). Raises :class:`~robodyn.ModelError` if the package is not installed or has
    no such file.
    """
    from ...core.errors import ModelError

    relative = str(relative_path).replace("\\", "/").strip("/")
    shown = relative if len(relative) <= 80 else f"{relative[:80]}... ({len(relative)} chars)"
    if not relative or ".." in relative.split("/"):
        raise ModelError(f"example_robot_data: {shown!r} is not a path inside the package's "
                         "robots folder (e.g. 'ur_description/urdf/ur5_robot.urdf')")
    # where pip puts the package's data in this environment: found without reading its
    # list of files (importlib.metadata and the RECORD cost 15-30 ms)
    # (cmeel wheels under site-packages/cmeel.prefix, others under the prefix's share)
    for root in (*(Path(p, "cmeel.prefix") for p in sys.path if p.endswith("site-packages")),
                 Path(sys.prefix)):
        here = root / "share" / _ERD_ROBOTS / relative
        if here.is_file():
            return here
    import importlib.metadata  # lazily: only callers of this function need it

    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        raise ModelError("example_robot_data: the example-robot-data package is not installed "
                         "(pip install example-robot-data)") from None
    suffix = f"{_ERD_ROBOTS}/{relative}"
    for file in dist.files or ():
        if str(file).replace("\\", "/").endswith(suffix):
            found = Path(dist.locate_file(file))
            if found.is_file():
                return found
    raise ModelError(f"example_robot_data: example-robot-data {dist.version} has no "
                     f"robots/{shown}")


def example_robot_data_urdfs() -> list[Path]:
    """Every URDF file of the installed ``example-robot-data`` package, sorted (empty if
    the package is not installed)."""
    import importlib.metadata  # lazily: only callers of this function need it

    try:
        dist = importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        return []
    return sorted(Path(dist.locate_file(f)) for f in dist.files or ()
                  if str(f).endswith(".urdf") and _ERD_ROBOTS in str(f).replace("\\", "/"))
