"""OS::Heat::TestResourceOld: a DEPRECATED type whose old property is translated.

It shows seed 004's deprecation path end to end: the type names its
substitute (OS::Heat::TestResource) and its HIDDEN property output_value is
moved to value by a REPLACE rule before validation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from conv_tasks.resources.builtin.test_resource import TestResource
from conv_tasks.sdk import (
    DEPRECATED,
    HIDDEN,
    REPLACE,
    STRING,
    PropertySchema,
    SupportStatus,
    TranslationRule,
)


class TestResourceOld(TestResource):
    """The old name of OS::Heat::TestResource, with its old output_value property."""

    __test__ = False

    type_name: ClassVar[str] = "OS::Heat::TestResourceOld"
    support_status: ClassVar[SupportStatus] = SupportStatus(
        status=DEPRECATED,
        version="5.0.0",
        message="Use OS::Heat::TestResource instead.",
        substitute_class=TestResource,
        previous_status=SupportStatus(version="2014.2"),
    )
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        **(TestResource.properties_schema or {}),
        "output_value": PropertySchema(
            STRING,
            "The old name of value.",
            update_allowed=True,
            support_status=SupportStatus(
                status=HIDDEN,
                version="6.0.0",
                message="Use property value instead.",
                previous_status=SupportStatus(status=DEPRECATED, version="5.0.0"),
            ),
        ),
    }

    def translation_rules(self) -> Sequence[TranslationRule]:
        return (TranslationRule(REPLACE, ("value",), value_path=("output_value",)),)
