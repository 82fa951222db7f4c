"""What the web view is configured with: read from the settings once, checked at start.

The secret signs session cookies. With `tokens` or `keystone` the edge refuses to start
without one (CONV_TASKS_UI_SECRET); with `noauth`, which serves on a loopback address only,
a random one is made for the process (its sessions end when it stops).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field

from conv_tasks.edge import ApiConfigError
from conv_tasks.settings import Settings


@dataclass(frozen=True)
class UiConfig:
    """The web view's knobs. Durations are in seconds."""

    secret: bytes = field(repr=False)
    auth_mode: str = "noauth"
    session_ttl: float = 8 * 3600.0
    max_streams: int = 64
    heartbeat: float = 15.0
    # How often a live event stream asks for new events.
    poll_interval: float = 0.5
    # A live event stream ends after this long; the browser reconnects and resumes from the
    # last event id it saw, so that no stream holds a slot for ever.
    stream_lifetime: float = 600.0
    # The edge's public base URL (CONV_TASKS_API_PUBLIC_URL): its host is an origin the login
    # form may be posted from, besides the request's own Host.
    public_url: str = ""


def ui_config(settings: Settings) -> UiConfig:
    """The web view's configuration; ApiConfigError when the edge must not start."""
    secret = settings.ui_secret
    if not secret:
        if settings.api_auth != "noauth":
            raise ApiConfigError(
                f"CONV_TASKS_API_AUTH={settings.api_auth} serves the web view at /ui/, which "
                "needs CONV_TASKS_UI_SECRET to sign its session cookies (make one with "
                "`python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`), or "
                "CONV_TASKS_UI=0 to serve no web view."
            )
        secret = secrets.token_urlsafe(32)
    return UiConfig(
        secret=secret.encode("utf-8"),
        auth_mode=settings.api_auth,
        session_ttl=settings.ui_session_ttl,
        max_streams=settings.ui_max_streams,
        heartbeat=settings.ui_heartbeat,
        public_url=settings.api_public_url,
    )
