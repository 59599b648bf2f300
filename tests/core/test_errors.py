"""Quoting a user's value or path in an error message (robodyn.core.errors)."""

from __future__ import annotations

from robodyn.core.errors import PATH_CHARS, excerpt, excerpt_path


def test_a_long_path_is_quoted_by_its_end_the_file_name_kept():
    folder = "/tmp/" + "deep/" * 100  # 505 characters of folders
    path = folder + "run.csv"
    quoted = excerpt_path(path)
    assert quoted.startswith("'…") and quoted.endswith(f"run.csv' ({len(path):,} characters)")
    assert len(quoted) < PATH_CHARS + 40
    assert excerpt_path("/tmp/run.csv") == "'/tmp/run.csv'"


def test_a_path_with_control_characters_is_escaped():
    quoted = excerpt_path("/tmp/a\x1b[2Jb.csv")
    assert "\x1b" not in quoted and "\\x1b" in quoted


def test_a_long_value_is_quoted_by_its_start_with_its_size():
    assert excerpt("x" * 1000) == f"{'x' * 80!r}… (1,000 characters)"
