"""Plans of a ResourceGroup's create and update: the child template of every batch.

Without an update policy a change is one batch: the group's new template. With
batch_create the members are created max_batch_size at a time; with
rolling_update a change of resource_def reaches the members max_batch_size at
a time while at least min_in_service of them stay untouched, waiting
pause_time between batches. Within a batch, as in Heat, members outside the
new size go first, then the highest indices are updated first; new members
take the lowest free names. A plan is computed once, from the child stack's
members as they are, assuming every batch succeeds (a failed batch fails the
operation). Pure: it never acts on anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from conv_tasks.resources.builtin.group.capacity import needs_batch, next_step
from conv_tasks.resources.builtin.group.names import index_order, member_names
from conv_tasks.resources.builtin.group.nested import member_definition
from conv_tasks.resources.builtin.group.properties import (
    BatchCreate,
    GroupProperties,
    RollingUpdate,
)
from conv_tasks.sdk import InvalidInput, Problem

# name -> the member's resource in the child template, with the new resource_def.
Definer = Callable[[str], Mapping[str, Any]]


@dataclass(frozen=True)
class Member:
    """A member of the child stack as it is: its resource in the child template, and whether
    it failed (a failed member is not kept as it is; its name may be given a new member)."""

    name: str
    definition: Mapping[str, Any]
    failed: bool = False


@dataclass(frozen=True)
class Batch:
    """One update of the child stack. resources: the child template's members, in index order.
    changed: those given the new definition in this batch (created ones included)."""

    resources: tuple[tuple[str, Mapping[str, Any]], ...]
    changed: tuple[str, ...]
    created: tuple[str, ...]
    removed: tuple[str, ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.resources)

    def summary(self) -> dict[str, list[str]]:
        """What the batch changes, small and JSON-able, for plugin data: replay() turns it
        back into the batch's resources from the child template as it then is."""
        return {"changed": list(self.changed), "removed": list(self.removed)}


@dataclass(frozen=True)
class BatchPlan:
    """The batches of one operation, in order, and the pause between two of them."""

    batches: tuple[Batch, ...]
    pause_time: float = 0.0

    @property
    def total_pause(self) -> float:
        return self.pause_time * max(len(self.batches) - 1, 0)


def plan_batches(
    members: Sequence[Member],
    *,
    count: int,
    skiplist: Sequence[str],
    definer: Definer,
    max_batch_size: int,
    min_in_service: int,
) -> tuple[Batch, ...]:
    """Batches from members (in creation order) to count members with the new definition.

    Each batch is sized by Heat's arithmetic (capacity.next_step) from the group as the
    batches before it left it. Heat counts failed members in the size and keeps a tally of
    members brought up to date; with failed members or names outside the size that tally
    drifts and an update can end with members still old. Counting what the group really is
    gives Heat's batches whenever the tally is right, and converges when it is not.
    Batches in which nothing would change are left out: they would only add a pause.
    """
    if count < 0 or max_batch_size < 1 or min_in_service < 0:
        raise ValueError(
            f"no batches for count {count}, max_batch_size {max_batch_size}, "
            f"min_in_service {min_in_service}"
        )
    skipped = frozenset(skiplist)
    wanted = frozenset(member_names(count, skipped))
    definer = _cached(definer)
    state = [m for m in members if not m.failed and m.name not in skipped]
    # Names of the members that have the new definition: kept up to date batch by batch
    # so that a large group is not compared member by member in every round.
    fresh = {m.name for m in state if dict(m.definition) == dict(definer(m.name))}
    # Failed and skipped members leave with the first batch: no batch keeps them.
    leaving = [m.name for m in members if m.failed or m.name in skipped]
    batches: list[Batch] = []
    # Every batch brings a member up to date or shrinks the group; more rounds than this
    # would be a bug here, not a long update.
    limit = 2 * (len(members) + count) + 2
    for _ in range(limit):
        up_to_date = len(fresh & wanted)
        if not leaving and not needs_batch(count, len(state), up_to_date):
            return tuple(batches)
        step = next_step(count, len(state), up_to_date, max_batch_size, min_in_service)
        batch, state = _batch(
            state, fresh, leaving, step.capacity, step.new, count, skipped, definer
        )
        fresh = (fresh - set(batch.removed)) | set(batch.changed)
        leaving = []
        if batch.changed or batch.removed:
            batches.append(batch)
    raise RuntimeError(f"group batches do not converge: {batches[:3]}...")


def _cached(definer: Definer) -> Definer:
    # A member's new definition depends only on its name; substituting it once is enough.
    made: dict[str, Mapping[str, Any]] = {}

    def cached(name: str) -> Mapping[str, Any]:
        if name not in made:
            made[name] = definer(name)
        return made[name]

    return cached


