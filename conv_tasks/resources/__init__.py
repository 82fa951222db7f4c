"""Resource types: the plugin interface, their schemas, and the registry that finds them.

Pure logic. A plugin sees nothing of the outside world but the Sandbox (or the
DeploymentStore) it is handed; this package never opens a database, a broker or
Redis connection.
"""

from __future__ import annotations

from conv_tasks.resources.deprecation import deprecation_warnings
from conv_tasks.resources.plugin import (
    ActionContext,
    Progress,
    ResourceType,
    Sandbox,
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
    "default_registry",
    "deprecation_warnings",
    "hot_skeleton",
    "load_entry_point_types",
    "prepare_properties",
    "static_problems",
    "template_problems",
    "token_physical_id",
    "translate",
]
