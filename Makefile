# conv_tasks developer commands. `make setup` once, then `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
JSON_SERVER := tools/json-server/node_modules/.bin/json-server
TEST_DB ?= conv_tasks_test
export CONV_TASKS_TEST_DATABASE_URL ?= postgresql+psycopg://postgres@127.0.0.1:5432/$(TEST_DB)

.PHONY: setup services deploy-tools docs test ui-screenshots test-examples test-wheel test-rabbitmq test-fleet test-fast lint chaos bench bench-quick bench-instructions bench-scale bench-startup demo clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

setup: $(BIN)/python $(JSON_SERVER) graphviz
	$(BIN)/pip install --quiet -r requirements-dev.txt
	$(BIN)/pip install --quiet --no-deps -e .

# json-server, the REST server ConvTasks::HTTP::Resource's tests and benchmark run against, as
# tools/json-server/package-lock.json pins it (Node.js and npm from Debian when missing).
$(JSON_SERVER): tools/json-server/package-lock.json
	./scripts/ensure-node.sh
	npm ci --prefix tools/json-server --no-audit --no-fund --loglevel=error
	touch $@

# Debian's graphviz: the web view draws a stack's graph with `dot -Tsvg` (conv_tasks/ui/graph)
# and its tests run the real `dot`; installed (as root, with apt-get) only when missing.
.PHONY: graphviz
graphviz:
	./scripts/ensure-graphviz.sh

services:
	./scripts/ensure-services.sh

# The documentation site (docs/ -> site/). --strict: a broken link, a missing anchor or a page
# outside the nav fails the build. The generator lives in .venv-docs, apart from the project's.
DOCS_VENV ?= .venv-docs
$(DOCS_VENV)/bin/mkdocs: requirements-docs.txt
	$(PYTHON) -m venv $(DOCS_VENV)
	$(DOCS_VENV)/bin/pip install --quiet --upgrade pip
	$(DOCS_VENV)/bin/pip install --quiet -r requirements-docs.txt
	touch $@

docs: $(DOCS_VENV)/bin/mkdocs
	NO_MKDOCS_2_WARNING=1 $(DOCS_VENV)/bin/mkdocs build --strict

# Debian's docker-compose, which tests/deploy uses to check deploy/compose.yaml without a Docker
# engine; installed (as root, with apt-get) only when missing.
deploy-tools:
	./scripts/ensure-docker-compose.sh

# Debian's chromium and chromium-driver, which the web view's browser tests (tests/ui) and
# `make ui-screenshots` drive headless with Selenium; installed (apt-get) only when missing.
.PHONY: browser
browser:
	./scripts/ensure-browser.sh

# pytest-xdist workers for `make test` and `make test-rabbitmq`: each has its own Celery workers,
# database, redis-server, key prefix and vhost (tests/parallel_services.py). A file's tests stay
# on one worker (--dist loadfile), with the module fixtures they share. TEST_WORKERS=0 runs the
# suite in one process, as before; docs/development/testing.md has the measurements.
TEST_WORKERS ?= 2
PARALLEL = -n $(TEST_WORKERS) --dist loadfile

# The `openstack` command the HTTP edge's tests drive (tests/integration/openstack_cli), in a
# virtualenv of its own built once from the pinned requirements (again when they change), so
# that a test run does not spend a minute installing it.
OPENSTACK_VENV ?= .venv-openstack
OPENSTACK_REQUIREMENTS := tests/integration/openstack_cli/requirements.txt
$(OPENSTACK_VENV)/bin/openstack: $(OPENSTACK_REQUIREMENTS)
	rm -rf $(OPENSTACK_VENV)
	$(PYTHON) -m venv $(OPENSTACK_VENV)
	$(OPENSTACK_VENV)/bin/pip install --quiet --no-input -r $(OPENSTACK_REQUIREMENTS)
	touch $@
export CONV_TASKS_TEST_OPENSTACK_BIN := $(abspath $(OPENSTACK_VENV)/bin)

