"""What a preview says of the real object behind a resource: what its type's `observe` finds,
against what the stack last made it. Names only, never a value (a value may be hidden); a
service that puts the read off is not asked again here. It only reads.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.db import ResourceVersion, StackRow
from conv_tasks.engine.definition import StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.node import masked, observing_context
from conv_tasks.errors import ConvTasksError
from conv_tasks.provider_errors import Throttled, Transient
from conv_tasks.resources import ResourceType


def reality(
    env: EngineEnv, stack: StackRow, head: ResourceVersion, definition: StackDefinition
) -> dict[str, Any] | None:
    """How the real object differs from what the stack last made it (its type's `observe`):
    {"exists": False}, {"exists": True, "differs": [property names]}, {"unknown": why}; None
    when it matches, or the type cannot observe. Names only: a value may be hidden.

    A preview answers at once with what it could read: an observe that the service put off
    (Throttled, Transient) is not asked again here, where a person or a script waits on a
    public worker and a Retry-After may be long; its entry says `"retryable": True` (and the
    service's `"retry_after"` seconds, when it gave them; the CLI: preview again), and the
    rest of the preview stands."""
    try:
        plugin = definition.plugin_type(head.type, env.registry)()
    except ConvTasksError:
        return None
    if type(plugin).observe is ResourceType.observe or head.physical_id is None:
        return None
    ctx = observing_context(env, stack.id, stack.tenant, head, plugin)
    try:
        observed = plugin.observe(ctx)
    except Exception as exc:  # the service did not answer: say so, do not fail the preview
        text = masked(plugin, ctx, str(exc)).strip().splitlines()
        why = definition.reason(head.name, text[0] if text else type(exc).__name__)
        if isinstance(exc, Throttled) and exc.retry_after:
            return {"unknown": why, "retryable": True, "retry_after": exc.retry_after}
        if isinstance(exc, Transient):
            return {"unknown": why, "retryable": True}
        return {"unknown": why}
    if observed is None:
        return None
    if not observed.exists:
        return {"exists": False}
    differs = observed.differences(head.properties)
    return {"exists": True, "differs": differs} if differs else None
