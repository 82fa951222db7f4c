"""How `conv-tasks` ends: one line on stderr and an exit code for everything a user can hit.

A refused request, a failed operation, an engine that does not answer, a
broker, Redis or PostgreSQL that cannot be reached, a wait that ran out and
Ctrl-C each get one sentence saying what is wrong and what to do, and an
exit code of their own (EXIT_CODES, printed by `conv-tasks --help`). Only a
bug in conv_tasks itself still ends in a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from enum import IntEnum

import click

from conv_tasks.errors import ConvTasksError, Unavailable


class Exit(IntEnum):
    OK = 0
    FAILED = 1  # the operation did not succeed, or the request was refused
    USAGE = 2  # a wrong command line (click's own code)
    NO_ANSWER = 3  # no worker answered the request within --timeout
    UNREACHABLE = 4  # the broker, Redis or PostgreSQL cannot be reached
    WAIT_TIMEOUT = 5  # --wait-timeout passed; the operation goes on
    INTERRUPTED = 130  # Ctrl-C


EXIT_CODES = (
    "Exit codes: 0 done; 1 the operation failed or the request was refused; "
    "2 wrong usage; 3 no worker answered within --timeout; "
    "4 the broker, Redis or PostgreSQL cannot be reached; "
    "5 --wait-timeout passed (the operation goes on); 130 interrupted (Ctrl-C)."
)


class CliFailure(Exception):
    """Ends the command with `message` on stderr and exit code `code`."""

    def __init__(self, code: Exit, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _safe_url(url: str) -> str:
    from conv_tasks.masked_url import masked

    return masked(url)


def explain(exc: BaseException) -> tuple[Exit, str] | None:
    """The exit code and the one line for an exception a user can hit; None for a bug."""
    if isinstance(exc, CliFailure):
        return exc.code, exc.message
    if isinstance(exc, Unavailable):
        return Exit.UNREACHABLE, str(exc)
    from celery.exceptions import TimeoutError as NoAnswer
    from kombu.exceptions import OperationalError as BrokerDown
    from redis.exceptions import ConnectionError as RedisDown
    from redis.exceptions import TimeoutError as RedisTimeout

    from conv_tasks.settings import get_settings

    if isinstance(exc, RuntimeError) and isinstance(exc.__cause__, RedisDown | RedisTimeout):
        # Celery's result store giving up ("Retry limit exceeded"): the connection error is
        # what the user can act on (conv_tasks.client names it first, where it can).
        exc = exc.__cause__
    if isinstance(exc, ConvTasksError):
        return Exit.FAILED, str(exc)
    settings = get_settings()
    if isinstance(exc, NoAnswer):
        return Exit.NO_ANSWER, (
            "no answer from conv_tasks in time: is a worker running (`conv-tasks worker`) "
            f"on the broker {_safe_url(settings.broker_url)}? If the workers are busy, "
            "raise --timeout."
        )
    queue_type = _queue_type_problem(exc, settings.broker_url, settings.rabbitmq_queue_type)
    if queue_type is not None:
        return Exit.FAILED, queue_type
    if isinstance(exc, BrokerDown):
        return Exit.UNREACHABLE, (
            f"cannot reach the broker at {_safe_url(settings.broker_url)} ({_first_line(exc)}): "
            "start it, or point CONV_TASKS_BROKER_URL at it."
        )
    if isinstance(exc, RedisDown | RedisTimeout):
        backend = settings.result_backend or settings.redis_url
        return Exit.UNREACHABLE, (
            f"cannot reach Redis at {_safe_url(backend)} ({_first_line(exc)}): start it, or "
            "point CONV_TASKS_RESULT_BACKEND and CONV_TASKS_REDIS_URL at it."
        )
    if "sqlalchemy" not in sys.modules and "psycopg" not in sys.modules:
        return None  # no database error, and importing them takes a second or more
    from psycopg import OperationalError as PsycopgDown
    from sqlalchemy.exc import OperationalError as DatabaseDown

    if isinstance(exc, DatabaseDown | PsycopgDown):
        orig = exc.orig if isinstance(exc, DatabaseDown) and exc.orig is not None else exc
        return Exit.UNREACHABLE, (
            f"cannot reach PostgreSQL at {_safe_url(settings.database_url)} "
            f"({_first_line(orig)}): start it, or point CONV_TASKS_DATABASE_URL at it."
        )
    return None


def _queue_type_problem(exc: BaseException, broker_url: str, wanted: str) -> str | None:
    """RabbitMQ refusing to declare conv_tasks' queue as CONV_TASKS_RABBITMQ_QUEUE_TYPE says
    (it holds one of the other type), as the worker says it; None for anything else."""
    from conv_tasks.broker import QueueType, refusal

    error = refusal(exc, QueueType(wanted), broker_url)
    return None if error is None else str(error)


def run(command: Callable[..., object]) -> None:
    """Run the click command `command` and end the process as described above."""
    code: int = Exit.OK
    try:
        command(standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("interrupted", err=True)
        code = Exit.INTERRUPTED
    except click.ClickException as exc:
        exc.show()
        code = exc.exit_code
    except KeyboardInterrupt:
        click.echo("\ninterrupted", err=True)
        code = Exit.INTERRUPTED
    except Exception as exc:
        known = explain(exc)
        if known is None:
            raise
        code, message = known
        click.echo(f"ERROR: {message}", err=True)
    # Exit outside the handlers: the exception and its frames (a pending Celery result among
    # them) are released now, not while the interpreter shuts down, where a result's
    # clean-up would print a traceback of its own.
    sys.exit(code)
