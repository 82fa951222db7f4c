"""Environments and files through real workers: create with two, patch, replace, refuse."""

from __future__ import annotations

from typing import Any

import pytest
from integration_support import resource_rows, sandbox_objects, template, test_resource
from sealed_rows import SEALER

from conv_tasks.client import Client
from conv_tasks.db.session import session_scope
from conv_tasks.db.templates import Templates
from conv_tasks.errors import InvalidInput, NotFound

TEMPLATE = template(
    {
        "token": {"type": "My::Token", "properties": {"length": {"get_param": "length"}}},
        "web": test_resource({"get_param": "label"}),
        "extra": test_resource("extra"),
    },
    parameters={
        "length": {"type": "number"},
        "label": {"type": "string", "default": "from-template"},
        "password": {"type": "string", "hidden": True, "default": "template-password-default"},
    },
    outputs={
        "token": {"value": {"get_attr": ["token", "value"]}},
        # OS::Heat::None gives any attribute, as None: disabling a resource breaks no reader
        "extra": {"value": {"get_attr": ["extra", "output"]}},
    },
)
DEFAULTS = {
    "parameter_defaults": {"length": 6, "label": "from-defaults", "used_elsewhere": 1},
    "resource_registry": {"My::Token": "OS::Heat::RandomString"},
}
OVERRIDES = """
parameters:
  label: from-env
  password: env-password-value
resource_registry:
  resources:
    extra:
      OS::Heat::TestResource: OS::Heat::None
"""


def _live(stack_id: str) -> dict[str, Any]:
    return {r.name: r for r in resource_rows(stack_id) if r.replaced_by is None}


def _values(stack_id: str) -> set[Any]:
    return {o.properties.get("value") for o in sandbox_objects(stack_id)}


def _stored(client: Client, stack: str) -> tuple[dict[str, Any], dict[str, Any]]:
    template_id = client.get(stack)["template_id"]
    with session_scope() as session:
        row = Templates(session, SEALER).get(template_id)
        return dict(row.environment), dict(row.files)


