"""Shared helpers for the tests."""

from __future__ import annotations

import os

# Batches run the per-sample kernels: the blocked flavour compiles a second program per
# model and kernel, minutes over the hundreds of programs the suite builds once each.
# tests/codegen/test_blocked_kernels.py checks the blocked kernels themselves, bit for bit.
os.environ.setdefault("ROBODYN_BLOCKED_MIN_BATCH", str(10**12))

import textwrap  # noqa: E402
from pathlib import Path

import numpy as np
import pytest

import robodyn as rd

MODEL_NAMES = rd.models.names()

#: The tests folder (it mirrors src/robodyn: tests/model/, tests/dynamics/, ...), the
#: repository root, and the test data (URDF files).
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
TEST_DATA = TESTS / "data"

#: The tests that take more than about 2 s on a 2-core machine (measured with
#: ``pytest --durations=60``): marked ``slow``, so ``make test-fast`` (``-m "not slow"``)
#: runs the rest in about a minute; ``make test`` and CI run everything.
SLOW_TESTS = frozenset({
    "tests/cli/test_cli.py::test_a_bad_thread_count_is_a_clear_error",
    "tests/cli/test_cli.py::test_errors_are_reported_without_a_traceback",
    "tests/cli/test_cli_motion.py::test_a_stiff_model_stops_at_once_and_radau_runs_it",
    "tests/cli/test_cli_motion.py::test_simulate_draws_and_animates",
    "tests/cli/test_cli_motion.py::test_the_demo_tour_runs_and_reports_the_physics",
    "tests/cli/test_dataset.py::test_a_huge_sample_count_is_checked_against_the_free_disk_space",
    "tests/cli/test_dataset.py::test_a_huge_sample_count_starts_at_once_where_it_fits",
    "tests/cli/test_dataset.py::test_a_killed_run_leaves_no_stale_lock_and_no_temporary_file",
    "tests/cli/test_dataset.py::test_a_second_run_into_the_same_output_fails_at_once",
    "tests/cli/test_dataset.py::test_the_chunk_size_is_capped_by_the_memory",
    "tests/codegen/test_code_export.py::test_c_matches_core",
    "tests/codegen/test_code_export.py::test_every_language_names_the_model_convention_and_symbols",
    "tests/codegen/test_code_export.py::test_java_matches_core",
    "tests/codegen/test_code_export.py::test_python_matches_core",
    "tests/codegen/test_dask.py::test_no_dask_import_for_numpy_calls",
    "tests/codegen/test_dask.py::test_one_million_states_on_a_two_process_cluster",
    "tests/codegen/test_kernel_cache.py::test_a_broken_numba_install_falls_back_to_numpy_with_one_warning",
    "tests/codegen/test_kernel_cache.py::test_a_corrupted_numba_cache_is_rebuilt_not_trusted",
    "tests/codegen/test_kernel_cache.py::test_as_another_user_shared_and_sticky_directories_are_never_changed",
    "tests/codegen/test_kernel_cache.py::test_the_temporary_cache_is_cleaned_at_exit",
    "tests/core/test_csv_table.py::test_a_fifo_or_a_device_is_refused_without_blocking",
    "tests/dynamics/test_random_arms.py::test_batched_equals_per_sample",
    "tests/dynamics/test_random_arms.py::test_equation_of_motion_is_newton_euler",
    "tests/dynamics/test_random_arms.py::test_forward_dynamics_inverts_inverse_dynamics",
    "tests/dynamics/test_random_arms.py::test_mass_matrix_is_symmetric_positive_definite",
    "tests/dynamics/test_random_arms.py::test_mdot_minus_2c_is_skew_symmetric",
    "tests/identification/test_identification.py::test_identification_recovers_base_parameters",
    "tests/model/test_expansion_bounds.py::test_a_derivation_beyond_the_ring_budget_stops_naming_the_largest_expression",
    "tests/model/test_expansion_bounds.py::test_check_of_an_exploding_answer_is_a_fast_error",
    "tests/model/test_expansion_bounds.py::test_derive_of_a_model_whose_field_explodes_is_a_fast_error",
    "tests/model/test_expansion_bounds.py::test_robot_equations_of_such_a_model_cannot_start",
    "tests/model/test_hostile_models.py::test_derived_json_parses_back_exactly",
    "tests/model/test_hostile_models.py::test_long_sums_and_sign_chains_work",
    "tests/model/test_hostile_names.py::test_hostile_java_compiles_and_keeps_the_parameter_names",
    "tests/model/test_urdf_bounds.py::test_a_chain_of_5000_joints_loads_within_a_time_and_memory_bound",
    "tests/model/test_urdf_bounds.py::test_an_endless_file_is_read_only_up_to_the_cap",
    "tests/model/test_urdf_bounds.py::test_reading_does_work_proportional_to_the_joints",
    "tests/motion/test_simulation.py::test_stiff_runs_and_huge_runs_stop_at_once_with_a_clear_error",
    "tests/plot/test_plot.py::test_animate_writes_a_gif_at_the_frame_rate",
    "tests/plot/test_plot.py::test_import_robodyn_leaves_matplotlib_until_rd_plot",
    "tests/plot/test_plot.py::test_torques_of_a_puma_quintic_total_is_inverse_dynamics",
    "tests/symbolic/test_seed_examples.py::test_jacobian_reference",
    "tests/symbolic/test_symbolic_internals.py::test_normal_form_is_sympys_remainder",
    "tests/symbolic/test_symbolic_internals.py::test_numeric_of_a_seven_dof_arm",
    "tests/symbolic/test_symbolic_internals.py::test_numeric_of_an_expression_too_deep_for_lambdify",
    "tests/symbolic/test_symbolic_numeric.py::test_6dof_symbolic_inertia_smoke",
    "tests/symbolic/test_symbolic_numeric.py::test_newton_euler_closed_form_equals_numeric_core",
    "tests/symbolic/test_symbolic_numeric.py::test_structure_checks_pass",
    "tests/symbolic/test_symbolic_output.py::test_json_reads_back_with_parse_expr",
    "tests/symbolic/test_symbolic_output.py::test_latex_compiles",
    "tests/symbolic/test_symbolic_readable.py::test_latex_lines_fit_the_page",
})


