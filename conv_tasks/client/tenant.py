"""Client: a tenant's view of conv_tasks, put together from the folder's parts."""

from __future__ import annotations

from conv_tasks.client.agents import AgentCalls
from conv_tasks.client.operations import StackOperations
from conv_tasks.client.reads import StackReads


class Client(StackOperations, StackReads, AgentCalls):
    """A tenant's view of conv_tasks: `Client(app=None, *, tenant="default", timeout=60.0)`.

    Without `app`, it sends with sender_app(), which never sends task-sent events; an app
    of yours is used with your settings as they are. Every call waits `timeout` seconds at
    most for its answer."""
