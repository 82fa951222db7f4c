"""The conv-tasks command line, in the style of `openstack stack ...`.

main.py is the entry point (the group and the console script's `main`);
context.py the Context every command gets from the options before its name;
failures.py how a command ends (one line and an exit code); commands/ the
commands, one module per noun; render/ how answers are printed; demo.py is
`make demo` (`python -m conv_tasks.cli.demo`).

The CLI is a client: it must never decide what the engine decides, nor send SQL
or Redis commands itself. It asks through conv_tasks.client; the commands that
act in process (`template validate`, `resource-type`, `db upgrade|purge`) call
the engine's, resources' and db's own functions. Starting it must stay cheap:
`conv-tasks --help` loads neither the Celery app nor rich, so this face exports
only the group and its console script (main.py, which the script loads anyway).
"""

from conv_tasks.cli.main import cli, main

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.agent",
    "conv_tasks.broker",
    "conv_tasks.celery_processes",
    "conv_tasks.client",
    "conv_tasks.constraints",
    "conv_tasks.db",
    "conv_tasks.durations",
    "conv_tasks.edge",
    "conv_tasks.engine",
    "conv_tasks.errors",
    "conv_tasks.limits",
    "conv_tasks.local_files",
    "conv_tasks.masked_url",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.secrets_at_rest",
    "conv_tasks.server",
    "conv_tasks.settings",
    "conv_tasks.statuses",
    "conv_tasks.tags",
    "conv_tasks.tasks",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = ("conv_tasks.api", "conv_tasks.syncpoint", "conv_tasks.ui")
# Highest first.
LAYERS = (
    ("conv_tasks.cli.main", "conv_tasks.cli.demo"),
    ("conv_tasks.cli.commands",),
    ("conv_tasks.cli.context",),
    ("conv_tasks.cli.render",),
    ("conv_tasks.cli.failures",),
)

__all__ = ["cli", "main"]
