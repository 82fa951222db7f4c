"""What an agent is told about a deployment: inputs with the engine's own, and how to signal."""

from __future__ import annotations

from datetime import UTC, datetime

from conv_tasks.deployments.metadata import PublishedAction, metadata_entry
from conv_tasks.deployments.records import ConfigInput, ConfigOutput, SoftwareConfig

WHEN = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)


def _action(**values: object) -> PublishedAction:
    config = SoftwareConfig(
        id="cfg",
        group="script",
        config="#!/bin/sh\necho hi",
        options={"o": 1},
        inputs=(ConfigInput("foo", default="dflt", description="a foo"), ConfigInput("bar")),
        outputs=(ConfigOutput("result"), ConfigOutput("err", error_output=True)),
    )
    return PublishedAction(
        id="dep-1",
        stack_id="stack-1",
        resource_name="deploy",
        server="server-1",
        name="deploy",
        config=config,
        input_values=dict(values),
        action="CREATE",
        updated_time=WHEN,
    )


def test_the_entry_has_the_fields_agents_read() -> None:
    entry = metadata_entry(_action(bar="B"), "signal-secret")
    assert entry["id"] == "dep-1"
    assert entry["group"] == "script"
    assert entry["config"].startswith("#!/bin/sh")
    assert entry["options"] == {"o": 1}
    assert entry["action"] == "CREATE"
    assert entry["updated_time"] == WHEN.isoformat()
    assert entry["outputs"] == [
        {"name": "result", "type": "String", "description": "", "error_output": False},
        {"name": "err", "type": "String", "description": "", "error_output": True},
    ]


def test_declared_inputs_take_their_values_or_defaults_then_undeclared_ones() -> None:
    entry = metadata_entry(_action(bar="B", extra=3), "s")
    values = {i["name"]: i["value"] for i in entry["inputs"]}
    assert [i["name"] for i in entry["inputs"]][:3] == ["foo", "bar", "extra"]
    assert values["foo"] == "dflt" and values["bar"] == "B" and values["extra"] == 3
    assert entry["inputs"][0]["description"] == "a foo"


def test_the_engine_adds_its_inputs_and_says_it_is_status_aware() -> None:
    entry = metadata_entry(_action(), "signal-secret")
    values = {i["name"]: i["value"] for i in entry["inputs"]}
    assert values["deploy_server_id"] == "server-1"
    assert values["deploy_action"] == "CREATE"
    assert values["deploy_stack_id"] == "stack-1"
    assert values["deploy_resource_name"] == "deploy"
    assert values["deploy_signal_transport"] == "CONV_TASKS_SIGNAL"
    assert values["deploy_signal_id"] == "dep-1"
    assert values["deploy_signal_credential"] == "signal-secret"
    assert values["deploy_status_aware"] is True
    for item in entry["inputs"]:
        assert set(item) == {"name", "type", "value", "description"}


def test_the_engine_inputs_win_over_template_values_of_the_same_name() -> None:
    entry = metadata_entry(_action(deploy_action="FORGED", deploy_status_aware=False), "s")
    named = [i for i in entry["inputs"] if i["name"] == "deploy_action"]
    assert [i["value"] for i in named] == ["CREATE"]
    aware = [i for i in entry["inputs"] if i["name"] == "deploy_status_aware"]
    assert [i["value"] for i in aware] == [True]
