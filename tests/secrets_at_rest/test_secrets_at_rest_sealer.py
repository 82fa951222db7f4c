"""The envelope: round trips, rotation, plaintext passing through, and errors that name the
setting but never a value or a key."""

from __future__ import annotations

import pytest
from cryptography.fernet import Fernet

from conv_tasks.errors import EncryptionKeyError, InvalidInput
from conv_tasks.secrets_at_rest import ENVELOPE_PREFIX, PLAINTEXT, Sealer, is_sealed, new_key
from conv_tasks.settings import Settings

SECRET = "s3cr3t-p4ssw0rd"


def test_a_sealed_value_is_an_envelope_without_the_value_and_opens_to_it() -> None:
    sealer = Sealer([new_key()])
    sealed = sealer.seal(SECRET)
    assert sealed.startswith(ENVELOPE_PREFIX) and is_sealed(sealed)
    assert SECRET not in sealed
    assert sealer.open(sealed) == SECRET
    # Two seals of one value differ (a fresh IV each time): equal secrets are not visible.
    assert sealer.seal(SECRET) != sealed


def test_json_round_trips_keep_the_value_and_its_order() -> None:
    sealer = Sealer([new_key()])
    value = {"z": [1, 2.5, None, True], "a": {"password": SECRET}, "é": "ünïcode"}
    sealed = sealer.seal_json(value)
    assert isinstance(sealed, str) and SECRET not in sealed
    opened = sealer.open_json(sealed)
    assert opened == value and list(opened) == ["z", "a", "é"]
    assert sealer.seal_json(None) is None
    text = '"' + sealed + '"'  # the column read as ::text
    assert (
        sealer.open_json_text(text)
        == '{"z":[1,2.5,null,true],"a":{"password":"s3cr3t-p4ssw0rd"},"é":"ünïcode"}'
    )
    assert sealer.open_json_text('{"plain": 1}') == '{"plain": 1}'
    assert sealer.open_json_text(None) is None


def test_plaintext_passes_through_with_or_without_keys() -> None:
    for sealer in (Sealer([new_key()]), PLAINTEXT):
        assert sealer.open("written before a key was set") == "written before a key was set"
        assert sealer.open_json({"p": SECRET}) == {"p": SECRET}
        assert sealer.open_json(["a"]) == ["a"]


def test_without_keys_nothing_is_sealed() -> None:
    assert not PLAINTEXT.enabled
    assert PLAINTEXT.seal(SECRET) == SECRET
    assert PLAINTEXT.seal_json({"p": SECRET}) == {"p": SECRET}
    assert PLAINTEXT.reseal(SECRET) is None


def test_keys_rotate_the_first_seals_and_every_key_opens() -> None:
    old, new = new_key(), new_key()
    before = Sealer([old]).seal(SECRET)
    both = Sealer([new, old])
    assert both.open(before) == SECRET
    after = both.reseal(before)
    assert after is not None and after != before
    # Sealed with the new key: the new key alone opens it, the old one no longer does.
    assert Sealer([new]).open(after) == SECRET
    with pytest.raises(EncryptionKeyError):
        Sealer([old]).open(after)
    # Already under the first key: nothing to do, so a rotation run twice changes nothing.
    assert both.reseal(after) is None
    # Plaintext is sealed by a rotation too.
    sealed_plain = both.reseal("plain value")
    assert sealed_plain is not None and Sealer([new]).open(sealed_plain) == "plain value"
    assert both.seal(SECRET) != before and Sealer([new]).open(both.seal(SECRET)) == SECRET


def test_a_wrong_key_names_the_setting_and_the_place_never_the_value_or_key() -> None:
    right, wrong = new_key(), new_key()
    sealed = Sealer([right]).seal(SECRET)
    with pytest.raises(EncryptionKeyError) as caught:
        Sealer([wrong]).open(sealed, where="resource.properties_data")
    message = str(caught.value)
    assert "CONV_TASKS_ENCRYPTION_KEYS" in message and "resource.properties_data" in message
    assert SECRET not in message and right not in message and wrong not in message
    assert sealed[len(ENVELOPE_PREFIX) :] not in message
    assert caught.value.to_dict()["error"] == "encryption_key"


def test_an_envelope_without_any_key_names_the_setting() -> None:
    sealed = Sealer([new_key()]).seal_json({"p": SECRET})
    with pytest.raises(EncryptionKeyError, match="CONV_TASKS_ENCRYPTION_KEYS is not set") as caught:
        PLAINTEXT.open_json(sealed, where="raw_template.parameters")
    assert "raw_template.parameters" in str(caught.value) and SECRET not in str(caught.value)


def test_a_tampered_envelope_is_refused() -> None:
    sealer = Sealer([new_key()])
    sealed = sealer.seal(SECRET)
    tampered = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]
    with pytest.raises(EncryptionKeyError):
        sealer.open(tampered)


def test_settings_read_the_keys_first_one_first() -> None:
    first, second = new_key(), new_key()
    settings = Settings.from_env({"CONV_TASKS_ENCRYPTION_KEYS": f" {first} , {second} ,"})
    assert settings.encryption_keys == (first, second)
    assert first not in repr(settings)
    assert Settings.from_env({}).encryption_keys == ()


def test_a_malformed_key_is_reported_by_its_position_never_its_text() -> None:
    good = new_key()
    short = Fernet.generate_key().decode()[:40]
    with pytest.raises(InvalidInput) as caught:
        Settings.from_env({"CONV_TASKS_ENCRYPTION_KEYS": f"{good},{short},{good}"})
    problems = [(p.path, p.message) for p in caught.value.problems]
    assert [path for path, _ in problems] == ["CONV_TASKS_ENCRYPTION_KEYS"] * 2
    assert "key 2 of 3 is not a Fernet key" in problems[0][1]
    assert "key 3 of 3 repeats an earlier key" in problems[1][1]
    assert short not in str(caught.value) and good not in str(caught.value)
