"""Resources a delete or a rollback leaves alone: `stack delete --retain` and `stack rollback
--skip` (CloudFormation's --retain-resources and --resources-to-skip).

The way out of an operation stuck on one resource. The named resources' versions are
dropped in the operation's own transaction, before its traversal is planned, so the
traversal has no node for them and their types' delete is never called: their physical
resources stay where they are, and the stack no longer knows them. One event per resource
says so, with the physical ids it held. A rollback skips only what it would remove (a
resource the template it returns to does not have): a resource it returns to would
otherwise be created again beside the one left alone.

Names are checked before anything is written: one that the stack does not have (or that
the rollback returns to) is refused by name, at its place in the list. This module never
calls a resource type.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from conv_tasks.db import EventRecord, StackRow, Transaction
from conv_tasks.engine.stack.launch import Started
from conv_tasks.errors import InvalidInput, Problem
from conv_tasks.statuses import Action, Status

RETAINED = "retained at the request (--retain)"
SKIPPED = "skipped by the rollback at the request (--skip)"


def _listed(names: Collection[str], limit: int = 10) -> str:
    shown = ", ".join(sorted(names)[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")


def checked_names(
    stack: StackRow,
    names: Sequence[str],
    known: Collection[str],
    *,
    field: str,
    kept_by_target: Collection[str] = (),
) -> tuple[str, ...]:
    """`names` each once, or InvalidInput naming each one the stack does not have (and, for
    a rollback, each one its target template keeps), at `field[i]`."""
    problems: list[Problem] = []
    for i, name in enumerate(names):
        if name not in known:
            have = f"its resources are {_listed(known)}" if known else "it has no resources"
            problems.append(
                Problem(f"{field}[{i}]", f"stack {stack.name!r} has no resource {name!r}; {have}")
            )
        elif name in kept_by_target:
            problems.append(
                Problem(
                    f"{field}[{i}]",
                    f"{name!r} is in the template the rollback returns to: a rollback leaves "
                    "alone only resources it would delete (update the stack, or delete it "
                    "with --retain)",
                )
            )
    if problems:
        raise InvalidInput(problems, what="request")
    return tuple(dict.fromkeys(names))


def record_forgotten(
    tx: Transaction, stack: StackRow, kept: dict[str, list[str]], started: Started, why: str
) -> None:
    """One event per resource left alone, in the traversal that left it."""
    records = []
    for name, physical_ids in kept.items():
        held = (
            f"its physical resource {', '.join(physical_ids)} is kept"
            if physical_ids
            else "it held no physical resource"
        )
        records.append(
            EventRecord(
                stack.id,
                Action.DELETE,
                Status.COMPLETE,
                f"{why}: not deleted, and no longer part of the stack; {held}",
                resource_name=name,
                physical_id=physical_ids[-1] if physical_ids else None,
                traversal=started.traversal,
            )
        )
    tx.events.add(records)
