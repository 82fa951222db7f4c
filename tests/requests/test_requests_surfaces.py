"""Each surface of a request carries exactly the fields its declaration (conv_tasks.requests)
says: the public task (and so its JSON Schema), the Client's method, the CLI's command, the
HTTP edge's Heat mapping, and the task API's page. A field one surface gains or loses
alone fails here, named.

Pure: the Client and the CLI run against a stand-in that records what they would send.
"""

from __future__ import annotations

import dataclasses
import inspect
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click
import pytest
from celery import Celery
from click.testing import CliRunner

from conv_tasks.api.heat_input import (
    create_request,
    preview_request,
    update_request,
    validate_request,
)
from conv_tasks.cli.commands.stack_operations import (
    stack_apply,
    stack_create,
    stack_delete,
    stack_preview,
    stack_rollback,
    stack_update,
)
from conv_tasks.cli.commands.template import template_validate
from conv_tasks.cli.context import Context
from conv_tasks.client import Client
from conv_tasks.requests import (
    REQUESTS,
    ApplyRequest,
    CliInput,
    CliOption,
    Declared,
    DeleteRequest,
    NewStackRequest,
    OverviewRequest,
    PreviewRequest,
    RollbackRequest,
    Surface,
    UpdateRequest,
    ValidateRequest,
    declared_fields,
    task_fields,
)
from conv_tasks.tasks.contracts import public_tasks

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {}}


def _ids(requests: Any) -> list[str]:
    return [request.__name__ for request in requests]


def _carried_by(request: type, surface: Surface) -> list[str]:
    return [d.name for d in declared_fields(request) if surface in d.spec.surfaces]


# ----------------------------------------------------------------------- the public task
@pytest.mark.parametrize("request_class", REQUESTS, ids=_ids(REQUESTS))
def test_the_task_takes_the_tenant_and_exactly_the_declared_fields(request_class: type) -> None:
    registered = public_tasks()[request_class.TASK]  # type: ignore[attr-defined]
    assert [spec.name for spec in registered] == [
        "tenant",
        *_carried_by(request_class, Surface.TASK),
    ]
    # The same kinds, checks, bounds, defaults and help: the schema printed is made of these.
    assert registered[1:] == task_fields(request_class)


# ------------------------------------------------------------------------------ the Client
def _sample(field: Declared) -> Any:
    """A value of the field that is not its default."""
    kind = field.spec.wire.kinds[0]
    if field.name == "template":
        return TEMPLATE
    if field.name == "marker":
        return "0b6f4cbe-4a56-4c8e-9d2a-3f1e8a7b5c60"
    if field.name == "status":
        return ["FAILED"]
    if kind is bool:
        return not field.default
    if kind is int:
        return (field.spec.wire.low or 0) + 2
    if kind is str:
        return f"{field.name}-1"
    if kind is dict:
        return {"a.yaml": "x"} if field.name == "files" else {"size": 2}
    return ["parameters: {}"] if field.name == "environment" else ["one", "two"]


