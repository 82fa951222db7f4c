"""Deprecation warnings: the type and every non-SUPPORTED property used, as sentences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from conv_tasks.resources import ResourceType, deprecation_warnings
from conv_tasks.resources.builtin import DummyResource, TestResource, TestResourceOld
from conv_tasks.sdk import DEPRECATED, LIST, MAP, STRING, UNSUPPORTED, PropertySchema, SupportStatus

OLD_PROP = SupportStatus(
    status=DEPRECATED, version="6.0.0", message="Use property network.", previous_status=None
)


class Port(ResourceType):
    type_name: ClassVar[str] = "Test::Port"
    support_status: ClassVar[SupportStatus] = SupportStatus(status=UNSUPPORTED, version="1.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "network": PropertySchema(STRING),
        "network_id": PropertySchema(STRING, support_status=OLD_PROP),
        "fixed_ips": PropertySchema(
            LIST,
            schema={
                "subnet": PropertySchema(STRING),
                "subnet_id": PropertySchema(
                    STRING, support_status=SupportStatus(status=DEPRECATED, version="5.0.0")
                ),
            },
        ),
        "binding": PropertySchema(
            MAP, schema={"profile": PropertySchema(STRING, support_status=OLD_PROP)}
        ),
    }


def test_deprecated_type_with_message() -> None:
    assert deprecation_warnings(TestResourceOld, {}, path="resources.old") == [
        "resources.old: resource type OS::Heat::TestResourceOld is DEPRECATED since 5.0.0: "
        "Use OS::Heat::TestResource instead."
    ]


def test_hidden_type_and_hidden_property_used() -> None:
    assert deprecation_warnings(DummyResource, {"x": 1}, path="resources.d") == [
        "resources.d: resource type OS::Heat::Dummy is HIDDEN since 6.0.0: "
        "Use OS::Heat::None instead."
    ]
    assert deprecation_warnings(TestResourceOld, {"output_value": "v"}, path="resources.o")[1] == (
        "resources.o.properties.output_value: property output_value is HIDDEN since 6.0.0: "
        "Use property value instead."
    )


def test_supported_type_and_properties_give_no_warning() -> None:
    assert (
        deprecation_warnings(TestResource, {"value": "x", "fail": True}, path="resources.t") == []
    )


def test_only_used_properties_warn_and_nested_ones_have_paths() -> None:
    values = {
        "network": "n",
        "network_id": "n-1",
        "fixed_ips": [{"subnet": "a"}, {"subnet_id": "b"}],
        "binding": {"profile": "p"},
    }
    assert deprecation_warnings(Port, values, path="resources.p") == [
        "resources.p: resource type Test::Port is UNSUPPORTED since 1.0.",
        "resources.p.properties.network_id: property network_id is DEPRECATED since 6.0.0: "
        "Use property network.",
        "resources.p.properties.fixed_ips[1].subnet_id: property subnet_id is DEPRECATED "
        "since 5.0.0.",
        "resources.p.properties.binding.profile: property profile is DEPRECATED since 6.0.0: "
        "Use property network.",
    ]
    assert deprecation_warnings(Port, {"network_id": None}, path="resources.p") == [
        "resources.p: resource type Test::Port is UNSUPPORTED since 1.0."
    ]
