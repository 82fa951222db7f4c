"""conv_tasks.api: OpenStack Heat's orchestration API v1 over the public tasks, one face of
the HTTP edge (the web view, conv_tasks.ui, is the other; conv_tasks.server serves both).

People, the `openstack` CLI and other untrusted callers reach conv_tasks here, with a token,
never with broker credentials. This folder must never import conv_tasks.engine or
conv_tasks.db, nor the web view or the server: it talks to the engine only through the
public tasks, by the gateway conv_tasks.edge shares with the web view. Request and answer
mapping are pure functions (heat_input, heat_views, listing, operations); handlers are thin.
It needs the `edge` extra: without it, importing this face says so in one sentence.
"""

from conv_tasks.extras import require

require("edge", "The HTTP edge (`conv-tasks api`)")

from conv_tasks.api.app import ApiApp, json_response  # noqa: E402

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.edge",
    "conv_tasks.errors",
    "conv_tasks.extras",
    "conv_tasks.limits",
    "conv_tasks.requests",
    "conv_tasks.resources",
)
MUST_NOT_IMPORT = (
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.server",
    "conv_tasks.tasks",
    "conv_tasks.ui",
    "jinja2",
    "sqlalchemy",
)

__all__ = ["ApiApp", "json_response"]
