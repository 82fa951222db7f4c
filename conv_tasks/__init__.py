"""conv_tasks: a convergence engine for declarative stacks on Celery, Redis and PostgreSQL.

Every folder below is a package with a face (its __init__.py): what it is for, what it
must never do, the names other packages import, and its import rules (MAY_IMPORT,
MUST_NOT_IMPORT). LAYERS below places every top-level package and module: each imports
only from layers below its own, and two in one layer never import each other. `make lint`
checks all of it (scripts/check_imports.py; docs/development/layout.md). This face holds
the distribution's name and version only, and imports nothing of conv_tasks.
"""

from __future__ import annotations

DISTRIBUTION = "conv_tasks"

# Highest first.
LAYERS = (
    # What a person or a test runs: the command line (and `make demo`), the conformance kit.
    ("conv_tasks.cli", "conv_tasks.testing"),
    # Workers and beat started as child processes, for the two above.
    ("conv_tasks.celery_processes",),
    # The processes' entry points: the Celery tasks of workers and beat, the HTTP edge.
    ("conv_tasks.tasks", "conv_tasks.server"),
    # What they serve: the engine, beat's scheduling, the edge's two faces (apart).
    ("conv_tasks.engine", "conv_tasks.beat", "conv_tasks.api", "conv_tasks.ui"),
    # Reaching the world: named connections, SyncPoints, the agent, what the edge shares.
    ("conv_tasks.connections", "conv_tasks.syncpoint", "conv_tasks.agent", "conv_tasks.edge"),
    # Stores and transports: the database, the broker, Redis and its faults, the client, and
    # the resource types (the registry and the built-in ones).
    (
        "conv_tasks.db",
        "conv_tasks.broker",
        "conv_tasks.redis_client",
        "conv_tasks.faults",
        "conv_tasks.client",
        "conv_tasks.resources",
    ),
    # What is declared: the resource-type SDK, the requests, the settings, local files.
    ("conv_tasks.sdk", "conv_tasks.requests", "conv_tasks.settings", "conv_tasks.local_files"),
    # Pure rules: templates, graphs, deployments, wait handles, constraints, sealing, ...
    (
        "conv_tasks.template",
        "conv_tasks.graph",
        "conv_tasks.deployments",
        "conv_tasks.waitconditions",
        "conv_tasks.constraints",
        "conv_tasks.secrets_at_rest",
        "conv_tasks.provider_errors",
        "conv_tasks.tags",
        "conv_tasks.extras",
    ),
    # The vocabulary everything speaks.
    ("conv_tasks.errors", "conv_tasks.input_text"),
    (
        "conv_tasks.limits",
        "conv_tasks.statuses",
        "conv_tasks.durations",
        "conv_tasks.masked_url",
        "conv_tasks.sentinel_urls",
        "conv_tasks.suggestions",
    ),
)


def __getattr__(name: str) -> str:
    # The version is written once, in pyproject.toml, and read from the installed package's
    # metadata when asked for (not at import: the lookup reads files on sys.path).
    if name == "__version__":
        from importlib.metadata import version

        return version(DISTRIBUTION)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