def _batch(
    state: list[Member],
    fresh: set[str],
    leaving: list[str],
    capacity: int,
    new: int,
    target: int,
    skipped: frozenset[str],
    definer: Definer,
) -> tuple[Batch, list[Member]]:
    """One batch of capacity members, new of them given the new definition, as Heat picks
    them; and the members after it."""
    names = member_names(capacity, skipped)
    position = {name: n for n, name in enumerate(names)}

    def priority(member: Member) -> int:
        # Lowest first: members outside this size are the first dropped; then the members
        # to update, highest index first; members beyond the target (kept for
        # min_in_service) last.
        index = position.get(member.name)
        if index is None:
            return 0
        return target - index if index < target else capacity

    ordered = sorted(state, key=priority)
    kept = ordered[max(len(ordered) - capacity, 0) :]
    taken = {m.name for m in kept}
    free_names = iter(n for n in names if n not in taken)
    replace = new - (capacity - len(kept))
    after: list[Member] = []
    changed: list[str] = []
    outside: list[Member] = []
    for member in kept:
        if member.name not in position:
            # A gap below it (left by failed members or freed names) put this member
            # outside the size: it stays in service while the batch allows, and is moved to
            # a free name with what the batch has left, never updated where it is.
            outside.append(member)
            continue
        if replace > 0 and member.name not in fresh:
            replace -= 1
            after.append(Member(member.name, definer(member.name)))
            changed.append(member.name)
        else:
            after.append(member)
    moved = outside[: max(replace, 0)]
    after.extend(outside[len(moved) :])
    created = [next(free_names) for _ in range(capacity - len(kept) + len(moved))]
    after.extend(Member(name, definer(name)) for name in created)
    staying = {m.name for m in after}
    removed = {m.name for m in state} - staying
    removed.update(name for name in leaving if name not in staying)
    batch = Batch(
        resources=tuple(
            (m.name, m.definition) for m in sorted(after, key=lambda m: index_order(m.name))
        ),
        changed=tuple(sorted([*changed, *created], key=index_order)),
        created=tuple(sorted(created, key=index_order)),
        removed=tuple(sorted(removed, key=index_order)),
    )
    return batch, after


def plan_create(
    group: GroupProperties, skiplist: Sequence[str], batch_create: BatchCreate | None
) -> BatchPlan:
    """How a group is created: all at once, or in batches of batch_create.max_batch_size."""
    if batch_create is None or group.count == 0:
        return BatchPlan((_whole(group, skiplist, ()),))
    batches = plan_batches(
        (),
        count=group.count,
        skiplist=skiplist,
        definer=group_definer(group),
        max_batch_size=batch_create.max_batch_size,
        min_in_service=0,
    )
    return BatchPlan(batches, batch_create.pause_time)


def plan_update(
    members: Sequence[Member],
    group: GroupProperties,
    skiplist: Sequence[str],
    rolling_update: RollingUpdate | None,
    *,
    definition_changed: bool,
) -> BatchPlan:
    """How a group is updated: in rolling batches when resource_def changed and the group has
    a rolling_update policy, otherwise in one batch (a resize, or every member at once)."""
    if rolling_update is None or not definition_changed:
        return BatchPlan((_whole(group, skiplist, members),))
    batches = plan_batches(
        members,
        count=group.count,
        skiplist=skiplist,
        definer=group_definer(group),
        max_batch_size=rolling_update.max_batch_size,
        min_in_service=rolling_update.min_in_service,
    )
    return BatchPlan(batches, rolling_update.pause_time)


def _whole(group: GroupProperties, skiplist: Sequence[str], members: Sequence[Member]) -> Batch:
    names = member_names(group.count, skiplist)
    before = {m.name: m for m in members}
    resources = tuple((n, member_definition(group.resource_def, n, group.index_var)) for n in names)
    return Batch(
        resources=resources,
        changed=tuple(
            n
            for n, d in resources
            if n not in before or before[n].failed or dict(before[n].definition) != d
        ),
        created=tuple(n for n in names if n not in before),
        removed=tuple(sorted(before.keys() - set(names), key=index_order)),
    )


def replay(
    current: Mapping[str, Mapping[str, Any]],
    summary: Mapping[str, Sequence[str]],
    definer: Definer,
) -> tuple[tuple[str, Mapping[str, Any]], ...]:
    """The child template's members after a batch: current (the members before it, name ->
    resource) less the removed ones, with the changed ones given the new definition."""
    removed = set(summary["removed"])
    resources = {name: d for name, d in current.items() if name not in removed}
    resources.update((name, definer(name)) for name in summary["changed"])
    return tuple((name, resources[name]) for name in sorted(resources, key=index_order))


def group_definer(group: GroupProperties) -> Definer:
    """A member's resource with the group's current resource_def."""
    return lambda name: member_definition(group.resource_def, name, group.index_var)


def check_pause_fits(plan: BatchPlan, timeout: float, *, path: str) -> float:
    """The time left for the batches themselves once the pauses are taken out of timeout
    (seconds); InvalidInput naming path (the policy's pause_time) if the pauses alone fill it."""
    if plan.total_pause >= timeout:
        raise InvalidInput(
            [
                Problem(
                    path,
                    f"{len(plan.batches)} batches with {plan.pause_time:g} seconds between them "
                    f"pause {plan.total_pause:g} seconds, which leaves nothing of the "
                    f"{timeout:g} seconds the operation may take; lower pause_time, raise "
                    "max_batch_size or give the stack a longer timeout.",
                )
            ],
            what="update_policy",
        )
    return timeout - plan.total_pause
