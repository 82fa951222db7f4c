"""The convergence engine: stack operations, graph nodes, their features, reads and upkeep.

This face is what the rest of conv_tasks (tasks/, cli/, the client) imports; the folders
behind it import each other only downward:

    assembly ─▶ features ─▶ read ─▶ stack ─▶ definition
        │           │         └──▶ node ──▶ definition
        └─▶ upkeep ─┘            (root: environment, dispatch, payload)

Every entry point takes an EngineEnv, which carries the database, the SyncPoint store, the
dispatcher and everything else the engine reaches; nothing in the engine finds a service in
a global, and nothing in it speaks SQL (conv_tasks.db does).
"""

from conv_tasks.engine.assembly import build_env, default_env
from conv_tasks.engine.definition import validate_template
from conv_tasks.engine.dispatch import Dispatcher
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.features import (
    deployment_metadata,
    list_deployments,
    server_credential,
    show_deployment,
    signal_deployment,
    signal_handle,
    signal_resource,
)
from conv_tasks.engine.node import (
    BACKOFF_LAST,
    Outcome,
    StepResult,
    leftover_context,
    observing_context,
    run_node,
    run_step,
    version_context,
)
from conv_tasks.engine.payload import NodeOutput, NodeTask, parse_node_task
from conv_tasks.engine.read import (
    list_events,
    list_resources,
    list_stacks,
    preview_stack,
    show_resource,
    show_stack,
    show_template,
    stack_graph,
    stack_history,
    stack_outputs,
    stacks_overview,
)
from conv_tasks.engine.stack import (
    ApplyRequest,
    ChangeRequest,
    Marked,
    NewStackRequest,
    OperationResult,
    StackControl,
    TenantStacks,
    check_stack_name,
)
from conv_tasks.engine.upkeep import (
    PurgeReport,
    RetentionPolicy,
    collect_templates,
    purge,
    run_watchdog,
)

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.constraints",
    "conv_tasks.db",
    "conv_tasks.deployments",
    "conv_tasks.errors",
    "conv_tasks.faults",
    "conv_tasks.graph",
    "conv_tasks.limits",
    "conv_tasks.provider_errors",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.secrets_at_rest",
    "conv_tasks.settings",
    "conv_tasks.statuses",
    "conv_tasks.suggestions",
    "conv_tasks.syncpoint",
    "conv_tasks.tags",
    "conv_tasks.template",
    "conv_tasks.waitconditions",
)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.api",
    "conv_tasks.cli",
    "conv_tasks.client",
    "conv_tasks.server",
    "conv_tasks.tasks",
    "conv_tasks.testing",
    "conv_tasks.ui",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)
# Highest first: the picture in the docstring above.
LAYERS = (
    ("conv_tasks.engine.assembly",),
    ("conv_tasks.engine.features", "conv_tasks.engine.upkeep"),
    ("conv_tasks.engine.read",),
    ("conv_tasks.engine.stack", "conv_tasks.engine.node"),
    ("conv_tasks.engine.environment",),
    ("conv_tasks.engine.definition", "conv_tasks.engine.dispatch", "conv_tasks.engine.payload"),
)

__all__ = [
    "BACKOFF_LAST",
    "ApplyRequest",
    "ChangeRequest",
    "Dispatcher",
    "EngineEnv",
    "Marked",
    "NewStackRequest",
    "NodeOutput",
    "NodeTask",
    "OperationResult",
    "Outcome",
    "PurgeReport",
    "RetentionPolicy",
    "StackControl",
    "StepResult",
    "TenantStacks",
    "build_env",
    "check_stack_name",
    "collect_templates",
    "default_env",
    "deployment_metadata",
    "leftover_context",
    "list_deployments",
    "list_events",
    "list_resources",
    "list_stacks",
    "observing_context",
    "parse_node_task",
    "preview_stack",
    "purge",
    "run_node",
    "run_step",
    "run_watchdog",
    "server_credential",
    "show_deployment",
    "show_resource",
    "show_stack",
    "show_template",
    "signal_deployment",
    "signal_handle",
    "signal_resource",
    "stack_graph",
    "stack_history",
    "stack_outputs",
    "stacks_overview",
    "validate_template",
    "version_context",
]
