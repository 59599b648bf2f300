"""Issue 33 item 3: degenerate arms. ``require`` redraws until the arm has what is asked:
``g``, ``C`` not identically zero (checked here against the symbolic derivation, an
independent route: the generator tests numerically), no two collinear slides (checked here
against frames built by hand from the DH rows at random joint values)."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd
from robodyn.core.errors import InputError
from robodyn.teaching.exercise import collinear_slides, make_exercise

sys.path.insert(0, str(Path(__file__).parent))
from test_exercise_words import _A, _number  # noqa: E402


def _slide_axes(ex, q):
    frames, axes = [np.eye(4)], {}
    for i, ((kind, a, alpha, d, theta), qi) in enumerate(zip(ex.dh, q, strict=True), 1):
        if kind == "P":
            axes[i] = frames[-1][:3, 2]
        A = (_A(_number(a, ex.values), _number(alpha, ex.values), _number(d, ex.values), qi)
             if kind == "R" else
             _A(_number(a, ex.values), _number(alpha, ex.values), qi, _number(theta, ex.values)))
        frames.append(frames[-1] @ A)
    return axes


def _parallel_by_hand(ex, rng):
    found = set()
    samples = [_slide_axes(ex, rng.uniform(-1.5, 1.5, ex.dof)) for _ in range(3)]
    for i, j in itertools.combinations(sorted(samples[0]), 2):
        if all(np.linalg.norm(np.cross(s[i], s[j])) < 1e-9 for s in samples):
            found.add((i, j))
    return found


def _derived(ex, tmp_path):
    path = tmp_path / f"{ex.name}.yaml"
    path.write_text(ex.model_yaml)
    return rd.load(path).equations()


def test_the_issue_case_seed_12_has_collinear_slides_and_require_removes_them(tmp_path):
    ex = make_exercise(3, seed=12)
    assert ex.joints == "PPP"
    assert set(collinear_slides(ex)) == _parallel_by_hand(ex, np.random.default_rng(0)) != set()
    eq = _derived(ex, tmp_path)
    assert all(x == 0 for x in eq.C)  # the issue: C = 0
    fixed = make_exercise(3, seed=12, require="g,C,slides")
    assert collinear_slides(fixed) == [] and not _parallel_by_hand(
        fixed, np.random.default_rng(1))
    eq = _derived(fixed, tmp_path)
    assert any(x != 0 for x in eq.g) and any(x != 0 for x in eq.C)
    assert "--require g,C,slides" in fixed.model_yaml.splitlines()[0]
    assert make_exercise(3, seed=12, require="g,C,slides").model_yaml == fixed.model_yaml


@pytest.mark.parametrize("joints", ["PP", "PPP", "RPP", "PRP", "PPR"])
def test_collinear_slides_agrees_with_frames_by_hand(joints):
    rng = np.random.default_rng(2)
    for seed in range(30):
        ex = make_exercise(len(joints), joints, seed=seed)
        assert set(collinear_slides(ex)) == _parallel_by_hand(ex, rng), ex.dh


@pytest.mark.parametrize("seed", range(4))
def test_required_g_and_C_are_not_zero_by_the_derivation(seed, tmp_path):
    ex = make_exercise(3, seed=seed, require=["g", "C"])
    eq = _derived(ex, tmp_path)
    assert any(x != 0 for x in eq.g) and any(x != 0 for x in eq.C)


def test_an_unknown_requirement_is_named():
    with pytest.raises(InputError, match="'h' is not one of g, C, slides"):
        make_exercise(2, seed=0, require="g,h")


def test_an_impossible_requirement_says_so():
    # one prismatic joint: its g can be nonzero but its C is always zero (M is constant)
    with pytest.raises(InputError, match="fails: C"):
        make_exercise(1, "P", seed=0, require="C")
