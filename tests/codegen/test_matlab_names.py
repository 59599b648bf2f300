"""Issue 30 section 5: exported MATLAB function names keep to MATLAB's 63 characters
(``namelengthmax``) and stay distinct: a long name is shortened with a hash suffix, and
every call between the files uses the shortened name."""

from __future__ import annotations

import re

from robodyn.cli import main
from robodyn.codegen.export.matlab import MAX_NAME, function_name


def test_function_names_are_short_and_distinct():
    prefix = "a" * 38
    names = [function_name(prefix, f) for f in ("inverse_dynamics_derivatives",
                                                "inverse_dynamics_derivatives_contact",
                                                "forward_dynamics_derivatives", "mass_matrix")]
    assert all(len(n) <= MAX_NAME == 63 for n in names)
    assert len(set(names)) == len(names)
    assert function_name("arm", "mass_matrix") == "arm_mass_matrix"  # short: as before


def test_an_export_with_a_long_name_has_63_character_functions(tmp_path, capsys):
    out = tmp_path / "m"
    name = "averyveryveryverylongrobotnamethatgoes"
    assert main(["export", "planar-2r", "--lang", "matlab", "--out", str(out),
                 "--name", name]) == 0
    files = sorted(p for p in out.iterdir() if p.suffix == ".m")
    stems = [p.stem for p in files]
    assert len(set(s[:63] for s in stems)) == len(stems)
    for path in files:
        text = path.read_text()
        assert re.search(rf"^function [^=]+= {re.escape(path.stem)}\(", text, re.M)
        for called in re.findall(rf"\b{name}_\w+", text):
            assert len(called) <= 63 and (out / f"{called}.m").exists(), called
    assert any(len(s) > 60 for s in stems)
