"""conv_tasks.edge: what the HTTP edge's two faces share, Heat's API (conv_tasks.api) and the
web view (conv_tasks.ui).

Who is calling (auth: the three ways of CONV_TASKS_API_AUTH, the tenant a credential may
act for), what a refusal looks like (faults: Heat's fault body, and the task answers'
error codes mapped to statuses, here only), the limits of a request's address and headers
(request_limits), and the one way to the engine (gateway: the public tasks through
conv_tasks.client, in a bounded thread pool). It never imports conv_tasks.engine or
conv_tasks.db, nor either face above it; tokens are never logged or kept. It needs the
`edge` extra: without it, importing this face says so in one sentence (MissingExtra).
"""

from conv_tasks.extras import require

require("edge", "The HTTP edge (`conv-tasks api`)")

from conv_tasks.edge.auth import (  # noqa: E402
    ALL_TENANTS,
    TOKEN_HEADER,
    ApiConfigError,
    Authenticator,
    Identity,
    NoAuth,
    StaticTokens,
    authenticator,
    authorize,
    parse_tokens,
    token_expiry,
    token_hash,
)
from conv_tasks.edge.faults import (  # noqa: E402
    ApiFault,
    Fault,
    FaultProblem,
    bad_request,
    fault_body,
    fault_of,
    fault_of_answer,
    not_found,
    not_implemented,
)
from conv_tasks.edge.gateway import TaskGateway  # noqa: E402
from conv_tasks.edge.request_limits import check_headers  # noqa: E402

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.client", "conv_tasks.errors", "conv_tasks.extras")
MUST_NOT_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.server",
    "conv_tasks.tasks",
    "conv_tasks.ui",
    "sqlalchemy",
)

__all__ = [
    "ALL_TENANTS",
    "TOKEN_HEADER",
    "ApiConfigError",
    "ApiFault",
    "Authenticator",
    "Fault",
    "FaultProblem",
    "Identity",
    "NoAuth",
    "StaticTokens",
    "TaskGateway",
    "authenticator",
    "authorize",
    "bad_request",
    "check_headers",
    "fault_body",
    "fault_of",
    "fault_of_answer",
    "not_found",
    "not_implemented",
    "parse_tokens",
    "token_expiry",
    "token_hash",
]
