"""The end of a conformance run: every stack its checks made is deleted, or said to be left.

A check deletes the stacks it makes when it ends; one that failed half-way may leave its stack
created, or under way in the test process. The clean-up takes every stack the run made, ends
the leases the test process may still hold on it (as a dead worker's would run out), and has
the workers delete what is not deleted yet. A stack that does not end DELETE_COMPLETE is
reported by name, with its resource's reason: what it made may be left in the service.
"""

from __future__ import annotations

from collections.abc import Iterable

from conv_tasks.testing.case import UNDER_TEST, TypeCase
from conv_tasks.testing.cluster import Cluster
from conv_tasks.testing.inprocess import InProcessEngine
from conv_tasks.testing.report import CheckFailed

CLEAN_UP = "clean up"


def clean_up(
    cluster: Cluster, case: TypeCase, engine: InProcessEngine, stack_ids: Iterable[str]
) -> str:
    """Delete what is left of `stack_ids`; what was done. CheckFailed naming every stack
    that could not be deleted."""
    client = cluster.client(case.tenant)
    made = list(dict.fromkeys(stack_ids))
    left: list[str] = []
    deleted = 0
    for stack_id in made:
        stack = engine.stack(stack_id)
        if stack.deleted:
            continue
        try:
            engine.expire_leases(stack_id)
            client.delete(stack_id)
            final = cluster.wait(case, client, stack_id, "DELETE")
        except Exception as exc:  # a clean-up goes on to the next stack, and says what it saw
            left.append(
                f"{stack.name} ({stack.state}): its delete raised {type(exc).__name__}: {exc}"
            )
            continue
        if final["status"] == "DELETE_COMPLETE":
            deleted += 1
            continue
        reasons = [
            f"{UNDER_TEST} is {r['status']}: {r['status_reason'] or '-'}"
            for r in client.resources(stack_id)
            if r["name"] == UNDER_TEST
        ]
        said = reasons[0] if reasons else str(final.get("status_reason") or "no reason given")
        left.append(f"{stack.name} ended {final['status']} ({said})")
    if left:
        raise CheckFailed(
            "delete what the checks made",
            f"{len(left)} of the {len(made)} stack(s) the checks made could not be deleted, and "
            f"what they made may be left in the service: {'; '.join(left)}",
        )
    if not deleted:
        return f"the {len(made)} stack(s) the checks made were deleted by their checks"
    return (
        f"the {len(made)} stack(s) the checks made are deleted ({deleted} left by a check that "
        "did not pass, deleted here)"
    )
