"""Upkeep: what beat runs on a schedule, and `conv-tasks db purge` runs by hand.

The watchdog (restart traversals that stopped moving, fail those past their timeout),
the template collector and the purge of old rows. Each acts through the stack operations'
internal face (StackControl) or the database's named operations; none serves a request.
"""

from conv_tasks.engine.upkeep.retention import PurgeReport, RetentionPolicy, purge
from conv_tasks.engine.upkeep.watchdog import (
    Judgement,
    Watch,
    WatchdogReport,
    collect_templates,
    judge,
    run_watchdog,
)

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.stack",
    "conv_tasks.settings",
    "conv_tasks.statuses",
)
MUST_NOT_IMPORT = (
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.features",
    "conv_tasks.engine.node",
    "conv_tasks.engine.read",
)

__all__ = [
    "Judgement",
    "PurgeReport",
    "RetentionPolicy",
    "Watch",
    "WatchdogReport",
    "collect_templates",
    "judge",
    "purge",
    "run_watchdog",
]
