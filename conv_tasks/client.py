"""conv_tasks.client.Client: drive conv_tasks from Python over the broker.

Every call is a public task sent with `send_task`, exactly as a service that
does not import conv_tasks would send it. A refused request raises the
matching ConvTasksError; a broker, result store, PostgreSQL or SyncPoint Redis
that cannot be reached raises errors.Unavailable, naming it.
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from celery import Celery

from conv_tasks import errors
from conv_tasks.masked_url import masked, scrubbed

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

TERMINAL = ("COMPLETE", "FAILED")
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


def _listed(environment: Sequence[Mapping[str, Any] | str] | None) -> list[Any] | None:
    # Left out when there are none: a payload from before environments stays the same.
    return [e if isinstance(e, str) else dict(e) for e in environment] if environment else None


def _mapped(files: Mapping[str, str] | None) -> dict[str, str] | None:
    return dict(files) if files else None


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


class Client:
    """A tenant's view of conv_tasks.

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
        payload = {"tenant": self.tenant, **{k: v for k, v in kwargs.items() if v is not None}}
        return self._send(task, payload)

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

    # ------------------------------------------------------------ operations
    def create(
        self,
        name: str,
        template: Mapping[str, Any] | str,
        parameters: Mapping[str, Any] | None = None,
        *,
        disable_rollback: bool = False,
        timeout_mins: int | None = None,
        idempotency_key: str | None = None,
        environment: Sequence[Mapping[str, Any] | str] | None = None,
        files: Mapping[str, str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Create a stack. Retry a create that timed out with the same `idempotency_key`
        (one is made up when none is given): it answers with the stack the first made.

        `environment`: environments merged in order (mappings or YAML text); `files`: the
        texts that get_file and provider templates name. conv_tasks.local_files.collect
        reads both from disk as the CLI does."""
        return self.call(
            "conv_tasks.stack.create",
            name=name,
            template=template,
            parameters=dict(parameters or {}),
            environment=_listed(environment),
            files=_mapped(files),
            disable_rollback=disable_rollback,
            timeout_mins=timeout_mins,
            idempotency_key=idempotency_key or uuid.uuid4().hex,
            tags=list(tags) if tags is not None else None,
        )

    def update(
        self,
        stack: str,
        template: Mapping[str, Any] | str | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        existing_parameters: bool = False,
        disable_rollback: bool | None = None,
        timeout_mins: int | None = None,
        environment: Sequence[Mapping[str, Any] | str] | None = None,
        files: Mapping[str, str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Update a stack. With a new template and without existing_parameters, the
        environments and files given replace the stack's (none given: none kept); otherwise
        they are merged onto the stack's (docs/features/environments.md). `tags` replace the
        stack's ([] clears them); None keeps them when the update keeps the template or
        existing_parameters, and clears them on a full update (Heat's PUT and PATCH)."""
        return self.call(
            "conv_tasks.stack.update",
            stack=stack,
            template=template,
            parameters=dict(parameters or {}),
            environment=_listed(environment),
            files=_mapped(files),
            existing_parameters=existing_parameters,
            disable_rollback=disable_rollback,
            timeout_mins=timeout_mins,
            tags=list(tags) if tags is not None else None,
        )

    def apply(
        self,
        name: str,
        template: Mapping[str, Any] | str,
        parameters: Mapping[str, Any] | None = None,
        *,
        disable_rollback: bool | None = None,
        timeout_mins: int | None = None,
        idempotency_key: str | None = None,
        environment: Sequence[Mapping[str, Any] | str] | None = None,
        files: Mapping[str, str] | None = None,
        tags: Sequence[str] | None = None,
    ) -> dict[str, Any]:
        """Create stack `name`, update it to this request, or leave it as it is if it is
        COMPLETE on exactly this template, parameters, environments, files and tags: the
        answer's `result` says `created`, `updated` or `unchanged` (then no operation was
        started, and there is nothing to wait for). Sending it again is safe.
        `disable_rollback` and `timeout_mins` count only when given (None: create's
        defaults for a new stack, the stack's own for an existing one); `tags` None is none.
        `idempotency_key` is used only if the apply creates the stack."""
        return self.call(
            "conv_tasks.stack.apply",
            name=name,
            template=template,
            parameters=dict(parameters or {}),
            environment=_listed(environment),
            files=_mapped(files),
            disable_rollback=disable_rollback,
            timeout_mins=timeout_mins,
            idempotency_key=idempotency_key,
            tags=list(tags) if tags is not None else None,
        )

    def delete(self, stack: str, *, retain: Sequence[str] | None = None) -> dict[str, Any]:
        """Delete a stack. The resources `retain` names are left alone: their physical
        resources are not deleted, and the stack forgets them (an event says so)."""
        return self.call(
            "conv_tasks.stack.delete", stack=stack, retain=list(retain) if retain else None
        )

    def rollback(self, stack: str, *, skip: Sequence[str] | None = None) -> dict[str, Any]:
        """Roll a failed stack back to its last complete template. The resources `skip`
        names, which the rollback would delete, are left alone and forgotten instead."""
        return self.call(
            "conv_tasks.stack.rollback", stack=stack, skip=list(skip) if skip else None
        )

    def cancel(self, stack: str, *, rollback: bool = True) -> dict[str, Any]:
        return self.call("conv_tasks.stack.cancel_update", stack=stack, rollback=rollback)

    def check(self, stack: str) -> dict[str, Any]:
        """Start a stack check: every resource's type says whether it is healthy; the stack
        ends CHECK_COMPLETE or CHECK_FAILED (wait() for it). Refused while an operation runs."""
        return self.call("conv_tasks.stack.check", stack=stack)

    def suspend(self, stack: str) -> dict[str, Any]:
        """Start a stack suspend: every resource's type suspends it, dependants first; the
        stack ends SUSPEND_COMPLETE or SUSPEND_FAILED (wait() for it). Refused while an
        operation runs, once suspended, or after a failed operation."""
        return self.call("conv_tasks.stack.suspend", stack=stack)

    def resume(self, stack: str) -> dict[str, Any]:
        """Start a stack resume of a suspended stack: every resource's type resumes it,
        dependencies first; the stack ends RESUME_COMPLETE or RESUME_FAILED."""
        return self.call("conv_tasks.stack.resume", stack=stack)

    def mark_unhealthy(
        self, stack: str, resource: str, reason: str | None = None, *, reset: bool = False
    ) -> dict[str, Any]:
        """Mark the resource CHECK_FAILED, so that the next update replaces it; reset=True
        makes a CHECK_FAILED resource CHECK_COMPLETE again. {"status", "changed", ...}."""
        return self.call(
            "conv_tasks.resource.mark_unhealthy",
            stack=stack,
            resource=resource,
            reason=reason,
            reset=reset,
        )

    def signal(
        self, stack: str, resource: str, details: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        return self.call(
            "conv_tasks.resource.signal",
            stack=stack,
            resource=resource,
            details=dict(details or {}),
        )

    def preview(
        self,
        stack: str,
        template: Mapping[str, Any] | str | None = None,
        parameters: Mapping[str, Any] | None = None,
        *,
        existing_parameters: bool = False,
        environment: Sequence[Mapping[str, Any] | str] | None = None,
        files: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """What update (or, for a stack that does not exist, create) would do to each
        resource: {"resources": [{"name", "type", "action", "reason", "changes",
        "uncertain", "reality", "nested_stack", "nested"}], "counts", "nested_counts",
        "summary", "exists"}; `nested` holds the entries of the resource's child stack (a
        nested stack, a provider template, a group), to any depth. Changes nothing."""
        return self.call(
            "conv_tasks.stack.preview",
            stack=stack,
            template=template,
            parameters=dict(parameters or {}),
            environment=_listed(environment),
            files=_mapped(files),
            existing_parameters=existing_parameters,
        )

    def graph(self, stack: str) -> dict[str, Any]:
        """The stack's traversal graph: {"nodes": [{"id", "phase", "name", "status"}],
        "edges": [[before, after], ...], "stack", "status", "traversal"}."""
        return self.call("conv_tasks.stack.graph", stack=stack)

    def validate(
        self,
        template: Mapping[str, Any] | str,
        parameters: Mapping[str, Any] | None = None,
        *,
        environment: Sequence[Mapping[str, Any] | str] | None = None,
        files: Mapping[str, str] | None = None,
    ) -> dict[str, Any]:
        """{"valid", "errors": [{"path", "message", "line", "column"}], "warnings", "order",
        "dependencies", "types"}: a template with errors is an answer, not a refusal."""
        return self.call(
            "conv_tasks.template.validate",
            template=template,
            parameters=dict(parameters or {}),
            environment=_listed(environment),
            files=_mapped(files),
        )

    # ------------------------------------------------------- wait conditions
    def signal_wait_condition(
        self, handle: str, token: str, details: Mapping[str, Any] | None = None
    ) -> dict[str, Any]:
        """Signal a wait condition handle as a host does: with its token, not the tenant.
        `details`: {status: SUCCESS|FAILURE, reason, data, id}, each optional."""
        payload = {"handle": handle, "token": token, "details": dict(details or {})}
        return self._send("conv_tasks.wait_condition.signal", payload)

    # ---------------------------------------------------------- deployments
    def deployment_metadata(self, server: str, credential: str) -> dict[str, Any]:
        """The deployments waiting for `server`, as its agent reads them: with the server's
        credential, not the tenant."""
        return self._send(
            "conv_tasks.deployment.metadata", {"server": server, "credential": credential}
        )

    def signal_deployment(
        self, deployment: str, credential: str, action: str, details: Mapping[str, Any]
    ) -> dict[str, Any]:
        """Report on a deployment's run as its server's agent does (with its credential)."""
        payload = {
            "deployment": deployment,
            "credential": credential,
            "action": action,
            "details": dict(details),
        }
        return self._send("conv_tasks.deployment.signal", payload)

    def deployment_credential(
        self, stack: str, server: str, *, rotate: bool = False
    ) -> dict[str, Any]:
        """A new credential for the agent on `server` to read its deployments of `stack` with.
        Shown once: conv_tasks keeps only its hash. Refused (Conflict) if one was issued
        before, unless `rotate`: then the old one stops working."""
        return self.call(
            "conv_tasks.deployment.credential", stack=stack, server=server, rotate=rotate
        )

    def deployments(self, stack: str) -> builtins.list[dict[str, Any]]:
        return list(self.call("conv_tasks.deployment.list", stack=stack)["deployments"])

    def deployment(self, stack: str, name: str) -> dict[str, Any]:
        """One deployment: status, its events, outputs and the ends of stdout and stderr."""
        return dict(self.call("conv_tasks.deployment.show", stack=stack, name=name)["deployment"])

    # ----------------------------------------------------------------- reads
    def get(self, stack: str, *, include_deleted: bool = False) -> dict[str, Any]:
        result = self.call(
            "conv_tasks.stack.show", stack=stack, include_deleted=include_deleted or None
        )
        return dict(result["stack"])

    def list(
        self,
        *,
        show_nested: bool = False,
        tags: Sequence[str] | None = None,
        tags_any: Sequence[str] | None = None,
        not_tags: Sequence[str] | None = None,
        not_tags_any: Sequence[str] | None = None,
    ) -> builtins.list[dict[str, Any]]:
        """The tenant's stacks; nested stacks too with show_nested. Tag filters as
        heatclient's: having all of `tags`, at least one of `tags_any`, not all of
        `not_tags`, none of `not_tags_any`."""
        filters = {
            "tags": tags,
            "tags_any": tags_any,
            "not_tags": not_tags,
            "not_tags_any": not_tags_any,
        }
        given = {name: list(value) for name, value in filters.items() if value is not None}
        return list(
            self.call("conv_tasks.stack.list", show_nested=show_nested or None, **given)["stacks"]
        )

    def resources(
        self, stack: str, *, all_versions: bool = False, nested_depth: int = 0
    ) -> builtins.list[dict[str, Any]]:
        """The stack's resources; with nested_depth N, its nested stacks' too, N levels
        down (each with stack_name)."""
        return list(
            self.call(
                "conv_tasks.stack.resources",
                stack=stack,
                all_versions=all_versions,
                nested_depth=nested_depth or None,
            )["resources"]
        )

    def events(
        self, stack: str, *, after_id: int = 0, latest: int = 0, nested_depth: int = 0
    ) -> builtins.list[dict[str, Any]]:
        """The stack's events; with nested_depth N, its nested stacks' too, N levels down
        (each with stack_name), in one order by id. With `latest` n, only the newest n of
        those after `after_id` (at most MAX_LATEST_EVENTS), still oldest first."""
        return list(
            self.call(
                "conv_tasks.stack.events",
                stack=stack,
                after_id=after_id,
                latest=latest or None,
                nested_depth=nested_depth or None,
            )["events"]
        )

    def outputs(self, stack: str) -> dict[str, Any]:
        return dict(self.call("conv_tasks.stack.outputs", stack=stack)["outputs"])

    def output(self, stack: str, name: str) -> dict[str, Any]:
        """One output: its value (hidden values masked), description and error if any."""
        outputs = self.outputs(stack)
        if name not in outputs:
            raise errors.NotFound(f"Stack {stack!r} has no output {name!r}.")
        return {"output": name, **outputs[name]}

    def resource(self, stack: str, name: str) -> dict[str, Any]:
        """One resource: properties and attributes (hidden values masked), its versions and
        its latest events."""
        return dict(self.call("conv_tasks.resource.show", stack=stack, resource=name)["resource"])

    def template(self, stack: str) -> dict[str, Any]:
        """The stack's current template as stored (hidden parameters' defaults masked)."""
        return dict(self.call("conv_tasks.stack.template", stack=stack)["template"])

    def environment(self, stack: str) -> dict[str, Any]:
        """The environment the stack's current template was stored with, merged from those
        its requests gave (hidden parameters' values masked)."""
        return dict(self.call("conv_tasks.stack.template", stack=stack)["environment"])

    def history(self, stack: str, limit: int = 20, before: int | None = None) -> dict[str, Any]:
        """One page of the stack's operations, newest first: {"operations": [{"id",
        "traversal", "action", "tenant", "started_at", "ended_at", "duration_secs", "result",
        "reason", "counts", "failures", "watchdog_restarts"}], "next"}; pass `next` as
        `before` for the page after (None: this was the last)."""
        return self.call("conv_tasks.stack.history", stack=stack, limit=limit, before=before)

    def overview(
        self,
        *,
        all_tenants: bool = False,
        status: Sequence[str] | None = None,
        tags: Sequence[str] | None = None,
        name: str | None = None,
        limit: int = 50,
        marker: str | None = None,
    ) -> dict[str, Any]:
        """The stacks list: {"attention": [...], "attention_total", "stacks": [...], "next",
        "total"}. Filters: `status` (statuses such as FAILED, or states such as
        CREATE_COMPLETE), `tags` (all of them), `name` (a part of it, any case); pass `next`
        as `marker` for the page after. `all_tenants`: every tenant's stacks."""
        return self.call(
            "conv_tasks.stack.overview",
            all_tenants=all_tenants or None,
            status=None if status is None else list(status),
            tags=None if tags is None else list(tags),
            name=name,
            limit=limit,
            marker=marker,
        )

    def wait(
        self,
        stack: str,
        *,
        timeout: float = 300.0,
        interval: float = 0.5,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        on_poll: Callable[[dict[str, Any]], None] | None = None,
        after_event: int = 0,
    ) -> dict[str, Any]:
        """Wait until the stack's operation has finished; returns the stack as shown then.

        `on_event` is called with each event after `after_event` as it appears (the CLI's
        live view; an operation's result carries its first event as `event_id`).
        Pass the stack id to follow a stack through its deletion.
        """
        deadline = time.monotonic() + timeout
        seen = after_event
        while True:
            stack_data = self.get(stack, include_deleted=True)
            if on_event is not None:
                for event in self.events(stack_data["id"], after_id=seen):
                    seen = max(seen, int(event["id"]))
                    on_event(event)
            if on_poll is not None:
                on_poll(stack_data)
            if stack_data["status"].endswith(TERMINAL):
                return stack_data
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"stack {stack} still {stack_data['status']} after {timeout:.0f}s"
                )
            time.sleep(interval)
