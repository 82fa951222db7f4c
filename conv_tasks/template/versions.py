"""The HOT versions this engine accepts and which functions each one offers.

Pure data and lookups; it must never parse templates or raise errors itself.
"""

from __future__ import annotations

import datetime

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

# Functions missing from the oldest version, with the first version that has them.
FUNCTION_SINCE: dict[str, str] = {"list_join": "2014-10-16"}


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


def function_available(function: str, version: str) -> bool:
    """Whether a (normalised) template version offers an intrinsic function."""
    since = FUNCTION_SINCE.get(function)
    # ISO dates compare correctly as strings.
    return since is None or version >= since


def known_versions() -> str:
    """Every accepted version, for error messages."""
    return ", ".join([*DATED_VERSIONS, *NAMED_VERSIONS])
