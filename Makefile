# One entry point for everything: `make run` (the live demo) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PYPROJECTS := $(wildcard engine/pyproject.toml sdk/pyproject.toml service/pyproject.toml)

.PHONY: all venv test lint typecheck pytest bench bench-engine run clean

all: test

$(STAMP): $(PYPROJECTS)
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e 'engine[test]' $(if $(wildcard sdk/pyproject.toml),-e 'sdk[test]') $(if $(wildcard service/pyproject.toml),-e 'service[test]')
	touch $@

venv: $(STAMP)

lint: $(STAMP)
	$(BIN)/ruff check engine/src tests benchmarks

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

## test: everything CI checks: lint, types, and every test.
test: lint typecheck pytest

## bench: throughput figures (medians of 5 runs); not a test.
bench: bench-engine

bench-engine: $(STAMP)
	$(PY) benchmarks/engine_bench.py

## run: the main job.
run: $(STAMP)
	$(PY) -m president_engine demo --preset cardverse --players 4 --deals 3

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache .hypothesis
