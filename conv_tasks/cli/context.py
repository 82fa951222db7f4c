"""What every `conv-tasks` command gets from the options before its name: the Context.

The entry group (conv_tasks.cli.main) puts one Context in click's object for
--tenant, --json and --timeout; a command asks for it with @pass_ctx. It makes
a client only when a command asks for one, so a command that never talks to the
engine never loads the Celery app. That app gives up on a broker or result store
it cannot reach within a few seconds (bound_connections), so that the command
ends with one line and exit code 4 (conv_tasks.cli.failures), not after
Celery's twenty reconnection attempts.
"""

from __future__ import annotations

from typing import Any

import click

from conv_tasks.cli import render

# How long the CLI keeps trying to reach the broker or the result store before it gives up (or
# --timeout, when that is shorter): enough to ride out a Redis restart, short enough that an
# operator with Redis down hears so at once.
REACH_SECONDS = 5.0


def bound_connections(app: Any, timeout: float) -> None:
    """Make `app` give up on a broker or result store it cannot reach so that the command has
    ended within min(timeout, REACH_SECONDS) seconds: the result store is retried for half of
    that, the other half is for the process's start, the last attempt and the exit. Celery's
    defaults, for long-lived processes, retry the result store twenty times a second apart
    (redis-py retrying each connection three more times with backoff of its own) and wait on a
    silent socket for two minutes."""
    from redis.backoff import NoBackoff
    from redis.retry import Retry

    from conv_tasks.broker import BrokerKind, broker_kind

    budget = min(timeout, REACH_SECONDS)
    attempt = min(1.0, budget / 5)  # one connection attempt
    conf = app.conf
    conf.update(
        broker_connection_timeout=attempt,
        # A publish is tried three times in all, half a second apart.
        task_publish_retry_policy={
            "max_retries": 2,
            "interval_start": 0,
            "interval_step": 0.5,
            "interval_max": 0.5,
        },
        redis_socket_connect_timeout=attempt,
        redis_socket_timeout=budget,
        # The result store reconnects every half second, for half the budget.
        result_backend_transport_options={
            **(conf.result_backend_transport_options or {}),
            "retry_policy": {
                "max_retries": None,
                "interval_start": 0,
                "interval_step": 0.5,
                "interval_max": 0.5,
                "timeout": budget / 2,
            },
        },
    )
    if broker_kind(str(conf.broker_url)) is BrokerKind.REDIS:
        conf.broker_transport_options = {
            **(conf.broker_transport_options or {}),
            "socket_connect_timeout": attempt,
            "socket_timeout": budget,
        }
    # The result store's client is made from these on first use: without redis-py's own
    # retries, the retry_policy above is the only one.
    connparams = getattr(app.backend, "connparams", None)
    if isinstance(connparams, dict):
        connparams["retry"] = Retry(NoBackoff(), 0)


class Context:
    def __init__(self, tenant: str, as_json: bool, timeout: float) -> None:
        self.tenant = tenant
        self.as_json = as_json
        self.timeout = timeout

    def emit_rows(self, rows: list[dict[str, Any]], columns: list[str]) -> None:
        """Rows in the command's -f format (JSON with --json), else a table of `columns`."""
        render.emit_rows(rows, columns, self.as_json)

    def client(self) -> Any:
        from conv_tasks.client import Client, sender_app

        app = sender_app()
        bound_connections(app, self.timeout)
        return Client(app, tenant=self.tenant, timeout=self.timeout)


pass_ctx = click.make_pass_decorator(Context)
