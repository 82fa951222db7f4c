"""Pure dependency-graph and traversal planning for conv_tasks.

Knows nodes, edges and traversal order. Must never import anything from conv_tasks except
conv_tasks.errors, and never do I/O (no database, no Redis, no Celery).
"""

from .cycles import find_cycle
from .nodes import NodeKey, Phase
from .planner import ExistingVersion, TraversalPlan, plan_traversal
from .traversal import TraversalGraph
from .walk import plan_walk

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.tasks",
    "conv_tasks.template",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "ExistingVersion",
    "NodeKey",
    "Phase",
    "TraversalGraph",
    "TraversalPlan",
    "find_cycle",
    "plan_traversal",
    "plan_walk",
]
