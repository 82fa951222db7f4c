"""Read models: what users see of stacks, resources, events, outputs, templates, graphs,
previews, histories and the stacks overview, as JSON-able dicts.

Hidden parameter values, and anything derived from them, never leave this folder
unmasked. It only reads: nothing here writes a row, starts an operation or enqueues a
node. It may import conv_tasks.engine.stack (the planning step previews share with
updates) and node (its pure decision), never features or upkeep.
"""

from conv_tasks.engine.read.details import show_resource, show_template
from conv_tasks.engine.read.graph import stack_graph
from conv_tasks.engine.read.history import stack_history
from conv_tasks.engine.read.overview import stacks_overview
from conv_tasks.engine.read.preview import preview_stack
from conv_tasks.engine.read.views import (
    iso_time,
    list_events,
    list_resources,
    list_stacks,
    redactor_for,
    show_stack,
    stack_definition,
    stack_outputs,
    stored_outputs,
)

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine.definition",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.node",
    "conv_tasks.engine.payload",
    "conv_tasks.engine.stack",
    "conv_tasks.errors",
    "conv_tasks.graph",
    "conv_tasks.provider_errors",
    "conv_tasks.resources",
    "conv_tasks.statuses",
    "conv_tasks.tags",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features",
    "conv_tasks.engine.upkeep",
    "conv_tasks.syncpoint",
)

__all__ = [
    "iso_time",
    "list_events",
    "list_resources",
    "list_stacks",
    "preview_stack",
    "redactor_for",
    "show_resource",
    "show_stack",
    "show_template",
    "stack_definition",
    "stack_graph",
    "stack_history",
    "stack_outputs",
    "stacks_overview",
    "stored_outputs",
]
