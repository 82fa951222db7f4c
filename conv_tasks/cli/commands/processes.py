"""`conv-tasks worker` and `conv-tasks beat`: the CLI's process becomes a Celery worker or
celery beat on conv_tasks' app, with any extra arguments passed on to Celery."""

from __future__ import annotations

import os
import sys

import click

_PASS_ON = {"ignore_unknown_options": True, "allow_extra_args": True}


def _exec_celery(program: str, args: list[str]) -> None:
    """Replace this process with `celery -A conv_tasks.tasks.app PROGRAM` and `args`."""
    os.execvp(
        sys.executable,
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "conv_tasks.tasks.app",
            program,
            "--loglevel",
            "INFO",
            *args,
        ],
    )


@click.command(context_settings=_PASS_ON)
@click.pass_context
def worker(ctx: click.Context) -> None:
    """Run a Celery worker (extra arguments go to `celery worker`)."""
    _exec_celery("worker", ctx.args)


@click.command(context_settings=_PASS_ON)
@click.pass_context
def beat(ctx: click.Context) -> None:
    """Run celery beat with the watchdog and template collector (extra arguments go to it)."""
    _exec_celery("beat", ctx.args)