def pytest_collection_modifyitems(config, items):
    for item in items:
        if item.nodeid.split("[", 1)[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


def random_states(robot, n: int, seed: int = 0):
    """``n`` random ``(q, qd, qdd)`` of a robot, shape ``(n, dof)`` each."""
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, size=(n, robot.dof))
    for j, link in enumerate(robot.links):
        if link.joint.type == "prismatic":
            q[:, j] = rng.uniform(0.1, 1.0, size=n)
    qd = rng.normal(size=(n, robot.dof))
    qdd = rng.normal(size=(n, robot.dof))
    return q, qd, qdd


@pytest.fixture(scope="session")
def robots():
    return {name: rd.load(name) for name in MODEL_NAMES}


@pytest.fixture
def numpy_backend(monkeypatch):
    """Run a test's new kernels on the NumPy backend: the same generated programs without
    Numba's compile time (about a second per kernel, half a minute for a 7-DOF regressor).
    For tests of values, not speed; the backends are checked equal in test_batching.py."""
    monkeypatch.setenv("ROBODYN_BACKEND", "numpy")


def run_bounded(args, *, timeout: float = 30, memory_mb: int = 1024, env=None):
    """Run ``python *args`` in a subprocess under a wall-clock ``timeout`` (seconds) and an
    address-space limit of ``memory_mb`` (``resource.RLIMIT_AS``), so that a hang or a
    runaway allocation fails the test instead of stalling the machine; the completed
    process (text output) is returned."""
    import resource  # POSIX only, as the tests that use it
    import subprocess
    import sys

    limit = memory_mb * 2**20

    def bound():
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    return subprocess.run([sys.executable, *args], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=bound, env=env)


#: A small valid model file (a revolute and a prismatic joint), for tests that break it.
GOOD_MODEL = """\
name: test-arm
dh: standard
gravity: [0, -g, 0]
links:
  - joint: revolute
    a: l1
    mass: m1
    com: [-l1/2, 0, 0]
    inertia: [Ixx1, m1*l1**2/12, m1*l1**2/12, 0, 0, 0]
    friction: {viscous: Fv1, coulomb: 0}
  - joint: prismatic
    alpha: pi/2
    mass: m2
    com: [0, 0, 0]
values: {m1: 2.0, m2: 1.0, l1: 0.5, Ixx1: 0.001, Fv1: 0.1, g: 9.81}
"""


def write_model(tmp_path, text, name="arm.yaml"):
    """``text`` (dedented) as the model file ``name`` in ``tmp_path``."""
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return path
