"""What a worker or beat says once as it starts: here, that secrets are stored unencrypted.

Celery sends `worker_init` once in a worker's main process (before its pool forks) and
`beat_init` once in beat's, so each process logs the warning exactly once. The warning names
the setting; it never shows a key or a value.
"""

from __future__ import annotations

import logging

from conv_tasks.errors import ENCRYPTION_KEYS_SETTING
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
