"""Software deployments (seed 002): the rules, with no I/O.

What a software config and a deployment hold (records), what a server is
sent about its deployments (metadata), what a signal from a server means
(signals), and how credentials are made and checked (credentials). The
database side is conv_tasks.db.deployments; the tasks that serve servers
are the engine's features/deployments. Nothing here opens a connection.
"""

from conv_tasks.deployments.credentials import (
    credential_hash,
    matches,
    new_credential,
    signal_credential,
)
from conv_tasks.deployments.metadata import PublishedAction, metadata_entry
from conv_tasks.deployments.records import (
    CONV_TASKS_SIGNAL,
    HEAT_TRANSPORTS,
    INPUT_TYPES,
    UNGROUPED,
    ConfigInput,
    ConfigOutput,
    DeployAction,
    DeploymentAction,
    DeploymentState,
    DeployStatus,
    SoftwareConfig,
)
from conv_tasks.deployments.signals import (
    STANDARD_OUTPUTS,
    STATUS_CODE,
    STDERR,
    STDOUT,
    SignalVerdict,
    interpret_signal,
)
from conv_tasks.deployments.store import DeploymentStore

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.limits")
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "CONV_TASKS_SIGNAL",
    "HEAT_TRANSPORTS",
    "INPUT_TYPES",
    "STANDARD_OUTPUTS",
    "STATUS_CODE",
    "STDERR",
    "STDOUT",
    "UNGROUPED",
    "ConfigInput",
    "ConfigOutput",
    "DeployAction",
    "DeployStatus",
    "DeploymentAction",
    "DeploymentState",
    "DeploymentStore",
    "PublishedAction",
    "SignalVerdict",
    "SoftwareConfig",
    "credential_hash",
    "interpret_signal",
    "matches",
    "metadata_entry",
    "new_credential",
    "signal_credential",
]
