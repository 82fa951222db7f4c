"""Which members a ResourceGroup has: names, removal policies and the names never reused.

Members are named by their index ("0", "1", ...). A name listed by a removal
policy goes on the group's skip list: the member is removed even when the
count does not shrink, and the name is never given to a member again, so
the group fills up with the next free indices. Shrinking the count without a
removal policy drops the highest indices. Pure functions over names; the
skip list itself is kept by the plugin between operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import count as naturals

from conv_tasks.resources.builtin.group.schema import APPEND, UPDATE


def index_order(name: str) -> tuple[int, int, str]:
    """Sort key: member names by index; a name that is not an index (only possible on a
    skip list) after them, alphabetically."""
    if name.isdigit():
        return (0, int(name), "")
    return (1, 0, name)


def member_names(count: int, skiplist: Iterable[str]) -> tuple[str, ...]:
    """The names of a group of count members: the lowest indices not on the skip list."""
    skipped = frozenset(skiplist)
    names: list[str] = []
    for index in naturals():
        if len(names) >= count:
            break
        name = str(index)
        if name not in skipped:
            names.append(name)
    return tuple(names)


def removed_names(
    entries: Sequence[str | int],
    *,
    skiplist: Iterable[str],
    members: Iterable[str],
    refs: Mapping[str, str | None],
    created: bool,
) -> tuple[str, ...]:
    """The member names that removal_policies entries stand for.

    An entry is taken as a name when it is one already (on the skip list, a current member,
    including failed ones) or when the group was never created (no references exist yet);
    otherwise a string entry is looked up among the members' references (refs: name ->
    reference). An entry that matches nothing names nothing, as in Heat: the member it meant
    may be gone already.
    """
    skipped = frozenset(skiplist)
    current = frozenset(members)
    names: list[str] = []
    for entry in entries:
        text = str(entry)
        if text in skipped or text in current or not created:
            names.append(text)
        elif isinstance(entry, str):
            owner = next((name for name, ref in refs.items() if ref == entry), None)
            if owner is not None:
                names.append(owner)
    return tuple(dict.fromkeys(names))


def next_skiplist(
    current: Iterable[str],
    entries: Sequence[str | int],
    mode: str,
    *,
    members: Iterable[str],
    refs: Mapping[str, str | None],
    created: bool,
) -> tuple[str, ...]:
    """The skip list after an operation with these removal_policies entries, sorted.

    mode append keeps what was skipped before; update keeps only what the entries name now
    (a name dropped from the policies may then be used again).
    """
    before = tuple(current)
    if mode not in (APPEND, UPDATE):
        raise ValueError(f"unknown removal_policies_mode {mode!r}")
    kept = before if mode == APPEND else ()
    added = removed_names(entries, skiplist=before, members=members, refs=refs, created=created)
    return tuple(sorted(set(kept) | set(added)))


@dataclass(frozen=True)
class Resize:
    """How a group's membership changes: every tuple in index order."""

    names: tuple[str, ...]
    kept: tuple[str, ...]
    added: tuple[str, ...]
    removed: tuple[str, ...]


def resize(existing: Iterable[str], count: int, skiplist: Iterable[str]) -> Resize:
    """From the existing member names to a group of count members avoiding the skip list."""
    present = frozenset(existing)
    names = member_names(count, skiplist)
    wanted = frozenset(names)
    return Resize(
        names=names,
        kept=tuple(n for n in names if n in present),
        added=tuple(n for n in names if n not in present),
        removed=tuple(sorted(present - wanted, key=index_order)),
    )
