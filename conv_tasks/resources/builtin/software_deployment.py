"""OS::Heat::SoftwareDeployment: a config run on a server by the agent there (seed 002).

An action is published for the server's agent (conv_tasks.deployment.metadata
shows it) and then waited for by polling, never by blocking a worker, until
the agent's signal has been recorded: COMPLETE with outputs, or FAILED. The
agent's IN_PROGRESS signal only tells the user it has started. An action
not among `actions` publishes the new config and inputs without asking the
server for anything. Delete asks the server to run DELETE when `actions`
holds it and the server has run the deployment before, then removes it. A stack
suspend (resume) asks the server to run SUSPEND (RESUME) when `actions` holds it,
and waits for its signal like a create; otherwise it completes at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.builtin.software_config import deployment_store
from conv_tasks.sdk import (
    CONV_TASKS_SIGNAL,
    DEFAULT_ACTION_TIMEOUT,
    HEAT_TRANSPORTS,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    STANDARD_OUTPUTS,
    STATUS_CODE,
    STDERR,
    STDOUT,
    STRING,
    ActionContext,
    AttributeSchema,
    Constraint,
    DeployAction,
    DeploymentAction,
    DeploymentState,
    DeployStatus,
    Progress,
    PropertySchema,
    ResourceFailure,
    ResourceType,
    SoftwareConfig,
    SupportStatus,
    token_physical_id,
)

DEFAULT_ACTIONS = [DeployAction.CREATE.value, DeployAction.UPDATE.value]
# Polls start this often and slow down as the wait grows (a tenth of it), up to the maximum:
# a quick script is noticed at once, an hour-long one costs a poll every few seconds.
MIN_POLL_SECS = 0.5
MAX_POLL_SECS = 5.0
STOPPED = "conv_tasks stopped waiting for the server (the operation was cancelled or timed out, "
STOPPED += "or the stack is being deleted)"

_TRANSPORTS = Constraint.allowed_values(
    CONV_TASKS_SIGNAL,
    description=(
        f"Heat's signal transports ({', '.join(HEAT_TRANSPORTS)}) are not implemented by "
        f"conv_tasks; use {CONV_TASKS_SIGNAL}, the conv_tasks.deployment.signal task"
    ),
)


class SoftwareDeploymentResource(ResourceType):
    """Runs a SoftwareConfig on a server through the agent there, and waits for its signal."""

    type_name: ClassVar[str] = "OS::Heat::SoftwareDeployment"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="2014.1")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {
        "config": PropertySchema(
            STRING,
            "The id of the SoftwareConfig to run (get_resource of one); none: inputs only.",
            update_allowed=True,
        ),
        "server": PropertySchema(
            STRING,
            "The host whose agent runs the deployment: an id, or get_resource/get_attr of "
            "another resource. A change replaces the deployment.",
            required=True,
            constraints=(Constraint.length(1, 255),),
        ),
        "input_values": PropertySchema(
            MAP, "Values of the config's inputs.", default={}, update_allowed=True
        ),
        "actions": PropertySchema(
            LIST,
            "The actions the server runs the config for.",
            default=DEFAULT_ACTIONS,
            update_allowed=True,
            schema=PropertySchema(STRING, constraints=(Constraint.allowed_values(*DeployAction),)),
        ),
        "name": PropertySchema(
            STRING,
            "The deployment's name as the agent sees it (default: the resource's).",
            update_allowed=True,
        ),
        "signal_transport": PropertySchema(
            STRING,
            "How the server signals: conv_tasks' signal task.",
            default=CONV_TASKS_SIGNAL,
            constraints=(_TRANSPORTS,),
        ),
        "timeout": PropertySchema(
            NUMBER,
            "Seconds an action may wait for the server's signal (the stack's timeout, when "
            "shorter, still holds).",
            update_allowed=True,
            constraints=(Constraint.range(1, 7 * 24 * 3600),),
        ),
    }
    # Its outputs' names come from its config's `outputs` (output_names).
    dynamic_attributes: ClassVar[bool] = True
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {
        STDOUT: AttributeSchema("What the config wrote to stdout (its end).", type=STRING),
        STDERR: AttributeSchema("What the config wrote to stderr (its end).", type=STRING),
        STATUS_CODE: AttributeSchema("The config's exit status.", type=INTEGER),
    }

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        chosen = properties.get("timeout")
        return float(chosen) if chosen else DEFAULT_ACTION_TIMEOUT

    def interrupt(self, ctx: ActionContext) -> None:
        """The server is told nothing: its action is no longer pending, and a late signal
        for it is answered as one for an action that already ended."""
        if ctx.physical_id is not None:
            deployment_store(ctx).stop(ctx.physical_id, ctx.idempotency_token, STOPPED)

    # ------------------------------------------------------------- create, update
    def create(self, ctx: ActionContext) -> Progress:
        deployment_id = ctx.physical_id or token_physical_id(ctx.idempotency_token)
        return self._publish(ctx, deployment_id, DeployAction.CREATE)

    def check_create(self, ctx: ActionContext) -> Progress:
        return self._check(ctx)

    def update(self, ctx: ActionContext) -> Progress:
        deployment_id = ctx.physical_id or token_physical_id(ctx.idempotency_token)
        return self._publish(ctx, deployment_id, DeployAction.UPDATE)

    def check_update(self, ctx: ActionContext) -> Progress:
        return self._check(ctx)

    def _publish(self, ctx: ActionContext, deployment_id: str, action: DeployAction) -> Progress:
        store = deployment_store(ctx)
        props = ctx.properties
        config_id = props.get("config")
        config = SoftwareConfig.empty()
        if config_id:
            found = store.config(ctx.stack_id, config_id)
            if found is None:
                raise self._failure(ctx, f"software config {config_id!r} does not exist")
            config = found
        published = DeploymentAction(
            id=deployment_id,
            stack_id=ctx.stack_id,
            resource_name=ctx.resource_name,
            server=props["server"],
            name=props.get("name") or ctx.resource_name,
            config=config,
            input_values=dict(props.get("input_values") or {}),
            action=action,
            token=ctx.idempotency_token,
            awaited=action.value in (props.get("actions") or ()),
            signal_transport=props.get("signal_transport") or CONV_TASKS_SIGNAL,
        )
        state = store.publish(published)
        data = {"output_names": [o.name for o in config.outputs]}
        if not published.awaited:
            return Progress(
                done=True, physical_id=deployment_id, data={**data, "outputs": state.outputs}
            )
        progress = self._judge(ctx, state)
        return Progress(
            done=progress.done,
            physical_id=deployment_id,
            data={**data, **progress.data},
            poll_after=progress.poll_after,
        )

    def _check(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:
            raise self._failure(ctx, "the deployment was never published")
        return self._judge(ctx, deployment_store(ctx).state(ctx.physical_id))

    def _judge(self, ctx: ActionContext, state: DeploymentState | None) -> Progress:
        """Done, failed, or poll again: what the recorded signal (if any) says."""
        if state is None:
            raise self._failure(ctx, "the deployment is gone")
        if state.token != ctx.idempotency_token:
            raise self._failure(ctx, f"a newer {state.action} action replaced this one")
        if state.status == DeployStatus.COMPLETE:
            return Progress(done=True, data={"outputs": dict(state.outputs)})
        if state.status == DeployStatus.FAILED:
            raise self._failure(ctx, f"the {state.action} failed: {state.status_reason}")
        waited = ctx.now - ctx.started_at
        timeout = ctx.properties.get("timeout")
        if timeout and waited > float(timeout):
            store = deployment_store(ctx)
            store.stop(state.id, ctx.idempotency_token, f"timed out after {float(timeout):.0f} s")
            raise self._failure(
                ctx,
                f"no signal from server {ctx.properties.get('server')!r} within the "
                f"deployment's timeout ({float(timeout):.0f} s)",
            )
        return Progress(done=False, poll_after=poll_after(waited))

    # ------------------------------------------------------------ suspend, resume
    def suspend(self, ctx: ActionContext) -> Progress:
        return self._on_walk(ctx, DeployAction.SUSPEND)

    def check_suspend(self, ctx: ActionContext) -> Progress:
        return self._check(ctx)

    def resume(self, ctx: ActionContext) -> Progress:
        return self._on_walk(ctx, DeployAction.RESUME)

    def check_resume(self, ctx: ActionContext) -> Progress:
        return self._check(ctx)

    def _on_walk(self, ctx: ActionContext, action: DeployAction) -> Progress:
        """Run the config on the server for a suspend or resume its `actions` name (with the
        inputs and config it has now); nothing to do otherwise, nor for a deployment never
        published."""
        if action.value not in (ctx.properties.get("actions") or ()) or ctx.physical_id is None:
            return Progress(done=True)
        return self._publish(ctx, ctx.physical_id, action)

    # --------------------------------------------------------------------- delete
    def delete(self, ctx: ActionContext) -> Progress:
        # A create that ended before its id was recorded published under its token's id.
        deployment_id = ctx.physical_id
        if deployment_id is None and ctx.create_token is not None:
            deployment_id = token_physical_id(ctx.create_token)
        if deployment_id is None:
            return Progress(done=True)
        store = deployment_store(ctx)
        state = store.state(deployment_id)
        if state is None:
            return Progress(done=True)
        wanted = DeployAction.DELETE.value in (ctx.properties.get("actions") or ())
        if not (wanted and state.server_ran):
            store.remove(deployment_id)
            return Progress(done=True)
        published = store.publish_delete(deployment_id, ctx.idempotency_token)
        progress = self._deleted(ctx, deployment_id, published)
        # The id is recorded, so that the polls of this delete read the same deployment.
        return Progress(progress.done, deployment_id, progress.data, progress.poll_after)

    def check_delete(self, ctx: ActionContext) -> Progress:
        if ctx.physical_id is None:
            return Progress(done=True)
        return self._deleted(ctx, ctx.physical_id, deployment_store(ctx).state(ctx.physical_id))

    def _deleted(
        self, ctx: ActionContext, deployment_id: str, state: DeploymentState | None
    ) -> Progress:
        if state is None:
            return Progress(done=True)
        progress = self._judge(ctx, state)
        if progress.done:
            deployment_store(ctx).remove(deployment_id)
        return progress

    # ----------------------------------------------------------------- attributes
    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        outputs = dict(ctx.data.get("outputs") or {})
        names = [*STANDARD_OUTPUTS, *(ctx.data.get("output_names") or ())]
        return {name: outputs.get(name) for name in names}

    def _failure(self, ctx: ActionContext, what: str) -> ResourceFailure:
        return ResourceFailure(
            f"Deployment {ctx.resource_name}: {what}",
            resource=ctx.resource_name,
            action=ctx.action,
        )


def poll_after(waited: float) -> float:
    """Seconds until the next look at a deployment that has waited `waited` seconds."""
    return min(MAX_POLL_SECS, max(MIN_POLL_SECS, waited / 10))
