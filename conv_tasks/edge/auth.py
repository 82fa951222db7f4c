"""Who is calling: the three ways of CONV_TASKS_API_AUTH.

- `noauth`: the tenant is the URL's. For development and CI only: the service refuses to
  start with it unless bound to a loopback address.
- `tokens`: `X-Auth-Token` is looked up by its SHA-256 in a file of hashes (a setting names
  it), each mapped to a tenant; a `reader` token may only read. A token of the tenant `*` is
  an operator's: it acts for every tenant (and sees all of them in the web view).
- `keystone`: keystonemiddleware validates the token with Keystone; the token's project is
  the tenant. Needs the `keystone` extra; a clear error at start without it.

An Identity that does not own the URL's tenant gets 404 (as another tenant's stack is
not_found), so the existence of a tenant does not leak. Tokens are never logged or kept.
"""

from __future__ import annotations

import configparser
import hashlib
import hmac
import io
import ipaddress
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from conv_tasks.edge.faults import ApiFault
from conv_tasks.errors import ConvTasksError

TOKEN_HEADER = "x-auth-token"
# The tenant of an operator's token in the tokens file: every tenant.
ALL_TENANTS = "*"
READ_METHODS = frozenset({"GET", "HEAD"})


class ApiConfigError(ConvTasksError):
    """The edge cannot start as configured; the message says what to change."""

    code = "api_config"


@dataclass(frozen=True)
class Identity:
    """An authenticated caller: the tenant it acts for, and whether it may only read."""

    tenant: str
    reader: bool = False
    # When its credential stops being valid (Unix time), when the authenticator knows it
    # (Keystone says so): the web view's session ends then at the latest.
    expires_at: float | None = None

    @property
    def all_tenants(self) -> bool:
        """An operator's identity: it acts for every tenant."""
        return self.tenant == ALL_TENANTS


def unauthorized(message: str) -> ApiFault:
    return ApiFault(
        401,
        "NotAuthenticated",
        message,
        headers={"WWW-Authenticate": 'Keystone uri="", token'},
    )


def token_hash(token: str) -> str:
    """What the tokens file holds for a token: its SHA-256, in hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Authenticator(Protocol):
    """Decides who a request comes from; raises ApiFault 401 when it cannot."""

    mode: str

    def identify(self, url_tenant: str, headers: Mapping[str, str]) -> Identity: ...


class NoAuth:
    mode = "noauth"

    def identify(self, url_tenant: str, headers: Mapping[str, str]) -> Identity:
        return Identity(url_tenant)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def parse_tokens(lines: Iterable[str], source: str) -> dict[str, Identity]:
    """`<sha256 hex> <tenant> [reader]` a line; blank lines and `#` comments skipped."""
    found: dict[str, Identity] = {}
    for number, line in enumerate(lines, start=1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        fields = text.split()
        digest = fields[0].lower().removeprefix("sha256:")
        bad_digest = len(digest) != 64 or any(c not in "0123456789abcdef" for c in digest)
        if bad_digest or len(fields) not in (2, 3) or fields[2:] not in ([], ["reader"]):
            raise ApiConfigError(
                f"{source}, line {number}: expected `<sha256 hex of the token> <tenant> "
                "[reader]` (make the hash with `printf %s TOKEN | sha256sum`)."
            )
        found[digest] = Identity(fields[1], reader=fields[2:] == ["reader"])
    if not found:
        raise ApiConfigError(f"{source} holds no token hashes: no caller could get in.")
    return found


class StaticTokens:
    mode = "tokens"

    def __init__(self, hashes: Mapping[str, Identity]) -> None:
        self._hashes = dict(hashes)

    @classmethod
    def from_file(cls, path: str) -> StaticTokens:
        if not path:
            raise ApiConfigError(
                "CONV_TASKS_API_AUTH=tokens needs CONV_TASKS_API_TOKENS_FILE, the file of "
                "token hashes."
            )
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ApiConfigError(
                f"CONV_TASKS_API_TOKENS_FILE {path!r} cannot be read: {exc}"
            ) from None
        return cls(parse_tokens(text.splitlines(), path))

    def digests(self) -> dict[str, Identity]:
        """The accepted tokens' SHA-256 hashes (never the tokens), each with its identity."""
        return dict(self._hashes)

    def identify(self, url_tenant: str, headers: Mapping[str, str]) -> Identity:
        token = headers.get(TOKEN_HEADER)
        if not token:
            raise unauthorized("This request needs an X-Auth-Token header.")
        digest = token_hash(token)
        for known, identity in self._hashes.items():
            if hmac.compare_digest(known, digest):
                return identity
        raise unauthorized("The X-Auth-Token is not one this service accepts.")