# The full default suite: unit tests, integration and chaos tests with real workers; then the
# example type package's tests. The fleet tests run apart (make test-fleet).
test: setup services deploy-tools browser $(OPENSTACK_VENV)/bin/openstack
	$(BIN)/python -m pytest $(PARALLEL) --ignore=tests/fleet tests
	$(run_examples)

# The example type package (examples/conv_tasks_example), as an outsider's would be tested: it
# is installed into the venv (pip install -e) for its run, its tests (written with the
# conformance kit, conv_tasks.testing) run on real workers, and it is uninstalled again, so that
# the project's own runs never see its type.
EXAMPLE := examples/conv_tasks_example
define run_examples
	$(BIN)/pip install --quiet --no-deps -e $(EXAMPLE)
	status=0; $(BIN)/python -m pytest $(EXAMPLE) || status=$$?; \
		$(BIN)/pip uninstall --quiet --yes conv-tasks-example; exit $$status
endef

test-examples: setup services
	$(run_examples)

# conv_tasks as a user installs it (scripts/test-wheel.sh): `python -m build` makes the sdist
# and the wheel; a fresh virtual environment of $(PYTHON) gets the wheel with its `kit` extra
# and the example package (not editable), and from outside the repository runs
# `conv-tasks --version`, `resource-type list`, `db upgrade` and the example's kit tests
# against the running services. A dependency the core imports but pyproject.toml does not
# declare fails it.
test-wheel: setup services
	./scripts/test-wheel.sh $(PYTHON) $(BIN)/python

# The integration and chaos tests again, with RabbitMQ as the broker. The run gets a vhost of its
# own under this URL's (tests/conftest.py creates it with rabbitmqctl and deletes it after); tests
# of something only a Redis broker has are skipped, with their reason. Its queues are quorum
# queues (single-node here), as a RabbitMQ deployment's are by default; RABBITMQ_QUEUE_TYPE=classic
# runs it on the classic queues of deployments that keep them (docs/operations/rabbitmq.md).
RABBITMQ_TEST_URL ?= amqp://guest:guest@127.0.0.1:5672/conv_tasks_test
RABBITMQ_QUEUE_TYPE ?= quorum
test-rabbitmq: setup services $(OPENSTACK_VENV)/bin/openstack
	CONV_TASKS_TEST_BROKER_URL=$(RABBITMQ_TEST_URL) CONV_TASKS_RABBITMQ_QUEUE_TYPE=$(RABBITMQ_QUEUE_TYPE) \
		$(BIN)/python -m pytest $(PARALLEL) tests/integration tests/chaos

# Several hosts, for real (tests/fleet): three worker hosts as network namespaces, cut off,
# killed or run 30 s ahead, with their PostgreSQL, Redis and RabbitMQ (private ones) reached
# over veth links. Needs root (ip netns); nftables, faketime and rabbitmq-server are installed
# when missing. One test at a time: the
# scenarios time leases and must not share the two cores. docs/development/testing.md.
test-fleet: setup services
	./scripts/ensure-fleet-tools.sh
	$(BIN)/python -m pytest tests/fleet

test-fast: setup deploy-tools
	$(BIN)/python -m pytest tests/template tests/graph tests/resources tests/engine tests/cli tests/tasks \
		tests/deploy tests/agent

# The chaos tests (killed workers, lost SyncPoints) alone, ten runs in a row.
chaos: setup services
	for run in 1 2 3 4 5 6 7 8 9 10; do $(BIN)/python -m pytest -q tests/chaos || exit 1; done

# The faces' import rules (scripts/check_imports.py, docs/development/layout.md) run last:
# each breach is one line naming the file, the line and the rule.
lint: setup
	$(BIN)/ruff check conv_tasks tests celeryconfig.py benchmarks examples scripts
	$(BIN)/ruff format --check conv_tasks tests celeryconfig.py benchmarks examples scripts
	$(BIN)/mypy
	$(BIN)/mypy scripts/heat_compat_sweep.py scripts/check_imports.py
	$(BIN)/mypy $(EXAMPLE)/src $(EXAMPLE)/tests
	$(BIN)/python scripts/check_imports.py conv_tasks

