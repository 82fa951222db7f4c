# conv_tasks developer commands. `make setup` once, then `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TEST_DB ?= conv_tasks_test
export CONV_TASKS_TEST_DATABASE_URL ?= postgresql+psycopg2://postgres@127.0.0.1:5432/$(TEST_DB)

.PHONY: setup services test test-fast lint chaos soak bench demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .

services:
	./scripts/ensure-services.sh

# The full default suite: unit tests, then integration tests with real workers.
test: setup services
	$(BIN)/python -m pytest -m "not chaos and not soak" tests

test-fast: setup
	$(BIN)/python -m pytest tests/template tests/graph tests/resources

chaos: setup services
	$(BIN)/python -m pytest -m chaos tests

soak: setup services
	$(BIN)/python -m pytest -m soak tests

lint: setup
	$(BIN)/ruff check conv_tasks tests celeryconfig.py benchmarks
	$(BIN)/ruff format --check conv_tasks tests celeryconfig.py benchmarks
	$(BIN)/mypy

bench: setup services
	$(BIN)/python benchmarks/bench_planner.py
	$(BIN)/python benchmarks/bench_engine.py

demo: setup services
	$(BIN)/python -m conv_tasks.demo

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
