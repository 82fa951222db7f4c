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

Beyond the connection, the engine hands a type services on its ActionContext, and the SDK
names what a type needs to use them (SDK 1.3): child stacks (ChildStacks, and
NestedStackResource, the base of a type implemented by a child stack), software deployments
(DeploymentStore and its records), wait condition handles (WaitHandleStore, WaitSignal), and
the member view a group hands on for get_attr (member_view_data). The property checks the
engine runs are here too (check_values, static_problems), for a type whose properties hold
another schema (a group's members, an update_policy). The built-in types
(conv_tasks.resources.builtin) are written with these names only, like any other type.

SDK_VERSION is this SDK's version; a type may declare the versions it supports
(`sdk_versions = ">=1.0,<2"`). Names here keep their meaning within a major version.
The face imports only the folders below it; nothing here imports the engine, conv_tasks'
database or the registry.
"""

from conv_tasks.deployments import (
    CONV_TASKS_SIGNAL,
    HEAT_TRANSPORTS,
    INPUT_TYPES,
    STANDARD_OUTPUTS,
    STATUS_CODE,
    STDERR,
    STDOUT,
    UNGROUPED,
    DeployAction,
    DeploymentAction,
    DeploymentState,
    DeploymentStore,
    DeployStatus,
    SoftwareConfig,
    credential_hash,
    new_credential,
)
from conv_tasks.errors import ConvTasksError, InvalidInput, Problem, ResourceFailure
from conv_tasks.limits import (
    MAX_TASK_JSON_BYTES,
    MAX_TIMEOUT_MINS,
    MAX_WAIT_CONDITION_SECS,
    MAX_WAIT_SIGNALS,
)
from conv_tasks.provider_errors import (
    AlreadyExists,
    Conflict,
    Fatal,
    NotFound,
    ProviderError,
    Throttled,
    Transient,
)
from conv_tasks.sdk.children import (
    COMPLETE,
    FAILED,
    IN_PROGRESS,
    ChildRequest,
    ChildStack,
    ChildStacks,
    ChildTemplateSource,
)
from conv_tasks.sdk.coercion import coerce, describe
from conv_tasks.sdk.context import ActionContext, Connected, Sandbox, engine_service
from conv_tasks.sdk.nested import (
    MIN_POLL_SECS,
    NestedStackResource,
    child_stacks,
    child_timeout,
    poll_after,
)
from conv_tasks.sdk.progress import Observed, Progress
from conv_tasks.sdk.properties import check_values, static_problems, static_section_problems
from conv_tasks.sdk.resource_type import ResourceType, TypeLookup, can_observe
from conv_tasks.sdk.schema import (
    ALLOWED_PATTERN,
    ALLOWED_VALUES,
    ANY,
    BOOLEAN,
    INTEGER,
    LENGTH,
    LIST,
    MAP,
    NUMBER,
    RANGE,
    STRING,
    AttributeSchema,
    Constraint,
    PropertySchema,
    visible_schemas,
)
from conv_tasks.sdk.support import (
    DEPRECATED,
    HIDDEN,
    SUPPORTED,
    UNSUPPORTED,
    SupportStatus,
)
from conv_tasks.sdk.terms import (
    CHECK,
    CONNECTION_KINDS,
    CREATE,
    DEFAULT_ACTION_TIMEOUT,
    DEFAULT_STEP_BUDGET,
    DELETE,
    ENTRY_POINT_GROUP,
    RESUME,
    SDK_VERSION,
    SUSPEND,
    UPDATE,
    token_physical_id,
)
from conv_tasks.sdk.translation import ADD, REPLACE, RESOLVE, TranslationRule, translate
from conv_tasks.template import (
    ATTRIBUTES,
    MEMBER_VIEW,
    REFS,
    REFS_MAP,
    REMOVED_RSRC_LIST,
    MemberData,
    PathItem,
    contains_function,
    function_call,
    member_key,
    member_view_data,
    reference_problem,
)
from conv_tasks.waitconditions import SignalStatus, WaitHandleStore, WaitSignal, data_text

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.deployments",
    "conv_tasks.errors",
    "conv_tasks.limits",
    "conv_tasks.provider_errors",
    "conv_tasks.statuses",
    "conv_tasks.suggestions",
    "conv_tasks.template",
    "conv_tasks.waitconditions",
)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.syncpoint",
    "conv_tasks.tasks",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
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
    "ADD",
    "ALLOWED_PATTERN",
    "ALLOWED_VALUES",
    "ANY",
    "ATTRIBUTES",
    "BOOLEAN",
    "CHECK",
    "COMPLETE",
    "CONNECTION_KINDS",
    "CONV_TASKS_SIGNAL",
    "CREATE",
    "DEFAULT_ACTION_TIMEOUT",
    "DEFAULT_STEP_BUDGET",
    "DELETE",
    "DEPRECATED",
    "ENTRY_POINT_GROUP",
    "FAILED",
    "HEAT_TRANSPORTS",
    "HIDDEN",
    "INPUT_TYPES",
    "INTEGER",
    "IN_PROGRESS",
    "LENGTH",
    "LIST",
    "MAP",
    "MAX_TASK_JSON_BYTES",
    "MAX_TIMEOUT_MINS",
    "MAX_WAIT_CONDITION_SECS",
    "MAX_WAIT_SIGNALS",
    "MEMBER_VIEW",
    "MIN_POLL_SECS",
    "NUMBER",
    "RANGE",
    "REFS",
    "REFS_MAP",
    "REMOVED_RSRC_LIST",
    "REPLACE",
    "RESOLVE",
    "RESUME",
    "SDK_VERSION",
    "STANDARD_OUTPUTS",
    "STATUS_CODE",
    "STDERR",
    "STDOUT",
    "STRING",
    "SUPPORTED",
    "SUSPEND",
    "UNGROUPED",
    "UNSUPPORTED",
    "UPDATE",
    "ActionContext",
    "AlreadyExists",
    "AttributeSchema",
    "ChildRequest",
    "ChildStack",
    "ChildStacks",
    "ChildTemplateSource",
    "Conflict",
    "Connected",
    "Constraint",
    "ConvTasksError",
    "DeployAction",
    "DeployStatus",
    "DeploymentAction",
    "DeploymentState",
    "DeploymentStore",
    "Fatal",
    "InvalidInput",
    "MemberData",
    "NestedStackResource",
    "NotFound",
    "Observed",
    "PathItem",
    "Problem",
    "Progress",
    "PropertySchema",
    "ProviderError",
    "ResourceFailure",
    "ResourceType",
    "Sandbox",
    "SignalStatus",
    "SoftwareConfig",
    "SupportStatus",
    "Throttled",
    "Transient",
    "TranslationRule",
    "TypeLookup",
    "WaitHandleStore",
    "WaitSignal",
    "can_observe",
    "check_values",
    "child_stacks",
    "child_timeout",
    "coerce",
    "connection_property",
    "contains_function",
    "credential_hash",
    "data_text",
    "describe",
    "engine_service",
    "function_call",
    "member_key",
    "member_view_data",
    "new_credential",
    "poll_after",
    "reference_problem",
    "static_problems",
    "static_section_problems",
    "token_physical_id",
    "translate",
    "visible_schemas",
]