# Engine benchmark numbers also go to $(BENCH_JSON) (see benchmarks/bench_engine.py --help).
BENCH_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-engine.json
# ConvTasks::Celery::Task against the bare send_task + .get() (benchmarks/bench_celery_task.py).
BENCH_CELERY_TASK_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-celery-task.json

# stack show and stack list through the HTTP edge beside send_task (benchmarks/bench_edge.py).
BENCH_EDGE_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-edge.json

# The web view's pages: a stack's page at 1,000 and 10,000 resources, the stacks list at 10,000
# stacks, server time through the edge (benchmarks/bench_ui.py).
BENCH_UI_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-ui.json

# Planner, then the engine against a bare Celery hop: timing at 100, 1,000 and 10,000
# resources, round trips counted at 100 and 1,000 with task events off and on; then HTTP
# resources a second against json-server, with and without a rate limit; then a
# ConvTasks::Celery::Task resource against its task called directly; then reads through the
# HTTP edge against send_task, idle and during a 1,000-resource create; then the web view's
# pages. Long.
bench: setup services
	$(BIN)/python benchmarks/bench_planner.py
	$(BIN)/python benchmarks/bench_engine.py --sizes 100,1000,10000 --count-sizes 100,1000 \
		--json $(BENCH_JSON)
	$(BIN)/python benchmarks/bench_http.py
	$(BIN)/python benchmarks/bench_celery_task.py --json $(BENCH_CELERY_TASK_JSON)
	$(BIN)/python benchmarks/bench_edge.py --json $(BENCH_EDGE_JSON)
	$(BIN)/python benchmarks/bench_ui.py --json $(BENCH_UI_JSON)

# The engine benchmark at 100 and 1,000 resources only: a few minutes.
bench-quick: setup services
	$(BIN)/python benchmarks/bench_engine.py --sizes 100,1000 --count-sizes 100,1000 \
		--json $(BENCH_JSON)

# Worker CPU instructions per graph node (chain, fan) and per bare Celery hop / fan-in leaf,
# counted with valgrind's callgrind at 50 and 150 nodes (benchmarks/instructions_per_node.py):
# repeatable on a busy machine, a few minutes.
bench-instructions: setup services
	./scripts/ensure-valgrind.sh
	$(BIN)/python benchmarks/instructions_per_node.py

# The capacity model: nodes/s of a chain and a 1 -> N -> 1 fan at 1, 2 and 4 worker processes,
# what a node costs PostgreSQL (transactions), Redis (commands) and the worker (instructions,
# by callgrind), and the model fitted to them (benchmarks/bench_scale.py,
# docs/operations/fleet-sizing.md). On its own PostgreSQL cluster and redis-server; about
# 6 minutes. Not part of `make test`.
BENCH_SCALE_JSON ?= $(or $(TMPDIR),/tmp)/conv-tasks-bench-scale.json
bench-scale: setup services
	./scripts/ensure-valgrind.sh
	$(BIN)/python benchmarks/bench_scale.py --json $(BENCH_SCALE_JSON)

# What a CLI command's start-up costs, and what rich (and, when installed, pydantic-settings
# and environs) would add to it: docs/development/libraries.md.
bench-startup: setup
	$(BIN)/python benchmarks/bench_startup.py --runs 21

# The web view's pages as PNGs for docs/operations/web-view.md (tests/ui/screenshots.py, run by
# pytest for its fixtures: workers, an edge with tokens, headless Chromium). UI_SCREENSHOTS
# names another folder than docs/operations/img.
ui-screenshots: setup services browser
	$(BIN)/python -m pytest -n 1 -p no:cacheprovider -q tests/ui/screenshots.py

demo: setup services
	$(BIN)/python -m conv_tasks.cli.demo

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
	rm -rf $(VENV) $(OPENSTACK_VENV) .pytest_cache .mypy_cache .ruff_cache
