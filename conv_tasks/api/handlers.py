"""One function per Heat operation, by the operation's name (operations.py routes to them):
the stacks' (stack_handlers.py), their resources', events' and the resource types'
(resource_handlers.py), and the hosts' own addresses (host_handlers.py). Each reads the
request, calls a task and shapes the answer (call.py: what a handler gets and answers).
"""

from __future__ import annotations

from conv_tasks.api.call import AnswerFault, Call, Handler, Reply
from conv_tasks.api.host_handlers import agent_metadata, agent_signal, handle_signal
from conv_tasks.api.resource_handlers import (
    event_list,
    event_show,
    resource_list,
    resource_mark_unhealthy,
    resource_show,
    resource_signal,
    resource_type_list,
    resource_type_show,
    resource_type_template,
)
from conv_tasks.api.stack_handlers import (
    health,
    output_list,
    output_show,
    stack_action,
    stack_create,
    stack_delete,
    stack_environment,
    stack_files,
    stack_list,
    stack_lookup,
    stack_patch,
    stack_preview,
    stack_preview_update,
    stack_show,
    stack_template,
    stack_update,
    template_validate,
    versions,
)

__all__ = ["HANDLERS", "AnswerFault", "Call", "Reply"]

HANDLERS: dict[str, Handler] = {
    "versions": versions,
    "health": health,
    "stack_list": stack_list,
    "stack_create": stack_create,
    "stack_preview": stack_preview,
    "stack_lookup": stack_lookup,
    "stack_show": stack_show,
    "stack_update": stack_update,
    "stack_patch": stack_patch,
    "stack_preview_update": stack_preview_update,
    "stack_delete": stack_delete,
    "stack_action": stack_action,
    "stack_template": stack_template,
    "stack_environment": stack_environment,
    "stack_files": stack_files,
    "output_list": output_list,
    "output_show": output_show,
    "event_list": event_list,
    "event_show": event_show,
    "resource_list": resource_list,
    "resource_show": resource_show,
    "resource_mark_unhealthy": resource_mark_unhealthy,
    "resource_signal": resource_signal,
    "template_validate": template_validate,
    "resource_type_list": resource_type_list,
    "resource_type_show": resource_type_show,
    "resource_type_template": resource_type_template,
    "handle_signal": handle_signal,
    "agent_metadata": agent_metadata,
    "agent_signal": agent_signal,
}
