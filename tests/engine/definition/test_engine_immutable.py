"""Immutable parameters: which updates check_immutable refuses, and that it shows no value."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.engine.definition.immutable import check_immutable, declares_immutable
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import ParameterError


def definition(parameters: dict[str, Any], values: dict[str, Any]) -> StackDefinition:
    return StackDefinition.build(
        {"heat_template_version": "2015-04-30", "parameters": parameters}, values
    )


FIXED = {"zone": {"type": "string", "immutable": True, "hidden": True}}
FREE = {"zone": {"type": "string"}}


def test_a_changed_immutable_value_is_refused_without_showing_it() -> None:
    old = definition(FIXED, {"zone": "secret-a"})
    new = definition(FIXED, {"zone": "secret-b"})
    assert declares_immutable(new)
    with pytest.raises(ParameterError) as info:
        check_immutable(old, new)
    assert [p.path for p in info.value.problems] == ["parameters.zone"]
    assert "is immutable" in str(info.value)
    assert "secret" not in str(info.value)


def test_the_same_value_passes() -> None:
    check_immutable(definition(FIXED, {"zone": "a"}), definition(FIXED, {"zone": "a"}))


def test_a_default_counts_as_the_value() -> None:
    with_default = {"zone": {"type": "string", "immutable": True, "default": "a"}}
    check_immutable(definition(with_default, {}), definition(with_default, {"zone": "a"}))
    with pytest.raises(ParameterError):
        check_immutable(definition(with_default, {}), definition(with_default, {"zone": "b"}))


def test_the_new_template_decides_and_new_parameters_are_free() -> None:
    # Made immutable by this update: the new template says so, and the value is held.
    with pytest.raises(ParameterError):
        check_immutable(definition(FREE, {"zone": "a"}), definition(FIXED, {"zone": "b"}))
    # No longer immutable: the new template lets it change.
    check_immutable(definition(FIXED, {"zone": "a"}), definition(FREE, {"zone": "b"}))
    # A parameter the old template did not have may take any value.
    check_immutable(definition({}, {}), definition(FIXED, {"zone": "b"}))
    assert not declares_immutable(definition(FREE, {"zone": "a"}))
