"""The SDK's terms: its version, the actions' names, the defaults a type may change, the
kinds of connection, and the physical id made from a token.

Plain values, no behaviour: everything else in the SDK reads them.
"""

from __future__ import annotations

import uuid

SDK_VERSION = "1.3"  # 1.1: suspend and resume actions; Observed.data (adopting, external_id)
# 1.2: ActionContext.create_token, ResourceType.makes_objects (a create that ended without a
# physical id still gets a delete)
# 1.3: the names the built-in types use (child stacks, deployments, wait handles, a group's
# member view, check_values); the capabilities the engine asks a type instead of its class
# (preview_request, unknown_child_parameters, child_template_source, keeps_wait_signals)
"""The version of the resource-type SDK (conv_tasks.sdk) this conv_tasks offers: the minor
number grows with additions, the major one with changes a type must follow. A type names the
versions it is written for in `ResourceType.sdk_versions`."""
CONNECTION_KINDS = ("postgresql", "http", "celery")
"""The kinds of connection a type may act through (`ResourceType.connection_kind`;
conv_tasks.connections.specs.KINDS)."""

DEFAULT_ACTION_TIMEOUT = 3600.0
"""Seconds an action may take when its stack sets no timeout (Heat's default stack timeout);
a type may say otherwise in `ResourceType.action_timeout`."""
DEFAULT_STEP_BUDGET = 5.0
"""Seconds one step (a start or a poll) may take before the engine logs it as too slow, and
the conformance kit fails it: a step must return, and ask to be polled, rather than wait for
the service. A type may say otherwise in `ResourceType.step_budget`."""

# The actions, as `ActionContext.action` names them.
CREATE = "CREATE"
"""A create's steps, and `observe` when a resource adopts an object (`external_id`). A
replacement is the create of a new version."""
UPDATE = "UPDATE"
"""An update in place's steps."""
DELETE = "DELETE"
"""A delete's steps."""
CHECK = "CHECK"
"""A stack check's `check`, and `observe` in a preview."""
SUSPEND = "SUSPEND"
"""A stack suspend's steps (SDK 1.1)."""
RESUME = "RESUME"
"""A stack resume's steps (SDK 1.1)."""

# Fixed so that the id made from a token is the same on every host and every retry.
_TOKEN_NAMESPACE = uuid.UUID("5b0e1f3c-7d4a-4c55-9a3e-2f6b8d1c0a17")


def token_physical_id(token: str) -> str:
    """A stable physical id for things that exist only on paper (OS::Heat::None and friends)."""
    return str(uuid.uuid5(_TOKEN_NAMESPACE, token))


ENTRY_POINT_GROUP = "conv_tasks.resource_types"
"""The entry point group of resource types: name = the type's name, object = its class."""
