"""The envelope a sealed value is stored in: a prefix anyone can recognise, then the token.

`conv-tasks-sealed:1:gAAAAA…`: the version (1) names the scheme, a Fernet token (AES-128-CBC
and HMAC-SHA256, url-safe base64) of the value's UTF-8 text. A stored text that does not start
with the prefix was written without a key and is read as it is.
"""

from __future__ import annotations

ENVELOPE_PREFIX = "conv-tasks-sealed:1:"


def is_sealed(stored: object) -> bool:
    """Whether `stored` is an envelope (a string that starts with the prefix)."""
    return isinstance(stored, str) and stored.startswith(ENVELOPE_PREFIX)


def wrap(token: bytes) -> str:
    """The envelope holding a Fernet token."""
    return ENVELOPE_PREFIX + token.decode("ascii")


def unwrap(stored: str) -> bytes:
    """The Fernet token an envelope holds."""
    return stored[len(ENVELOPE_PREFIX) :].encode("ascii")
