"""The arithmetic of batched group changes: how big the group is after each batch, and how
many members take the new definition in it.

A rolling update may grow the group above its target for a while (new members
first, old ones removed later) so that at least min_in_service members stay
untouched during every batch. These are Heat's numbers (heat/scaling/
rolling_update.py); batches.py decides which members they apply to. Pure
integer arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Step:
    """One batch: the group's size after it, and how many members get the new definition
    in it (members created count among them)."""

    capacity: int
    new: int


def needs_batch(target: int, current: int, up_to_date: int) -> bool:
    """True while the group is not yet target members that all have the new definition."""
    return not (up_to_date >= current == target)


def next_step(
    target: int, current: int, up_to_date: int, batch_size: int, min_in_service: int
) -> Step:
    """The batch after a state of current members, up_to_date of which have the new one."""
    if up_to_date > current:
        raise ValueError(f"{up_to_date} members up to date out of {current}")
    # A group smaller than min_in_service (or shrinking below it) keeps what it can.
    least_in_service = min(min_in_service, target, current)
    batch = min(batch_size, max(target - up_to_date, 0))
    untouched = max(min(current, target - batch), least_in_service)
    return Step(batch + untouched, batch)


def steps(target: int, current: int, batch_size: int, min_in_service: int) -> tuple[Step, ...]:
    """Every batch from current members (none up to date) to target members, all up to date."""
    if target < 0 or current < 0 or batch_size < 1 or min_in_service < 0:
        raise ValueError(
            f"no batches for target {target}, current {current}, "
            f"batch size {batch_size}, min_in_service {min_in_service}"
        )
    found: list[Step] = []
    up_to_date = 0
    # Each batch brings at least one member up to date or shrinks the group to its
    # target, so this many rounds is more than enough; more would be a bug here.
    limit = 2 * (target + current) + 2
    while needs_batch(target, current, up_to_date):
        if len(found) > limit:
            raise RuntimeError(f"batches do not converge: {found[:5]}...")
        step = next_step(target, current, up_to_date, batch_size, min_in_service)
        found.append(step)
        # Members added only to keep min_in_service do not count as brought up to date:
        # they are removed again once the old ones are replaced.
        up_to_date += step.new - max(step.capacity - max(current, target), 0)
        current = step.capacity
    return tuple(found)
