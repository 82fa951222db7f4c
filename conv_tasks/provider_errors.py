"""What a resource type raises when the service it acts on answers badly, and what the engine
then does (conv_tasks.engine.node.actions):

- `Throttled(retry_after)`, `Transient`: it asks again later, with a jittered, growing
  backoff (at least `retry_after`), keeping the lease; the waits count against the
  action's deadline.
- `NotFound`: on a delete, the object is gone, which is what a delete wants; otherwise the
  action fails.
- `AlreadyExists`, `Conflict`, `Fatal`: the action fails, the error's message its one-line
  reason.

Any other exception fails the action too, with its type and message; its traceback goes to
the worker's log, never to the user. Messages become status reasons and events: never put a
credential in one (the engine masks the connection's own secrets, not others).
"""

from __future__ import annotations

from conv_tasks.errors import ResourceFailure


class ProviderError(ResourceFailure):
    """Root of the errors a resource type raises about the service it acts on."""

    code = "provider_error"


class NotFound(ProviderError):
    """The object is not there (a delete counts that as done)."""

    code = "provider_not_found"


class AlreadyExists(ProviderError):
    """The object exists and is not the one this action made."""

    code = "provider_already_exists"


class Conflict(ProviderError):
    """The service refuses the change in the object's present state."""

    code = "provider_conflict"


class Fatal(ProviderError):
    """The action cannot succeed: asking again will not help."""

    code = "provider_fatal"


class Transient(ProviderError):
    """A passing fault (the service is unavailable, a connection dropped): ask again later."""

    code = "provider_transient"


class Throttled(Transient):
    """The service asks to be asked later (HTTP 429): not before `retry_after` seconds."""

    code = "provider_throttled"

    def __init__(
        self,
        message: str,
        *,
        retry_after: float | None = None,
        resource: str | None = None,
        action: str | None = None,
    ) -> None:
        super().__init__(message, resource=resource, action=action)
        self.retry_after = retry_after
