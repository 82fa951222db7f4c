"""Resource types as the engine finds and runs them: the registry (the built-in types and
those packages plug in through entry points), provider templates made types, and each
resource's properties prepared for an action.

The plugin interface itself is conv_tasks.sdk's; this face hands the engine the part of it
the engine uses, so that the engine asks one face about types. A plugin sees of the outside
world only what its ActionContext hands it: the Sandbox, the DeploymentStore, or the ready
client of the resource's connection (a psycopg connection, an httpx.Client, a Celery app:
conv_tasks.connections makes and caches them). The built-in types (builtin/) use
conv_tasks.sdk alone, as any author's would; this package never opens a connection to
conv_tasks' own database or Redis, and never imports the engine.
"""

from __future__ import annotations

from conv_tasks.resources.deprecation import deprecation_warnings
from conv_tasks.resources.properties import prepare_properties
from conv_tasks.resources.provider_template import (
    ProviderTemplateResource,
    provider_template_type,
)
from conv_tasks.resources.registry import (
    Registry,
    build_registry,
    default_registry,
    load_entry_point_types,
    template_problems,
    type_lookup,
)
from conv_tasks.resources.sandbox_faults import with_faults as sandbox_with_faults
from conv_tasks.resources.skeleton import hot_skeleton
from conv_tasks.sdk import (
    ENTRY_POINT_GROUP,
    ActionContext,
    ChildRequest,
    ChildStacks,
    Progress,
    ResourceType,
    Sandbox,
    TypeLookup,
    can_observe,
    static_problems,
    token_physical_id,
)

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.errors",
    "conv_tasks.provider_errors",
    "conv_tasks.sdk",
    "conv_tasks.suggestions",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.syncpoint",
    "conv_tasks.tasks",
    "sqlalchemy",
)
# Highest first: the registry lists the built-in types, which know nothing else here.
LAYERS = (
    ("conv_tasks.resources.registry",),
    (
        "conv_tasks.resources.builtin",
        "conv_tasks.resources.deprecation",
        "conv_tasks.resources.properties",
        "conv_tasks.resources.provider_template",
        "conv_tasks.resources.sandbox_faults",
        "conv_tasks.resources.skeleton",
    ),
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "ActionContext",
    "ChildRequest",
    "ChildStacks",
    "Progress",
    "ProviderTemplateResource",
    "Registry",
    "ResourceType",
    "Sandbox",
    "TypeLookup",
    "build_registry",
    "can_observe",
    "default_registry",
    "deprecation_warnings",
    "hot_skeleton",
    "load_entry_point_types",
    "prepare_properties",
    "provider_template_type",
    "sandbox_with_faults",
    "static_problems",
    "template_problems",
    "token_physical_id",
    "type_lookup",
]
