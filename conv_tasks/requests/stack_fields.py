"""The fields stack requests are made of, each declared once (conv_tasks.requests.stack puts
them together into requests).

A field whose meaning changes with the request (an update keeps what is omitted, a create
has defaults, an apply does either) is declared again under its own name with `saying`,
so that each request's help says what that request does.
"""

from __future__ import annotations

from typing import Any

from conv_tasks.errors import Problem
from conv_tasks.input_text import name_problem
from conv_tasks.limits import (
    MAX_NAME_CHARS,
    MAX_RESOURCES,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TEMPLATE_BYTES,
    MAX_TIMEOUT_MINS,
    MIN_TIMEOUT_MINS,
)
from conv_tasks.requests.fields import CliInput, CliOption, Field, Limit, RequestField
from conv_tasks.tags import split_tags, tag_problems

TEMPLATE_BYTES = Limit(MAX_TEMPLATE_BYTES, "MAX_TEMPLATE_BYTES")
# Heat's stack tags (conv_tasks.tags says which are refused, and why, at tags[i]).
TAG_LIST_SCHEMA = {
    "items": {"type": "string", "minLength": 1, "maxLength": MAX_TAG_CHARS},
    "maxItems": MAX_TAGS,
}

NAME = RequestField(
    Field("name", (str,), is_name=True, description="The stack's name."),
    cli=CliInput.ARGUMENT,
    heat=("stack_name",),
)
# The stack an update or a preview is about: named by the edge's URL, not its body.
STACK = RequestField(
    Field("stack", (str,), is_name=True, description="The stack: its name or id."),
    cli=CliInput.ARGUMENT,
)
TEMPLATE = RequestField(
    Field(
        "template",
        (dict, str),
        max_bytes=TEMPLATE_BYTES,
        description="The HOT template: a mapping, or its YAML or JSON text.",
    ),
    cli=CliInput.FILES,
    heat=("template",),
)
NEW_TEMPLATE = TEMPLATE.saying(
    "The new HOT template: a mapping, or its YAML or JSON text; omitted, the stack's is kept."
)
PARAMETERS = RequestField(
    Field("parameters", (dict,), description="Parameter values, by parameter name."),
    cli=CliInput.PARAMETERS,
    heat=("parameters",),
)
# The environments to merge, in order (each a mapping or YAML text), and the files they
# and the template refer to (name -> text): docs/features/environments.md. Their own limits
# (MAX_ENVIRONMENTS, MAX_FILES, ...) are checked before any work, with the payload's.
ENVIRONMENT = RequestField(
    Field(
        "environment",
        (list,),
        items=(dict, str),
        description="Environments to merge in order (mappings or YAML text); the last wins.",
    ),
    cli=CliInput.FILES,
    heat=("environment", "environment_files"),
)
FILES = RequestField(
    Field(
        "files",
        (dict,),
        items=(str,),
        description="Files the template and environments refer to (get_file, provider "
        "templates): name as written -> text.",
    ),
    cli=CliInput.FILES,
    heat=("files",),
)
EXISTING_PARAMETERS = RequestField(
    Field(
        "existing_parameters",
        (bool,),
        description="Keep the parameters, environment and files the stack already has "
        "(patched with those given).",
    ),
    cli=CliOption(("--existing",)),
    heat=("existing",),
)

