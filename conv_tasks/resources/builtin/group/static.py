"""Problems visible in a ResourceGroup's template before anything runs.

static_problems (resources/properties.py) checks the group's own schema; this
adds what only the group knows: removal entries of the wrong kind, an unknown
member type, and the member properties against the member type's schema
(with the first member's index put in, as Heat validates a group). Values that
are functions are taken on trust. Pure: the member type is looked up through
the callable it is given.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from conv_tasks.resources.builtin.group import schema as s
from conv_tasks.resources.builtin.group.names import member_names
from conv_tasks.resources.builtin.group.nested import substitute_index
from conv_tasks.resources.builtin.group.properties import removal_entry_problem
from conv_tasks.sdk import Problem, contains_function, static_problems

if TYPE_CHECKING:
    from conv_tasks.sdk import ResourceType

# type name -> its class, or None for a type that does not exist.
TypeLookup = Callable[[str], "type[ResourceType] | None"]


def static_group_problems(values: Any, *, path: str, lookup: TypeLookup) -> list[Problem]:
    """Every problem of a group's unresolved properties beyond its own schema; path is
    where they are (resources.web.properties). A literal count of 0 skips the member
    checks, as in Heat: a zero count may switch off a feature whose type is not there."""
    if not isinstance(values, Mapping) or contains_function(values.get(s.REMOVAL_POLICIES)):
        removal: Any = []
    else:
        removal = values.get(s.REMOVAL_POLICIES) or []
    problems = _removal_problems(removal, f"{path}.{s.REMOVAL_POLICIES}")
    if not isinstance(values, Mapping) or values.get(s.COUNT) in (0, "0"):
        return problems
    definition = values.get(s.RESOURCE_DEF)
    if not isinstance(definition, Mapping) or contains_function(definition.get(s.DEF_TYPE)):
        return problems
    member_type = definition.get(s.DEF_TYPE)
    if not isinstance(member_type, str):
        return problems  # the group's own schema says what is wrong with it
    where = f"{path}.{s.RESOURCE_DEF}"
    cls = lookup(member_type)
    if cls is None:
        problems.append(
            Problem(
                f"{where}.{s.DEF_TYPE}",
                f"unknown resource type '{member_type}'; see `conv-tasks resource-type list`.",
            )
        )
        return problems
    properties = definition.get(s.DEF_PROPERTIES)
    if not isinstance(properties, Mapping):
        return problems  # absent, or the group's own schema says what is wrong with it
    index_var = values.get(s.INDEX_VAR, s.DEFAULT_INDEX_VAR)
    if not isinstance(index_var, str) or len(index_var) < 3:
        index_var = s.DEFAULT_INDEX_VAR
    first = member_names(1, ())[0]
    problems.extend(
        static_problems(
            cls,
            substitute_index(properties, index_var, first),
            path=f"{where}.{s.DEF_PROPERTIES}",
        )
    )
    return problems


def _removal_problems(policies: Any, path: str) -> list[Problem]:
    problems: list[Problem] = []
    if not isinstance(policies, list):
        return problems  # the group's own schema says what is wrong with it
    for n, policy in enumerate(policies):
        if not isinstance(policy, Mapping):
            continue
        entries = policy.get(s.RESOURCE_LIST)
        if not isinstance(entries, list):
            continue
        for m, entry in enumerate(entries):
            reason = None if contains_function(entry) else removal_entry_problem(entry)
            if reason:
                problems.append(Problem(f"{path}[{n}].{s.RESOURCE_LIST}[{m}]", reason))
    return problems
