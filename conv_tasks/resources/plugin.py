"""The resource-type plugin interface: what the engine calls to act on one resource.

A plugin is a ResourceType subclass (conv_tasks.sdk is its public face). Its instances are
stateless: everything an action needs arrives in an ActionContext, and everything it wants
to keep goes back in Progress.data. An action is started once per attempt and then polled
until done; a plugin never sleeps, and returns from each step within its step budget. It
talks to the service it manages through the client of the connection its resource names
(ctx.connection), or to the stores the engine hands it (the sandbox, software deployments,
child stacks, wait condition handles); it raises conv_tasks.provider_errors for what the
service answers, and honours the idempotency token: the same token never makes two things.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, TypeVar, runtime_checkable

from conv_tasks.deployments.store import DeploymentStore
from conv_tasks.errors import Problem, ResourceFailure
from conv_tasks.provider_errors import Fatal
from conv_tasks.resources.child_stacks import ChildStacks
from conv_tasks.resources.schema import AttributeSchema, PropertySchema
from conv_tasks.resources.support import SupportStatus
from conv_tasks.resources.translation import TranslationRule
from conv_tasks.waitconditions.store import WaitHandleStore

# type name -> its class, or None for a type that does not exist.
TypeLookup = Callable[[str], "type[ResourceType] | None"]

SDK_VERSION = "1.2"  # 1.1: suspend and resume actions; Observed.data (adopting, external_id)
# 1.2: ActionContext.create_token, ResourceType.makes_objects (a create that ended without a
# physical id still gets a delete)
"""The version of the resource-type SDK (conv_tasks.sdk) this conv_tasks offers: the minor
number grows with additions, the major one with changes a type must follow. A type names the
versions it is written for in `ResourceType.sdk_versions`."""
CONNECTION_KINDS = ("postgresql", "http", "celery")
"""The kinds of connection a type may act through (`ResourceType.connection_kind`;
conv_tasks.connections.specs.KINDS)."""

DEFAULT_ACTION_TIMEOUT = 3600.0
"""Seconds an action may take when its stack sets no timeout (Heat's default stack timeout);
a type may say otherwise in `ResourceType.action_timeout`."""
DEFAULT_STEP_BUDGET = 5.0
"""Seconds one step (a start or a poll) may take before the engine logs it as too slow, and
the conformance kit fails it: a step must return, and ask to be polled, rather than wait for
the service. A type may say otherwise in `ResourceType.step_budget`."""

# The actions, as `ActionContext.action` names them.
CREATE = "CREATE"
"""A create's steps, and `observe` when a resource adopts an object (`external_id`). A
replacement is the create of a new version."""
UPDATE = "UPDATE"
"""An update in place's steps."""
DELETE = "DELETE"
"""A delete's steps."""
CHECK = "CHECK"
"""A stack check's `check`, and `observe` in a preview."""
SUSPEND = "SUSPEND"
"""A stack suspend's steps (SDK 1.1)."""
RESUME = "RESUME"
"""A stack resume's steps (SDK 1.1)."""

# Fixed so that the id made from a token is the same on every host and every retry.
_TOKEN_NAMESPACE = uuid.UUID("5b0e1f3c-7d4a-4c55-9a3e-2f6b8d1c0a17")


def token_physical_id(token: str) -> str:
    """A stable physical id for things that exist only on paper (OS::Heat::None and friends)."""
    return str(uuid.uuid5(_TOKEN_NAMESPACE, token))


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


@dataclass(frozen=True)
class Observed:
    """The real object as a type's `observe` found it: whether it exists, and the properties
    it can read back (those it cannot, a password say, are left out)."""

    exists: bool
    """False only when the service said the object is not there: a stack check then fails
    the resource, and an adoption fails. A service that did not answer is not an answer:
    raise `Throttled` or `Transient` instead."""
    properties: Mapping[str, Any] = field(default_factory=dict)
    """The properties read back, by name: each is compared with the stored value of the same
    name; a property left out is not compared."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """What the type keeps of the object as its create would have (`Progress.data`), for a
    resource that adopts it (external_id): its attributes are read from it. SDK 1.1."""

    def differences(self, wanted: Mapping[str, Any]) -> list[str]:
        """The properties read back whose real value is not the wanted one, by name."""
        return sorted(k for k, v in self.properties.items() if k in wanted and wanted[k] != v)


def can_observe(cls: type[ResourceType]) -> bool:
    """Whether the type implements `observe` (stack check, preview, adopting an external_id)."""
    return cls.observe is not ResourceType.observe


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


@dataclass(frozen=True)
class Progress:
    """Where an action stands after one step. The engine records it with the resource before
    it does anything else: a step that is not done is polled after `poll_after` seconds, by
    whichever worker takes the node then."""

    done: bool
    """True when the action is finished; False to be polled (`check_create` and its kin)."""
    physical_id: str | None = None
    """The id of the real object, recorded with the step whether it is done or not: return it
    as soon as the service gives it, so that a failure or an interruption after that leaves
    it known (a later delete gets it). None keeps the id recorded before: a step cannot
    clear it."""
    data: Mapping[str, Any] = field(default_factory=dict)
    """What to keep with the resource (JSON values), merged over what earlier steps kept, key
    by key: a key is never removed, only given a new value (None, say). It comes back as
    `ActionContext.data`, and `attributes()` reads it by default."""
    poll_after: float = 1.0
    """Seconds until the next poll, when not done (at least 0.05)."""


class ResourceType:
    """Base of every resource type. Defaults describe a thing with no real-world side.

    A subclass sets `type_name` and its schemas and overrides the actions it needs. Its
    instances are stateless: the engine makes one whenever it needs one, and everything a
    step may use arrives in its ActionContext.
    """

    type_name: ClassVar[str]
    """The name templates use (`Example::PostgreSQL::Schema`); the entry point's name too."""
    support_status: ClassVar[SupportStatus] = SupportStatus()
    """Whether the type may be used (SUPPORTED, DEPRECATED, HIDDEN, UNSUPPORTED)."""
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = {}
    """The properties a resource of the type takes, by name; every other name is refused.
    None: any properties, unchecked (and a change of them never replaces the resource)."""
    attributes_schema: ClassVar[Mapping[str, AttributeSchema]] = {}
    """The attributes get_attr may read, by name (`attributes()` gives their values)."""
    dynamic_attributes: ClassVar[bool] = False
    """True if attributes() may give names beyond attributes_schema (they depend on the
    properties): `template validate` then does not check get_attr against the schema."""
    owns_child_stack: ClassVar[bool] = False
    """True for a type whose resources own a child stack (a nested stack, a provider
    template, a group): the child inherits the stack's files, parameter_defaults and
    resource_registry, so a change of those alone converges the resource, and the child
    updates as Heat always updates nested stacks (a provider template's new text in files)."""
    update_policy_schema: ClassVar[Mapping[str, PropertySchema] | None] = None
    """The schema of the resource's update_policy section; None: the type has none, and a
    template that gives one is refused."""

    @classmethod
    def references_in_definition(cls, references: Sequence[tuple[str, Sequence[Any]]]) -> Any:
        """What of the get_attr references (attribute, path) to a resource of this type is part
        of its definition: a change of it converges the resource like a change of properties.
        None (the default): nothing is. A group returns the member attributes its child
        stack must offer."""
        return None

    @classmethod
    def has_attribute(cls, attribute: str) -> bool:
        """Whether get_attr may name `attribute` on a resource of this type, for `template
        validate`: one of attributes_schema, or any name for a type with dynamic_attributes
        (a provider template adds its child's resource.NAME and resource.NAME.ATTR)."""
        return cls.dynamic_attributes or attribute in cls.attributes_schema

    @classmethod
    def reference_problem(cls, attribute: str, path: Sequence[Any]) -> str | None:
        """Why get_attr [resource, attribute, *path] can never have a value, as a sentence,
        for `template validate`; None if it can (the default)."""
        return None

    @classmethod
    def template_problems(cls, values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
        """Problems of the unresolved properties `values` beyond the type's own schema (path:
        resources.NAME.properties); lookup finds another type by name. None by default."""
        return []

    @classmethod
    def properties_problems(cls, properties: Mapping[str, Any], *, path: str) -> list[Problem]:
        """Problems that span several properties (RandomString: the minimums against the
        length), of properties already checked one by one, their defaults filled (path:
        resources.NAME.properties). Called when a resource is prepared, and when a template is
        validated if none of its values is a function. None by default."""
        return []

    connection_kind: ClassVar[str | None] = None
    """The kind of connection the type acts through (conv_tasks.connections: "postgresql",
    "http", "celery"); a resource names one in its `connection` property, checked when its
    template is loaded. None: the type needs none."""

    sdk_versions: ClassVar[str | None] = None
    """The SDK versions the type is written for, as a version specifier (">=1.0,<2"): the
    registry refuses the type under an SDK outside it. None: any."""
    step_budget: ClassVar[float] = DEFAULT_STEP_BUDGET
    """Seconds one step may take (DEFAULT_STEP_BUDGET): a slower step is logged, and fails the
    conformance kit. The engine does not stop a slow step: it is this bound a type keeps."""

    secret_attributes: ClassVar[frozenset[str]] = frozenset()
    """Attributes whose values are credentials: whatever reads one is masked like a value
    derived from a hidden parameter (StackDefinition.hidden_resources, hidden_outputs)."""
    secret_properties: ClassVar[frozenset[str]] = frozenset()
    """Properties whose values are credentials (a role's password), by name (names of the
    schema's): never shown. `resource show` and `stack preview` mask them by name; a value
    written in the template or given by a parameter is masked wherever else it appears, like
    a hidden parameter's; and the value the action received is masked in what its failure
    says. What the type itself keeps or logs is its own to keep secret."""
    any_attribute: ClassVar[bool] = False
    """True if every attribute name resolves, to None when the plugin has no value for it
    (Heat's OS::Heat::None: a disabled resource can stand in for any other)."""
    makes_objects: ClassVar[bool] = True
    """Whether a create of the type may make something outside conv_tasks' own rows (an object
    of a service, a row of the sandbox, a child stack). True (the default): the engine records
    a create as begun before its first step, and a version whose create ended without a
    physical id gets a delete with `ActionContext.create_token` (no object is left behind).
    False, for a type that only computes (OS::Heat::None, OS::Heat::Value): its create is
    recorded with its outcome only (one statement less), and such a version is dropped without
    a call. SDK 1.2."""
    not_adoptable: ClassVar[str | None] = None
    """Why the type does not adopt an existing object (a resource's external_id) although it
    can observe, as a sentence: a template that gives it external_id is refused with it.
    None (the default): a type with `observe` adopts. SDK 1.1."""

    @classmethod
    def needs_connection(cls) -> bool:
        """Whether every resource of the type must name a connection (its `connection`
        property is required). Where it is optional, a resource that names none acts through
        the engine's own connection of the kind, if the engine has one (for celery, conv_tasks'
        own broker and result backend), or with `ctx.connection` None."""
        prop = (cls.properties_schema or {}).get("connection")
        return prop is None or prop.required

    def translation_rules(self) -> Sequence[TranslationRule]:
        """Rules that rewrite old spellings of properties before they are checked (seed 004:
        ADD, REPLACE, DELETE, RESOLVE); none by default."""
        return ()

    def action_timeout(self, properties: Mapping[str, Any]) -> float:
        """Seconds an action of this type may take when the stack sets no timeout; its
        deadline is fixed when it starts and holds whichever traversal owns the stack later."""
        return DEFAULT_ACTION_TIMEOUT

    def interrupt(self, ctx: ActionContext) -> None:
        """Stop the action under way: the stack operation it belonged to was cancelled, the
        stack is being deleted, or the action's deadline passed. Called once, on the next poll,
        instead of check_*; the action then ends FAILED as interrupted (or timed out). Stop
        what can be stopped; the default has nothing."""

    @classmethod
    def can_be_replaced_by(cls, other: type[ResourceType]) -> bool:
        """True if other is this type's substitute (or extends it): a change of type to other
        needs no replacement (seed 004, substitute_class)."""
        substitute = cls.support_status.substitute_class
        return substitute is not None and issubclass(other, substitute)

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        """True if any changed property cannot be updated in place: one whose schema is not
        `update_allowed` (the default of PropertySchema), or is `immutable`. The engine asks
        it with the checked properties, defaults filled, of the resource as it stands and as
        the template wants it, and `stack preview` asks it the same; override it for a rule
        the schema cannot say (a value that may grow but not shrink)."""
        schema = self.properties_schema
        if schema is None:
            return False
        for name in old.keys() | new.keys():
            if old.get(name) == new.get(name):
                continue
            prop = schema.get(name)
            if prop is None or not prop.update_allowed or prop.immutable:
                return True
        return False

    def create(self, ctx: ActionContext) -> Progress:
        """Start making the object (the first step of a create, and of a replacement): once
        per attempt, but possibly again with the same token after a worker died. The default
        makes nothing: done at once, with a physical id made from the token."""
        return Progress(done=True, physical_id=token_physical_id(ctx.idempotency_token))

    def check_create(self, ctx: ActionContext) -> Progress:
        """Poll the create `create` started and left not done; the default: done."""
        return Progress(done=True)

    def update(self, ctx: ActionContext) -> Progress:
        """Start bringing the object `ctx.physical_id` names from `ctx.old_properties` to
        `ctx.properties` in place (only when `needs_replacement` said no). The default: done,
        nothing to change."""
        return Progress(done=True)

    def check_update(self, ctx: ActionContext) -> Progress:
        """Poll the update `update` started and left not done; the default: done."""
        return Progress(done=True)

    def delete(self, ctx: ActionContext) -> Progress:
        """Start removing the object `ctx.physical_id` names (a stack delete, a resource
        removed from the template, the old version after a replacement). Raising NotFound,
        or returning done, for an object already gone completes it. With no physical id and
        `ctx.create_token` set (a create that ended before it returned one), the object is
        whatever the create with that token made, if anything: find it as that create would
        have found it again, and remove it; nothing there is done. The default: done."""
        return Progress(done=True)

    def check_delete(self, ctx: ActionContext) -> Progress:
        """Poll the delete `delete` started and left not done; the default: done."""
        return Progress(done=True)

    # Suspend and resume (a stack suspend walks its resources dependants first, a resume
    # dependencies first). The defaults have nothing to suspend: the action completes at
    # once. A type that pauses something real starts it in suspend()/resume() and polls it
    # in check_suspend()/check_resume(), like any action; the token names the operation.
    def suspend(self, ctx: ActionContext) -> Progress:
        return Progress(done=True)

    def check_suspend(self, ctx: ActionContext) -> Progress:
        return Progress(done=True)

    def resume(self, ctx: ActionContext) -> Progress:
        return Progress(done=True)

    def check_resume(self, ctx: ActionContext) -> Progress:
        return Progress(done=True)

    def observe(self, ctx: ActionContext) -> Observed | None:
        """Read the real object `ctx.physical_id` names: whether it exists and the properties
        it can read back. None (the default): the type cannot observe. `stack check` (through
        the default `check`), `stack preview`, adopting an external_id and the conformance kit
        use it. It changes nothing; when the service does not answer it raises `Throttled` or
        `Transient`, never `Observed(exists=False)`. With no physical id and
        `ctx.create_token` set (the kit, once a create that ended without one was deleted), the
        object is whatever the create with that token made: `Observed(exists=False)` if none."""
        return None

    def check(self, ctx: ActionContext) -> Progress:
        """Whether the resource is healthy (a stack check): by default, what `observe` finds
        (a missing object, or one whose observable properties differ from the template's,
        fails the check; a type that cannot observe passes). A check that fails, by any
        error but Throttled and Transient (those are asked again later), marks the resource
        unhealthy: the next update replaces it, even with the same properties."""
        observed = self.observe(ctx)
        if observed is None:
            return Progress(done=True)
        if not observed.exists:
            raise Fatal(
                f"Resource {ctx.resource_name}: its object {ctx.physical_id} does not exist.",
                resource=ctx.resource_name,
                action=ctx.action,
            )
        drift = observed.differences(ctx.properties)
        if drift:
            raise Fatal(
                f"Resource {ctx.resource_name}: its object {ctx.physical_id} differs from the "
                f"template in {', '.join(drift)}.",
                resource=ctx.resource_name,
                action=ctx.action,
            )
        return Progress(done=True)

    def attributes(self, ctx: ActionContext) -> Mapping[str, Any]:
        """Every attribute's current value; by default what the plugin kept under its name
        (`ctx.data[name]`, None when it kept nothing there). Called when a create or an update
        finishes (with its last step's context), if the stack's template reads any of the
        resource's attributes, and for an unchanged resource whose template reads one it has
        not stored. The values read are stored and handed on: they are not asked for again
        until then."""
        return {name: ctx.data.get(name) for name in self.attributes_schema}

    def picked_attributes(
        self, values: Mapping[str, Any], wanted: frozenset[str]
    ) -> dict[str, Any]:
        """The wanted attributes out of `values`, those without one left out (or None, for
        a type with any_attribute)."""
        return {k: values.get(k) for k in wanted if k in values or self.any_attribute}

    def reference(self, ctx: ActionContext) -> str | None:
        """What `get_resource` gives for the resource: by default its physical id. Called
        when a create or an update finishes, and stored."""
        return ctx.physical_id
