"""The Alembic environment (env.py) and the schema's revisions (versions/), which
`conv-tasks db upgrade` runs (conv_tasks.db.migrate). Alembic loads them by path: nothing
imports from here. The environment reads the models' metadata; it never reaches the engine.
"""

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.db.models", "conv_tasks.db.session", "conv_tasks.settings")
MUST_NOT_IMPORT = (
    "conv_tasks.cli",
    "conv_tasks.db.database",
    "conv_tasks.db.nodes",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.tasks",
)
