"""The resource-type SDK: everything an author of a resource type uses, in one stable place.

A resource type is a ResourceType subclass with a `type_name`, its property and attribute
schemas, and its actions: `create`/`check_create`, `update`/`check_update`,
`delete`/`check_delete` (start once, then poll: return a Progress, never sleep, return
within the step budget), `suspend`/`check_suspend` and `resume`/`check_resume` (a stack
suspend or resume; by default nothing to do: done at once), `interrupt`, `observe` (read the
real object), `check`. Each step
gets an ActionContext: the properties, the idempotency token (the same token must never make
two things: a retried or resumed step gets the same one), the plugin data kept so far, the
physical id, and the ready client of the resource's connection (`ctx.client()`). Raise the
errors below for what the service answers; the engine retries, backs off or fails
accordingly. A create that ended before it returned a physical id (interrupted, failed,
its worker killed) still gets a delete: `ctx.physical_id` is None and `ctx.create_token`
(SDK 1.2) is the create's token, by which the type finds what that create made ("not
found" is done); a type whose create makes nothing outside conv_tasks sets
`makes_objects = False`. A rule that spans several properties is the classmethod
`properties_problems`, which returns Problems naming their paths. A property that holds a
credential (a password) is named in the type's `secret_properties`: it is masked wherever
it would be shown. Packages plug types in
through the entry point group `conv_tasks.resource_types`, and prove them with the
conformance kit (conv_tasks.testing). The guide is docs/guide/writing-a-resource-type.md.

SDK_VERSION is this SDK's version; a type may declare the versions it supports
(`sdk_versions = ">=1.0,<2"`). Names here keep their meaning within a major version.
"""

from conv_tasks.errors import Problem
from conv_tasks.provider_errors import (
    AlreadyExists,
    Conflict,
    Fatal,
    NotFound,
    ProviderError,
    Throttled,
    Transient,
)
from conv_tasks.resources.plugin import (
    CHECK,
    CONNECTION_KINDS,
    CREATE,
    DEFAULT_ACTION_TIMEOUT,
    DEFAULT_STEP_BUDGET,
    DELETE,
    RESUME,
    SDK_VERSION,
    SUSPEND,
    UPDATE,
    ActionContext,
    Connected,
    Observed,
    Progress,
    ResourceType,
    token_physical_id,
)
from conv_tasks.resources.registry import ENTRY_POINT_GROUP
from conv_tasks.resources.schema import (
    ANY,
    BOOLEAN,
    INTEGER,
    LIST,
    MAP,
    NUMBER,
    STRING,
    AttributeSchema,
    Constraint,
    PropertySchema,
)
from conv_tasks.resources.support import (
    DEPRECATED,
    HIDDEN,
    SUPPORTED,
    UNSUPPORTED,
    SupportStatus,
)


def connection_property(kind: str, *, required: bool = True) -> PropertySchema:
    """The `connection` property of a type whose `connection_kind` is `kind`: the name of a
    connection of that kind, which the engine checks when the template is loaded. Not
    `required`: a resource that names none acts through the engine's own connection of the
    kind, if it has one (ResourceType.needs_connection)."""
    own = "" if required else " Without one, conv_tasks' own, where it has one."
    return PropertySchema(
        STRING,
        f"The name of the {kind} connection to act through (defined outside templates, in "
        f"the file CONV_TASKS_CONNECTIONS names).{own}",
        required=required,
    )


__all__ = [
    "ANY",
    "BOOLEAN",
    "CHECK",
    "CONNECTION_KINDS",
    "CREATE",
    "DEFAULT_ACTION_TIMEOUT",
    "DEFAULT_STEP_BUDGET",
    "DELETE",
    "DEPRECATED",
    "ENTRY_POINT_GROUP",
    "HIDDEN",
    "INTEGER",
    "LIST",
    "MAP",
    "NUMBER",
    "RESUME",
    "SDK_VERSION",
    "STRING",
    "SUPPORTED",
    "SUSPEND",
    "UNSUPPORTED",
    "UPDATE",
    "ActionContext",
    "AlreadyExists",
    "AttributeSchema",
    "Conflict",
    "Connected",
    "Constraint",
    "Fatal",
    "NotFound",
    "Observed",
    "Problem",
    "Progress",
    "PropertySchema",
    "ProviderError",
    "ResourceType",
    "SupportStatus",
    "Throttled",
    "Transient",
    "connection_property",
    "token_physical_id",
]
