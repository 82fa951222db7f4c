"""conv_tasks.requests: what each request users send is, declared once.

A request is a frozen dataclass: the stack requests (create, apply, update, preview,
validate, delete, rollback) in stack.py, the stacks overview (a read) in overview.py.
The annotation of each field carries its RequestField (stack_fields.py): the public
task's keyword argument (name, JSON kinds, the worker's checks, the help users read),
how `conv-tasks` takes it, and the Heat body keys it comes from; its default is the
dataclass field's. Every surface is made from these declarations:

- the public task accepts `task_fields(request)`, which is also its JSON Schema
  (conv_tasks.tasks.public.request_task), and hands the engine the request: create and
  apply take it as it is (conv_tasks.engine re-exports those two), the others its fields;
- conv_tasks.client.Client's method of the task's name takes exactly the dataclass's
  arguments and sends `payload(request)` (conv_tasks.client.sending.sends);
- `conv-tasks` makes a command's options from each field's `cli`
  (conv_tasks.cli.commands.request_options);
- the HTTP edge takes the Heat keys `heat_keys(request)` names (conv_tasks.api.heat_input).

tests/requests/test_requests_surfaces.py fails when a surface gains or loses a field.

Pure declarations, loaded by the CLI and the client on start-up: this folder imports
only conv_tasks' shared pure modules (errors, limits, statuses, tags, input_text), and
must never import click, Celery, jsonschema, conv_tasks.engine, db, tasks, cli, client or
api (every one of them may import it).
"""

from conv_tasks.requests.declared import (
    Declared,
    Request,
    declared_fields,
    field_names,
    heat_keys,
    payload,
    task_fields,
)
from conv_tasks.requests.fields import CliInput, CliOption, Field, Limit, RequestField, Surface
from conv_tasks.requests.overview import OverviewRequest
from conv_tasks.requests.stack import (
    ApplyRequest,
    DeleteRequest,
    EnvironmentSources,
    NewStackRequest,
    PreviewRequest,
    RollbackRequest,
    Template,
    UpdateRequest,
    ValidateRequest,
)
from conv_tasks.requests.stack_fields import TAG_LIST_SCHEMA

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.errors",
    "conv_tasks.input_text",
    "conv_tasks.limits",
    "conv_tasks.statuses",
    "conv_tasks.tags",
)
MUST_NOT_IMPORT = (
    "celery",
    "click",
    "conv_tasks.api",
    "conv_tasks.cli",
    "conv_tasks.client",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.tasks",
    "jsonschema",
    "sqlalchemy",
)

# Every request declared here.
REQUESTS: tuple[type, ...] = (
    NewStackRequest,
    ApplyRequest,
    UpdateRequest,
    PreviewRequest,
    ValidateRequest,
    DeleteRequest,
    RollbackRequest,
    OverviewRequest,
)

__all__ = [
    "REQUESTS",
    "TAG_LIST_SCHEMA",
    "ApplyRequest",
    "CliInput",
    "CliOption",
    "Declared",
    "DeleteRequest",
    "EnvironmentSources",
    "Field",
    "Limit",
    "NewStackRequest",
    "OverviewRequest",
    "PreviewRequest",
    "Request",
    "RequestField",
    "RollbackRequest",
    "Surface",
    "Template",
    "UpdateRequest",
    "ValidateRequest",
    "declared_fields",
    "field_names",
    "heat_keys",
    "payload",
    "task_fields",
]
