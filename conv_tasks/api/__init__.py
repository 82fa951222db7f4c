"""conv_tasks.api: the HTTP edge, OpenStack Heat's orchestration API v1 over the public tasks.

People, the `openstack` CLI and other untrusted callers reach conv_tasks here, with a token,
never with broker credentials. This folder must never import conv_tasks.engine or
conv_tasks.db: it talks to the engine only through the public tasks (conv_tasks.client), in a
bounded thread pool so that the event loop never blocks. Request and answer mapping are pure
functions (heat_input, heat_views, listing, operations, faults); handlers are thin. It needs
the `edge` extra: without it, importing this face says so in one sentence (MissingExtra).
"""

from conv_tasks.extras import require

require("edge", "The HTTP edge (conv_tasks.api, `conv-tasks api`)")

from conv_tasks.api.app import EdgeApp, build_app  # noqa: E402
from conv_tasks.api.auth import (  # noqa: E402
    ApiConfigError,
    Identity,
    NoAuth,
    StaticTokens,
    authenticator,
    parse_tokens,
    token_hash,
)
from conv_tasks.api.server import edge_app, serve  # noqa: E402

__all__ = [
    "ApiConfigError",
    "EdgeApp",
    "Identity",
    "NoAuth",
    "StaticTokens",
    "authenticator",
    "build_app",
    "edge_app",
    "parse_tokens",
    "serve",
    "token_hash",
]
