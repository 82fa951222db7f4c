"""The stack definition: a template loaded with its parameters, environment and files.

What a stack wants, and everything decided from it alone: dependencies, the
resources' resolved definitions and hashes, provider-template types, what is hidden
(the redactor), a request's inputs, immutable parameters, and validation. It never
touches the database, Redis or the broker: stored templates come in as values, and the
definitions cache (`Definitions`) is handed around in the engine's environment.
"""

from conv_tasks.engine.definition.connections import check_connections, connection_problems
from conv_tasks.engine.definition.definitions import Definitions, StoredRow, definition_weight
from conv_tasks.engine.definition.immutable import check_immutable, declares_immutable
from conv_tasks.engine.definition.model import EMPTY_TEMPLATE, PreparedResource, StackDefinition
from conv_tasks.engine.definition.providers import plugin_type, registries_of
from conv_tasks.engine.definition.redact import MASK, Redactor
from conv_tasks.engine.definition.stack_inputs import (
    EnvironmentSources,
    StackInputs,
    request_inputs,
    update_inputs,
    without_retired_parameters,
)
from conv_tasks.engine.definition.validate import validate_template

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.constraints",
    "conv_tasks.errors",
    "conv_tasks.graph",
    "conv_tasks.limits",
    "conv_tasks.requests",
    "conv_tasks.resources",
    "conv_tasks.suggestions",
    "conv_tasks.template",
)
MUST_NOT_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.engine.assembly",
    "conv_tasks.engine.environment",
    "conv_tasks.engine.features",
    "conv_tasks.engine.node",
    "conv_tasks.engine.read",
    "conv_tasks.engine.stack",
    "conv_tasks.engine.upkeep",
    "conv_tasks.syncpoint",
)

__all__ = [
    "EMPTY_TEMPLATE",
    "MASK",
    "Definitions",
    "EnvironmentSources",
    "PreparedResource",
    "Redactor",
    "StackDefinition",
    "StackInputs",
    "StoredRow",
    "check_connections",
    "check_immutable",
    "connection_problems",
    "declares_immutable",
    "definition_weight",
    "plugin_type",
    "registries_of",
    "request_inputs",
    "update_inputs",
    "validate_template",
    "without_retired_parameters",
]
