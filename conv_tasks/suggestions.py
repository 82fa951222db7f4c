"""Did you mean ...?: the known name nearest to one that is not known, for error messages.

difflib's similarity (its ratio, the cutoff of get_close_matches) judges how near two names
are, without regard to case; a name too far from every known one gets no suggestion, so a
wild guess is never offered. Pure: imports nothing of conv_tasks.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

CUTOFF = 0.6  # difflib's own default: 'sise' -> 'size' (0.75), 'tt' -> 'tr' not (0.5)


def nearest(word: str, known: Iterable[str], *, cutoff: float = CUTOFF) -> str | None:
    """The known name most like `word`, if one is like it at all (difflib's ratio at least
    `cutoff`)."""
    by_folded: dict[str, str] = {}
    for name in known:
        by_folded.setdefault(name.casefold(), name)
    found = difflib.get_close_matches(word.casefold(), list(by_folded), n=1, cutoff=cutoff)
    return by_folded[found[0]] if found else None


def did_you_mean(word: str, known: Iterable[str], *, cutoff: float = CUTOFF) -> str:
    """The words "did you mean 'value'?" for the known name nearest to `word`; "" if none
    is near."""
    found = nearest(word, known, cutoff=cutoff)
    return f"did you mean '{found}'?" if found is not None and found != word else ""


def suggesting(message: str, word: str, known: Iterable[str]) -> str:
    """`message`, and "; did you mean 'value'?" after it when a known name is near `word`."""
    suggestion = did_you_mean(word, known)
    return f"{message}; {suggestion}" if suggestion else message