class RecordingClient(Client):
    """A Client that records what it would send instead of sending it."""

    def __init__(self) -> None:
        super().__init__(Celery("recording"), tenant="acme")
        self.sent: list[tuple[str, dict[str, Any]]] = []

    def _send(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.sent.append((task, payload))
        return {"ok": True}


def _client_method(request: type) -> Callable[..., dict[str, Any]]:
    client = RecordingClient()
    return getattr(client, request.TASK.rsplit(".", 1)[-1])  # type: ignore[attr-defined, no-any-return]


@pytest.mark.parametrize("request_class", REQUESTS, ids=_ids(REQUESTS))
def test_the_client_method_takes_exactly_the_declared_fields(request_class: type) -> None:
    parameters = list(inspect.signature(_client_method(request_class)).parameters.values())
    expected = [
        (d.name, inspect.Parameter.empty if d.required else d.default)
        for d in declared_fields(request_class)
    ]
    assert [(p.name, p.default) for p in parameters] == expected


@pytest.mark.parametrize("request_class", REQUESTS, ids=_ids(REQUESTS))
def test_the_client_sends_every_field_it_is_given(request_class: type) -> None:
    method = _client_method(request_class)
    given = {d.name: _sample(d) for d in declared_fields(request_class)}
    method(**given)
    [(task, payload)] = method.__self__.sent  # type: ignore[attr-defined]
    assert task == request_class.TASK  # type: ignore[attr-defined]
    assert payload == {"tenant": "acme", **given}


def test_the_client_leaves_out_what_it_is_not_given_and_keys_a_create() -> None:
    client = RecordingClient()
    client.create("web", TEMPLATE)
    client.update("web", parameters={"size": 3})
    (_, created), (_, updated) = client.sent
    assert set(created) == {"tenant", "name", "template", "idempotency_key"}
    assert updated == {"tenant": "acme", "stack": "web", "parameters": {"size": 3}}


# ----------------------------------------------------------------------------- the CLI
CLI_COMMANDS: dict[type, click.Command] = {
    NewStackRequest: stack_create,
    ApplyRequest: stack_apply,
    UpdateRequest: stack_update,
    PreviewRequest: stack_preview,
    DeleteRequest: stack_delete,
    RollbackRequest: stack_rollback,
    ValidateRequest: template_validate,
}
# What a command's parameters that are not a field's own option feed.
FEEDS = {
    "name": CliInput.ARGUMENT,
    "path": CliInput.FILES,  # `template validate PATH`
    "template_file": CliInput.FILES,
    "environment_files": CliInput.FILES,
    "parameters": CliInput.PARAMETERS,
    "parameters_json": CliInput.PARAMETERS,
}
# The options that are the command's own, not the request's.
COMMAND_ONLY = {"wait", "wait_timeout", "dry_run", "yes", "local_json"}


def test_every_request_with_cli_fields_has_its_command() -> None:
    with_cli = {request for request in REQUESTS if _carried_by(request, Surface.CLI)}
    assert with_cli == set(CLI_COMMANDS)
    assert OverviewRequest not in with_cli  # the web view's and the Client's only


@pytest.mark.parametrize("request_class", list(CLI_COMMANDS), ids=_ids(CLI_COMMANDS))
def test_the_command_takes_exactly_the_fields_the_cli_carries(request_class: type) -> None:
    names = {param.name for param in CLI_COMMANDS[request_class].params if param.name}
    unknown = names - set(FEEDS) - COMMAND_ONLY - {d.name for d in declared_fields(request_class)}
    assert not unknown, f"options no field of {request_class.__name__} declares: {unknown}"
    inputs = {FEEDS[name] for name in names & set(FEEDS)}
    carried = {
        d.name
        for d in declared_fields(request_class)
        if d.spec.cli in inputs or (isinstance(d.spec.cli, CliOption) and d.name in names)
    }
    assert carried == set(_carried_by(request_class, Surface.CLI))


class RecordingContext(Context):
    """What a command gets: a client that records the request it is sent."""

    def __init__(self) -> None:
        super().__init__("acme", as_json=True, timeout=5.0)
        self.sent: list[Any] = []

    def client(self) -> Any:
        context = self

        class Sent:
            def send(self, request: Any) -> dict[str, Any]:
                context.sent.append(request)
                return {"stack_id": "id-1", "name": "web", "status": "IN_PROGRESS"}

        return Sent()


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "data.txt").write_text("some data\n")
    template = tmp_path / "web.yaml"
    template.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n  r:\n    type: OS::Heat::TestResource\n"
        "    properties:\n      value: {get_file: data.txt}\n"
    )
    environment = tmp_path / "env.yaml"
    environment.write_text("parameters: {size: 2}\n")
    return {"template": str(template), "environment": str(environment)}


# Every option of each command, given a value that is not its field's default.
def _argv(request_class: type, files: dict[str, str]) -> list[str]:
    argv = ["web"]
    for field in declared_fields(request_class):
        cli = field.spec.cli
        if cli is CliInput.FILES and field.name == "template":
            argv += ["-t", files["template"], "-e", files["environment"]]
        elif cli is CliInput.PARAMETERS:
            argv += ["-P", "size=3", "--parameters-json", '{"flavor": "m1"}']
        elif isinstance(cli, CliOption):
            flag = cli.flags[0].split("/")[0]
            kind = field.spec.wire.kinds[0]
            argv += [flag] if kind is bool else [flag, "5" if kind is int else "a-1,b-2"]
    return argv + (["--yes"] if request_class is DeleteRequest else [])


