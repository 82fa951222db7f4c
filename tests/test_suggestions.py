"""conv_tasks/suggestions.py: the known name nearest to a misspelt one, or none."""

from __future__ import annotations

from conv_tasks.suggestions import did_you_mean, nearest, suggesting

TYPES = ["OS::Heat::RandomString", "OS::Heat::TestResource", "OS::Heat::None"]


def test_the_nearest_name_is_suggested() -> None:
    assert nearest("OS::Heat::RandomStrng", TYPES) == "OS::Heat::RandomString"
    assert nearest("os::heat::testresource", TYPES) == "OS::Heat::TestResource"  # case aside
    assert did_you_mean("sise", ["size", "name"]) == "did you mean 'size'?"


def test_a_name_near_nothing_gets_no_guess() -> None:
    assert nearest("tt", ["tr", "bad"]) is None
    assert did_you_mean("Custom::Thing", TYPES) == ""
    assert did_you_mean("x", []) == ""


def test_a_message_gets_the_suggestion_after_it_or_stays_as_it_is() -> None:
    message = "parameter 'sise' is not declared"
    assert suggesting(message, "sise", ["size"]) == f"{message}; did you mean 'size'?"
    assert suggesting(message, "sise", ["flavor"]) == message
