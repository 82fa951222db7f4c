"""The error hierarchy of conv_tasks.

Every error a user can see is a ConvTasksError. Each carries the context a
user needs to act on it (the template path, the stack, the resource) and its
message is a sentence. This module imports nothing from the rest of the
package but the limits (plain numbers) so that every layer can raise these.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from conv_tasks.limits import MAX_PROBLEM_CHARS


class ConvTasksError(Exception):
    """Root of every error conv_tasks raises on purpose."""

    code = "error"

    def to_dict(self) -> dict[str, object]:
        """A JSON-able form, used in task results and the CLI."""
        return {"error": self.code, "message": str(self)}


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, and where it is (a dotted path)."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}" if self.path else self.message


def _shortened(text: str) -> str:
    if len(text) <= MAX_PROBLEM_CHARS:
        return text
    return f"{text[: MAX_PROBLEM_CHARS - 30]}... ({len(text)} characters in all)"


def _bounded(problem: Problem) -> Problem:
    """The problem, its path and message shortened: a refusal must not carry a huge input."""
    if len(problem.path) <= MAX_PROBLEM_CHARS and len(problem.message) <= MAX_PROBLEM_CHARS:
        return problem
    return Problem(_shortened(problem.path), _shortened(problem.message))


class InvalidInput(ConvTasksError):
    """Input was rejected; nothing was changed. Carries every problem found."""

    code = "invalid_input"

    def __init__(self, problems: Sequence[Problem] | str, *, what: str = "input") -> None:
        if isinstance(problems, str):
            problems = [Problem("", problems)]
        self.problems: tuple[Problem, ...] = tuple(_bounded(p) for p in problems)
        self.what = what
        super().__init__(self._message())

    def _message(self) -> str:
        if len(self.problems) == 1:
            return f"Invalid {self.what}: {self.problems[0]}"
        lines = "\n".join(f"  - {p}" for p in self.problems)
        return f"Invalid {self.what} ({len(self.problems)} problems):\n{lines}"

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data["problems"] = [{"path": p.path, "message": p.message} for p in self.problems]
        return data


class TemplateError(InvalidInput):
    """A template is malformed or refers to something that does not exist."""

    code = "invalid_template"

    def __init__(self, problems: Sequence[Problem] | str) -> None:
        super().__init__(problems, what="template")


class ParameterError(InvalidInput):
    """A parameter value is missing, of the wrong type or breaks a constraint."""

    code = "invalid_parameters"

    def __init__(self, problems: Sequence[Problem] | str) -> None:
        super().__init__(problems, what="parameters")


class InvalidEnvironment(InvalidInput):
    """An environment (or the files map beside it) is malformed or names what is not there."""

    code = "invalid_environment"

    def __init__(self, problems: Sequence[Problem] | str) -> None:
        super().__init__(problems, what="environment")


class FilesError(InvalidInput):
    """A file that a template or environment refers to cannot be sent: missing, unreadable,
    a URL, or one name meaning two files (conv_tasks.local_files)."""

    code = "invalid_files"

    def __init__(self, problems: Sequence[Problem] | str) -> None:
        super().__init__(problems, what="files")


class PayloadError(InvalidInput):
    """A task payload sent by another service is malformed."""

    code = "invalid_payload"

    def __init__(self, problems: Sequence[Problem] | str) -> None:
        super().__init__(problems, what="payload")


class CycleError(TemplateError):
    """The resources depend on each other in a circle."""

    code = "dependency_cycle"

    def __init__(self, cycle: Sequence[str]) -> None:
        self.cycle = tuple(cycle)
        path = " -> ".join([*self.cycle, self.cycle[0]]) if self.cycle else ""
        super().__init__([Problem("resources", f"circular dependency: {path}")])


class NotFound(ConvTasksError):
    """A stack, resource, template or resource type does not exist (for this tenant)."""

    code = "not_found"


class NotSupported(ConvTasksError):
    """The operation is refused for this object (for example a HIDDEN resource type)."""

    code = "not_supported"


class Conflict(ConvTasksError):
    """The stack is in a state that does not allow the operation."""

    code = "conflict"


class Duplicate(Conflict):
    """A row that must be unique exists already (a live stack's name, a create's idempotency
    key, a resource version another operation just added): nothing was written."""

    code = "conflict"


class LostRace(ConvTasksError):
    """Another operation swapped in its traversal first; ours was undone."""

    code = "lost_race"


class ResourceFailure(ConvTasksError):
    """A resource action failed. The message becomes the resource's status reason."""

    code = "resource_failure"

    def __init__(self, message: str, *, resource: str | None = None, action: str | None = None):
        self.resource = resource
        self.action = action
        super().__init__(message)


class NotAuthorized(ConvTasksError):
    """A credential is missing or does not match. The message names nothing secret, and not
    whether the thing asked for exists."""

    code = "not_authorized"


# What conv_tasks calls each service it needs, and the setting that names it. The broker and
# the result store are what a caller (Client, the CLI) talks to; PostgreSQL and the SyncPoint
# Redis only the workers do.
SERVICES: dict[str, tuple[str, str]] = {
    "broker": ("the broker", "CONV_TASKS_BROKER_URL"),
    "result_store": ("the result store", "CONV_TASKS_RESULT_BACKEND"),
    "postgresql": ("PostgreSQL", "CONV_TASKS_DATABASE_URL"),
    "syncpoint_redis": ("the SyncPoint Redis", "CONV_TASKS_REDIS_URL"),
}
WORKER_SERVICES = frozenset({"postgresql", "syncpoint_redis"})


class Unavailable(ConvTasksError):
    """A service conv_tasks needs cannot be reached: `service` is a key of SERVICES, `url` its
    URL with the password already masked (this module imports nothing that could mask it), and
    `detail` the first line of the error met. The request was not carried out, unless the
    service went away in its middle: send it again once the service is back.

    A worker answers it ({"ok": false, "error": "unavailable", "service", "url", ...}) when it
    cannot reach PostgreSQL or the SyncPoint Redis; Client raises it for those answers and when
    it cannot reach the broker or the result store itself."""

    code = "unavailable"

    def __init__(self, service: str, url: str, detail: str = "") -> None:
        self.service = service
        self.url = url
        self.detail = detail
        name, setting = SERVICES.get(service, (service, ""))
        worker = service in WORKER_SERVICES
        message = f"{'a worker ' if worker else ''}cannot reach {name} at {url}"
        if detail:
            message += f" ({detail})"
        if setting:
            whose = "the workers' " if worker else ""
            message += f": start it, or point {whose}{setting} at it."
        super().__init__(message)

    def to_dict(self) -> dict[str, object]:
        data = super().to_dict()
        data.update(service=self.service, url=self.url, detail=self.detail, problems=[])
        return data


ENCRYPTION_KEYS_SETTING = "CONV_TASKS_ENCRYPTION_KEYS"


class EncryptionKeyError(ConvTasksError):
    """A value sealed in the database cannot be opened with the keys of
    CONV_TASKS_ENCRYPTION_KEYS (none set, or none of them the key it was sealed with). The
    message names the setting and where the value is, never the value or a key."""

    code = "encryption_key"
