# Two commands for a fresh machine: `make demo` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: demo test test-fast test-exhaustive test-all lint build check pictures setup clean

setup: $(STAMP)

# torch is pinned to the CPU wheel (a looser spec pulls a multi-GB CUDA build).
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "torch==2.13.0"
	$(PY) -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

demo: $(STAMP)
	$(PY) -m grader demo

# Two pytest workers (pytest-xdist), each taking whole work units (tests/scheduling.py): a file, or one chapter's
# in-process graded tests across files, or a folder's tests sharing its session fixtures; so module fixtures and
# per-process caches are built once; the longest units go first. PYTEST_WORKERS=0 runs in one process.
PYTEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadgroup --no-loadscope-reorder

# The suite, with the properties repeated over every chapter or fixture on a sample that takes every code path.
test: lint
	$(PYTEST) -m "not exhaustive"

# Everything but the end-to-end tests marked slow (nbgrader runs, many processes); one chapter: pytest -m ch02.
test-fast: lint
	$(PYTEST) -m "not slow and not exhaustive"

# The repetitions `make test` samples: the other chapters and fixtures (CI runs it after `make test`).
test-exhaustive: $(STAMP)
	$(PYTEST) -m exhaustive

test-all: lint
	$(PYTEST)

lint: $(STAMP)
	$(PY) -m ruff check .
	$(PY) -m ruff check --no-cache --isolated --select F821 exercises/_selfcheck exercises/*/selfcheck  # shipped judges: no name left in the grader-only regions

build: $(STAMP)
	$(PY) -m grader build

check: $(STAMP)
	$(PY) -m grader build --check

# README pictures: headless-Chromium screenshots (apt-get install -y chromium fonts-nanum)
pictures: $(STAMP)
	$(PY) docs/make_pictures.py

clean:
	rm -rf $(VENV) graded demo-out gradebook.db
