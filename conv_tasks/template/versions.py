"""The HOT versions this engine accepts, and which functions and sections each one offers.

Pure data and lookups, following the function tables of Heat's HOTemplate classes: a
function exists from one version on, and some change meaning at a later version (the
"variant" a version uses). It must never parse templates or raise errors itself.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from types import MappingProxyType

DATED_VERSIONS: tuple[str, ...] = (
    "2013-05-23",
    "2014-10-16",
    "2015-04-30",
    "2015-10-15",
    "2016-04-08",
    "2016-10-14",
    "2017-02-24",
    "2017-09-01",
    "2018-03-02",
    "2018-08-31",
    "2021-04-16",
)

# Heat's release names are aliases of dated versions.
NAMED_VERSIONS: dict[str, str] = {
    "newton": "2016-10-14",
    "ocata": "2017-02-24",
    "pike": "2017-09-01",
    "queens": "2018-03-02",
    "rocky": "2018-08-31",
    "wallaby": "2021-04-16",
}

OLDEST = DATED_VERSIONS[0]

# (function, first version with this behaviour, variant): later rows of one function
# replace earlier ones from their version on.
_FUNCTION_ROWS: tuple[tuple[str, str, str], ...] = (
    ("get_attr", OLDEST, "then_select"),
    ("get_attr", "2014-10-16", "path"),
    ("get_attr", "2015-10-15", "all_attributes"),  # [resource] alone gives every attribute
    ("get_file", OLDEST, "plain"),
    ("get_param", OLDEST, "plain"),
    ("get_resource", OLDEST, "plain"),
    ("list_join", OLDEST, "single"),  # one list of strings
    ("list_join", "2015-10-15", "multiple"),  # several lists; maps and lists as JSON
    ("resource_facade", OLDEST, "plain"),
    ("str_replace", OLDEST, "plain"),  # params must be strings or numbers
    ("str_replace", "2015-10-15", "json"),  # maps and lists become JSON
    ("repeat", "2015-04-30", "lists"),
    ("repeat", "2016-10-14", "maps"),  # for_each may iterate a map's keys
    ("repeat", "2017-09-01", "permutations"),  # permutations: false zips the lists
    ("digest", "2015-04-30", "plain"),
    ("str_split", "2015-10-15", "plain"),
    ("map_merge", "2016-04-08", "plain"),
    ("map_replace", "2016-10-14", "plain"),
    ("if", "2016-10-14", "three"),
    ("if", "2021-04-16", "nullable"),  # the false value may be left out
    ("yaql", "2016-10-14", "refused"),
    ("filter", "2017-02-24", "plain"),
    ("str_replace_strict", "2017-02-24", "plain"),
    ("make_url", "2017-09-01", "plain"),
    ("list_concat", "2017-09-01", "plain"),
    ("list_concat_unique", "2017-09-01", "plain"),
    ("str_replace_vstrict", "2017-09-01", "plain"),
    ("contains", "2017-09-01", "plain"),
)

# Functions allowed inside the conditions section and a condition expression.
_CONDITION_ROWS: tuple[tuple[str, str], ...] = (
    ("get_param", "2016-10-14"),
    ("equals", "2016-10-14"),
    ("not", "2016-10-14"),
    ("and", "2016-10-14"),
    ("or", "2016-10-14"),
    ("yaql", "2017-09-01"),
    ("contains", "2017-09-01"),
)

# CloudFormation functions: HOT had them in 2013-05-23 and removed them at these versions.
CFN_REMOVED_AT: Mapping[str, str] = MappingProxyType(
    {
        "Fn::GetAZs": "2014-10-16",
        "Fn::Join": "2014-10-16",
        "Fn::Split": "2014-10-16",
        "Fn::Replace": "2014-10-16",
        "Fn::Base64": "2014-10-16",
        "Fn::MemberListToMap": "2014-10-16",
        "Fn::ResourceFacade": "2014-10-16",
        "Ref": "2014-10-16",
        "Fn::Select": "2015-10-15",
    }
)

# Sections and keys that a version introduced.
CONDITIONS_SINCE = "2016-10-14"


def _tables() -> tuple[dict[str, Mapping[str, str]], dict[str, frozenset[str]]]:
    functions: dict[str, Mapping[str, str]] = {}
    conditions: dict[str, frozenset[str]] = {}
    for version in DATED_VERSIONS:
        table: dict[str, str] = {}
        for name, since, variant in _FUNCTION_ROWS:
            # ISO dates compare correctly as strings.
            if version >= since:
                table[name] = variant
        functions[version] = MappingProxyType(table)
        conditions[version] = frozenset(n for n, since in _CONDITION_ROWS if version >= since)
    return functions, conditions


# version -> {function -> variant}; version -> condition functions.
FUNCTIONS, CONDITION_FUNCTIONS = _tables()

HOT_FUNCTIONS: frozenset[str] = frozenset(name for name, _, _ in _FUNCTION_ROWS)
ALL_CONDITION_FUNCTIONS: frozenset[str] = frozenset(name for name, _ in _CONDITION_ROWS)


def normalise_version(value: object) -> str | None:
    """The dated form of a heat_template_version value, or None if it is not one we know."""
    if isinstance(value, datetime.datetime):
        return None
    if isinstance(value, datetime.date):
        value = value.isoformat()
    if not isinstance(value, str):
        return None
    if value in DATED_VERSIONS:
        return value
    return NAMED_VERSIONS.get(value)


def variant(function: str, version: str) -> str | None:
    """Which behaviour of a function a version uses; None if it does not have it."""
    return FUNCTIONS[version].get(function)


def function_since(function: str) -> str | None:
    """The first version that has a function (in values or in conditions)."""
    found = [since for name, since, _ in _FUNCTION_ROWS if name == function]
    found += [since for name, since in _CONDITION_ROWS if name == function]
    return min(found) if found else None


def known_versions() -> str:
    """Every accepted version, for error messages."""
    return ", ".join([*DATED_VERSIONS, *NAMED_VERSIONS])
