"""`conv-tasks api serve`: the edge on uvicorn, configured from the settings."""

from __future__ import annotations

import logging

from conv_tasks.edge import authenticator
from conv_tasks.server.app import EdgeApp, build_app
from conv_tasks.settings import Settings, get_settings
from conv_tasks.ui import ui_config

# uvicorn reads this many header bytes before it gives up with its own plain 400; below it,
# the edge's own limits answer with Heat's fault body (431).
UVICORN_HEADER_BYTES = 256 * 1024


def edge_app(host: str, settings: Settings | None = None) -> EdgeApp:
    """The edge as the settings configure it; ApiConfigError if it must not start."""
    settings = settings or get_settings()
    auth = authenticator(
        settings.api_auth, settings.api_tokens_file, settings.api_keystone_config, host
    )
    ui = ui_config(settings) if settings.ui_enabled else None
    return build_app(auth, threads=settings.api_threads, timeout=settings.api_timeout, ui=ui)


def serve(host: str, port: int) -> None:
    import uvicorn

    settings = get_settings()
    app = edge_app(host, settings)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(message)s")
    uvicorn.run(
        app,
        host=host,
        port=port,
        access_log=False,  # uvicorn's would print query strings; the edge logs its own
        proxy_headers=True,
        h11_max_incomplete_event_size=UVICORN_HEADER_BYTES,
        timeout_keep_alive=settings.api_keep_alive,
        log_level="info",
    )
