"""What text from outside may hold, wherever it arrives.

Any string may hold any printable text, but never NUL (PostgreSQL cannot
store it, in a text column or in JSONB) and never a lone surrogate (it is not
Unicode text and cannot be encoded as UTF-8). A name (a tenant, a stack, a
resource, a parameter, an output) is also at most MAX_NAME_CHARS long and
holds no control or invisible formatting characters: a name is shown in
tables, logs and terminals, where such characters hide or forge what is
shown.

Each check returns the reason a value is refused, as the end of a sentence
that starts with the field's path, or None. A reason never repeats the
value, which may be huge or hostile.
"""

from __future__ import annotations

import unicodedata

from conv_tasks.limits import MAX_NAME_CHARS

# Control characters, invisible formatting (bidirectional overrides, zero-width
# characters) and line or paragraph separators.
_REFUSED_IN_NAMES = frozenset({"Cc", "Cf", "Zl", "Zp"})


def utf8_length(text: str) -> int | None:
    """The length of text in UTF-8 bytes; None if it holds a lone surrogate."""
    if text.isascii():
        return len(text)
    try:
        return len(text.encode("utf-8"))
    except UnicodeEncodeError:
        return None


def text_problem(text: str) -> str | None:
    """Why text cannot be stored, or None."""
    position = text.find("\x00")
    if position >= 0:
        return f"must not contain NUL characters (\\x00, found at position {position})"
    if utf8_length(text) is None:
        return "is not valid Unicode text (it holds a lone surrogate)"
    return None


def name_problem(name: str) -> str | None:
    """Why name is not acceptable as a name, or None."""
    found = text_problem(name)
    if found is not None:
        return found
    if len(name) > MAX_NAME_CHARS:
        return (
            f"is {len(name)} characters long; names are limited to {MAX_NAME_CHARS} "
            "characters (MAX_NAME_CHARS)"
        )
    if name.isprintable():
        return None
    for position, char in enumerate(name):
        if unicodedata.category(char) in _REFUSED_IN_NAMES:
            return (
                "must not hold a control character or invisible formatting character "
                f"(U+{ord(char):04X} at position {position})"
            )
    return None
