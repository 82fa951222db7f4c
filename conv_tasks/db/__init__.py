"""PostgreSQL persistence: models, sessions, repositories and migrations.

This package is the only place in conv_tasks that speaks SQL. Other packages get a
Database handed in and use its named operations: a transaction's repositories
(`Transaction`), or a node delivery's `NodeStore`; what they read comes back as frozen
values (`StackRow`, `ResourceRow`, …), never as ORM objects. It must never import the
engine, the tasks or the CLI.

The columns that may hold a secret (conv_tasks.db.sealed_columns) are sealed with the Sealer
the Database is given (conv_tasks.secrets_at_rest) as they are written and opened as they are
read: nothing outside this package sees a sealed value or a key.
"""

from conv_tasks.db.database import Database, Transaction
from conv_tasks.db.databases import drop_database, recreate_database
from conv_tasks.db.deployments import PostgresDeployments, config_of, published_action
from conv_tasks.db.events import EventRecord
from conv_tasks.db.leases import expire_leases
from conv_tasks.db.migrate import ensure_database, upgrade
from conv_tasks.db.nodes import (
    Claim,
    NodeEvent,
    NodeStore,
    ResourceVersion,
    StackState,
    Written,
    version_of,
)
from conv_tasks.db.operations import FAILURES_KEPT, replacement_reason
from conv_tasks.db.overview import OverviewEntry, OverviewFilter
from conv_tasks.db.purge import EventFloors
from conv_tasks.db.resources import TraversalMark
from conv_tasks.db.rotation import RotationReport, reseal_database
from conv_tasks.db.rows import (
    DeploymentRow,
    EventRow,
    HandleRow,
    NewStack,
    OperationFailure,
    OperationRow,
    ResourceRow,
    StackRow,
    TemplateRow,
)
from conv_tasks.db.sandbox import PostgresSandbox
from conv_tasks.db.sealed_columns import SEALED_COLUMNS
from conv_tasks.db.session import driver_url, reset_after_fork, statement_count
from conv_tasks.db.stacks import RunningOperation
from conv_tasks.db.wait_handles import PostgresWaitHandles, signals_of

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.deployments",
    "conv_tasks.errors",
    "conv_tasks.graph",
    "conv_tasks.secrets_at_rest",
    "conv_tasks.settings",
    "conv_tasks.statuses",
    "conv_tasks.tags",
    "conv_tasks.waitconditions",
)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.cli",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.tasks",
    "kombu",
    "redis",
)

__all__ = [
    "FAILURES_KEPT",
    "SEALED_COLUMNS",
    "Claim",
    "Database",
    "DeploymentRow",
    "EventFloors",
    "EventRecord",
    "EventRow",
    "HandleRow",
    "NewStack",
    "NodeEvent",
    "NodeStore",
    "OperationFailure",
    "OperationRow",
    "OverviewEntry",
    "OverviewFilter",
    "PostgresDeployments",
    "PostgresSandbox",
    "PostgresWaitHandles",
    "ResourceRow",
    "ResourceVersion",
    "RotationReport",
    "RunningOperation",
    "StackRow",
    "StackState",
    "TemplateRow",
    "Transaction",
    "TraversalMark",
    "Written",
    "config_of",
    "driver_url",
    "drop_database",
    "ensure_database",
    "expire_leases",
    "published_action",
    "recreate_database",
    "replacement_reason",
    "reseal_database",
    "reset_after_fork",
    "signals_of",
    "statement_count",
    "upgrade",
    "version_of",
]
