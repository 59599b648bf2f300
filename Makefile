# Quickstart: `make demo` and `make test` work on a fresh machine with Python 3.11+.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test test-fast docs bench bench-symbolic lint clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "robodyn needs Python 3.11 or newer; set PYTHON=python3.11 (or newer)")'
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	@touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	@touch $@ $(VENV)/.installed

$(VENV)/.installed-docs: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[docs]"
	@touch $@ $(VENV)/.installed

demo: $(VENV)/.installed
	$(BIN)/robodyn demo

# One BLAS thread for the suite: its matrices are small, and where other work shares the
# cores OpenBLAS's threads wait on each other (an SVD of a 1200 x 36 regressor: 0.4 s, not 1 ms).
TEST_ENV := OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 MKL_NUM_THREADS=1

# The suite on every core (pytest-xdist; one process a core, each test on one thread): on
# a 2-core machine with an empty kernel cache about 9.5 minutes (10.5 with the install), test-fast about 2.
test: $(VENV)/.installed-dev
	$(TEST_ENV) $(BIN)/python -m pytest -n auto

test-fast: $(VENV)/.installed-dev
	$(TEST_ENV) $(BIN)/python -m pytest -n auto -m "not slow"

# the site from docs/ and the docstrings, into site/; --strict: a broken link or reference fails
docs: $(VENV)/.installed-docs
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict

bench: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/bench_dynamics.py
	$(BIN)/python benchmarks/bench_simulate.py
	$(BIN)/python benchmarks/bench_rollouts.py
	$(BIN)/python benchmarks/bench_derivatives.py
	$(BIN)/python benchmarks/bench_codegen.py
	$(BIN)/python benchmarks/bench_export.py
	$(BIN)/python benchmarks/bench_trees.py
	$(BIN)/python benchmarks/bench_floating.py

bench-symbolic: $(VENV)/.installed-dev
	$(BIN)/python benchmarks/bench_symbolic.py

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests benchmarks

clean:
	rm -rf $(VENV) build dist site src/*.egg-info .pytest_cache
