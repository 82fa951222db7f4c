"""The reference agent: runs a server's software deployments on that server (seed 002).

`conv-tasks agent --server ID` polls the server's deployments through the
broker (`conv_tasks.deployment.metadata`), runs each new action through the
hook its config's `group` names, and reports through
`conv_tasks.deployment.signal`: IN_PROGRESS first when the engine says it
understands that (`deploy_status_aware`), then COMPLETE or FAILED with the
script's output. It records on disk which runs it started and finished, so a
restart never runs one twice.

Pure parts (what a deployment is, what a signal says, what to do with a run
given its record) are apart from the edges (the disk, the broker, the
processes it starts). The agent never imports worker code, and never logs a
credential.
"""

# Not `agent`: that is the name of a module here (agent.py).
from conv_tasks.agent.command import agent as agent_command

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.broker", "conv_tasks.errors", "conv_tasks.limits")
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.syncpoint",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = ["agent_command"]
