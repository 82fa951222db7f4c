"""What one step of an action sees: its ActionContext, the sandbox and the connection it acts
through, and the engine's services handed on it (engine_service).

The context is made by the engine for every step and is frozen: a step keeps nothing on it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, runtime_checkable

from conv_tasks.deployments import DeploymentStore
from conv_tasks.errors import ResourceFailure
from conv_tasks.provider_errors import Fatal
from conv_tasks.sdk.children import ChildStacks
from conv_tasks.waitconditions import WaitHandleStore


@runtime_checkable
class Sandbox(Protocol):
    """The test cloud that TestResource and friends act on."""

    def create(self, token: str, kind: str, properties: Mapping[str, Any]) -> str:
        """The object id; the same token always returns the same object, created once."""
        ...

    def update(self, object_id: str, properties: Mapping[str, Any]) -> None: ...

    def delete(self, object_id: str) -> bool:
        """False if it was not there (already deleted is fine)."""
        ...

    def get(self, object_id: str) -> Mapping[str, Any] | None: ...

    def find(self, token: str) -> str | None:
        """The id of the live object the create with this token made; None if none is."""
        ...


@dataclass(frozen=True)
class ActionContext:
    """Everything one step of one action on one resource may use.

    The engine makes a new one for every step, from what it recorded: nothing a step sets on
    it is kept (it is frozen). What a step wants kept goes back in `Progress.data` and
    `Progress.physical_id`. The fields after `sandbox` serve the built-in types; a type of
    your own reads `connection` (through `client()`) and, if it needs them, `deadline`,
    `tenant` and `update_policy`.
    """

    stack_id: str
    """The id of the resource's stack. Every idempotency token starts with it."""
    resource_name: str
    """The resource's name in its stack's template: name the object after it in messages."""
    action: str
    """The action this step belongs to: `CREATE`, `UPDATE`, `DELETE`, `CHECK`, `SUSPEND` or
    `RESUME` (the SDK's constants of those names)."""
    idempotency_token: str
    """The same on every step and every retry of this action on this version of the resource,
    whichever worker runs it; another for every other action or version (a replacement's
    create, an update in place and each delete get their own). The same token must never make
    two things. Opaque, but for its start: the stack's id."""
    properties: Mapping[str, Any]
    """The properties the action converges to: every property of the schema, checked and
    coerced to its type, its default filled in, None where it has neither a value nor a
    default. A delete, a check and `observe` get the version's own (as last converged)."""
    old_properties: Mapping[str, Any] | None
    """On the steps of an update in place, the properties the resource had before (compare
    them with `properties` to know what to change; they may be equal: a change of metadata
    alone, or an update tried again after it failed). None on every other action."""
    physical_id: str | None
    """The id of the real object, as a step returned it in `Progress.physical_id`. None on a
    create's first step; an update in place keeps the previous version's; a replacement's
    create starts from None. (A resource that adopts an object never calls `create`: its
    `observe` gets the external id here.)"""
    data: Mapping[str, Any]
    """The plugin data kept so far: every `Progress.data` the version's steps returned,
    merged key by key (an update in place starts from the previous version's; a replacement
    from nothing). The engine may keep keys of its own in it, named `__conv_tasks_*__`."""
    started_at: float
    """When the action's first step ran (epoch seconds); the same on every step of it."""
    now: float
    """Now (epoch seconds), by the database's clock in a node: compare it with `started_at`
    and `deadline`, not with this host's clock."""
    sandbox: Sandbox
    """The test cloud OS::Heat::TestResource and its kin act on."""
    deployments: DeploymentStore | None = None
    """Where software configs and deployments are kept (None where nothing provides one)."""
    children: ChildStacks | None = None
    """The child stacks of nested-stack resources (None where nothing provides them)."""
    deadline: float | None = None
    """When the action must have finished (epoch seconds), if known: past it the engine calls
    `interrupt` and fails the action. A child stack gets what is left of it as its timeout."""
    update_policy: Mapping[str, Any] = field(default_factory=dict)
    """The resource's update_policy as resolved (types with an update_policy_schema), on the
    first step of a create or update; empty otherwise."""
    attribute_references: tuple[tuple[str, tuple[Any, ...]], ...] = ()
    """Every get_attr [resource, attribute, *path] of this resource in its stack's template, as
    (attribute, literal path items), on the first step of a create or update: a group reads
    only the member attributes these need."""
    wait_handles: WaitHandleStore | None = None
    """Where wait condition handles keep their signals (None where nothing provides one)."""
    facade: Mapping[str, Any] | None = None
    """The resource's own definition as a child stack reads it through resource_facade
    (resolved metadata, deletion_policy, update_policy): given on the first step of a create
    or update, None on polls and deletes."""
    tenant: str | None = None
    """The tenant whose stack this is."""
    edge_url: str | None = None
    """The HTTP edge's base URL as servers reach it (CONV_TASKS_API_PUBLIC_URL), for types
    that give servers a URL to call back (a wait condition handle); None where none is set."""
    connection: Connected | None = None
    """The connection the resource names in its `connection` property, for a type that needs
    one (`ResourceType.connection_kind`); `client()` is its ready client."""
    create_token: str | None = None
    """The idempotency token of the create of a version that has no physical id: the create
    ended (interrupted, failed, cancelled, its worker killed) before the type returned one,
    but it may have made its object. Given on a delete (its start and its polls) of such a
    version, and on the conformance kit's `observe` of what it left: the type finds the object
    that this token's create made (the id it derives from the token, the mark it left on the
    object, the task it sent) and deletes (or reads) it; finding nothing is done (or
    `Observed(exists=False)`). None on every other step (`idempotency_token` is the step's
    own). SDK 1.2."""

    def client(self) -> Any:
        """The ready client of the resource's connection; Fatal if it names none."""
        if self.connection is None:
            raise Fatal(
                f"Resource {self.resource_name}: it names no connection.",
                resource=self.resource_name,
                action=self.action,
            )
        return self.connection.client


@runtime_checkable
class Connected(Protocol):
    """What an action sees of its resource's connection (conv_tasks.connections)."""

    name: str
    kind: str

    @property
    def client(self) -> Any:
        """The ready client: a psycopg connection, an httpx.Client, a Celery app."""
        ...

    def secrets(self) -> tuple[str, ...]:
        """The secret values to mask in anything shown."""
        ...

    def admit(self, token: str, *, starting: bool) -> float:
        """(The engine's) seconds the action `token` waits for the connection's rate limits."""
        ...

    def release(self, token: str) -> None:
        """(The engine's) the action `token` ended: its slot in flight is free."""
        ...


S = TypeVar("S")


def engine_service(ctx: ActionContext, service: S | None, what: str) -> S:
    """A service the engine hands actions on the context (the deployment store, wait
    condition handles, child stacks), or a failure naming `what` this engine lacks."""
    if service is None:
        raise ResourceFailure(
            f"Resource {ctx.resource_name}: no {what} is configured in this engine.",
            resource=ctx.resource_name,
            action=ctx.action,
        )
    return service
