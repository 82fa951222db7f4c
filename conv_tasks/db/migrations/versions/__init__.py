"""Alembic revisions of the schema, one per change, applied in order by `conv-tasks db upgrade`.

Nothing imports from here: Alembic loads the revisions by path (and skips this file).
"""

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT: tuple[str, ...] = ()
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.settings",
    "conv_tasks.tasks",
)
