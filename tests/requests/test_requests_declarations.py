"""Reading a request's declaration: what the task takes, what the Client sends, and the CLI's
options, each from the dataclass field and its RequestField alone."""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass, field
from typing import Annotated, ClassVar

import click
from click.testing import CliRunner

from conv_tasks.cli.commands.request_options import read_request, request_options
from conv_tasks.requests import (
    CliInput,
    CliOption,
    Field,
    NewStackRequest,
    PreviewRequest,
    RequestField,
    Surface,
    UpdateRequest,
    field_names,
    heat_keys,
    payload,
    task_fields,
)

COUNT = RequestField(Field("count", (int,), description="How many."), cli=CliOption(("--count",)))
LABELS = RequestField(Field("labels", (list,), description="Labels."), heat=("labels",))
NAME = RequestField(Field("name", (str,), description="A name."), cli=CliInput.ARGUMENT)


@dataclass(frozen=True)
class Example:
    TASK: ClassVar[str] = "conv_tasks.example"

    name: Annotated[str, NAME]
    _: KW_ONLY
    count: Annotated[int, COUNT] = 3
    labels: Annotated[list[str], LABELS] = field(default_factory=list)


def test_the_task_field_is_required_and_defaulted_as_the_dataclass_field() -> None:
    name, count, labels = task_fields(Example)
    assert (name.name, name.required, name.default) == ("name", True, None)
    assert (count.required, count.default, count.description) == (False, 3, "How many.")
    assert (labels.required, labels.default) == (False, [])
    update = {spec.name: spec for spec in task_fields(UpdateRequest)}
    assert update["template"].required is False and update["tags"].default is None


def test_each_field_says_which_surfaces_carry_it() -> None:
    assert COUNT.surfaces == {Surface.CLIENT, Surface.TASK, Surface.CLI}
    assert LABELS.surfaces == {Surface.CLIENT, Surface.TASK, Surface.HEAT}
    assert heat_keys(Example) == {"labels"}
    assert "environment_files" in heat_keys(NewStackRequest)
    assert "idempotency_key" in field_names(NewStackRequest)
    assert not {"idempotency_key", "stack"} & (
        heat_keys(NewStackRequest) | heat_keys(UpdateRequest)
    )


def test_the_payload_leaves_out_none_and_defaults_and_is_plain_json() -> None:
    assert payload(Example("a")) == {"name": "a"}
    assert payload(Example("a", count=4, labels=("x",))) == {  # type: ignore[arg-type]
        "name": "a",
        "count": 4,
        "labels": ["x"],
    }
    sent = payload(NewStackRequest("web", "x: 1", environment=(), tags=("a",), files={}))
    assert sent == {"name": "web", "template": "x: 1", "tags": ["a"]}
    # An update's tags: None keeps them (left out), [] clears them (sent).
    assert "tags" not in payload(UpdateRequest("web"))
    assert payload(UpdateRequest("web", tags=[]))["tags"] == []


def test_the_cli_takes_the_declared_options_by_the_fields_names() -> None:
    got: list[Example] = []

    @click.command()
    @click.argument("name")
    @request_options(Example)
    def command(name: str, **given: object) -> None:
        got.append(read_request(Example, name, given))

    assert CliRunner().invoke(command, ["web", "--count", "7"]).exit_code == 0
    assert CliRunner().invoke(command, ["web"]).exit_code == 0
    assert got == [Example("web", count=7), Example("web")]
    shown = CliRunner().invoke(command, ["--help"]).output
    assert "--count INTEGER  How many." in shown and "labels" not in shown


def test_the_template_option_is_required_as_the_command_says() -> None:
    def required(request: type, **options: bool | None) -> bool:
        command = request_options(request, **options)(click.command()(lambda **_: None))
        [template] = [p for p in command.params if p.name == "template_file"]
        return template.required

    assert required(NewStackRequest) and not required(UpdateRequest)
    assert required(PreviewRequest, template_required=True) and not required(PreviewRequest)
