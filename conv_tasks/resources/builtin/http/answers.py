"""What a REST service answered, and what it means for the action. Pure.

- 2xx: done; the body, if any, must be JSON.
- 429: Throttled, not before its Retry-After (seconds or an HTTP date).
- 502, 503, 504: Transient: the engine asks again later.
- 404: NotFound (a delete counts it as done).
- Anything else (another 4xx, another 5xx, a redirect, which is never followed): Fatal,
  with the service's own message when it gave one.

Every message is one line naming the resource, the request and the status.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any

from conv_tasks.resources.builtin.http.documents import depth
from conv_tasks.sdk import Fatal, NotFound, ProviderError, Throttled, Transient

THROTTLED = 429
UNAVAILABLE = frozenset({502, 503, 504})
GONE = 404
# The most of a response the resource reads, and how deeply its JSON may nest: it is kept
# in the resource's data and handed to other resources.
MAX_RESPONSE_BYTES = 1024 * 1024
MAX_RESPONSE_DEPTH = 64
# The most of the service's own message a reason quotes.
MAX_MESSAGE_CHARS = 300
# Where services put their message in a JSON error body (RFC 9457's `detail` and `title`
# among them), in the order they are looked for.
_MESSAGE_KEYS = ("message", "error_description", "detail", "error", "title", "errors")


@dataclass(frozen=True)
class Answer:
    """One response, read whole (at most MAX_RESPONSE_BYTES)."""

    method: str
    url: str
    status: int
    reason: str = ""
    content_type: str = ""
    content: bytes = b""
    retry_after: str | None = None
    location: str | None = None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    @property
    def retryable(self) -> bool:
        """The service asks to be asked again (throttled, or passing unavailable)."""
        return self.status == THROTTLED or self.status in UNAVAILABLE

    def request(self) -> str:
        """`METHOD URL`, for messages."""
        return f"{self.method} {self.url}"

    def heading(self) -> str:
        """`METHOD URL answered STATUS REASON`, for messages."""
        reason = f" {self.reason}" if self.reason else ""
        return f"{self.request()} answered {self.status}{reason}"


def decoded(answer: Answer, resource: str) -> Any:
    """The answer's JSON body (None if it has none); Fatal, in one line, if it is not JSON
    or nests too deeply."""
    text = answer.content.strip()
    if not text:
        return None
    try:
        body = json.loads(text)
    except (ValueError, RecursionError):
        kind = answer.content_type.split(";")[0].strip() or "no content type"
        raise Fatal(
            f"Resource {resource}: {answer.heading()} with a body that is not JSON ({kind}, "
            f"{len(answer.content)} bytes)."
        ) from None
    if depth(body) > MAX_RESPONSE_DEPTH:
        raise Fatal(
            f"Resource {resource}: {answer.heading()} with JSON nested more than "
            f"{MAX_RESPONSE_DEPTH} levels deep."
        )
    return body


def service_message(answer: Answer) -> str:
    """The service's own words about a failure, on one line ('' if it gave none): a JSON
    body's message, or the first line of a plain-text one."""
    text = answer.content.decode("utf-8", errors="replace").strip()
    if not text:
        return ""
    try:
        found = _message_in(json.loads(text))
    except (ValueError, RecursionError):
        first = text.splitlines()[0].strip()
        found = "" if first.startswith("<") else first  # markup says nothing readable
    return _shortened(" ".join(found.split()))


def _message_in(body: Any) -> str:
    for _ in range(4):  # {"error": {"message": ...}} and the like
        if isinstance(body, str):
            return body
        if isinstance(body, list) and body:
            body = body[0]
        elif isinstance(body, Mapping):
            key = next((k for k in _MESSAGE_KEYS if k in body), None)
            if key is None:
                return ""
            body = body[key]
        else:
            return ""
    return body if isinstance(body, str) else ""


def _shortened(text: str) -> str:
    if len(text) <= MAX_MESSAGE_CHARS:
        return text
    return text[: MAX_MESSAGE_CHARS - 3] + "..."


def failure(answer: Answer, resource: str) -> ProviderError:
    """The error an answer that is not a success means (see the module docstring)."""
    said = service_message(answer)
    text = f"Resource {resource}: {answer.heading()}"
    if 300 <= answer.status < 400:
        where = f" to {answer.location}" if answer.location else ""
        text += f" (a redirect{where}, which is not followed: give the final URL)"
    text += f": {said}" if said else "."
    if answer.status == THROTTLED:
        return Throttled(text, retry_after=retry_after_seconds(answer.retry_after))
    if answer.status in UNAVAILABLE:
        return Transient(text)
    if answer.status == GONE:
        return NotFound(text)
    return Fatal(text)


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """Seconds a Retry-After header asks to wait (a number of seconds, or an HTTP date);
    None for none or one that cannot be read."""
    if value is None or not value.strip():
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))
