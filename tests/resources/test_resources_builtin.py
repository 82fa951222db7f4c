"""OS::Heat::None, Value, RandomString, Dummy and TestResourceOld."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from resources_sandbox import MemorySandbox, make_ctx

from conv_tasks.errors import ConvTasksError, InvalidInput, ResourceFailure
from conv_tasks.resources import (
    ResourceType,
    deprecation_warnings,
    prepare_properties,
    static_problems,
    token_physical_id,
)
from conv_tasks.resources.builtin import (
    DummyResource,
    NoneResource,
    RandomStringResource,
    TestResource,
    TestResourceOld,
    ValueResource,
)
from conv_tasks.resources.builtin.random_string import SEQUENCES, draw
from conv_tasks.resources.builtin.value import convert_value


@pytest.fixture
def sandbox() -> MemorySandbox:
    return MemorySandbox()


def test_token_physical_id_is_stable_and_distinct() -> None:
    assert token_physical_id("a") == token_physical_id("a")
    assert token_physical_id("a") != token_physical_id("b")


@pytest.mark.parametrize("cls", [NoneResource, DummyResource])
def test_none_creates_nothing_and_updates_in_place(
    cls: type[ResourceType], sandbox: MemorySandbox
) -> None:
    plugin = cls()
    ctx = make_ctx(cls, sandbox, properties={"anything": [1, 2]}, token="s:1:CREATE")
    progress = plugin.create(ctx)
    assert progress.done
    assert progress.physical_id == token_physical_id("s:1:CREATE")
    assert plugin.create(ctx).physical_id == progress.physical_id
    assert plugin.needs_replacement({"a": 1}, {"a": 2, "b": 3}) is False
    assert plugin.update(make_ctx(cls, sandbox, action="UPDATE")).done
    assert plugin.delete(make_ctx(cls, sandbox, action="DELETE")).done
    assert plugin.attributes(ctx) == {}
    assert sandbox.calls == []


def test_base_type_defaults(sandbox: MemorySandbox) -> None:
    class Plain(ResourceType):
        type_name = "Test::Plain"

    plugin = Plain()
    ctx = make_ctx(Plain, sandbox, physical_id="p")
    for step in (
        plugin.check_create,
        plugin.update,
        plugin.check_update,
        plugin.delete,
        plugin.check_delete,
        plugin.check,
    ):
        assert step(ctx).done
    assert plugin.reference(ctx) == "p"
    assert plugin.translation_rules() == ()


def test_value_holds_a_value_of_its_type(sandbox: MemorySandbox) -> None:
    plugin = ValueResource()
    ctx = make_ctx(ValueResource, sandbox, properties={"value": "3.5", "type": "number"})
    progress = plugin.create(ctx)
    assert progress.done
    assert progress.physical_id is not None
    assert progress.data == {"value": 3.5}
    assert plugin.attributes(ctx) == {"value": 3.5}
    assert plugin.attributes(make_ctx(ValueResource, sandbox, properties={"value": 7})) == {
        "value": 7
    }


def test_value_type_is_checked() -> None:
    with pytest.raises(InvalidInput, match="must be one of"):
        prepare_properties(ValueResource, {"value": 1, "type": "blob"}, path="p")
    with pytest.raises(InvalidInput, match="is required"):
        prepare_properties(ValueResource, {}, path="p")


def test_value_known_not_to_fit_is_refused_when_prepared() -> None:
    with pytest.raises(ConvTasksError) as refused:
        prepare_properties(ValueResource, {"value": "x", "type": "number"}, path="r.properties")
    assert "r.properties.value: does not fit the type 'number': it must be a number" in str(
        refused.value
    )


def test_value_that_does_not_fit_fails_the_action(sandbox: MemorySandbox) -> None:
    # A value known only at apply (a get_attr) reaches the action, which checks it.
    ctx = make_ctx(ValueResource, sandbox, properties={"value": "x"}, name="v")
    ctx = replace(ctx, properties={"value": "x", "type": "number"})
    with pytest.raises(ResourceFailure, match="Resource v: value must be a number"):
        ValueResource().create(ctx)


def test_value_update_is_in_place(sandbox: MemorySandbox) -> None:
    plugin = ValueResource()
    old = prepare_properties(ValueResource, {"value": 1}, path="p")
    new = prepare_properties(ValueResource, {"value": 2}, path="p")
    assert not plugin.needs_replacement(old, new)
    # The type changes in place too, as in Heat: a value holds nothing to replace.
    changed_type = prepare_properties(ValueResource, {"value": 1, "type": "number"}, path="p")
    assert not plugin.needs_replacement(old, changed_type)
    ctx = make_ctx(ValueResource, sandbox, action="UPDATE", properties={"value": "b"})
    assert plugin.update(ctx).data == {"value": "b"}


@pytest.mark.parametrize("value", [{"a": [1, {"b": 2}]}, [1, "x"], 3, True, "s"])
def test_value_without_a_type_is_taken_as_it_is(value: Any, sandbox: MemorySandbox) -> None:
    props = prepare_properties(ValueResource, {"value": value}, path="p")
    assert props["type"] is None
    ctx = make_ctx(ValueResource, sandbox, properties=props)
    assert ValueResource().create(ctx).data == {"value": value}
    assert ValueResource().attributes(ctx) == {"value": value}


def test_value_with_a_type_still_checks_it(sandbox: MemorySandbox) -> None:
    ctx = make_ctx(ValueResource, sandbox, properties={"value": {"a": 1}})
    ctx = replace(ctx, properties={"value": {"a": 1}, "type": "string"})
    with pytest.raises(ResourceFailure, match="must be a string, not a map"):
        ValueResource().create(ctx)


@pytest.mark.parametrize(
    ("kind", "value", "expected"),
    [
        ("string", "x", "x"),
        ("number", "2", 2),
        ("boolean", "true", True),
        ("json", '{"a": [1]}', {"a": [1]}),
        ("json", [1, 2], [1, 2]),
        ("comma_delimited_list", "a, b,c", ["a", "b", "c"]),
        ("comma_delimited_list", "", []),
        ("comma_delimited_list", ["a", 1], ["a", "1"]),
    ],
)
def test_convert_value(kind: str, value: Any, expected: Any) -> None:
    assert convert_value(kind, value) == expected


@pytest.mark.parametrize(
    ("kind", "value", "reason"),
    [
        ("json", "{oops", "is not valid JSON"),
        ("json", 3, "must be a map, a list or a JSON string"),
        ("comma_delimited_list", {"a": 1}, "must be a list or a comma-delimited string"),
        ("boolean", "maybe", "must be a boolean"),
        ("yaml", "x", "has unknown type 'yaml'"),
    ],
)
def test_convert_value_refuses(kind: str, value: Any, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        convert_value(kind, value)


def test_random_string_defaults_and_limits() -> None:
    props = prepare_properties(RandomStringResource, {}, path="p")
    assert props == {
        "length": 32,
        "character_classes": [{"class": "lettersdigits", "min": 1}],
        "character_sequences": None,
        "sequence": None,
        "salt": None,
    }
    with pytest.raises(InvalidInput) as info:
        prepare_properties(RandomStringResource, {"length": 0, "sequence": "emoji"}, path="p")
    assert [p.path for p in info.value.problems] == ["p.length", "p.character_classes[0].class"]
    with pytest.raises(InvalidInput, match="between 1 and 512"):
        prepare_properties(RandomStringResource, {"length": 513}, path="p")
    bad_items = {
        "character_classes": [{"class": "emoji", "min": 0}],
        "character_sequences": [{"sequence": ""}, {"min": 2}],
    }
    with pytest.raises(InvalidInput) as info:
        prepare_properties(RandomStringResource, bad_items, path="p")
    assert [p.path for p in info.value.problems] == [
        "p.character_classes[0].class",
        "p.character_classes[0].min",
        "p.character_sequences[0].sequence",
        "p.character_sequences[1].sequence",
    ]


def test_heats_classes_are_its_character_sets() -> None:
    assert SEQUENCES["hexdigits"] == "0123456789ABCDEF"  # capitals, as Heat draws them
    assert SEQUENCES["octdigits"] == "01234567"
    assert len(SEQUENCES["lettersdigits"]) == 62


@pytest.mark.parametrize("sequence", sorted(SEQUENCES))
def test_random_string_is_drawn_from_its_sequence(sequence: str, sandbox: MemorySandbox) -> None:
    ctx = make_ctx(RandomStringResource, sandbox, properties={"length": "40", "sequence": sequence})
    value = RandomStringResource().create(ctx).data["value"]
    assert len(value) == 40
    assert set(value) <= set(SEQUENCES[sequence])


def test_the_deprecated_sequence_is_one_more_class() -> None:
    alone = prepare_properties(RandomStringResource, {"sequence": "digits"}, path="p")
    assert alone["character_classes"] == [{"class": "digits", "min": 1}]  # not the default too
    added = prepare_properties(
        RandomStringResource,
        {"sequence": "digits", "character_classes": [{"class": "lowercase", "min": 3}]},
        path="p",
    )
    assert added["character_classes"] == [
        {"class": "lowercase", "min": 3},
        {"class": "digits", "min": 1},
    ]
    [warning] = deprecation_warnings(RandomStringResource, {"sequence": "digits"}, path="r")
    assert warning == (
        "r.properties.sequence: property sequence is HIDDEN since 5.0.0: Use property "
        "character_classes."
    )


def counts(value: str, characters: str) -> int:
    return sum(1 for c in value if c in characters)


def test_every_minimum_is_met_every_time(sandbox: MemorySandbox) -> None:
    properties = {
        "length": 9,
        "character_classes": [{"class": "digits", "min": 3}, {"class": "uppercase", "min": 2}],
        "character_sequences": [{"sequence": "!@#", "min": 2}, {"sequence": "~", "min": 1}],
    }
    ctx = make_ctx(RandomStringResource, sandbox, properties=properties)
    allowed = set(SEQUENCES["digits"] + SEQUENCES["uppercase"] + "!@#~")
    for _ in range(300):
        value = RandomStringResource().create(ctx).data["value"]
        assert len(value) == 9 and set(value) <= allowed
        assert counts(value, SEQUENCES["digits"]) >= 3
        assert counts(value, SEQUENCES["uppercase"]) >= 2
        assert counts(value, "!@#") >= 2
        assert counts(value, "~") >= 1


def test_minimums_that_fill_the_length_are_shuffled() -> None:
    pools = [("a", 2), ("b", 2)]
    seen = {draw(4, pools) for _ in range(200)}
    assert all(sorted(value) == ["a", "a", "b", "b"] for value in seen)
    assert len(seen) > 1  # six orders are possible: one order every time is no shuffle


def test_sequences_add_to_the_default_class() -> None:
    # As in Heat: character_sequences alone leaves character_classes at its default.
    props = prepare_properties(
        RandomStringResource, {"character_sequences": [{"sequence": "-_"}]}, path="p"
    )
    assert props["character_classes"] == [{"class": "lettersdigits", "min": 1}]
    assert props["character_sequences"] == [{"sequence": "-_", "min": 1}]


def test_minimums_longer_than_the_length_are_refused_before_and_at_create() -> None:
    values = {
        "length": 4,
        "character_classes": [{"class": "digits", "min": 2}],
        "character_sequences": [{"sequence": "!?", "min": 3}],
    }
    message = (
        "is 4, smaller than the 5 characters the minimums of character_classes and "
        "character_sequences ask for together; make the length at least 5 or lower the minimums"
    )
    assert [
        (p.path, p.message) for p in static_problems(RandomStringResource, values, path="p")
    ] == [("p.length", message)]
    with pytest.raises(InvalidInput) as info:
        prepare_properties(RandomStringResource, values, path="p")
    assert [(p.path, p.message) for p in info.value.problems] == [("p.length", message)]
    # A length not known before the stack runs is judged when it is.
    unknown = {**values, "length": {"get_param": "length"}}
    assert static_problems(RandomStringResource, unknown, path="p") == []
    with pytest.raises(InvalidInput, match="no characters to be drawn from"):
        prepare_properties(RandomStringResource, {"character_classes": []}, path="p")


def test_random_string_is_kept_and_is_the_reference(sandbox: MemorySandbox) -> None:
    plugin = RandomStringResource()
    ctx = make_ctx(RandomStringResource, sandbox)
    progress = plugin.create(ctx)
    value = progress.data["value"]
    assert progress.physical_id == token_physical_id(ctx.idempotency_token)
    later = make_ctx(RandomStringResource, sandbox, data=progress.data, physical_id="x")
    assert plugin.attributes(later) == {"value": value}
    assert plugin.reference(later) == value
    # A retried create keeps the string it already made.
    assert plugin.create(later).data["value"] == value
    # Two resources get different strings.
    assert plugin.create(make_ctx(RandomStringResource, sandbox)).data["value"] != value
    assert sandbox.calls == []


def test_random_string_any_change_replaces() -> None:
    plugin = RandomStringResource()
    base = prepare_properties(RandomStringResource, {}, path="p")
    for change in ({"salt": "1"}, {"length": 8}, {"sequence": "digits"}):
        assert plugin.needs_replacement(
            base, prepare_properties(RandomStringResource, change, path="p")
        )
    assert not plugin.needs_replacement(base, dict(base))


def test_test_resource_old_translates_its_hidden_property(sandbox: MemorySandbox) -> None:
    props = prepare_properties(TestResourceOld, {"output_value": "legacy"}, path="p")
    assert props["value"] == "legacy"
    assert props["output_value"] is None
    with pytest.raises(InvalidInput, match=r"conflicts with p\.value"):
        prepare_properties(TestResourceOld, {"output_value": "a", "value": "b"}, path="p")
    plugin = TestResourceOld()
    created = plugin.create(
        make_ctx(TestResourceOld, sandbox, properties={"output_value": "legacy"})
    )
    assert sandbox.get(created.physical_id or "")["properties"] == {"value": "legacy"}  # type: ignore[index]


def test_substitute_class_allows_a_graceful_type_change() -> None:
    assert TestResourceOld.can_be_replaced_by(TestResource)
    assert TestResourceOld.can_be_replaced_by(TestResourceOld)  # it extends the substitute
    assert not TestResourceOld.can_be_replaced_by(NoneResource)
    assert not TestResource.can_be_replaced_by(TestResourceOld)
    assert DummyResource.can_be_replaced_by(NoneResource)
