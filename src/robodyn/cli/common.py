"""Argparse types the commands share: a bounded integer with a message that names it."""

from __future__ import annotations

import argparse

from ..core.errors import excerpt


def integer_between(text: str, least: int, most: int) -> int:
    """``text`` as an integer ``least <= n <= most``, else an argparse error saying why."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{excerpt(text, 40)} is not an integer") from None
    if not least <= value <= most:
        raise argparse.ArgumentTypeError(f"{value} is not between {least} and {most}")
    return value
