"""Graph nodes: which resource, and which half of its traversal (update or clean-up).

A NodeKey is a plain value that travels in task payloads as text ("update:web"), so it must
round-trip through str()/parse() exactly. This module must never know about rows, versions,
tasks or storage; it only names nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter

from conv_tasks.errors import InvalidInput


class Phase(StrEnum):
    """Which half of a resource's traversal a node is."""

    UPDATE = "update"  # converge the resource to the template
    CLEANUP = "cleanup"  # purge its out-of-date versions
    CHECK = "check"  # a stack check: ask the resource type whether the resource is healthy
    SUSPEND = "suspend"  # a stack suspend: suspend the resource once its dependants are
    RESUME = "resume"  # a stack resume: resume the resource once its dependencies are


_PHASES = tuple(Phase)

#: A sort key giving the same order as NodeKey's own comparisons, but computed in C.
sort_key = attrgetter("phase", "name")

_EXPECTED = "expected '<phase>:<resource name>', the phase one of " + ", ".join(
    repr(str(phase)) for phase in Phase
)


@dataclass(frozen=True, order=True)
class NodeKey:
    """One node of a traversal graph: the update or the clean-up of one named resource."""

    phase: Phase
    name: str

    def __post_init__(self) -> None:
        if self.phase not in _PHASES:
            raise InvalidInput(
                f"the phase {self.phase!r} is unknown; it must be one of "
                f"{', '.join(repr(str(p)) for p in _PHASES)}.",
                what="graph node",
            )
        object.__setattr__(self, "phase", Phase(self.phase))
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInput(
                f"the resource name {self.name!r} must be a non-empty string.", what="graph node"
            )
        # Graph code looks keys up in dicts and sets all the time; hash each key only once.
        object.__setattr__(self, "_hash", hash((self.phase, self.name)))

    def __hash__(self) -> int:
        return self._hash  # type: ignore[attr-defined]

    def __reduce__(self) -> tuple[type[NodeKey], tuple[str, str]]:
        # String hashes differ between processes: rebuild rather than restore the cached hash.
        return (NodeKey, (self.phase, self.name))

    def __str__(self) -> str:
        return f"{self.phase}:{self.name}"

    @classmethod
    def parse(cls, text: str) -> NodeKey:
        """The NodeKey whose str() is text. Only the first ':' separates: names may hold ':'."""
        if not isinstance(text, str):
            raise InvalidInput(f"{text!r} is not a graph node; {_EXPECTED}.", what="graph node")
        phase, sep, name = text.partition(":")
        if not sep or phase not in _PHASES or not name:
            raise InvalidInput(f"{text!r} is not a graph node; {_EXPECTED}.", what="graph node")
        return cls(Phase(phase), name)
