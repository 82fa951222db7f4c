"""Resource types: the plugin interface, their schemas, and the registry that finds them.

A plugin sees of the outside world only what its ActionContext hands it: the Sandbox, the
DeploymentStore, or the ready client of the resource's connection (a psycopg connection, an
httpx.Client, a Celery app: conv_tasks.connections makes and caches them). The built-in types
that change real things (PostgreSQL, HTTP, Celery) act through that client; this package
never opens a connection to conv_tasks' own database or Redis. Authors import from
conv_tasks.sdk, the stable face of this package.
"""

from __future__ import annotations

from conv_tasks.resources.deprecation import deprecation_warnings
from conv_tasks.resources.plugin import (
    ActionContext,
    Progress,
    ResourceType,
    Sandbox,
    can_observe,
    token_physical_id,
)
from conv_tasks.resources.properties import prepare_properties, static_problems
from conv_tasks.resources.registry import (
    ENTRY_POINT_GROUP,
    Registry,
    build_registry,
    default_registry,
    load_entry_point_types,
    template_problems,
)
from conv_tasks.resources.sandbox_faults import with_faults as sandbox_with_faults
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
from conv_tasks.resources.skeleton import hot_skeleton
from conv_tasks.resources.support import (
    DEPRECATED,
    HIDDEN,
    SUPPORTED,
    UNSUPPORTED,
    SupportStatus,
)
from conv_tasks.resources.translation import (
    ADD,
    DELETE,
    REPLACE,
    RESOLVE,
    TranslationRule,
    translate,
)

__all__ = [
    "ADD",
    "ANY",
    "BOOLEAN",
    "DELETE",
    "DEPRECATED",
    "ENTRY_POINT_GROUP",
    "HIDDEN",
    "INTEGER",
    "LIST",
    "MAP",
    "NUMBER",
    "REPLACE",
    "RESOLVE",
    "STRING",
    "SUPPORTED",
    "UNSUPPORTED",
    "ActionContext",
    "AttributeSchema",
    "Constraint",
    "Progress",
    "PropertySchema",
    "Registry",
    "ResourceType",
    "Sandbox",
    "SupportStatus",
    "TranslationRule",
    "build_registry",
    "can_observe",
    "default_registry",
    "deprecation_warnings",
    "hot_skeleton",
    "load_entry_point_types",
    "prepare_properties",
    "sandbox_with_faults",
    "static_problems",
    "template_problems",
    "token_physical_id",
    "translate",
]
