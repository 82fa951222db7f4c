"""The worker's consumer: no message, whatever its content, stops a worker.

Celery's consumer decodes a task message and hands it to the prefork pool in
the worker's main process, and an exception there ends the worker: a body
nested 900 levels deep broke the pool's pickling, a body of `42` or headers
without an id broke the request. This consumer checks every task message
first (conv_tasks.tasks.admission), decodes it with limits
(conv_tasks.tasks.bounded_decoding), and refuses one that fails: one log
line naming the task, the id and the reason, never the body or its
arguments; the message is rejected without requeueing (a broker with a
dead-letter queue keeps it there); and the caller of a conv_tasks task that
keeps results gets a JSON refusal as its result, as for any refused payload.
Whatever Celery's own handling raises for one message is refused the same
way, and the worker goes on.

Selected with the `worker_consumer` setting (conv_tasks.tasks.app).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any

from celery import states
from celery.app.task import Context
from celery.exceptions import NotRegistered, WorkerShutdown
from celery.worker.consumer import Consumer as CeleryConsumer
from kombu.exceptions import DecodeError
from kombu.message import Message
from vine import promise

from conv_tasks.broker import QueueType, refusal
from conv_tasks.errors import PayloadError
from conv_tasks.limits import MAX_NAME_CHARS
from conv_tasks.settings import get_settings
from conv_tasks.tasks.admission import arguments_problem, body_problem, envelope_problem
from conv_tasks.tasks.bounded_decoding import BodyRefused, install
from conv_tasks.tasks.startup_checks import STOPS

log = logging.getLogger(__name__)

# How much of an unexpected error's text a refusal shows: enough to act on, never a whole body.
_ERROR_CHARS = 200


def _label(value: object) -> str:
    """A header value fit for a log line: short, one line, whatever it was."""
    text = value if isinstance(value, str) else repr(value)
    return text[:MAX_NAME_CHARS].encode("unicode_escape").decode("ascii")


def _reason(exc: BaseException) -> str:
    """What went wrong, in one line: the decoder's own reason when it gave one."""
    if isinstance(exc, DecodeError) and exc.args and isinstance(exc.args[0], Exception):
        exc = exc.args[0]
    return (str(exc) or type(exc).__name__)[:_ERROR_CHARS]


def _decode_problem(exc: BaseException) -> str:
    """Why a body could not be decoded, as a sentence: a limit's refusal is one already."""
    cause = exc.args[0] if isinstance(exc, DecodeError) and exc.args else exc
    if isinstance(cause, BodyRefused):
        return _reason(cause)
    return f"the message body could not be decoded: {_reason(exc)}"


class Consumer(CeleryConsumer):
    """Celery's consumer, with every task message checked before it is handled."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Before the pool forks: its processes decode the bodies again, with the same limits.
        install()
        super().__init__(*args, **kwargs)

    def start(self) -> None:
        """Celery's, but RabbitMQ refusing to declare conv_tasks' queues as
        CONV_TASKS_RABBITMQ_QUEUE_TYPE says (they are of the other type) stops the worker with
        one line naming the setting, not a traceback (conv_tasks.broker.queue_check)."""
        try:
            super().start()
        except Exception as exc:
            error = refusal(
                exc, QueueType(get_settings().rabbitmq_queue_type), str(self.app.conf.broker_url)
            )
            if error is None:
                raise
            log.critical(STOPS, "worker", error)
            raise WorkerShutdown(1) from None

    def create_task_handler(self, promise: Any = promise) -> Callable[[Message], None]:
        handle = super().create_task_handler(promise)

        def on_task_received(message: Message) -> None:
            try:
                problem = self._admission_problem(message)
                if problem is not None:
                    self.refuse(message, problem)
                    return
                handle(message)
            except self.connection_errors:
                raise  # the consumer reconnects; the broker delivers the message again
            except Exception as exc:
                self.refuse(message, f"it could not be handled ({type(exc).__name__}: {exc})")

        return on_task_received

    def _admission_problem(self, message: Message) -> str | None:
        problem = envelope_problem(message.headers, message.properties, message.content_type)
        if problem is not None:
            return problem
        name = message.headers["task"]
        if name not in self.strategies:
            return None  # Celery's on_unknown_task answers it
        try:
            payload = message.payload  # decoded once, with limits; Celery reuses it
        except Exception as exc:
            return _decode_problem(exc)
        problem = body_problem(name, payload)
        if problem is not None:
            return problem
        args, kwargs, _embed = payload
        return arguments_problem(name, self.app.tasks[name].run, args, kwargs)

    def refuse(self, message: Any, reason: str, *, answer: Any = None) -> None:
        """Reject a message without requeueing it, in one log line, and answer its caller.

        The answer is stored as the task's result: `answer` (an exception) if
        given, else for a conv_tasks task that keeps results the JSON refusal
        its caller expects.
        """
        reason = _label(reason[:_ERROR_CHARS])
        headers = getattr(message, "headers", None)
        headers = headers if isinstance(headers, Mapping) else {}
        name, task_id = headers.get("task"), headers.get("id")
        log.warning(
            "refused a message for task %s (id %s): %s", _label(name), _label(task_id), reason
        )
        if isinstance(name, str) and isinstance(task_id, str):
            if answer is not None:
                self._store(message, task_id, name, answer, states.FAILURE)
            elif self._answers(name, headers):
                refusal = {"ok": False, **PayloadError(reason).to_dict()}
                self._store(message, task_id, name, refusal, states.SUCCESS)
        if getattr(message, "acknowledged", True):
            return
        try:
            message.reject(requeue=False)
        except self.connection_errors as exc:
            log.warning("could not reject message %s: %r", _label(task_id), exc)

    def _answers(self, name: str, headers: Mapping[str, Any]) -> bool:
        task = self.app.tasks.get(name)
        return bool(
            name.startswith("conv_tasks.")
            and task is not None
            and not task.ignore_result
            and not headers.get("ignore_result")
        )

    def _store(self, message: Any, task_id: str, name: str, result: Any, state: str) -> None:
        properties = getattr(message, "properties", None)
        properties = properties if isinstance(properties, Mapping) else {}
        request = Context(
            id=task_id,
            task=name,
            reply_to=properties.get("reply_to"),
            correlation_id=properties.get("correlation_id", task_id),
        )
        try:
            self.app.backend.store_result(task_id, result, state, request=request)
        except Exception as exc:
            log.warning("could not store the answer to message %s: %r", _label(task_id), exc)

    # Celery's own refusals print a traceback and the message body, arguments included; these
    # say the same in one line, without the body.

    def on_decode_error(self, message: Any, exc: BaseException) -> None:
        self.refuse(message, _decode_problem(exc))

    def on_invalid_task(self, body: Any, message: Any, exc: BaseException) -> None:
        self.refuse(message, f"the task message is invalid: {_reason(exc)}")

    def on_unknown_message(self, body: Any, message: Any) -> None:
        self.refuse(message, "the message is not a task message")

    def on_unknown_task(self, body: Any, message: Any, exc: BaseException) -> None:
        # As Celery does, the caller's result says that the task is not registered.
        name = message.headers.get("task")
        self.refuse(message, "no task of this name is registered here", answer=NotRegistered(name))
