"""conv_tasks.server: the HTTP edge's process, above both its faces (`conv-tasks api serve`).

One ASGI app (app.py: EdgeApp) hands the web view's paths (/ui/) to conv_tasks.ui and every
other to Heat's API (conv_tasks.api), through one task gateway, and keeps the access log
and the last line of defence; process.py runs it on uvicorn as the settings configure it.
Neither face imports this one. It never imports conv_tasks.engine or conv_tasks.db. It
needs the `edge` extra: without it, importing this face says so in one sentence.
"""

from conv_tasks.extras import require

require("edge", "The HTTP edge (`conv-tasks api`)")

from conv_tasks.server.app import EdgeApp, build_app  # noqa: E402
from conv_tasks.server.process import edge_app, serve  # noqa: E402

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.edge",
    "conv_tasks.extras",
    "conv_tasks.settings",
    "conv_tasks.ui",
)
MUST_NOT_IMPORT = ("conv_tasks.db", "conv_tasks.engine", "conv_tasks.tasks", "sqlalchemy")

__all__ = ["EdgeApp", "build_app", "edge_app", "serve"]
