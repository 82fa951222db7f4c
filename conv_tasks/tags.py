"""Stack tags: which are acceptable, and which stacks a `stack list` tag filter keeps.

Pure: no database, no engine. conv_tasks.db.stacks turns a TagFilter into SQL with the same
meaning as TagFilter.matches, which the unit tests pin down (heatclient's four
filters: all of, any of, not all of, none of).

Tags on update follow Heat: given, they replace the stack's tags ([] clears them);
not given, a PATCH-like update (existing parameters kept, or no new template) keeps
them and a full update (a new template without existing parameters) clears them.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conv_tasks.errors import PayloadError, Problem
from conv_tasks.input_text import name_problem
from conv_tasks.limits import MAX_TAG_CHARS, MAX_TAGS


def tag_problems(tags: object, path: str) -> list[Problem]:
    """What is wrong with a list of tags given at `path` (a payload field), or nothing."""
    if not isinstance(tags, list | tuple):
        return [Problem(path, f"must be a list of tags (strings), got {type(tags).__name__}")]
    problems: list[Problem] = []
    if len(tags) > MAX_TAGS:
        problems.append(
            Problem(path, f"holds {len(tags)} tags; the limit is {MAX_TAGS} (MAX_TAGS)")
        )
    for i, tag in enumerate(tags):
        where = f"{path}[{i}]"
        if not isinstance(tag, str):
            problems.append(Problem(where, f"must be a string, got {type(tag).__name__}"))
            continue
        why = _tag_problem(tag)
        if why is not None:
            problems.append(Problem(where, why))
    return problems


def _tag_problem(tag: str) -> str | None:
    if not tag.strip():
        return "a tag must not be empty or blank"
    if len(tag) > MAX_TAG_CHARS:
        return (
            f"is {len(tag)} characters long; tags are limited to {MAX_TAG_CHARS} "
            "characters (MAX_TAG_CHARS)"
        )
    if "," in tag:
        # Heat's API and the CLI take tags comma-separated: a comma could not come back out.
        return f"must not hold a comma: {tag!r}"
    return name_problem(tag)


def checked_tags(tags: object, path: str = "tags") -> tuple[str, ...]:
    """The tags, each once, in the order given; PayloadError naming each bad one."""
    problems = tag_problems(tags, path)
    if problems:
        raise PayloadError(problems)
    assert isinstance(tags, list | tuple)
    return tuple(dict.fromkeys(tags))


def split_tags(text: str) -> list[str]:
    """A comma-separated CLI value ("a,b") as a list; "" is no tags."""
    return [part.strip() for part in text.split(",")] if text.strip() else []


@dataclass(frozen=True)
class TagFilter:
    """heatclient's tag filters of a stack listing; an empty one keeps every stack."""

    all_of: tuple[str, ...] = ()  # --tags: the stack has every one
    any_of: tuple[str, ...] = ()  # --tags-any: the stack has at least one
    not_all_of: tuple[str, ...] = ()  # --not-tags: the stack lacks at least one
    none_of: tuple[str, ...] = ()  # --not-tags-any: the stack has none of them

    def __bool__(self) -> bool:
        return bool(self.all_of or self.any_of or self.not_all_of or self.none_of)

    def matches(self, tags: Iterable[str]) -> bool:
        have = set(tags)
        if self.all_of and not have.issuperset(self.all_of):
            return False
        if self.any_of and have.isdisjoint(self.any_of):
            return False
        if self.not_all_of and have.issuperset(self.not_all_of):
            return False
        return not (self.none_of and not have.isdisjoint(self.none_of))

    @classmethod
    def build(
        cls,
        *,
        tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None,
    ) -> TagFilter:
        """A filter from the list task's fields, each checked as tags are (at its name)."""
        given = {
            "tags": tags,
            "tags_any": tags_any,
            "not_tags": not_tags,
            "not_tags_any": not_tags_any,
        }
        problems = [
            problem
            for name, value in given.items()
            if value is not None
            for problem in tag_problems(value, name)
        ]
        if problems:
            raise PayloadError(problems)
        return cls(*(tuple(dict.fromkeys(value or ())) for value in given.values()))
