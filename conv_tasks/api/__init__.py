"""conv_tasks.api: the HTTP edge, OpenStack Heat's orchestration API v1 over the public tasks.

People, the `openstack` CLI and other untrusted callers reach conv_tasks here, with a token,
never with broker credentials. This folder must never import conv_tasks.engine or
conv_tasks.db: it talks to the engine only through the public tasks (conv_tasks.client), in a
bounded thread pool so that the event loop never blocks. Request and answer mapping are pure
functions (heat_input, heat_views, listing, operations, faults); handlers are thin.
"""

from conv_tasks.api.app import EdgeApp, build_app
from conv_tasks.api.auth import (
    ApiConfigError,
    Identity,
    NoAuth,
    StaticTokens,
    authenticator,
    parse_tokens,
    token_hash,
)
from conv_tasks.api.server import edge_app, serve

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
