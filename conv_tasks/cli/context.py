"""What every `conv-tasks` command gets from the options before its name: the Context.

The entry group (conv_tasks.cli.main) puts one Context in click's object for
--tenant, --json and --timeout; a command asks for it with @pass_ctx. It makes
a client only when a command asks for one, so a command that never talks to the
engine never loads the Celery app.
"""

from __future__ import annotations

from typing import Any

import click

from conv_tasks.cli import render


class Context:
    def __init__(self, tenant: str, as_json: bool, timeout: float) -> None:
        self.tenant = tenant
        self.as_json = as_json
        self.timeout = timeout

    def emit_rows(self, rows: list[dict[str, Any]], columns: list[str]) -> None:
        """Rows in the command's -f format (JSON with --json), else a table of `columns`."""
        render.emit_rows(rows, columns, self.as_json)

    def client(self) -> Any:
        from conv_tasks.client import Client

        return Client(tenant=self.tenant, timeout=self.timeout)


pass_ctx = click.make_pass_decorator(Context)
