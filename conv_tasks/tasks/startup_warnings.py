"""What a worker or beat checks and says once as it starts: that its Redis Sentinel settings
name a master the sentinels watch, and that secrets are stored unencrypted.

Celery sends `worker_init` once in a worker's main process (before its pool forks) and
`beat_init` once in beat's, so each process logs the warning exactly once. The warning names
the setting; it never shows a key or a value. A misconfigured Sentinel ends the process there,
with one line naming the setting to fix.
"""

from __future__ import annotations

import logging

from conv_tasks.errors import ENCRYPTION_KEYS_SETTING, InvalidInput
from conv_tasks.redis_client import check_sentinels
from conv_tasks.settings import Settings

log = logging.getLogger("conv_tasks.secrets_at_rest")

UNSEALED_WARNING = (
    f"{ENCRYPTION_KEYS_SETTING} is not set: hidden parameter values and the other secrets "
    "this {process} writes are stored in PostgreSQL unencrypted (docs/operations/security.md)."
)


def warn_if_unsealed(process: str, settings: Settings) -> bool:
    """Log the warning if `settings` have no encryption key; whether it was logged."""
    if settings.encryption_keys:
        return False
    log.warning(UNSEALED_WARNING.format(process=process))
    return True


def refuse_misconfigured_sentinels(process: str, settings: Settings) -> None:
    """Exit (status 1) with one line on stderr when a sentinel:// setting of `settings` names
    sentinels that do not answer, or that watch no master named CONV_TASKS_SENTINEL_MASTER:
    the process would otherwise retry forever and never say why."""
    try:
        check_sentinels(settings)
    except InvalidInput as exc:
        raise SystemExit(f"conv-tasks {process} cannot start. {exc}") from None
