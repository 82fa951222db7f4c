"""The stacks overview's request: one filtered page of the stacks list, and the stacks that
need attention first (conv_tasks.stack.overview, a read the web view and the Client send).
Neither the CLI nor Heat's API has it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar

from conv_tasks.errors import Problem
from conv_tasks.limits import MAX_OVERVIEW_PAGE, MAX_STATUS_FILTERS
from conv_tasks.requests.fields import Field, Limit, RequestField
from conv_tasks.requests.stack_fields import TAG_LIST_SCHEMA
from conv_tasks.statuses import STATE_FILTERS, parse_state_filter
from conv_tasks.tags import tag_problems

_UUID = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
_STATES_SAID = (
    "a status (IN_PROGRESS, COMPLETE, FAILED) or a stack's state such as CREATE_COMPLETE "
    "or CHECK_FAILED"
)


def state_filter_problems(values: list[Any], path: str) -> list[Problem]:
    """What is wrong with a list of status filters given at `path`, or nothing."""
    problems: list[Problem] = []
    if len(values) > MAX_STATUS_FILTERS:
        problems.append(
            Problem(
                path,
                f"holds {len(values)} statuses; the limit is {MAX_STATUS_FILTERS} "
                "(MAX_STATUS_FILTERS)",
            )
        )
    for i, value in enumerate(values):
        if not isinstance(value, str) or parse_state_filter(value) is None:
            problems.append(Problem(f"{path}[{i}]", f"must be {_STATES_SAID}"))
    return problems


def marker_problems(value: str, path: str) -> list[Problem]:
    if re.fullmatch(_UUID, value) is None:
        return [
            Problem(
                path,
                "must be a stack id (a UUID): the `next` of the previous page, the id of its "
                "last stack",
            )
        ]
    return []


ALL_TENANTS = RequestField(
    Field(
        "all_tenants",
        (bool,),
        description="List the stacks of every tenant, not only the tenant's.",
    )
)
STATUS = RequestField(
    Field(
        "status",
        (list,),
        items=(str,),
        description="Only stacks in one of these statuses (IN_PROGRESS, COMPLETE, FAILED: "
        "of any action) or states (CREATE_COMPLETE, CHECK_FAILED, ...).",
        check=state_filter_problems,
        schema={"items": {"enum": list(STATE_FILTERS)}, "maxItems": MAX_STATUS_FILTERS},
    )
)
ALL_OF_TAGS = RequestField(
    Field(
        "tags",
        (list,),
        description="Only stacks that have every one of these tags.",
        check=tag_problems,
        schema=TAG_LIST_SCHEMA,
    )
)
NAME_PART = RequestField(
    Field(
        "name",
        (str,),
        is_name=True,
        description="Only stacks whose name holds this text (case-insensitive).",
    )
)
PAGE = RequestField(
    Field(
        "limit",
        (int,),
        description="The most stacks on the page.",
        low=1,
        high=Limit(MAX_OVERVIEW_PAGE, "MAX_OVERVIEW_PAGE"),
    )
)
MARKER = RequestField(
    Field(
        "marker",
        (str,),
        description="The id of the last stack of the previous page (its `next`).",
        check=marker_problems,
        schema={"pattern": _UUID},
    )
)


@dataclass(frozen=True, kw_only=True)
class OverviewRequest:
    """What the stacks list asks for: the filters, and which page."""

    TASK: ClassVar[str] = "conv_tasks.stack.overview"

    all_tenants: Annotated[bool, ALL_TENANTS] = False
    status: Annotated[Sequence[str] | None, STATUS] = None
    tags: Annotated[Sequence[str] | None, ALL_OF_TAGS] = None
    name: Annotated[str | None, NAME_PART] = None
    limit: Annotated[int, PAGE] = 50
    marker: Annotated[str | None, MARKER] = None