SENT_BY_CLI = [r for r in CLI_COMMANDS if r is not ValidateRequest]  # validate runs in process


@pytest.mark.parametrize("request_class", SENT_BY_CLI, ids=_ids(SENT_BY_CLI))
def test_each_option_given_reaches_its_field(request_class: type, files: dict[str, str]) -> None:
    context = RecordingContext()
    done = CliRunner().invoke(CLI_COMMANDS[request_class], _argv(request_class, files), obj=context)
    assert done.exit_code == 0, done.output
    [request] = context.sent
    assert type(request) is request_class
    given = {
        d.name for d in declared_fields(request_class) if getattr(request, d.name) != d.default
    }
    assert given == set(_carried_by(request_class, Surface.CLI))


def test_the_options_read_the_files_and_parse_the_values(files: dict[str, str]) -> None:
    context = RecordingContext()
    argv = _argv(NewStackRequest, files)
    assert CliRunner().invoke(stack_create, argv, obj=context).exit_code == 0
    [request] = context.sent
    assert request.template == Path(files["template"]).read_text()
    assert list(request.environment) == ["parameters: {size: 2}\n"]
    assert dict(request.files) == {"data.txt": "some data\n"}
    assert request.parameters == {"flavor": "m1", "size": "3"}
    assert (request.disable_rollback, request.timeout_mins) == (True, 5)
    assert (request.idempotency_key, list(request.tags)) == ("a-1,b-2", ["a-1", "b-2"])


# ------------------------------------------------------------------------- the HTTP edge
HEAT: dict[type, Callable[[dict[str, Any]], dict[str, Any]]] = {
    NewStackRequest: lambda body: create_request(body).kwargs,
    UpdateRequest: lambda body: update_request(body, patch=False).kwargs,
    PreviewRequest: lambda body: preview_request(body, patch=False).kwargs,
    ValidateRequest: validate_request,
}
HEAT_VALUES: dict[str, Any] = {
    "stack_name": "web",
    "template": TEMPLATE,
    "parameters": {"size": 2},
    "files": {"env.yaml": "parameters: {}"},
    "environment": {"parameters": {}},
    "environment_files": ["env.yaml"],
    "disable_rollback": True,
    "timeout_mins": 5,
    "tags": "a,b",
    "existing": True,
}


@pytest.mark.parametrize("request_class", list(HEAT), ids=_ids(HEAT))
def test_the_heat_mapping_gives_exactly_the_fields_heat_carries(request_class: type) -> None:
    keys = {key for d in declared_fields(request_class) for key in d.spec.heat}
    kwargs = HEAT[request_class]({key: HEAT_VALUES.get(key, "text") for key in keys})
    assert set(kwargs) == set(_carried_by(request_class, Surface.HEAT))


# ---------------------------------------------------------------------- the task API page
def _row(task: str) -> str:
    page = (ROOT / "docs" / "task-api.md").read_text()
    [row] = [line for line in page.splitlines() if line.startswith(f"| `{task}` |")]
    return row


@pytest.mark.parametrize("request_class", REQUESTS, ids=_ids(REQUESTS))
def test_the_task_api_page_names_every_field(request_class: type) -> None:
    row = _row(request_class.TASK)  # type: ignore[attr-defined]
    named = set(re.findall(r"`([a-z_]+)`", row))
    missing = {d.name for d in declared_fields(request_class)} - named
    assert not missing, f"docs/task-api.md's {request_class.TASK} row lacks {missing}"  # type: ignore[attr-defined]


def test_a_request_field_without_its_declaration_is_refused_at_import() -> None:
    @dataclasses.dataclass(frozen=True)
    class Undeclared:
        TASK = "conv_tasks.example"
        stack: str

    with pytest.raises(TypeError, match=r"Undeclared\.stack must be annotated"):
        declared_fields(Undeclared)
