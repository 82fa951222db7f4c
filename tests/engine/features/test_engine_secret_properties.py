"""Secret properties (ResourceType.secret_properties): a credential a template hands a resource
is masked in `resource show`, `template show`, `stack preview`, events and failure reasons,
whether it is written out, given by a parameter, or computed from another resource."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest
from standins import RecordingDispatcher, template

from conv_tasks.engine import ChangeRequest, NewStackRequest, TenantStacks
from conv_tasks.engine.definition import MASK, StackDefinition
from conv_tasks.engine.read import list_events, preview_stack, show_resource, show_template
from conv_tasks.errors import InvalidInput, ResourceFailure
from conv_tasks.resources import ActionContext, Progress, Registry, ResourceType, default_registry
from conv_tasks.resources.builtin import TestResource
from conv_tasks.sdk import BOOLEAN, STRING, PropertySchema

LITERAL = "literal-pw-0001"
PARAMETER = "param-pw-0002"


class Credential(TestResource):
    """A TestResource with a password that a careless service echoes when it fails."""

    __test__ = False
    type_name: ClassVar[str] = "Test::Credential"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        **(TestResource.properties_schema or {}),
        "password": PropertySchema(STRING, "A password.", update_allowed=True),
        "echo": PropertySchema(BOOLEAN, "Fail, echoing the password.", update_allowed=True),
    }
    secret_properties: ClassVar[frozenset[str]] = frozenset({"password"})

    def _step(self, ctx: ActionContext, action: str) -> Progress:
        if ctx.properties.get("echo"):
            raise ResourceFailure(f"the service refused password {ctx.properties['password']}")
        return super()._step(ctx, action)


def _registry() -> Registry:
    return default_registry().with_types({Credential.type_name: Credential})


@pytest.fixture
def secret_stacks() -> tuple[TenantStacks, RecordingDispatcher]:
    from standins import standin_env

    env = standin_env(registry=_registry())
    assert isinstance(env.dispatcher, RecordingDispatcher)
    return TenantStacks(env, "tenant-a"), env.dispatcher


def _doc(echo: bool = False, literal: str = LITERAL) -> dict[str, Any]:
    doc = template(
        {
            "rnd": {"type": "OS::Heat::RandomString", "properties": {"length": 24}},
            "lit": {"type": Credential.type_name, "properties": {"password": literal}},
            "par": {
                "type": Credential.type_name,
                "properties": {"password": {"get_param": "pw"}},
            },
            "run": {
                "type": Credential.type_name,
                "properties": {"password": {"get_attr": ["rnd", "value"]}, "echo": echo},
            },
        }
    )
    doc["parameters"] = {"pw": {"type": "string"}}  # not hidden: the type's secret hides it
    return doc


def test_a_type_must_name_its_own_properties_as_secret() -> None:
    class Typo(ResourceType):
        type_name = "Test::Typo"
        properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
            "password": PropertySchema(STRING)
        }
        secret_properties: ClassVar[frozenset[str]] = frozenset({"pasword"})

    with pytest.raises(InvalidInput) as refused:
        Registry().register(Typo)
    assert "secret_properties" in str(refused.value) and "pasword" in str(refused.value)


def test_values_known_at_load_are_masked_by_the_stack_redactor() -> None:
    definition = StackDefinition.build(_doc(), {"pw": PARAMETER}, _registry())
    assert definition.secret_properties == {
        "lit": frozenset({"password"}),
        "par": frozenset({"password"}),
        "run": frozenset({"password"}),
    }
    said = definition.redact(f"a {LITERAL} b {PARAMETER}")
    assert said == f"a {MASK} b {MASK}"


def test_secrets_are_masked_in_show_template_preview_and_failures(
    secret_stacks: tuple[TenantStacks, RecordingDispatcher],
) -> None:
    stacks, dispatcher = secret_stacks
    env = stacks.env
    created = stacks.create(NewStackRequest("s", _doc(), {"pw": PARAMETER}))
    dispatcher.drain(env)
    generated = show_resource(env, "tenant-a", "s", "rnd")["attributes"]["value"]
    for name in ("lit", "par", "run"):
        shown = show_resource(env, "tenant-a", "s", name)
        assert shown["status"] == "CREATE_COMPLETE", shown
        assert shown["properties"]["password"] == MASK, shown
    shown_template = json.dumps(show_template(env, "tenant-a", "s"))
    assert LITERAL not in shown_template and MASK in shown_template

    change = _doc(echo=True, literal="literal-pw-0003")
    preview = preview_stack(
        env, tenant="tenant-a", stack_ref="s", template=change, parameters={"pw": PARAMETER}
    )
    by_name = {entry["name"]: entry for entry in preview["resources"]}
    assert by_name["lit"]["changes"]["password"] == {"hidden": True}  # neither value shown
    assert "literal-pw-0003" not in json.dumps(preview) and LITERAL not in json.dumps(preview)

    stacks.update(created.stack_id, ChangeRequest(change, {"pw": PARAMETER}), disable_rollback=True)
    dispatcher.drain(env)
    failed = show_resource(env, "tenant-a", "s", "run")
    assert failed["status"] == "UPDATE_FAILED", failed
    assert f"refused password {MASK}" in failed["status_reason"], failed
    everything = json.dumps(
        [list_events(env, "tenant-a", "s"), failed, show_resource(env, "tenant-a", "s", "lit")]
    )
    for secret in (generated, LITERAL, "literal-pw-0003", PARAMETER):
        assert secret not in everything
