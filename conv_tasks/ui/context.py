"""What a page handler gets: the request, who is looking for which tenant, the task calls.

A Viewer is the signed-in browser (or, with noauth, the tenant its URL names) and the tenant
whose stacks a page reads. An operator's session (tenant `*`) reads any tenant's, named by
the `tenant` parameter; everyone else reads only their own, and a `tenant` parameter naming
another is answered as a stack that does not exist would be.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

from starlette.requests import Request

from conv_tasks.edge import TaskGateway
from conv_tasks.ui.config import UiConfig
from conv_tasks.ui.errors import bad_request, refusal_of_answer
from conv_tasks.ui.query import Query, with_params
from conv_tasks.ui.routes import Page
from conv_tasks.ui.session import Session


@dataclass(frozen=True)
class Viewer:
    """Who is looking (`signed_in_as`, `*` for an operator) and whose stacks a page reads
    (`tenant`; "" for an operator's list of every tenant's)."""

    signed_in_as: str
    tenant: str
    operator: bool = False
    # Whether the page's links carry ?tenant= (an operator's, or a tenant chosen in the URL).
    tenant_in_links: bool = False
    session: Session | None = None

    def stack_tenant(self) -> str:
        """The tenant a stack's page reads; an operator must name it."""
        if not self.tenant:
            raise bad_request(
                "An operator's view of a stack needs its tenant: add ?tenant=<its tenant> "
                "(the stacks list's links carry it)."
            )
        return self.tenant


@dataclass
class UiRequest:
    request: Request
    page: Page
    query: Query
    config: UiConfig
    gateway: TaskGateway
    viewer: Viewer | None = None
    started: float = field(default_factory=time.monotonic)

    @property
    def htmx(self) -> bool:
        """An htmx request: it wants a fragment, not a whole page."""
        return self.request.headers.get("hx-request") == "true"

    def param(self, name: str) -> str:
        return self.page.params[name]

    def link(self, path: str, /, **params: Any) -> str:
        """`path` with `params`, and the tenant when this viewer's links carry it."""
        viewer = self.viewer
        if viewer is not None and viewer.tenant_in_links and "tenant" not in params:
            params = {"tenant": viewer.tenant or (None if viewer.operator else "")} | params
        return with_params(path, params)

    def tenant_link(self, path: str, tenant: str, /, **params: Any) -> str:
        """A link to another tenant's page (an operator's list links every tenant's)."""
        if self.viewer is not None and self.viewer.tenant_in_links:
            return with_params(path, {"tenant": tenant, **params})
        return with_params(path, params)

    async def task(
        self, task: str, /, *, tenant: str | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The answer of public task `task` for the page's tenant; a UiError page if it was
        refused (404 for another tenant's stack, as for one that does not exist)."""
        assert self.viewer is not None
        who = tenant if tenant is not None else self.viewer.stack_tenant()
        answer = await self.gateway.call(who, task, **kwargs)
        if not answer.get("ok"):
            raise refusal_of_answer(answer)
        return answer
