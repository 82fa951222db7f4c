"""How the CLI prints what the engine answered: tables and fields, `-f`/`-c` output formats,
JSON, the live progress of an operation and how it ended, previews, validation results,
resource types and graphs.

Rendering only: these modules print the values they are handed and never ask the engine,
the database or a stack for anything (following an operation uses the client the caller
passes in), never read a command's options except `-f`/`-c` (format_options), and never
import from conv_tasks.cli.commands. Importing this package loads neither rich nor the
Celery app: screen.py, the only module that draws with rich, is private to output.py and
progress.py, which import it once they know stdout is a terminal.
"""

from conv_tasks.cli.render.graph import to_dot, to_mermaid
from conv_tasks.cli.render.listing import chosen, emit_fields, emit_rows, format_options
from conv_tasks.cli.render.output import emit_json, fields, table
from conv_tasks.cli.render.preview import show_preview
from conv_tasks.cli.render.progress import ProgressView, expected_status, follow, interrupted
from conv_tasks.cli.render.resource_type import show_resource_type
from conv_tasks.cli.render.validation import show_validation

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.cli.failures", "conv_tasks.client", "conv_tasks.statuses")
MUST_NOT_IMPORT = (
    "celery",
    "conv_tasks.cli.commands",
    "conv_tasks.cli.context",
    "conv_tasks.cli.main",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = [
    "ProgressView",
    "chosen",
    "emit_fields",
    "emit_json",
    "emit_rows",
    "expected_status",
    "fields",
    "follow",
    "format_options",
    "interrupted",
    "show_preview",
    "show_resource_type",
    "show_validation",
    "table",
    "to_dot",
    "to_mermaid",
]
