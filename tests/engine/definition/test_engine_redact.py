"""Redactor: hidden parameter values never reach a message or an output."""

from __future__ import annotations

from conv_tasks.engine.definition.redact import MASK, Redactor


def test_every_secret_is_masked_everywhere() -> None:
    redact = Redactor(["hunter2", "s3cret"])
    text = "login hunter2 failed; retried with s3cret, then hunter2 again"
    assert redact(text) == f"login {MASK} failed; retried with {MASK}, then {MASK} again"


def test_longest_secret_is_masked_first() -> None:
    # If "abc" went first, "abcdef" would leave "def" in clear.
    redact = Redactor(["abc", "abcdef"])
    assert redact("key=abcdef") == f"key={MASK}"
    assert redact("key=abc") == f"key={MASK}"


def test_longest_first_does_not_depend_on_input_order() -> None:
    assert Redactor(["pass", "password1"])("password1") == MASK
    assert Redactor(["password1", "pass"])("password1") == MASK


def test_none_and_empty_secrets_are_ignored() -> None:
    redact = Redactor([None, "", "x9"])
    assert redact("a b c") == "a b c"
    assert redact("x9") == MASK


def test_no_secrets_leaves_text_alone() -> None:
    assert Redactor([])("nothing hidden here") == "nothing hidden here"
    assert Redactor([None, ""])("still nothing") == "still nothing"


def test_non_string_secrets_are_masked_as_text() -> None:
    redact = Redactor([4242])
    assert redact("pin 4242 accepted") == f"pin {MASK} accepted"


def test_other_text_is_unchanged() -> None:
    redact = Redactor(["secret-value"])
    assert redact("a secret value, not secret_value") == "a secret value, not secret_value"


def test_value_redacts_nested_strings() -> None:
    redact = Redactor(["pw1"])
    data = {"url": "db://u:pw1@h", "list": ["pw1", "ok", 3], "inner": {"t": ("x pw1",)}}
    assert redact.value(data) == {
        "url": f"db://u:{MASK}@h",
        "list": [MASK, "ok", 3],
        "inner": {"t": [f"x {MASK}"]},
    }


def test_value_masks_a_number_equal_to_a_secret_but_not_booleans_or_none() -> None:
    redact = Redactor([1234, "True"])
    assert redact.value(1234) == MASK
    assert redact.value(99) == 99
    assert redact.value(True) is True
    assert redact.value(None) is None


def test_value_without_secrets_returns_the_same_object() -> None:
    data = {"a": ["b"]}
    assert Redactor([]).value(data) is data
