"""Several public tasks for one page at once, each in the edge's bounded thread pool."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import anyio

from conv_tasks.ui.context import UiRequest
from conv_tasks.ui.errors import refusal_of_answer


async def answers(
    ui: UiRequest, tenant: str, calls: Mapping[str, tuple[str, dict[str, Any]]]
) -> dict[str, dict[str, Any]]:
    """Each call's answer by key, ok or not; the first error raised (no worker answered)
    is raised once all are done."""
    found: dict[str, dict[str, Any]] = {}
    failures: list[Exception] = []

    async def one(key: str, task: str, kwargs: dict[str, Any]) -> None:
        try:
            found[key] = await ui.gateway.call(tenant, task, **kwargs)
        except Exception as exc:  # raised below, outside the task group
            failures.append(exc)

    async with anyio.create_task_group() as group:
        for key, (task, kwargs) in calls.items():
            group.start_soon(one, key, task, kwargs)
    if failures:
        raise failures[0]
    return found


def ok(answer: Mapping[str, Any]) -> dict[str, Any]:
    """The answer if it is ok; its refusal's page otherwise."""
    if not answer.get("ok"):
        raise refusal_of_answer(answer)
    return dict(answer)


def ok_or_none(answer: Mapping[str, Any]) -> dict[str, Any] | None:
    """The answer if it is ok; None if the stack was not found (deleted since), its
    refusal's page otherwise."""
    if not answer.get("ok") and answer.get("error") == "not_found":
        return None
    return ok(answer)
