"""Support status of resource types, properties and attributes (seed 004).

A SupportStatus says whether something may be used, since which release, and
what it was before (``previous_status``). The chain of previous statuses must
follow the life cycle UNSUPPORTED -> SUPPORTED -> DEPRECATED -> HIDDEN, with
DEPRECATED -> UNSUPPORTED as the other way out; it is checked on construction.
This module only describes; it never decides what the engine does with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from conv_tasks.errors import InvalidInput, Problem

SUPPORTED = "SUPPORTED"
"""May be used (the default)."""
DEPRECATED = "DEPRECATED"
"""Still works; a template that uses it gets a warning saying what to use instead."""
HIDDEN = "HIDDEN"
"""Still works, with a warning; left out of listings and of `resource-type show`."""
UNSUPPORTED = "UNSUPPORTED"
"""Not yet, or no longer, supported: it still works, with a warning."""
STATUSES = (SUPPORTED, DEPRECATED, HIDDEN, UNSUPPORTED)

# Which status may directly follow which. UNSUPPORTED -> SUPPORTED is only
# legal when the UNSUPPORTED is the very first status (the optional start of
# the life cycle); an UNSUPPORTED reached from DEPRECATED is an end.
_SUCCESSORS: dict[str, frozenset[str]] = {
    UNSUPPORTED: frozenset({SUPPORTED}),
    SUPPORTED: frozenset({DEPRECATED}),
    DEPRECATED: frozenset({HIDDEN, UNSUPPORTED}),
    HIDDEN: frozenset(),
}


@dataclass(frozen=True)
class SupportStatus:
    """The current status of an object and, through previous_status, its history."""

    status: str = SUPPORTED
    """SUPPORTED, DEPRECATED, HIDDEN or UNSUPPORTED."""
    version: str | None = None
    """The release since which the status holds ("5.0.0")."""
    message: str | None = None
    """Why, and what to use instead: said in warnings."""
    substitute_class: type | None = None
    """The type that replaces this one: a resource whose type changes to it (or to a subclass
    of it) is updated in place, not replaced."""
    previous_status: SupportStatus | None = None
    """The status before this one, in the life cycle's order."""

    def __post_init__(self) -> None:
        problems = []
        if self.status not in STATUSES:
            problems.append(
                Problem(
                    "support_status.status",
                    f"{self.status!r} is not a support status; use one of {', '.join(STATUSES)}.",
                )
            )
        if self.version is not None and not isinstance(self.version, str):
            problems.append(Problem("support_status.version", "must be a string such as '5.0.0'."))
        if self.message is not None and not isinstance(self.message, str):
            problems.append(Problem("support_status.message", "must be a string."))
        if self.substitute_class is not None and not isinstance(self.substitute_class, type):
            problems.append(Problem("support_status.substitute_class", "must be a class."))
        previous = self.previous_status
        if previous is not None:
            if not isinstance(previous, SupportStatus):
                problems.append(
                    Problem("support_status.previous_status", "must be a SupportStatus.")
                )
            elif not _may_follow(previous, self.status):
                problems.append(
                    Problem(
                        "support_status.previous_status",
                        f"{self.status} cannot follow {previous.status}; the life cycle is "
                        "UNSUPPORTED -> SUPPORTED -> DEPRECATED -> HIDDEN or "
                        "DEPRECATED -> UNSUPPORTED.",
                    )
                )
        if problems:
            raise InvalidInput(problems, what="support status")

    @property
    def hidden(self) -> bool:
        return self.status == HIDDEN

    def history(self) -> list[SupportStatus]:
        """Every status this object has had, oldest first, ending with this one."""
        chain: list[SupportStatus] = []
        current: SupportStatus | None = self
        while current is not None:
            chain.append(current)
            current = current.previous_status
        chain.reverse()
        return chain

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able form, previous statuses nested."""
        return {
            "status": self.status,
            "version": self.version,
            "message": self.message,
            "substitute_class": _class_name(self.substitute_class),
            "previous_status": self.previous_status.to_dict() if self.previous_status else None,
        }

    def describe(self) -> str:
        """'DEPRECATED since 5.0.0: Use X instead.' - the status as the end of a sentence."""
        text = self.status
        if self.version:
            text += f" since {self.version}"
        if self.message:
            text += f": {self.message.strip()}"
            if not text.endswith((".", "!", "?")):
                text += "."
        else:
            text += "."
        substitute = _class_name(self.substitute_class)
        if substitute and substitute not in (self.message or ""):
            text += f" Use {substitute} instead."
        return text


def _may_follow(previous: SupportStatus, status: str) -> bool:
    if status not in _SUCCESSORS.get(previous.status, frozenset()):
        return False
    return not (previous.status == UNSUPPORTED and previous.previous_status is not None)


def _class_name(cls: type | None) -> str | None:
    if cls is None:
        return None
    name = getattr(cls, "type_name", None)
    return name if isinstance(name, str) and name else cls.__qualname__
