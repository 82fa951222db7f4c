"""Credentials never reach the agent's log: a logging filter that masks every one it knows.

The agent tells the filter each credential as it learns it (its own, and
each deployment's signal credential). Installed on the agent's log handler,
it rewrites every record that handler writes, the agent's own lines and
those of Celery and kombu alike, tracebacks included.
"""

from __future__ import annotations

import logging
import threading

MASK = "******"


class SecretFilter(logging.Filter):
    """Replaces every known secret in a log record with a mask."""

    def __init__(self) -> None:
        super().__init__()
        self._secrets: set[str] = set()
        self._lock = threading.Lock()

    def add(self, secret: str | None) -> None:
        if secret:
            with self._lock:
                self._secrets.add(secret)

    def scrub(self, text: str) -> str:
        with self._lock:
            secrets = sorted(self._secrets, key=len, reverse=True)
        for secret in secrets:
            if secret in text:
                text = text.replace(secret, MASK)
        return text

    def filter(self, record: logging.LogRecord) -> bool:
        record.msg = self.scrub(record.getMessage())
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.scrub(record.exc_text)
        if record.stack_info:
            record.stack_info = self.scrub(record.stack_info)
        return True
