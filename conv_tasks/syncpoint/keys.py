"""The Redis key names of SyncPoints and heartbeats, and which names may go into them.

Every key of a traversal carries the traversal as a hash tag ({traversal}),
so a Redis Cluster keeps a traversal's keys in one slot (the finish script
touches many of them) and drop() finds them all by one prefix. This module
never talks to Redis.
"""

from __future__ import annotations

from dataclasses import dataclass

from conv_tasks.errors import Problem

# Characters SCAN MATCH treats as a pattern; escaped so names match literally.
_GLOB_SPECIAL = frozenset("*?[]\\")


def _glob_escape(text: str) -> str:
    return "".join(f"\\{c}" if c in _GLOB_SPECIAL else c for c in text)


def check_name(value: object, path: str, what: str, problems: list[Problem]) -> bool:
    """Record a problem unless value is a non-empty string Redis can store."""
    if not isinstance(value, str) or not value:
        problems.append(Problem(path, f"{what} must be a non-empty string, got {value!r}."))
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        problems.append(Problem(path, f"{what} {value!r} is not valid UTF-8 text."))
        return False
    return True


def check_traversal(value: object, problems: list[Problem]) -> bool:
    """A traversal name is also a hash tag, so it may not hold braces."""
    if not check_name(value, "traversal", "the traversal ID", problems):
        return False
    text = str(value)
    if "{" in text or "}" in text:
        # A brace would end the hash tag early and let drop() of one traversal
        # match the keys of another.
        problems.append(Problem("traversal", f"the traversal ID {text!r} may not contain braces."))
        return False
    return True


@dataclass(frozen=True)
class KeyLayout:
    """Key names under one prefix.

    `<prefix>:sp:{<traversal>}:<node>` is a SyncPoint hash, `<prefix>:hb:{<traversal>}` the
    traversal's heartbeat.
    """

    prefix: str

    def point(self, traversal: str, node: str) -> str:
        return f"{self.prefix}:sp:{{{traversal}}}:{node}"

    def heartbeat(self, traversal: str) -> str:
        return f"{self.prefix}:hb:{{{traversal}}}"

    def points_prefix(self, traversal: str) -> str:
        """What every SyncPoint key of one traversal starts with (the node name follows)."""
        return f"{self.prefix}:sp:{{{traversal}}}:"

    def points_pattern(self, traversal: str) -> str:
        """A SCAN MATCH pattern for every SyncPoint of one traversal, and nothing else."""
        return _glob_escape(f"{self.prefix}:sp:{{{traversal}}}:") + "*"
