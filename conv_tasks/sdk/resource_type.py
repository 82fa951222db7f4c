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

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from conv_tasks.errors import Problem
from conv_tasks.provider_errors import Fatal
from conv_tasks.sdk.children import ChildRequest, ChildTemplateSource
from conv_tasks.sdk.context import ActionContext
from conv_tasks.sdk.progress import Observed, Progress
from conv_tasks.sdk.schema import AttributeSchema, PropertySchema
from conv_tasks.sdk.support import SupportStatus
from conv_tasks.sdk.terms import DEFAULT_ACTION_TIMEOUT, DEFAULT_STEP_BUDGET, token_physical_id
from conv_tasks.sdk.translation import TranslationRule

# type name -> its class, or None for a type that does not exist.
TypeLookup = Callable[[str], "type[ResourceType] | None"]


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
    keeps_wait_signals: ClassVar[bool] = False
    """True for a type whose resources are wait condition handles: a signal the stack's owner
    sends to one is recorded in the WaitHandleStore (`ctx.wait_handles`), as a host's
    signal with the handle's token would be, rather than kept as an event. SDK 1.3."""
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
    def child_template_source(cls, properties: Mapping[str, Any]) -> ChildTemplateSource | None:
        """For a type that owns a child stack, where the child's template comes from when the
        unresolved `properties` already say it (a literal template, the type of a group's
        members), so that a request checks it before anything runs; None (the default):
        nothing to check before the child is made. SDK 1.3."""
        return None

    @classmethod
    def unknown_child_parameters(
        cls, properties: Mapping[str, Any], unknown: Callable[[Any], bool]
    ) -> frozenset[str] | None:
        """For a type that owns a child stack, which of the child's parameters a stack
        preview cannot know yet, given which property values it cannot (`unknown(value)`):
        a provider template's are its properties, an OS::Heat::Stack's the keys of its
        `parameters`. None (the default): all of them. SDK 1.3."""
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

    def preview_request(self, ctx: ActionContext) -> ChildRequest | None:
        """For a type that owns a child stack, what the child will be once this update of the
        resource has finished (`stack preview` previews the child against it); it only
        reads. None (the default): the type has no child to preview. SDK 1.3."""
        return None

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


def can_observe(cls: type[ResourceType]) -> bool:
    """Whether the type implements `observe` (stack check, preview, adopting an external_id)."""
    return cls.observe is not ResourceType.observe
