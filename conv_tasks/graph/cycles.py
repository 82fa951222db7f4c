"""Finding a dependency cycle among named resources, so that it can be reported to a user.

Iterative depth-first search (a 10,000-long chain must not hit the recursion limit), linear in
names + dependencies apart from sorting each name's requirements, which makes the reported
cycle independent of set iteration order. It only answers; raising is the caller's choice.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping


def find_cycle(deps: Mapping[str, Iterable[str]]) -> list[str] | None:
    """The names on one cycle, each requiring the next (the last requires the first), or None.

    deps maps a name to the names it requires; a required name that is not a key has no
    requirements of its own.
    """
    finished: set[str] = set()
    for start in deps:
        if start in finished:
            continue
        path = [start]
        position = {start: 0}
        pending: list[Iterator[str]] = [iter(sorted(deps[start]))]
        while pending:
            for required in pending[-1]:
                if required in position:
                    return path[position[required] :]
                if required not in finished:
                    position[required] = len(path)
                    path.append(required)
                    pending.append(iter(sorted(deps.get(required, ()))))
                    break
            else:
                name = path.pop()
                del position[name]
                finished.add(name)
                pending.pop()
    return None
