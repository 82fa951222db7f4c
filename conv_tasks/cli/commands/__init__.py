"""The `conv-tasks` commands, one module per noun: stack, resource, resource-type, template,
output, deployment, wait-condition, api, db, and the worker and beat processes.

A command reads its arguments, asks the engine through conv_tasks.client (or,
for the commands that need no engine, runs the pure code in its own process),
and hands the answer to conv_tasks.cli.render. It must never decide what the
engine decides, speak to the database or Redis itself, or read os.environ
(click reads an option's environment variable). The entry group
(conv_tasks.cli.main) adds the groups exported here.
"""

from conv_tasks.cli.commands.api import api
from conv_tasks.cli.commands.db import db
from conv_tasks.cli.commands.deployment import deployment
from conv_tasks.cli.commands.output import output
from conv_tasks.cli.commands.processes import beat, worker
from conv_tasks.cli.commands.resource import resource
from conv_tasks.cli.commands.resource_type import resource_type
from conv_tasks.cli.commands.stack import stack
from conv_tasks.cli.commands.template import template
from conv_tasks.cli.commands.wait_condition import wait_condition

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.cli.context",
    "conv_tasks.cli.failures",
    "conv_tasks.cli.render",
    "conv_tasks.client",
    "conv_tasks.constraints",
    "conv_tasks.db",
    "conv_tasks.durations",
    "conv_tasks.edge",
    "conv_tasks.engine",
    "conv_tasks.errors",
    "conv_tasks.limits",
    "conv_tasks.local_files",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.secrets_at_rest",
    "conv_tasks.server",
    "conv_tasks.settings",
    "conv_tasks.tags",
    "conv_tasks.tasks",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.cli.demo",
    "conv_tasks.cli.main",
    "conv_tasks.syncpoint",
    "conv_tasks.ui",
)

__all__ = [
    "api",
    "beat",
    "db",
    "deployment",
    "output",
    "resource",
    "resource_type",
    "stack",
    "template",
    "wait_condition",
    "worker",
]
