"""conv_tasks.requests: what each stack request is, declared once.

A request is a frozen dataclass: the stack requests (create, apply, update,
preview, validate, delete, rollback) in stack.py, the stacks overview (a read)
in overview.py. The annotation of each of its fields carries its RequestField
(stack_fields.py): the public task's keyword argument (name, JSON kinds, the
worker's checks, the help users read), how `conv-tasks` takes it, and the Heat
body keys it comes from; its default is the dataclass field's. Every surface is
made from these declarations:

- the engine takes the dataclasses themselves (conv_tasks.engine re-exports them);
- conv_tasks.client.Client's methods of the same names take exactly the dataclass's
  arguments, and send `payload(request)`;
- the public tasks accept `task_fields(request)`, which is also their JSON Schema
  (conv_tasks.tasks.public.request_task);
- `conv-tasks` makes the options of its commands from each field's `cli`
  (conv_tasks.cli.commands.request_options);
- the HTTP edge takes the Heat keys `heat_keys(request)` names (conv_tasks.api.heat_input),
  and tests/requests/test_requests_surfaces.py checks that its mapping gives each of them.

Pure declarations, loaded by the CLI and the client on start-up: this folder imports only
conv_tasks' shared pure modules (errors, limits, statuses, tags, input_text), and must never import
click, Celery, jsonschema, conv_tasks.engine, db, tasks, cli, client or api (every one of
them may import it).
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
