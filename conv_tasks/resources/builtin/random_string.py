"""OS::Heat::RandomString: a random string made once, at create, and kept.

The value is drawn with `secrets` and stored in the plugin's data, so every
later read (attributes, get_resource) returns the same string. Any property
change makes a new resource, hence a new string.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.plugin import ActionContext, Progress, ResourceType, token_physical_id
from conv_tasks.resources.schema import (
    INTEGER,
    STRING,
    AttributeSchema,
    Constraint,
    PropertySchema,
)
from conv_tasks.resources.support import SupportStatus

SEQUENCES = {
    "lettersdigits": string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "abcdef",
    "octdigits": string.octdigits,
}


class RandomStringResource(ResourceType):
    """A random string, for passwords and unique names."""

    type_name: ClassVar[str] = "OS::Heat::RandomString"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "length": PropertySchema(
            INTEGER, "How many characters.", default=32, constraints=(Constraint.range(1, 512),)
        ),
        "sequence": PropertySchema(
            STRING,
            "Which characters to draw from.",
            default="lettersdigits",
            constraints=(Constraint.allowed_values(*SEQUENCES),),
        ),
        "salt": PropertySchema(
            STRING, "Change it to get a new string; it is not part of the value."
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "value": AttributeSchema("The random string.", type=STRING)
    }

    def create(self, ctx: ActionContext) -> Progress:
        value = ctx.data.get("value")
        if not isinstance(value, str):
            alphabet = SEQUENCES[ctx.properties.get("sequence") or "lettersdigits"]
            length = int(ctx.properties.get("length") or 32)
            value = "".join(secrets.choice(alphabet) for _ in range(length))
        return Progress(
            done=True, physical_id=token_physical_id(ctx.idempotency_token), data={"value": value}
        )

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"value": ctx.data.get("value")}

    def reference(self, ctx: ActionContext) -> str | None:
        value = ctx.data.get("value")
        return value if isinstance(value, str) else None
