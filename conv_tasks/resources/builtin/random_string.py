"""OS::Heat::RandomString: a random string made once, at create, and kept.

The value is drawn with `secrets` and stored in the plugin's data, so every
later read (attributes, get_resource) returns the same string. Any property
change makes a new resource, hence a new string.

What it is drawn from is Heat's: `character_classes` (named classes, each with
the least number of its characters the string holds) and `character_sequences`
(any characters, the same way); the rest of the string comes from all of them
together, and the whole is shuffled. Without either, one class: lettersdigits.
The old `sequence` property (deprecated in 2014.2, HIDDEN since 5.0.0, as in Heat) is
still read: it is translated into one more class, as Heat does.
"""

from __future__ import annotations

import secrets
import string
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from conv_tasks.sdk import (
    ADD,
    DEPRECATED,
    HIDDEN,
    INTEGER,
    LIST,
    MAP,
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    Problem,
    Progress,
    PropertySchema,
    ResourceType,
    SupportStatus,
    TranslationRule,
    token_physical_id,
)

LETTERS_DIGITS = "lettersdigits"
# Heat's classes; hexdigits are Heat's too, with capital letters.
SEQUENCES = {
    LETTERS_DIGITS: string.ascii_letters + string.digits,
    "letters": string.ascii_letters,
    "lowercase": string.ascii_lowercase,
    "uppercase": string.ascii_uppercase,
    "digits": string.digits,
    "hexdigits": string.digits + "ABCDEF",
    "octdigits": string.octdigits,
}

LENGTH = "length"
SEQUENCE = "sequence"
CHARACTER_CLASSES = "character_classes"
CHARACTER_SEQUENCES = "character_sequences"
SALT = "salt"
CLASS = "class"
MIN = "min"
MAX_LENGTH = 512


def _minimum(what: str) -> PropertySchema:
    return PropertySchema(
        INTEGER,
        f"The least number of characters from this {what} in the string.",
        default=1,
        constraints=(Constraint.range(1, MAX_LENGTH),),
    )


class RandomStringResource(ResourceType):
    """A random string, for passwords and unique names."""

    type_name: ClassVar[str] = "OS::Heat::RandomString"
    # Its string is kept in its plugin data: a create makes nothing anywhere else.
    makes_objects: ClassVar[bool] = False
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        LENGTH: PropertySchema(
            INTEGER,
            "How many characters.",
            default=32,
            constraints=(Constraint.range(1, MAX_LENGTH),),
        ),
        CHARACTER_CLASSES: PropertySchema(
            LIST,
            "Named classes of characters to draw from, each with the least number of its "
            "characters the string holds.",
            default=[{CLASS: LETTERS_DIGITS, MIN: 1}],
            schema=PropertySchema(
                MAP,
                "A class and its minimum.",
                schema={
                    CLASS: PropertySchema(
                        STRING,
                        "The class of characters.",
                        default=LETTERS_DIGITS,
                        constraints=(Constraint.allowed_values(*SEQUENCES),),
                    ),
                    MIN: _minimum("class"),
                },
            ),
            support_status=SupportStatus(version="2014.2"),
        ),
        CHARACTER_SEQUENCES: PropertySchema(
            LIST,
            "Characters to draw from, written out, each sequence with the least number of "
            "its characters the string holds.",
            schema=PropertySchema(
                MAP,
                "A sequence and its minimum.",
                schema={
                    SEQUENCE: PropertySchema(
                        STRING,
                        "The characters.",
                        required=True,
                        constraints=(Constraint.length(1, None),),
                    ),
                    MIN: _minimum("sequence"),
                },
            ),
            support_status=SupportStatus(version="2014.2"),
        ),
        SEQUENCE: PropertySchema(
            STRING,
            "The class of characters to draw from.",
            constraints=(Constraint.allowed_values(*SEQUENCES),),
            # As in Heat: deprecated in 2014.2, hidden (still read, no longer shown) in 5.0.0.
            support_status=SupportStatus(
                status=HIDDEN,
                version="5.0.0",
                message=f"Use property {CHARACTER_CLASSES}.",
                previous_status=SupportStatus(
                    status=DEPRECATED,
                    version="2014.2",
                    previous_status=SupportStatus(version="2014.1"),
                ),
            ),
        ),
        SALT: PropertySchema(STRING, "Change it to get a new string; it is not part of the value."),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "value": AttributeSchema("The random string.", type=STRING)
    }

    def translation_rules(self) -> Sequence[TranslationRule]:
        # sequence: X becomes one more class {class: X, min: 1}, before defaults are filled:
        # alone, it replaces the default class, as in Heat.
        return (TranslationRule(ADD, (CHARACTER_CLASSES,), value_path=(SEQUENCE,), item_key=CLASS),)

    @classmethod
    def properties_problems(cls, properties: Mapping[str, Any], *, path: str) -> list[Problem]:
        """The minimums must fit in the length, and there must be characters to draw from."""
        pools = _pools(properties)
        if not pools:
            return [
                Problem(
                    f"{path}.{CHARACTER_CLASSES}",
                    f"is empty and there are no {CHARACTER_SEQUENCES}: the string has no "
                    "characters to be drawn from",
                )
            ]
        wanted = sum(minimum for _, minimum in pools)
        length = properties.get(LENGTH)
        if isinstance(length, int) and wanted > length:
            return [
                Problem(
                    f"{path}.{LENGTH}",
                    f"is {length}, smaller than the {wanted} characters the minimums of "
                    f"{CHARACTER_CLASSES} and {CHARACTER_SEQUENCES} ask for together; make "
                    f"the length at least {wanted} or lower the minimums",
                )
            ]
        return []

    def create(self, ctx: ActionContext) -> Progress:
        value = ctx.data.get("value")
        if not isinstance(value, str):
            value = draw(int(ctx.properties.get(LENGTH) or 32), _pools(ctx.properties))
        return Progress(
            done=True, physical_id=token_physical_id(ctx.idempotency_token), data={"value": value}
        )

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"value": ctx.data.get("value")}

    def reference(self, ctx: ActionContext) -> str | None:
        value = ctx.data.get("value")
        return value if isinstance(value, str) else None


def _pools(properties: Mapping[str, Any]) -> list[tuple[str, int]]:
    """(characters, minimum) of each class and sequence the checked properties name."""
    pools: list[tuple[str, int]] = []
    for item in properties.get(CHARACTER_SEQUENCES) or ():
        pools.append((str(item.get(SEQUENCE) or ""), int(item.get(MIN) or 0)))
    for item in properties.get(CHARACTER_CLASSES) or ():
        pools.append((SEQUENCES[item.get(CLASS) or LETTERS_DIGITS], int(item.get(MIN) or 0)))
    return [(characters, minimum) for characters, minimum in pools if characters]


def draw(length: int, pools: Sequence[tuple[str, int]]) -> str:
    """A string of `length` characters holding at least each pool's minimum of its
    characters; the others are drawn from every pool's characters together, each distinct
    character as likely as another, and the whole is shuffled."""
    chance = secrets.SystemRandom()
    chosen = [
        chance.choice(sorted(set(characters)))
        for characters, minimum in pools
        for _ in range(minimum)
    ]
    everything = sorted({c for characters, _ in pools for c in characters})
    chosen.extend(chance.choice(everything) for _ in range(length - len(chosen)))
    chance.shuffle(chosen)
    return "".join(chosen)
