"""Built-in models: the seeds' worked examples and classic arms, as YAML files
shipped inside the package (``robodyn models`` lists them)."""

from __future__ import annotations

from pathlib import Path

_HERE = Path(__file__).parent


def names() -> list[str]:
    """Names of the built-in models, sorted."""
    return sorted(p.stem for p in _HERE.glob("*.yaml"))


def path(name: str) -> Path:
    """The YAML file of a built-in model."""
    file = _HERE / f"{name}.yaml"
    if not file.is_file():
        from ..errors import ModelError

        raise ModelError(f"no built-in model {name!r}; built-in models: {', '.join(names())}")
    return file
