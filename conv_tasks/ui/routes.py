"""Which page a request under /ui/ asks for, decided without I/O.

`route(method, path)` names the page and its path parameters, or raises the UiError a
request for anything else gets: 404 for an address the view does not have, 405 for a
method an address does not take. Every page is read-only: the login form and logout are the
only POSTs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from urllib.parse import quote

from conv_tasks.ui.errors import UiError

PREFIX = "/ui"
_READ = ("GET", "HEAD")


@dataclass(frozen=True)
class Page:
    """One request's page (`stacks`, `stack`, ...) and its path parameters."""

    name: str
    params: dict[str, str] = field(default_factory=dict)

    @property
    def needs_session(self) -> bool:
        return self.name not in ("login", "login_form", "logout", "static", "home_redirect")


def is_ui_path(path: str) -> bool:
    return path == PREFIX or path.startswith(PREFIX + "/")


def _allow(method: str, allowed: tuple[str, ...], what: str) -> None:
    if method not in allowed:
        raise UiError(
            405,
            f"{what} takes {', '.join(allowed)}, not {method[:16]}.",
            {"Allow": ", ".join(allowed)},
        )


def route(method: str, path: str) -> Page:
    """The page `method path` asks for; raises UiError for any other request."""
    method = method.upper()
    if path == PREFIX:
        _allow(method, _READ, "The web view")
        return Page("home_redirect")
    segments = path[len(PREFIX) + 1 :].split("/")
    if segments == [""]:
        _allow(method, _READ, "The stacks list")
        return Page("stacks")
    if segments == ["login"]:
        _allow(method, ("GET", "HEAD", "POST"), "The sign-in page")
        return Page("login" if method == "POST" else "login_form")
    if segments == ["logout"]:
        _allow(method, ("POST",), "Signing out")
        return Page("logout")
    if len(segments) == 2 and segments[0] == "static" and segments[1]:
        _allow(method, _READ, "A static file")
        return Page("static", {"file": segments[1]})
    if segments[0] == "stacks" and len(segments) >= 2 and segments[1]:
        return _stack_route(method, path, segments[1], segments[2:])
    raise UiError(404, f"The web view has no page at {path[:200]}.")


def _stack_route(method: str, path: str, stack: str, rest: list[str]) -> Page:
    params = {"stack": stack}
    if not rest:
        _allow(method, _READ, "A stack's page")
        return Page("stack", params)
    if rest in (["history"], ["template"], ["graph"], ["header"]):
        _allow(method, _READ, f"A stack's {rest[0]}")
        return Page(rest[0], params)
    if rest == ["events", "stream"]:
        _allow(method, ("GET",), "A stack's live events")
        return Page("events_stream", params)
    if len(rest) == 2 and rest[0] == "resources" and rest[1]:
        _allow(method, _READ, "A resource")
        return Page("resource", {**params, "resource": rest[1]})
    raise UiError(404, f"The web view has no page at {path[:200]}.")


def stack_path(stack_id: str, *rest: str) -> str:
    """The address of a stack's page (or of one of its parts)."""
    parts = [quote(stack_id, safe=""), *(quote(part, safe="") for part in rest)]
    return f"{PREFIX}/stacks/" + "/".join(parts)