DISABLE_ROLLBACK = RequestField(
    Field("disable_rollback", (bool,), description="Keep a failed stack as it is."),
    cli=CliOption(("--disable-rollback",)),
    heat=("disable_rollback",),
)
_EITHER_WAY = CliOption(("--disable-rollback/--enable-rollback",))
KEPT_ROLLBACK = DISABLE_ROLLBACK.saying(
    "Keep a failed stack as it is, or roll it back; omitted, the stack's setting is kept.",
    _EITHER_WAY,
)
APPLIED_ROLLBACK = DISABLE_ROLLBACK.saying(
    "Keep a failed stack as it is, or roll it back; omitted, create's default for a new "
    "stack, kept for an existing one.",
    _EITHER_WAY,
)
TIMEOUT_MINS = RequestField(
    Field(
        "timeout_mins",
        (int,),
        description="Fail the operation after this many minutes.",
        low=MIN_TIMEOUT_MINS,
        high=Limit(MAX_TIMEOUT_MINS, "MAX_TIMEOUT_MINS"),
    ),
    cli=CliOption(("--timeout-mins",)),
    heat=("timeout_mins",),
)
KEPT_TIMEOUT = TIMEOUT_MINS.saying(
    "Fail the operation after this many minutes; omitted, the stack's timeout is kept."
)
APPLIED_TIMEOUT = TIMEOUT_MINS.saying(
    "Fail the operation after this many minutes; omitted, none for a new stack, kept for an "
    "existing one."
)
# Sent again with the same key, a create answers with the stack it made
# (docs/task-api.md, "Late requests"). Heat's API has no such field.
IDEMPOTENCY_KEY = RequestField(
    Field(
        "idempotency_key",
        (str,),
        is_name=True,
        description="Sent again with the same key, the create answers with the stack it made.",
    ),
    cli=CliOption(
        ("--idempotency-key",),
        help="Sent again with the same key, the create answers with the stack it made. "
        "[default: a new one, printed if no answer comes]",
    ),
)
APPLIED_KEY = IDEMPOTENCY_KEY.saying(
    "Used if the apply creates the stack, as create uses it.",
    CliOption(("--idempotency-key",)),
)

TAGS = RequestField(
    Field(
        "tags",
        (list,),
        description="The stack's tags.",
        check=tag_problems,
        schema=TAG_LIST_SCHEMA,
    ),
    cli=CliOption(
        ("--tags",),
        help="The stack's tags, comma-separated ('' clears them).",
        metavar="TAG,...",
        parse=split_tags,
    ),
    heat=("tags",),
)
KEPT_TAGS = TAGS.saying(
    "The stack's tags. Given, they replace the stack's ([] clears them); omitted, they are "
    "kept if the update keeps the template or existing_parameters, else cleared."
)
APPLIED_TAGS = TAGS.saying("The stack's tags: they replace the stack's (omitted: none).")


def _name_list_problems(names: Any, path: str) -> list[Problem]:
    """Each name of a list of resource names that is not one, at `path[i]`."""
    if len(names) > MAX_RESOURCES:
        return [
            Problem(path, f"holds {len(names)} names; the limit is {MAX_RESOURCES} (MAX_RESOURCES)")
        ]
    problems = []
    for i, name in enumerate(names):
        why = name_problem(name) if name.strip() else "must not be empty"
        if why is not None:
            problems.append(Problem(f"{path}[{i}]", why))
    return problems


def _resource_names(name: str, help: str, cli_help: str) -> RequestField:
    """A list of the stack's resources, given on the CLI one option each."""
    wire = Field(
        name,
        (list,),
        items=(str,),
        description=help,
        check=_name_list_problems,
        schema={
            "items": {"type": "string", "minLength": 1, "maxLength": MAX_NAME_CHARS},
            "maxItems": MAX_RESOURCES,
        },
    )
    return RequestField(
        wire, CliOption((f"--{name}",), help=cli_help, metavar="RESOURCE", multiple=True)
    )


# Heat's stack delete takes neither: the HTTP edge deletes every resource, as Heat does.
RETAIN = _resource_names(
    "retain",
    "Resources to leave alone: their physical resources are not deleted, and the stack "
    "forgets them.",
    "Leave this resource alone: not deleted, and forgotten by the stack (repeatable).",
)
SKIP = _resource_names(
    "skip",
    "Resources the rollback would delete to leave alone instead: not deleted, and "
    "forgotten by the stack.",
    "A resource the rollback would delete to leave alone instead: not deleted, and "
    "forgotten by the stack (repeatable).",
)
