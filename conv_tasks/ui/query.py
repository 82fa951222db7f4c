"""The web view's query strings and forms, read strictly: UTF-8 or a 400 page.

Browsers send UTF-8, percent-encoded; anything else (a byte that is not UTF-8, raw or
escaped) is refused with a page naming the parameter, as is a value past its size limit,
instead of being read as replacement characters. Pure.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from urllib.parse import unquote_to_bytes, urlencode

from conv_tasks.input_text import name_problem
from conv_tasks.ui.errors import bad_request

# The most bytes any one value may have, whatever it is; per-field limits are below it.
MAX_VALUE_BYTES = 1024
MAX_PARAMS = 64


def _shown(name: str) -> str:
    return name[:40].encode("unicode_escape").decode("ascii")


def parse_pairs(raw: bytes, what: str = "query string") -> list[tuple[str, str]]:
    """The name/value pairs of `raw` (a query string or a form body), in order."""
    pairs: list[tuple[str, str]] = []
    for part in raw.split(b"&"):
        if not part:
            continue
        if len(pairs) >= MAX_PARAMS:
            raise bad_request(f"The {what} has more than {MAX_PARAMS} parameters.")
        name_raw, _, value_raw = part.partition(b"=")
        name = _decoded(name_raw, what, "a parameter name")
        if len(value_raw) > 3 * MAX_VALUE_BYTES:
            raise bad_request(
                f"The {what}'s value of {_shown(name)!r} is longer than {MAX_VALUE_BYTES} bytes."
            )
        value = _decoded(value_raw, what, f"the value of {_shown(name)!r}")
        if len(value.encode("utf-8")) > MAX_VALUE_BYTES:
            raise bad_request(
                f"The {what}'s value of {_shown(name)!r} is longer than {MAX_VALUE_BYTES} bytes."
            )
        pairs.append((name, value))
    return pairs


def _decoded(raw: bytes, what: str, which: str) -> str:
    try:
        return unquote_to_bytes(raw.replace(b"+", b" ")).decode("utf-8")
    except UnicodeDecodeError:
        raise bad_request(f"The {what} is not UTF-8 text ({which}).") from None


@dataclass(frozen=True)
class Query:
    """A request's parameters by name (the last one given wins, except for lists)."""

    pairs: tuple[tuple[str, str], ...] = ()

    @classmethod
    def parse(cls, raw: bytes, what: str = "query string") -> Query:
        return cls(tuple(parse_pairs(raw, what)))

    def all(self, name: str) -> list[str]:
        return [v for k, v in self.pairs if k == name]

    def text(self, name: str, *, limit: int = 255) -> str:
        """The value of `name` ("" when absent), at most `limit` characters, no control
        characters."""
        values = self.all(name)
        value = values[-1].strip() if values else ""
        if len(value) > limit:
            raise bad_request(f"The parameter {name!r} is longer than {limit} characters.")
        if value and not value.isprintable():
            raise bad_request(f"The parameter {name!r} holds a control character.")
        return value

    def name(self, name: str) -> str:
        """A stack, tenant or resource name or id ("" when absent), as the tasks take it."""
        value = self.text(name)
        problem = name_problem(value) if value else None
        if problem:
            raise bad_request(f"The parameter {name!r} {problem}.")
        return value

    def number(self, name: str, *, default: int, low: int, high: int) -> int:
        value = self.text(name, limit=len(str(high)))
        if not value:
            return default
        if not value.isdigit() or not low <= int(value) <= high:
            raise bad_request(
                f"The parameter {name!r} must be a whole number from {low} to {high}, "
                f"not {value!r}."
            )
        return int(value)

    def flag(self, name: str) -> bool:
        value = self.text(name, limit=8).lower()
        if value in ("", "0", "false", "off", "no"):
            return False
        if value in ("1", "true", "on", "yes"):
            return True
        raise bad_request(f"The parameter {name!r} must be 1 or 0, not {value!r}.")

    def choices(self, name: str, allowed: Iterable[str]) -> list[str]:
        """Every value of `name`, each one of `allowed` (case-insensitive), without repeats."""
        known = {a.upper(): a for a in allowed}
        found: list[str] = []
        for value in self.all(name):
            for one in value.split(","):
                word = one.strip().upper()
                if not word:
                    continue
                if word not in known:
                    shown = ", ".join(sorted(known))
                    raise bad_request(
                        f"The parameter {name!r} takes {shown}; {one.strip()[:60]!r} is none "
                        "of them."
                    )
                if known[word] not in found:
                    found.append(known[word])
        return found

    def names(self, name: str, *, most: int = 20) -> list[str]:
        """Every value of `name` (comma-separated too), each a valid name."""
        found: list[str] = []
        for value in self.all(name):
            for one in value.split(","):
                word = one.strip()
                if not word or word in found:
                    continue
                problem = name_problem(word)
                if problem:
                    raise bad_request(f"A value of the parameter {name!r} {problem}.")
                found.append(word)
        if len(found) > most:
            raise bad_request(f"The parameter {name!r} takes at most {most} values.")
        return found


def with_params(path: str, params: Mapping[str, str | int | Sequence[str] | None]) -> str:
    """`path` with the given parameters (None and "" left out), percent-encoded."""
    pairs: list[tuple[str, str]] = []
    for key, value in params.items():
        if value is None or value == "":
            continue
        if isinstance(value, (list, tuple)):
            pairs.extend((key, str(v)) for v in value)
        else:
            pairs.append((key, str(value)))
    return f"{path}?{urlencode(pairs)}" if pairs else path
