"""The template layer: HOT loading and validation, parameters and intrinsic functions.

Pure: it parses strings and evaluates functions over data it is given. It must never do
I/O or import from conv_tasks.db, conv_tasks.tasks or conv_tasks.resources.
"""

from conv_tasks.template.conditional import apply_conditions
from conv_tasks.template.constraints import CUSTOM
from conv_tasks.template.document import join_path
from conv_tasks.template.environment import (
    EMPTY,
    Environment,
    check_files,
    is_provider,
    merge_environments,
    parameter_values,
    parse_environment,
    stored_environment,
)
from conv_tasks.template.facade import apply_facade, facade_of, facade_readers
from conv_tasks.template.functions import (
    FUNCTION_NAMES,
    ArgumentError,
    GetAttr,
    contains_function,
    function_call,
    iter_calls,
    parse_call,
    references,
)
from conv_tasks.template.group_attributes import (
    ATTRIBUTES,
    REFS,
    REFS_MAP,
    REMOVED_RSRC_LIST,
    MemberData,
    PathItem,
    member_key,
    reference_problem,
)
from conv_tasks.template.known_calls import known_call_problems
from conv_tasks.template.loader import load_template
from conv_tasks.template.member_view import MEMBER_VIEW, member_view_data
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
    reads_secret_attribute,
)
from conv_tasks.template.nested_attributes import nested_key, nested_outputs, nested_problem
from conv_tasks.template.parameter_types import FLOAT_MAX, TypeMismatch, to_number
from conv_tasks.template.parameters import (
    HIDDEN_VALUE,
    check_value,
    default_problems,
    public_parameters,
    validate_parameters,
)
from conv_tasks.template.patterns import PatternWork
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
from conv_tasks.template.type_mapping import ProviderTemplate, map_resource_types, resolve_type
from conv_tasks.template.yaml_source import TemplateSyntaxError, node_marks, parse_yaml

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.errors",
    "conv_tasks.input_text",
    "conv_tasks.limits",
    "conv_tasks.suggestions",
)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.graph",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.tasks",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "ALL_ATTRIBUTES",
    "ATTRIBUTES",
    "CUSTOM",
    "EMPTY",
    "FLOAT_MAX",
    "FUNCTION_NAMES",
    "HIDDEN_VALUE",
    "MEMBER_VIEW",
    "PLACEHOLDERS",
    "PSEUDO_PARAMETERS",
    "REFS",
    "REFS_MAP",
    "REMOVED_RSRC_LIST",
    "STACK_ID",
    "ArgumentError",
    "Constraint",
    "Environment",
    "GetAttr",
    "MemberData",
    "OutputSnippet",
    "ParameterGroup",
    "ParameterSchema",
    "PathItem",
    "PatternWork",
    "ProviderTemplate",
    "ResolvedResource",
    "ResourceData",
    "ResourceSnippet",
    "StackIdentity",
    "Template",
    "TemplateSyntaxError",
    "TypeMismatch",
    "apply_conditions",
    "apply_facade",
    "check_files",
    "check_value",
    "contains_function",
    "default_problems",
    "definition_hash",
    "facade_of",
    "facade_readers",
    "function_call",
    "is_provider",
    "iter_calls",
    "join_path",
    "known_call_problems",
    "load_template",
    "map_resource_types",
    "member_key",
    "member_view_data",
    "merge_environments",
    "misspelt_function",
    "nested_key",
    "nested_outputs",
    "nested_problem",
    "node_marks",
    "parameter_values",
    "parse_call",
    "parse_environment",
    "parse_yaml",
    "pseudo_values",
    "public_parameters",
    "reads_secret_attribute",
    "reference_problem",
    "references",
    "refuse_given",
    "resolve_outputs",
    "resolve_resource",
    "resolve_type",
    "stored_environment",
    "to_number",
    "validate_parameters",
    "with_identity",
    "without_pseudo",
]
