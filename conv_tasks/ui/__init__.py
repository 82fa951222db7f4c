"""conv_tasks.ui: the web view at /ui/ of the HTTP edge (`conv-tasks api serve`).

Pages rendered on the server (Jinja2, autoescaped), with htmx and its SSE extension vendored
in static/ for the live parts and no JavaScript build step: the stacks list with what needs
attention, a stack's page (header, graph, resources and their drawers, events following
live, outputs, nested stacks), its history, its template. Signed-in browsers carry a signed
cookie (conv_tasks.ui.session) obtained with a token the edge's authenticator accepts.

This folder must never import conv_tasks.engine or conv_tasks.db: it reads only through the
public tasks, via the edge's TaskGateway and its bounded thread pool. It changes nothing (the
sign-in cookie aside), never shows a hidden value, a credential or a token, and answers
every refusal with an HTML page (4xx), never a bare 500. conv_tasks.ui.graph draws the graph.
It needs the `edge` extra, as the edge does (MissingExtra without it).
"""

from conv_tasks.extras import require

require("edge", "The web view (conv_tasks.ui)")

from conv_tasks.ui.app import UiApp  # noqa: E402
from conv_tasks.ui.config import UiConfig, ui_config  # noqa: E402
from conv_tasks.ui.routes import is_ui_path  # noqa: E402
from conv_tasks.ui.session import COOKIE_NAME, Session, SessionCodec  # noqa: E402

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.edge",
    "conv_tasks.errors",
    "conv_tasks.extras",
    "conv_tasks.input_text",
    "conv_tasks.limits",
    "conv_tasks.settings",
    "conv_tasks.statuses",
)
MUST_NOT_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.server",
    "conv_tasks.tasks",
    "sqlalchemy",
)

__all__ = [
    "COOKIE_NAME",
    "Session",
    "SessionCodec",
    "UiApp",
    "UiConfig",
    "is_ui_path",
    "ui_config",
]
