"""`conv-tasks stack ...`: the group of the commands on whole stacks.

The operations that change a stack are in stack_operations.py, the views of what
it is now in stack_views.py; this module only puts them under one name.
"""

from __future__ import annotations

import click

from conv_tasks.cli.commands.stack_operations import (
    stack_apply,
    stack_cancel,
    stack_check,
    stack_create,
    stack_delete,
    stack_preview,
    stack_resume,
    stack_rollback,
    stack_suspend,
    stack_update,
)
from conv_tasks.cli.commands.stack_views import (
    stack_events,
    stack_graph,
    stack_list,
    stack_outputs,
    stack_resources,
    stack_show,
)


@click.group(
    commands=[
        stack_create,
        stack_apply,
        stack_update,
        stack_preview,
        stack_graph,
        stack_delete,
        stack_rollback,
        stack_cancel,
        stack_check,
        stack_suspend,
        stack_resume,
        stack_show,
        stack_list,
        stack_outputs,
        stack_events,
        stack_resources,
    ]
)
def stack() -> None:
    """Create, change and inspect stacks."""
