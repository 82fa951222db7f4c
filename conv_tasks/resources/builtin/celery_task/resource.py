"""ConvTasks::Celery::Task: one resource is work another service's Celery tasks do.

Its create, update and delete each send that service's task (`{task, queue, kwargs}`) with
the action's idempotency token added as `idempotency_key` (and, to update and delete, the
resource's `id`), then poll the task's state in the result backend, one read a step, until
it succeeds (its JSON result becomes the `result` attribute) or fails (its exception's
message fails the resource). An interrupted or timed-out action revokes the task. A create
that ended before its id was recorded is found by its token: its delete revokes that create
task, waits while it runs, and sends the delete task with the id it gave.

Exactly once: the task id comes from the token, so a call sent again (a worker died after
sending, before its step was recorded) is the same task, and one whose result is already
there is not sent again; the service's task deduplicates on `idempotency_key` (the contract,
docs/types/celery-task.md). A task that stays PENDING is taken as queued: the resource
waits, up to its action's deadline.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar

from celery import Celery

from conv_tasks.resources.builtin.celery_task import remote
from conv_tasks.resources.builtin.celery_task.call import (
    ID_PATH_PATTERN,
    QUEUE_PATTERN,
    TASK_NAME_PATTERN,
    TaskCall,
    json_problem,
    kwargs_problems,
    physical_id_at,
    task_id_for,
)
from conv_tasks.sdk import (
    ANY,
    CREATE,
    DEFAULT_ACTION_TIMEOUT,
    DELETE,
    MAP,
    NUMBER,
    STRING,
    UPDATE,
    ActionContext,
    AttributeSchema,
    Constraint,
    Fatal,
    Problem,
    Progress,
    PropertySchema,
    ResourceType,
    Transient,
    TypeLookup,
    function_call,
)

# Polls come soon after a send (most tasks are quick), then further apart as the task takes
# longer: a quarter of the time waited so far, at most MAX_POLL so that a cancel is soon seen.
MIN_POLL = 0.05
MAX_POLL = 1.0
# Plugin data: the JSON result of the create or the last update.
RESULT = "result"
# Plugin data of a delete of what a create left without an id: its create task still runs.
AWAITING_CREATE = "awaiting_create"
# The longest an action may be given (`timeout`), in seconds: a week.
MAX_TIMEOUT = 7 * 24 * 3600.0


def _call_schema(does: str, *, required: bool) -> PropertySchema:
    return PropertySchema(
        MAP,
        f"The task that {does}: its name, its queue and its keyword arguments.",
        required=required,
        update_allowed=True,
        schema={
            "task": PropertySchema(
                STRING,
                "The task's registered name, such as billing.tasks.create_account.",
                required=True,
                constraints=(
                    Constraint.allowed_pattern(
                        TASK_NAME_PATTERN,
                        description="must be a dotted task name such as "
                        "billing.tasks.create_account",
                    ),
                ),
            ),
            "queue": PropertySchema(
                STRING,
                "The queue its workers consume; the connection's default queue if not given.",
                constraints=(
                    Constraint.allowed_pattern(
                        QUEUE_PATTERN, description="must be a queue name without spaces"
                    ),
                    Constraint.length(1, 255),
                ),
            ),
            "kwargs": PropertySchema(
                MAP,
                "Its keyword arguments, a JSON object. conv_tasks adds idempotency_key, and "
                "to update and delete tasks, id.",
                default={},
            ),
        },
    )


class CeleryTaskResource(ResourceType):
    """Work done by another service's Celery tasks: create, update and delete are task calls."""

    type_name: ClassVar[str] = "ConvTasks::Celery::Task"
    connection_kind: ClassVar[str | None] = "celery"
    sdk_versions: ClassVar[str | None] = ">=1.0,<2"
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "create": _call_schema("makes the thing", required=True),
        "update": _call_schema(
            "changes it in place (without one, a change of create replaces the resource)",
            required=False,
        ),
        "delete": _call_schema(
            "deletes it (without one, a delete only forgets the resource)", required=False
        ),
        "connection": PropertySchema(
            STRING,
            "The name of the celery connection (a broker and a result backend, defined in the "
            "file CONV_TASKS_CONNECTIONS names); conv_tasks' own broker and result backend if "
            "not given.",
        ),
        "id_path": PropertySchema(
            STRING,
            "Where the physical id is in the create task's result, as keys joined by dots "
            "(account.id); the action's idempotency token if not given.",
            constraints=(
                Constraint.allowed_pattern(
                    ID_PATH_PATTERN, description="must be keys joined by dots, such as account.id"
                ),
            ),
        ),
        "timeout": PropertySchema(
            NUMBER,
            "Seconds an action may take when the stack sets no timeout; then its task is "
            "revoked and the resource fails.",
            default=DEFAULT_ACTION_TIMEOUT,
            update_allowed=True,
            constraints=(Constraint.range(1, MAX_TIMEOUT),),
        ),
    }
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        "result": AttributeSchema(
            "The JSON result of the create task, or of the last update task.", type=ANY
        ),
        "id": AttributeSchema("The physical id (see id_path).", type=STRING),
    }

    @classmethod
    def template_problems(cls, values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
        """kwargs written in the template that are not a JSON object, or that set what
        conv_tasks sets (the schema checks the rest)."""
        if not isinstance(values, Mapping):
            return []
        problems = []
        for action in ("create", "update", "delete"):
            spec = values.get(action)
            kwargs = spec.get("kwargs") if isinstance(spec, Mapping) else None
            if not isinstance(kwargs, Mapping) or _is_function(kwargs):
                continue  # not written out here, or not a map (which the schema reports)
            for where, message in kwargs_problems(kwargs, action, skip=_is_function):
                problems.append(Problem(f"{path}.{action}.kwargs{where}", message))
        return problems

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        return float(properties.get("timeout") or DEFAULT_ACTION_TIMEOUT)

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        """Another service or another id_path is another thing. A change of what the create
        task makes (its task or kwargs) is made in place only if the update task changes too
        (it carries the change); otherwise the resource is made again. Queues, the delete
        task and the timeout change in place."""
        if any(old.get(name) != new.get(name) for name in ("connection", "id_path")):
            return True
        if _what(old.get("create")) == _what(new.get("create")):
            return False
        return new.get("update") is None or _what(old.get("update")) == _what(new.get("update"))

    # -------------------------------------------------------------------- actions

    def create(self, ctx: ActionContext) -> Progress:
        self._start(ctx, CREATE, physical_id=None)
        # With no id_path the id is the token, known now: a create that fails or is
        # interrupted still has it, so its delete task is called for whatever it left.
        known = None if ctx.properties.get("id_path") else ctx.idempotency_token
        return Progress(done=False, physical_id=known, poll_after=MIN_POLL)

    def check_create(self, ctx: ActionContext) -> Progress:
        state = self._poll(ctx, CREATE)
        if not state.succeeded:
            return self._later(ctx)
        result = self._result(ctx, CREATE, state)
        id_path = ctx.properties.get("id_path")
        physical_id = ctx.idempotency_token
        if id_path:
            try:
                physical_id = physical_id_at(result, str(id_path))
            except ValueError as exc:
                raise self._fatal(ctx, f"{exc}") from None
        return Progress(done=True, physical_id=physical_id, data={RESULT: result})

    def update(self, ctx: ActionContext) -> Progress:
        if not ctx.properties.get("update"):
            return Progress(done=True)  # nothing to call: the new properties are recorded
        self._start(ctx, UPDATE, physical_id=self._physical_id(ctx))
        return Progress(done=False, poll_after=MIN_POLL)

    def check_update(self, ctx: ActionContext) -> Progress:
        state = self._poll(ctx, UPDATE)
        if not state.succeeded:
            return self._later(ctx)
        return Progress(done=True, data={RESULT: self._result(ctx, UPDATE, state)})

    def delete(self, ctx: ActionContext) -> Progress:
        if not ctx.properties.get("delete"):
            return Progress(done=True)  # no delete task: forgetting it is the whole delete
        if ctx.physical_id is None:
            return self._delete_leftover(ctx)
        self._start(ctx, DELETE, physical_id=ctx.physical_id)
        return Progress(done=False, poll_after=MIN_POLL)

    def check_delete(self, ctx: ActionContext) -> Progress:
        if ctx.data.get(AWAITING_CREATE):
            return self._delete_leftover(ctx)
        state = self._poll(ctx, DELETE)
        if not state.succeeded:
            return self._later(ctx)
        return Progress(done=True)

    def interrupt(self, ctx: ActionContext) -> None:
        """Revoke the action's task: dropped if no worker took it yet, stopped if one runs it."""
        try:
            remote.revoke(self._app(ctx), task_id_for(ctx.idempotency_token))
        except remote.RemoteError as exc:
            raise self._fatal(ctx, f"its task could not be revoked: {exc}") from None

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        return {"result": ctx.data.get(RESULT), "id": ctx.physical_id}

    def _delete_leftover(self, ctx: ActionContext) -> Progress:
        """The delete of a resource whose create ended without an id (interrupted, failed, its
        worker killed): its create task (ctx.create_token names it) is revoked, and waited
        for while a worker runs it; then the delete task is sent with the id the create gave
        (the create's idempotency key, or what its result holds at id_path). A create task
        that failed, or never ran, made nothing the resource can name: done."""
        if ctx.create_token is None:
            return Progress(done=True)
        app = self._app(ctx)
        created = task_id_for(ctx.create_token)
        task = _what(ctx.properties.get("create"))[0]
        with self._remote(ctx, f"the create task {task}"):
            state = remote.read_state(app, created)
            if not (state.succeeded or state.failed):
                remote.revoke(app, created)
        if not (state.pending or state.succeeded or state.failed):
            # A worker runs it now: the revoke stops it, or it finishes first.
            later = self._later(ctx)
            return Progress(False, data={AWAITING_CREATE: True}, poll_after=later.poll_after)
        id_path = ctx.properties.get("id_path")
        physical_id: str | None = ctx.create_token
        if id_path:
            physical_id = None
            if state.succeeded:
                with contextlib.suppress(ValueError):  # no id there: nothing it can name
                    physical_id = physical_id_at(state.result, str(id_path))
        if physical_id is None:
            return Progress(done=True)
        self._start(ctx, DELETE, physical_id=physical_id)
        # The id is recorded, so that the polls of this delete are those of any delete.
        data = {AWAITING_CREATE: None}
        return Progress(False, physical_id=physical_id, data=data, poll_after=MIN_POLL)

    # -------------------------------------------------------------------- steps

    def _start(self, ctx: ActionContext, action: str, *, physical_id: str | None) -> None:
        """Send the action's call, unless its task is known already: a step started again
        with the same token finds the first send's task and only polls it."""
        key = action.lower()
        spec = ctx.properties.get(key)
        if not isinstance(spec, Mapping):
            raise self._fatal(ctx, f"it has no {key} task")
        call = TaskCall.of(spec)
        problems = kwargs_problems(call.kwargs, key)
        if problems:
            where, message = problems[0]
            raise self._fatal(ctx, f"property {key}.kwargs{where} {message}")
        app = self._app(ctx)
        task_id = task_id_for(ctx.idempotency_token)
        kwargs = call.sent_kwargs(ctx.idempotency_token, physical_id)
        with self._remote(ctx, f"the {key} task {call.task}"):
            if remote.read_state(app, task_id).pending:
                remote.send(app, call, task_id, kwargs)

    def _poll(self, ctx: ActionContext, action: str) -> remote.TaskState:
        """The task's state; a Fatal error if it failed."""
        key = action.lower()
        task = _what(ctx.properties.get(key))[0]
        with self._remote(ctx, f"the {key} task {task}"):
            state = remote.read_state(self._app(ctx), task_id_for(ctx.idempotency_token))
        if state.failed:
            if state.error is not None:
                raise self._fatal(ctx, f"the {key} task {task} raised {state.error}")
            raise self._fatal(ctx, f"the {key} task {task} was {state.state.lower()}")
        return state

    def _result(self, ctx: ActionContext, action: str, state: remote.TaskState) -> Any:
        problem = json_problem(state.result)
        if problem is not None:
            key = action.lower()
            task = _what(ctx.properties.get(key))[0]
            raise self._fatal(ctx, f"the result of the {key} task {task} is not JSON: it {problem}")
        return state.result

    def _later(self, ctx: ActionContext) -> Progress:
        waited = max(0.0, ctx.now - ctx.started_at)
        return Progress(done=False, poll_after=min(MAX_POLL, max(MIN_POLL, waited / 4)))

    def _app(self, ctx: ActionContext) -> Celery:
        app = ctx.client()
        if not isinstance(app, Celery):
            raise self._fatal(ctx, "its connection is not a celery connection")
        return app

    def _physical_id(self, ctx: ActionContext) -> str:
        if ctx.physical_id is None:
            raise self._fatal(ctx, "it has no id to hand its task (its create never finished)")
        return ctx.physical_id

    def _fatal(self, ctx: ActionContext, reason: str) -> Fatal:
        return Fatal(
            f"Resource {ctx.resource_name}: {reason}.",
            resource=ctx.resource_name,
            action=ctx.action,
        )

    @contextlib.contextmanager
    def _remote(self, ctx: ActionContext, what: str) -> Iterator[None]:
        """What the service's broker or result backend answered badly, as provider errors:
        unreachable is Transient (asked again later), anything else fails the action."""
        try:
            yield
        except remote.RemoteError as exc:
            name = ctx.connection.name if ctx.connection is not None else "?"
            reason = f"{what}: connection {name!r}: {exc}"
            if isinstance(exc, remote.Unreachable):
                raise Transient(
                    f"Resource {ctx.resource_name}: {reason}", resource=ctx.resource_name
                ) from None
            raise self._fatal(ctx, reason) from None


def _what(spec: Any) -> tuple[str, Any]:
    """What a call does: its task and kwargs (its queue says only where it runs)."""
    if not isinstance(spec, Mapping):
        return ("", None)
    return (str(spec.get("task") or ""), spec.get("kwargs") or {})


def _is_function(value: Any) -> bool:
    return function_call(value) is not None
