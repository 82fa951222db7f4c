# conv_tasks developer commands. `make setup` once, then `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
TEST_DB ?= conv_tasks_test
export CONV_TASKS_TEST_DATABASE_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/$(TEST_DB)

.PHONY: setup services deploy-tools test test-rabbitmq test-fast lint chaos bench bench-quick bench-startup demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

setup: $(BIN)/python
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .

services:
	./scripts/ensure-services.sh

# Debian's docker-compose, which tests/deploy uses to check deploy/compose.yaml without a Docker
# engine; installed (as root, with apt-get) only when missing.
deploy-tools:
	./scripts/ensure-docker-compose.sh

# The full default suite: unit tests, integration and chaos tests with real workers.
test: setup services deploy-tools
	$(BIN)/python -m pytest tests

# The integration and chaos tests again, with RabbitMQ as the broker. The run gets a vhost of its
# own under this URL's (tests/conftest.py creates it with rabbitmqctl and deletes it after); tests
# of something only a Redis broker has are skipped, with their reason.
RABBITMQ_TEST_URL ?= amqp://guest:guest@127.0.0.1:5672/conv_tasks_test
test-rabbitmq: setup services
	CONV_TASKS_TEST_BROKER_URL=$(RABBITMQ_TEST_URL) $(BIN)/python -m pytest tests/integration tests/chaos

test-fast: setup deploy-tools
	$(BIN)/python -m pytest tests/template tests/graph tests/resources tests/engine tests/cli tests/tasks \
		tests/deploy tests/agent

# The chaos tests (killed workers, lost SyncPoints) alone, ten runs in a row.
chaos: setup services
	for run in 1 2 3 4 5 6 7 8 9 10; do $(BIN)/python -m pytest -q tests/chaos || exit 1; done

lint: setup
	$(BIN)/ruff check conv_tasks tests celeryconfig.py benchmarks
	$(BIN)/ruff format --check conv_tasks tests celeryconfig.py benchmarks
	$(BIN)/mypy

# Engine benchmark numbers also go to $(BENCH_JSON) (see benchmarks/bench_engine.py --help).
BENCH_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-engine.json

# Planner, then the engine against a bare Celery hop: timing at 100, 1,000 and 10,000
# resources, round trips counted at 100 and 1,000 with task events off and on. Long.
bench: setup services
	$(BIN)/python benchmarks/bench_planner.py
	$(BIN)/python benchmarks/bench_engine.py --sizes 100,1000,10000 --count-sizes 100,1000 \
		--json $(BENCH_JSON)

# The engine benchmark at 100 and 1,000 resources only: a few minutes.
bench-quick: setup services
	$(BIN)/python benchmarks/bench_engine.py --sizes 100,1000 --count-sizes 100,1000 \
		--json $(BENCH_JSON)

# What a CLI command's start-up costs, and what rich (and, when installed, pydantic-settings
# and environs) would add to it: README, "Libraries".
bench-startup: setup
	$(BIN)/python benchmarks/bench_startup.py --runs 21

demo: setup services
	$(BIN)/python -m conv_tasks.demo

# Flower on http://127.0.0.1:5555 for a developer's own workers (loopback only, no
# authentication: deploy/ runs it behind authentication). Its task list shows each task's
# arguments (kwargs), which say which stack, resource and phase a graph node is; the same
# columns as deploy/compose.yaml's.
FLOWER_PORT ?= 5555
FLOWER_TASKS_COLUMNS ?= name,kwargs,state,received,runtime,worker,uuid
.PHONY: flower
flower: setup
	$(BIN)/celery -A conv_tasks.tasks.app flower --address=127.0.0.1 --port=$(FLOWER_PORT) \
		--tasks_columns=$(FLOWER_TASKS_COLUMNS)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
