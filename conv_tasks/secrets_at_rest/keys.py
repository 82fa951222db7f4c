"""The keys of CONV_TASKS_ENCRYPTION_KEYS: comma-separated Fernet keys, the first one writes.

A Fernet key is 32 random bytes in url-safe base64 (44 characters). A malformed key is
reported by its position, never by its text: the message may reach a log.
"""

from __future__ import annotations

import base64
import binascii
import os


def new_key() -> str:
    """A fresh random key, as CONV_TASKS_ENCRYPTION_KEYS takes it (what Fernet.generate_key
    makes, without importing cryptography)."""
    return base64.urlsafe_b64encode(os.urandom(32)).decode("ascii")


def parse_keys(raw: str) -> tuple[tuple[str, ...], list[str]]:
    """The keys of a comma-separated list (blank entries ignored), and what is wrong with it:
    one sentence per malformed or repeated key, naming the key by its position."""
    entries = [entry.strip() for entry in raw.split(",")]
    keys = [entry for entry in entries if entry]
    problems: list[str] = []
    for position, key in enumerate(keys, start=1):
        if not _well_formed(key):
            problems.append(
                f"key {position} of {len(keys)} is not a Fernet key (32 random bytes in "
                f"url-safe base64, 44 characters; make one with `conv-tasks db new-key`)"
            )
        elif key in keys[: position - 1]:
            problems.append(f"key {position} of {len(keys)} repeats an earlier key")
    return tuple(keys), problems


def _well_formed(key: str) -> bool:
    try:
        return len(base64.urlsafe_b64decode(key.encode("ascii"))) == 32 and len(key) == 44
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return False
