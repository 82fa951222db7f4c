"""Custom constraints: the checkers behind a parameter's `custom_constraint: NAME`.

Heat checks `custom_constraint: nova.flavor` by asking Nova; conv_tasks has a registry of
checkers instead, the entry point group `conv_tasks.constraints` (entry point name = the
constraint's name, object = a Checker). conv_tasks declares its own checkers there, those
that need no service (ip_addr, net_cidr, dns_name, iso_8601, timezone, cron_expression, ...);
a package adds its own the same way. A constraint nobody provides is not checked: the
request is answered with a warning, or refused when CONV_TASKS_STRICT_CONSTRAINTS is set
(conv_tasks.engine decides which).

A checker is a plain function of the value. The ones here must never do I/O, sleep, or
put the value they check in their reason (a hidden parameter's value must not be shown).
"""

from __future__ import annotations

from conv_tasks.constraints.registry import (
    ENTRY_POINT_GROUP,
    Checker,
    ConstraintCheckers,
    installed_checkers,
    load_checkers,
)

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.errors",)
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.template",
    "httpx",
    "kombu",
    "psycopg",
    "redis",
    "sqlalchemy",
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "Checker",
    "ConstraintCheckers",
    "installed_checkers",
    "load_checkers",
]
