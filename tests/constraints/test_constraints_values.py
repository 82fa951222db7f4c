"""json_string and test_constr."""

from __future__ import annotations

import pytest

from conv_tasks.constraints.values import any_value, json_string


@pytest.mark.parametrize("value", ["", "{}", '{"a": [1, 2]}', "3", '"text"', "null"])
def test_json_string_takes_json_documents(value: str) -> None:
    assert json_string(value) is None


def test_json_string_refuses_and_says_where_but_not_what() -> None:
    reason = json_string('{"password": secret}')
    assert reason == "is not valid JSON (at character 13)"
    assert json_string({"a": 1}) == "must be a string"


@pytest.mark.parametrize("value", [0, 2.5, "30", None, [], True])
def test_test_constr_takes_every_value_at_once(value: object) -> None:
    assert any_value(value) is None
