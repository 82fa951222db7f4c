"""conv_tasks: a convergence engine for declarative stacks on Celery, Redis and PostgreSQL."""

from __future__ import annotations

DISTRIBUTION = "conv_tasks"


def __getattr__(name: str) -> str:
    # The version is written once, in pyproject.toml, and read from the installed package's
    # metadata when asked for (not at import: the lookup reads files on sys.path).
    if name == "__version__":
        from importlib.metadata import version

        return version(DISTRIBUTION)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
