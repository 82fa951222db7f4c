"""Sending one public task and reading its answer: what every Client call comes down to.

A refused request raises the matching ConvTasksError; a broker, result store,
PostgreSQL or SyncPoint Redis that cannot be reached raises errors.Unavailable,
naming it. Monitors (Flower, task events, logs) see the names of parameters and
files, never their values, nor credentials, tokens, signal details or environments.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import inspect
import typing
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Concatenate, ParamSpec, TypeVar, cast

from celery import Celery

from conv_tasks import errors
from conv_tasks.masked_url import masked, scrubbed
from conv_tasks.requests import NewStackRequest, Request, declared_fields, payload

_ERRORS: dict[str, type[errors.ConvTasksError]] = {
    cls.code: cls
    for cls in (
        errors.InvalidInput,
        errors.TemplateError,
        errors.ParameterError,
        errors.InvalidEnvironment,
        errors.PayloadError,
        errors.CycleError,
        errors.NotFound,
        errors.NotSupported,
        errors.Conflict,
        errors.LostRace,
        errors.NotAuthorized,
    )
}
# Fields whose values monitors never see (credentials, signal details, environments, which
# may hold hidden parameter values); parameters and files show names.
_HIDDEN_FIELDS = ("credential", "details", "token", "environment")
_NAMES_ONLY_FIELDS = ("parameters", "files")
# Tasks whose results hold a credential: removed from the result backend once read.
_SECRET_RESULTS = frozenset({"conv_tasks.deployment.credential", "conv_tasks.deployment.metadata"})

# Reads expire when the client stops waiting: a worker drops one that arrives later (Celery's
# `expires`) instead of answering nobody. Mutations carry an idempotency key instead.
_READS = frozenset(
    {
        "conv_tasks.stack.show",
        "conv_tasks.stack.list",
        "conv_tasks.stack.resources",
        "conv_tasks.stack.events",
        "conv_tasks.stack.outputs",
        "conv_tasks.stack.history",
        "conv_tasks.stack.overview",
        "conv_tasks.deployment.list",
        "conv_tasks.deployment.show",
    }
)


def _raise(result: Mapping[str, Any]) -> None:
    code = str(result.get("error", "error"))
    message = str(result.get("message", "request refused"))
    if code == errors.Unavailable.code:
        # A worker that could not reach PostgreSQL or the SyncPoint Redis (its URL masked).
        raise errors.Unavailable(
            str(result.get("service", "")),
            str(result.get("url", "")),
            str(result.get("detail", "")),
        )
    cls = _ERRORS.get(code, errors.ConvTasksError)
    if issubclass(cls, errors.InvalidInput) or result.get("problems"):
        problems = [errors.Problem(p["path"], p["message"]) for p in result.get("problems", [])]
        exc: errors.ConvTasksError = errors.InvalidInput(problems or message)
        exc.code = code
        raise exc
    raise cls(message)


@functools.cache
def sender_app() -> Celery:
    """The Celery app a Client sends with when it is given none, one per process: conv_tasks'
    settings (celeryconfig: broker, result store, queues, JSON), with task-sent events off
    whatever CONV_TASKS_TASK_SENT_EVENTS says. That setting is for the workers' own sends (graph
    nodes, beat's jobs); a request's sent event would show its sender's arguments in Flower
    until a worker takes it (docs/task-api.md, "Calling from another service")."""
    app = Celery("conv_tasks.client")
    app.config_from_object("celeryconfig")
    app.conf.update(task_send_sent_event=False)
    return app


def _first_line(exc: BaseException) -> str:
    lines = str(exc).strip().splitlines()
    return lines[0] if lines else type(exc).__name__


def _raised_in_result_backend(exc: BaseException) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if str(tb.tb_frame.f_globals.get("__name__", "")).startswith("celery.backends."):
            return True
        tb = tb.tb_next
    return False


class Sender:
    """The part of a Client that sends: a tenant's public task, and its answer.

    Without `app`, it sends with sender_app(), which never sends task-sent events; an app
    of yours is used with your settings as they are."""

    def __init__(
        self, app: Celery | None = None, *, tenant: str = "default", timeout: float = 60.0
    ) -> None:
        self.app = app if app is not None else sender_app()
        self.tenant = tenant
        self.timeout = timeout

    def call(self, task: str, **kwargs: Any) -> dict[str, Any]:
        """Send one public task and return its JSON result, raising if it was refused."""
        given = {k: v for k, v in kwargs.items() if v is not None}
        return self._send(task, {"tenant": self.tenant, **given})

    def send(self, request: Request) -> dict[str, Any]:
        """Send a request declared in conv_tasks.requests (a NewStackRequest, an
        UpdateRequest, ...) as its public task, and return the task's JSON result. A create
        without an idempotency key is given one, so that sending it again is safe."""
        if isinstance(request, NewStackRequest) and request.idempotency_key is None:
            request = dataclasses.replace(request, idempotency_key=uuid.uuid4().hex)
        return self._send(request.TASK, {"tenant": self.tenant, **payload(request)})

    def _send(self, task: str, payload: dict[str, Any]) -> dict[str, Any]:
        # Monitors (Flower, task events, logs) see parameter names, never their values:
        # some may be hidden, and only the engine knows which.
        shown = {**payload}
        for name in _NAMES_ONLY_FIELDS:
            if isinstance(shown.get(name), dict):
                shown[name] = {key: "******" for key in shown[name]}
        for name in _HIDDEN_FIELDS:
            if name in shown:
                shown[name] = "******"
        expires = self.timeout if task in _READS else None
        try:
            sent = self.app.send_task(task, kwargs=payload, kwargsrepr=repr(shown), expires=expires)
        except Exception as exc:
            down = self._unreachable(exc)
            if down is None:
                raise
            raise down from exc
        try:
            result = sent.get(timeout=self.timeout)
        except BaseException as exc:
            # Stop listening for the answer now: left to the result's finaliser, the
            # clean-up may run while the interpreter shuts down and print a traceback.
            with contextlib.suppress(Exception):
                sent.backend.remove_pending_result(sent)
            down = self._unreachable(exc) if isinstance(exc, Exception) else None
            if down is None:
                raise
            raise down from exc
        if task in _SECRET_RESULTS:
            sent.forget()
        if not isinstance(result, dict) or not result.get("ok"):
            _raise(result if isinstance(result, dict) else {"message": str(result)})
        return dict(result)

    def _unreachable(self, exc: Exception) -> errors.Unavailable | None:
        """The Unavailable for a send or a wait that could not reach the broker or the result
        store; None for any other error."""
        from kombu.exceptions import OperationalError as BrokerDown

        conf = self.app.conf
        result_store_errors = tuple(getattr(self.app.backend, "connection_errors", ()))
        failure: BaseException
        if isinstance(exc, BrokerDown):
            # send_task subscribes to the result before it publishes, inside the broker
            # connection's error wrapping: a result store that fails there arrives as the
            # broker's OperationalError, but raised in Celery's result backend code.
            if exc.__cause__ is None or not _raised_in_result_backend(exc.__cause__):
                url = str(conf.broker_url or "")
                return errors.Unavailable("broker", masked(url), scrubbed(_first_line(exc), url))
            failure = exc.__cause__
        elif isinstance(exc, RuntimeError) and isinstance(exc.__cause__, result_store_errors):
            # Celery's result store gives up reconnecting with RuntimeError("Retry limit
            # exceeded ..."), raised from the connection error it met last.
            failure = exc.__cause__
        elif isinstance(exc, result_store_errors):
            failure = exc
        else:
            return None
        url = str(conf.result_backend or "")
        return errors.Unavailable("result_store", masked(url), scrubbed(_first_line(failure), url))


P = ParamSpec("P")
R = TypeVar("R", bound=Request)


def _signature(request: type) -> inspect.Signature:
    """The request's constructor as a method's: `self` first, the fields' types without
    their declarations, and each default as it is (not `<factory>`)."""
    types = typing.get_type_hints(request)
    declared = {d.name: d for d in declared_fields(request)}
    parameters = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    for parameter in inspect.signature(request).parameters.values():
        field = declared[parameter.name]
        default = inspect.Parameter.empty if field.required else field.default
        shown = _shown_type(types[parameter.name])
        parameters.append(parameter.replace(annotation=shown, default=default))
    return inspect.Signature(parameters, return_annotation="dict[str, Any]")


def _shown_type(annotation: Any) -> str:
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    return text.replace("collections.abc.", "").replace("typing.", "")


def sends(request: Callable[P, R], doc: str) -> Callable[Concatenate[Sender, P], dict[str, Any]]:
    """A Client method that takes the arguments of `request` (a request class), and sends
    the request it makes; named after the last word of the request's task."""

    def method(self: Sender, /, *args: P.args, **kwargs: P.kwargs) -> dict[str, Any]:
        return self.send(request(*args, **kwargs))

    declared = cast("type[Request]", request)  # the class, which mypy sees as a callable
    method.__name__ = method.__qualname__ = declared.TASK.rsplit(".", 1)[-1]
    method.__doc__ = doc
    method.__signature__ = _signature(declared)  # type: ignore[attr-defined]
    return method
