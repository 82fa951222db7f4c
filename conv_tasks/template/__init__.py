"""The template layer: HOT loading and validation, parameters and intrinsic functions.

Pure: it parses strings and evaluates functions over data it is given. It must never do
I/O or import from conv_tasks.db, conv_tasks.tasks or conv_tasks.resources.
"""

from conv_tasks.template.conditional import apply_conditions
from conv_tasks.template.facade import apply_facade, facade_of, facade_readers
from conv_tasks.template.functions import FUNCTION_NAMES, contains_function, function_call
from conv_tasks.template.loader import load_template
from conv_tasks.template.misspellings import misspelt_function
from conv_tasks.template.model import (
    ALL_ATTRIBUTES,
    Constraint,
    OutputSnippet,
    ParameterGroup,
    ParameterSchema,
    ResolvedResource,
    ResourceData,
    ResourceSnippet,
    Template,
)
from conv_tasks.template.parameters import HIDDEN_VALUE, public_parameters, validate_parameters
from conv_tasks.template.pseudo_parameters import (
    PLACEHOLDERS,
    PSEUDO_PARAMETERS,
    STACK_ID,
    StackIdentity,
    pseudo_values,
    refuse_given,
    with_identity,
    without_pseudo,
)
from conv_tasks.template.resolve import definition_hash, resolve_outputs, resolve_resource

__all__ = [
    "ALL_ATTRIBUTES",
    "FUNCTION_NAMES",
    "HIDDEN_VALUE",
    "PLACEHOLDERS",
    "PSEUDO_PARAMETERS",
    "STACK_ID",
    "Constraint",
    "OutputSnippet",
    "ParameterGroup",
    "ParameterSchema",
    "ResolvedResource",
    "ResourceData",
    "ResourceSnippet",
    "StackIdentity",
    "Template",
    "apply_conditions",
    "apply_facade",
    "contains_function",
    "definition_hash",
    "facade_of",
    "facade_readers",
    "function_call",
    "load_template",
    "misspelt_function",
    "pseudo_values",
    "public_parameters",
    "refuse_given",
    "resolve_outputs",
    "resolve_resource",
    "validate_parameters",
    "with_identity",
    "without_pseudo",
]
