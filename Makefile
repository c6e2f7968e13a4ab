# Quick start: `make run` (the console on SQLite) and `make test` (ruff + the whole suite).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
ARGS ?=
# `make test` runs the suite on this many pytest-xdist workers: one more than the CPU cores,
# because part of the time each worker waits on PostgreSQL or a `studybot run` subprocess
# (on 2 cores: 3 workers 223 s, 2 workers 260 s, the machine otherwise quiet).
TEST_WORKERS ?= $(shell $(PYTHON) -c 'import os; print((os.cpu_count() or 1) + 1)')

.PHONY: run test lint typecheck bench soak clean

$(BIN)/python:
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "studybot needs Python 3.11 or newer")'
	@$(PYTHON) -m venv $(VENV)
	@$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: $(BIN)/python pyproject.toml
	@$(BIN)/python -m pip install --quiet -e . >&2
	@touch $@

$(VENV)/.installed-dev: $(BIN)/python pyproject.toml
	@$(BIN)/python -m pip install --quiet -e '.[all,dev]' >&2
	@touch $@ $(VENV)/.installed

run: $(VENV)/.installed
	@$(BIN)/studybot console $(ARGS)

test: $(VENV)/.installed-dev
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist worksteal

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check .

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

bench: $(VENV)/.installed-dev
	@for b in bench/*.py; do echo "== $$b"; $(BIN)/python $$b; done

# ARGS="--days 60 --users 100 --db postgresql+psycopg://…" to soak longer or on PostgreSQL.
soak: $(VENV)/.installed-dev
	$(BIN)/python bench/soak.py $(ARGS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
