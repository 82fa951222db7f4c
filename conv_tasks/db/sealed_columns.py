"""Which columns are sealed at rest, and sealing a row's values of them.

The database cannot tell which values derive from a hidden parameter: that is the stack
definition's analysis (conv_tasks.engine.definition), made per template, and a value typed
twice or echoed by a server escapes it. So every column that may hold such a value is sealed
whole, whatever the stack, when a key is set:

- raw_template: the template (hidden parameters' defaults), the parameter values, the merged
  environment (parameters, parameter_defaults), the files (nested templates, environment
  files) and the facade (a parent resource's definition, which may hold its hidden values).
  A nested stack's inherited secrets are parameters of its own template row.
- resource: properties_data (properties resolved from hidden parameters, a role's password),
  attr_data (attributes: a wait condition handle's token, outputs built from secrets) and
  plugin_data (what a type keeps between steps).
- software_config and software_deployment: the config text, its inputs (defaults), options,
  the deployment's input values and what the server reported (outputs, stdout, stderr).

Credentials checked by a hash (server credentials, signal credentials, handle tokens'
hashes) are stored only as hashes and need nothing. Names, statuses, ids, the traversal
graph and events stay plain: events and status reasons are masked before they are written.
The signals servers send a wait condition handle stay as sent: they come from outside.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.secrets_at_rest import Sealer

# Table -> its key column and the columns sealed whole. JSON columns hold an envelope as a
# JSON string; text columns hold it as the text.
SEALED_COLUMNS: Mapping[str, tuple[str, tuple[str, ...]]] = {
    "raw_template": ("id", ("template", "parameters", "environment", "files", "facade")),
    "resource": ("id", ("properties_data", "attr_data", "plugin_data")),
    "software_config": ("id", ("config", "inputs", "options")),
    "software_deployment": (
        "id",
        ("config", "config_inputs", "config_options", "input_values", "outputs"),
    ),
}
TEXT_COLUMNS = frozenset({("software_config", "config"), ("software_deployment", "config")})


def sealed(table: str) -> frozenset[str]:
    """The sealed columns of `table`."""
    return frozenset(SEALED_COLUMNS[table][1])


def seal_fields(sealer: Sealer, table: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` (column -> value) with the sealed columns' values sealed."""
    columns = sealed(table)
    return {
        name: _seal(sealer, table, name, value) if name in columns else value
        for name, value in fields.items()
    }


def open_fields(sealer: Sealer, table: str, fields: Mapping[str, Any]) -> dict[str, Any]:
    """`fields` (column -> value, as read) with the sealed columns' values opened."""
    columns = sealed(table)
    return {
        name: _open(sealer, table, name, value) if name in columns else value
        for name, value in fields.items()
    }


def open_column(sealer: Sealer, table: str, column: str, value: Any) -> Any:
    """One sealed column's value, opened."""
    return _open(sealer, table, column, value)


def _seal(sealer: Sealer, table: str, column: str, value: Any) -> Any:
    if (table, column) in TEXT_COLUMNS:
        return value if value is None else sealer.seal(value)
    return sealer.seal_json(value)


def _open(sealer: Sealer, table: str, column: str, value: Any) -> Any:
    where = f"{table}.{column}"
    if (table, column) in TEXT_COLUMNS:
        return value if value is None else sealer.open(value, where=where)
    return sealer.open_json(value, where=where)
