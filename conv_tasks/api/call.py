"""What a handler gets (Call: the operation, the caller's tenant, the request's parts, and the
gateway to send tasks through) and what it answers (Reply, or AnswerFault when a task
refused the request: its answer becomes Heat's fault body)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from conv_tasks.api.json_body import check_content_type, parse_object
from conv_tasks.api.operations import Operation
from conv_tasks.edge import TaskGateway, fault_of_answer
from conv_tasks.errors import ConvTasksError


@dataclass(frozen=True)
class Call:
    """What a handler gets: the operation, who asks, and the request's parts."""

    operation: Operation
    gateway: TaskGateway
    base_url: str
    path: str
    query: Mapping[str, Sequence[str]]
    body: bytes = b""
    content_type: str | None = None
    # X-Auth-Token, for the addresses servers call with their own credential (never logged).
    auth_token: str | None = field(default=None, repr=False)

    @property
    def tenant(self) -> str:
        return self.operation.tenant

    def param(self, name: str) -> str:
        return self.operation.params[name]

    def object_body(self, *, required: bool = True) -> dict[str, Any]:
        check_content_type(self.content_type, self.body)
        return parse_object(self.body, required=required)

    async def task(self, task: str, **kwargs: Any) -> dict[str, Any]:
        """The task's answer when it is `ok`; raises its fault otherwise."""
        answer = await self.gateway.call(self.tenant, task, **kwargs)
        if not answer.get("ok"):
            raise AnswerFault(answer)
        return answer


class AnswerFault(ConvTasksError):
    """A task refused the request: its answer becomes Heat's fault body."""

    code = "task_refusal"

    def __init__(self, answer: Mapping[str, Any]) -> None:
        super().__init__(str(answer.get("message", "")))
        self.fault = fault_of_answer(answer)


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)


Handler = Callable[[Call], Awaitable[Reply]]


def stack_ref(call: Call) -> str:
    """The stack the call's address names, by its id."""
    return call.param("stack_id")
