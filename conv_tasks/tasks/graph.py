"""Public task conv_tasks.stack.graph: the stack's traversal graph with live node statuses."""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import stack_graph
from conv_tasks.tasks.public import STACK, TENANT, public_task
from conv_tasks.tasks.runtime import engine_env


@public_task("conv_tasks.stack.graph", [TENANT, STACK], reads=True)
def graph(tenant: str, stack: str) -> dict[str, Any]:
    return stack_graph(engine_env(), tenant, stack)