def test_two_environments_then_a_patch_then_a_replacement(client: Client) -> None:
    created = client.create(
        "envs", TEMPLATE, environment=[DEFAULTS, OVERRIDES], files={"motd.txt": "hello"}
    )
    stack_id = created["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    types = {r["name"]: r["type"] for r in client.resources("envs")}
    # The implementing type: what the engine ran, and what cleans it up later.
    assert types == {
        "token": "OS::Heat::RandomString",
        "web": "OS::Heat::TestResource",
        "extra": "OS::Heat::None",
    }
    assert _values(stack_id) == {"from-env"}  # the disabled resource made nothing
    assert len(client.outputs("envs")["token"]["value"]) == 6  # from parameter_defaults
    assert client.outputs("envs")["extra"]["value"] is None
    environment, files = _stored(client, "envs")
    assert files == {"motd.txt": "hello"}
    assert environment["parameters"] == {"label": "from-env", "password": "env-password-value"}
    assert environment["resource_registry"]["My::Token"] == "OS::Heat::RandomString"
    shown = client.get("envs")
    assert shown["parameters"]["label"] == "from-env"
    assert shown["parameters"]["password"] != "env-password-value"
    assert "env-password-value" not in str(client.call("conv_tasks.stack.template", stack="envs"))
    assert client.environment("envs")["parameters"] == {"label": "from-env", "password": "******"}

    # No new template: the stored environment and files stay, patched with the one given.
    client.update("envs", environment=[{"parameters": {"label": "patched"}}])
    assert client.wait(stack_id, timeout=60)["status"] == "UPDATE_COMPLETE"
    assert _values(stack_id) == {"patched"}
    assert _live(stack_id)["extra"].type == "OS::Heat::None"
    environment, files = _stored(client, "envs")
    assert environment["parameters"]["label"] == "patched"
    assert files == {"motd.txt": "hello"}

    # A new template without --existing: the environment given replaces the stack's.
    token_before = client.outputs("envs")["token"]["value"]
    longer = {**DEFAULTS, "parameter_defaults": {"length": 10}}
    client.update("envs", TEMPLATE, {"label": "explicit"}, environment=[longer])
    final = client.wait(stack_id, timeout=60)
    assert final["status"] == "UPDATE_COMPLETE", final
    token_after = client.outputs("envs")["token"]["value"]
    assert len(token_after) == 10 and token_after != token_before
    live = _live(stack_id)
    assert live["extra"].type == "OS::Heat::TestResource"  # no longer disabled: replaced
    assert _values(stack_id) == {"explicit", "extra"}
    assert client.outputs("envs")["extra"]["value"] == "extra"
    environment, files = _stored(client, "envs")
    assert "parameters" not in environment and files == {}


def test_a_bad_environment_is_refused_by_path_and_changes_nothing(client: Client) -> None:
    with pytest.raises(InvalidInput) as exc:
        client.create(
            "refused",
            TEMPLATE,
            environment=[DEFAULTS, {"parameters": {"lenght": 3}}, {"resource_registry": 3}],
        )
    paths = {p.path for p in exc.value.problems}
    assert paths == {"environment.2.resource_registry"}
    with pytest.raises(InvalidInput) as exc:
        client.create("refused", TEMPLATE, environment=[DEFAULTS, {"parameters": {"lenght": 3}}])
    assert [p.path for p in exc.value.problems] == ["environment.parameters.lenght"]
    with pytest.raises(InvalidInput) as exc:
        client.create(
            "refused",
            TEMPLATE,
            environment=[DEFAULTS, {"resource_registry": {"My::Token": "token.yaml"}}],
            files={"token.yaml": "heat_template_version: 2018-08-31\nresources: 3\n"},
        )
    assert [p.path for p in exc.value.problems] == ["resources.token.type"]
    assert "token.yaml" in str(exc.value) and "does not load" in str(exc.value)
    with pytest.raises(NotFound):
        client.get("refused")


def test_validate_and_preview_use_the_mapped_types(client: Client) -> None:
    result = client.validate(TEMPLATE, environment=[DEFAULTS, OVERRIDES])
    assert result["valid"], result
    assert result["types"]["token"] == "OS::Heat::RandomString"
    assert result["types"]["extra"] == "OS::Heat::None"
    unmapped = client.validate(TEMPLATE)
    assert not unmapped["valid"]
    assert [e["path"] for e in unmapped["errors"]] == ["resources.token.type"]
    preview = client.preview("not-yet", TEMPLATE, environment=[DEFAULTS, OVERRIDES])
    assert {r["name"]: r["type"] for r in preview["resources"]}["extra"] == "OS::Heat::None"


def test_a_failed_update_rolls_back_to_the_old_environment(client: Client) -> None:
    source = template(
        {
            "token": {"type": "My::Token", "properties": {"length": 5}},
            "gate": test_resource("gate", fail={"get_param": "broken"}),
        },
        parameters={"broken": {"type": "boolean", "default": False}},
    )
    before = {"resource_registry": {"My::Token": "OS::Heat::RandomString"}}
    stack_id = client.create("rolls", source, environment=[before])["stack_id"]
    assert client.wait(stack_id, timeout=60)["status"] == "CREATE_COMPLETE"
    after = {
        "parameters": {"broken": True},
        "resource_registry": {"My::Token": "OS::Heat::None"},
    }
    client.update("rolls", source, environment=[after])
    final = client.wait(stack_id, timeout=90)
    assert final["status"] == "ROLLBACK_COMPLETE", final
    # The template rolled back to is built with the environment stored beside it.
    assert _live(stack_id)["token"].type == "OS::Heat::RandomString"
    environment, _ = _stored(client, "rolls")
    assert environment == before