class Keystone:
    """keystonemiddleware's auth_token run on the token alone, in a throwaway WSGI call:
    it answers with the token's project (X-Project-Id) when Keystone confirms it."""

    mode = "keystone"

    def __init__(self, protocol: Callable[..., Any]) -> None:
        self._protocol = protocol

    @classmethod
    def from_config(cls, path: str) -> Keystone:
        try:
            from keystonemiddleware import auth_token
        except ImportError:
            raise ApiConfigError(
                "CONV_TASKS_API_AUTH=keystone needs keystonemiddleware, which is not "
                "installed: pip install 'conv_tasks[keystone]'."
            ) from None
        if not path:
            raise ApiConfigError(
                "CONV_TASKS_API_AUTH=keystone needs CONV_TASKS_API_KEYSTONE_CONFIG, an ini "
                "file with a [keystone_authtoken] section."
            )
        parser = configparser.ConfigParser(interpolation=None)
        if not parser.read(path) or not parser.has_section("keystone_authtoken"):
            raise ApiConfigError(f"{path!r} has no [keystone_authtoken] section.")
        conf = dict(parser.items("keystone_authtoken"))

        def inner(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
            environ["conv_tasks.identity"] = (
                environ.get("HTTP_X_IDENTITY_STATUS"),
                environ.get("HTTP_X_PROJECT_ID"),
                environ.get("HTTP_X_ROLES", ""),
                environ.get("keystone.token_info"),
            )
            start_response("200 OK", [])
            return [b""]

        return cls(auth_token.AuthProtocol(inner, conf))

    def identify(self, url_tenant: str, headers: Mapping[str, str]) -> Identity:
        token = headers.get(TOKEN_HEADER)
        if not token:
            raise unauthorized("This request needs an X-Auth-Token header.")
        environ: dict[str, Any] = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": "/",
            "SERVER_NAME": "conv-tasks",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http",
            "wsgi.input": io.BytesIO(),
            "wsgi.errors": io.StringIO(),
            "HTTP_X_AUTH_TOKEN": token,
        }
        self._protocol(environ, lambda *_args: None)
        status, project, roles, info = environ.get("conv_tasks.identity", (None, None, "", None))
        if status != "Confirmed" or not project:
            raise unauthorized("Keystone does not confirm this X-Auth-Token.")
        reader = "reader" in str(roles).split(",") and "member" not in str(roles).split(",")
        return Identity(str(project), reader=reader, expires_at=token_expiry(info))


def token_expiry(info: Any) -> float | None:
    """When a Keystone token expires (Unix time), from the token data keystonemiddleware
    validated (`token.expires_at`, v3; `access.token.expires`, v2); None if it does not say."""
    if not isinstance(info, Mapping):
        return None
    token = info.get("token") or (info.get("access") or {}).get("token") or {}
    raw = token.get("expires_at") or token.get("expires") if isinstance(token, Mapping) else None
    if not isinstance(raw, str):
        return None
    try:
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def authenticator(mode: str, tokens_file: str, keystone_config: str, host: str) -> Authenticator:
    """The authenticator CONV_TASKS_API_AUTH asks for; ApiConfigError if it cannot start."""
    if mode == "noauth":
        if not is_loopback(host):
            raise ApiConfigError(
                f"CONV_TASKS_API_AUTH=noauth trusts the tenant in every URL: it serves only on "
                f"a loopback address (127.0.0.1, ::1), not {host!r}. Use tokens or keystone."
            )
        return NoAuth()
    if mode == "tokens":
        return StaticTokens.from_file(tokens_file)
    if mode == "keystone":
        return Keystone.from_config(keystone_config)
    raise ApiConfigError(f"CONV_TASKS_API_AUTH must be noauth, tokens or keystone, not {mode!r}.")


def authorize(identity: Identity, url_tenant: str, method: str) -> None:
    """404 for another tenant's URL (an operator's identity owns every tenant's); 403 for a
    reader's write."""
    if identity.tenant != url_tenant and not identity.all_tenants:
        raise ApiFault(404, "EntityNotFound", f"The tenant {url_tenant[:100]!r} was not found.")
    if identity.reader and method not in READ_METHODS:
        raise ApiFault(403, "Forbidden", "This token may only read (it is a reader token).")
