"""Checks on the arguments of repository calls, so bad input fails before any SQL runs."""

from __future__ import annotations

import uuid

from conv_tasks.errors import InvalidInput, Problem


def require_uuid(value: object, name: str) -> str:
    """`value` as a canonical UUID string, or InvalidInput naming `name`."""
    if not isinstance(value, str):
        raise InvalidInput([Problem(name, f"must be a UUID string, got {type(value).__name__}")])
    try:
        return str(uuid.UUID(value))
    except ValueError:
        raise InvalidInput([Problem(name, f"must be a UUID, got {value!r}")]) from None


def require_positive(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise InvalidInput([Problem(name, f"must be a number greater than zero, got {value!r}")])
    return float(value)


def require_id(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
        raise InvalidInput([Problem(name, f"must be a positive integer id, got {value!r}")])
    return value


def require_fields(fields: dict[str, object], allowed: frozenset[str], what: str) -> None:
    unknown = sorted(set(fields) - allowed)
    if unknown:
        raise InvalidInput(
            [Problem(name, f"is not a field of {what} that may be written") for name in unknown]
        )
