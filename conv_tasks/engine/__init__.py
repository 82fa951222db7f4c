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
