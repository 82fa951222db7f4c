"""Signing in and out of the web view, and who a request's cookie says is looking.

The sign-in form takes what the edge's authentication mode takes: a token (tokens,
keystone), checked by the edge's own authenticator, or, with noauth, a tenant's name. What
the cookie then carries is the tenant and an expiry, signed (conv_tasks.ui.session); the
token is never kept, nor shown, nor logged. With tokens, the cookie also keeps a keyed
fingerprint of the token's hash, so that a session ends when its token leaves the tokens
file (the edge reads it as it starts).

Cross-site requests: the cookie is SameSite=Strict (a browser sends it on no request another
site starts), and the two POSTs (sign in, sign out) are refused with 403 when their Origin
(or, without one, their Referer) names another host than the request's own (or than
CONV_TASKS_API_PUBLIC_URL's).
"""

from __future__ import annotations

import time
from urllib.parse import urlsplit

from starlette.responses import Response

from conv_tasks.edge import (
    TOKEN_HEADER,
    ApiFault,
    Authenticator,
    Identity,
    StaticTokens,
    token_hash,
)
from conv_tasks.input_text import name_problem
from conv_tasks.ui.config import UiConfig
from conv_tasks.ui.context import UiRequest, Viewer
from conv_tasks.ui.errors import UiError, bad_request, not_found
from conv_tasks.ui.query import Query
from conv_tasks.ui.rendering import render
from conv_tasks.ui.responses import html, redirect
from conv_tasks.ui.routes import PREFIX
from conv_tasks.ui.session import COOKIE_NAME, Session, SessionCodec

# A sign-in form is a token or a tenant's name and where to go next: never more than this.
MAX_FORM_BYTES = 8 * 1024
HOME = PREFIX + "/"


def safe_next(target: str) -> str:
    """Where to go after signing in: a page of the view, never another site."""
    if not target.startswith(HOME) or target.startswith("//") or "\\" in target:
        return HOME
    if any(ord(c) < 0x20 for c in target) or len(target) > 2000:
        return HOME
    return target


class Login:
    """Sessions: made from a token or a tenant's name, read back from cookies."""

    def __init__(self, authenticator: Authenticator, config: UiConfig) -> None:
        self.authenticator = authenticator
        self.config = config
        self.codec = SessionCodec(config.secret)
        # For tokens: the fingerprint of every accepted token's hash, with its tenant.
        self._known: dict[str, str] | None = None
        if isinstance(authenticator, StaticTokens):
            self._known = {
                self.codec.fingerprint(digest): identity.tenant
                for digest, identity in authenticator.digests().items()
            }

    # ----------------------------------------------------------------- reading
    def session(self, ui: UiRequest) -> Session | None:
        found = self.codec.load(
            ui.request.cookies.get(COOKIE_NAME), now=time.time(), mode=self.config.auth_mode
        )
        if found is None:
            return None
        if self._known is not None and self._known.get(found.fingerprint) != found.tenant:
            return None  # its token is no longer in the tokens file
        return found

    def viewer(self, ui: UiRequest) -> Viewer | None:
        """Who is looking, or None when nobody is signed in."""
        asked = ui.query.name("tenant")
        session = self.session(ui)
        if session is not None and session.operator:
            return Viewer(
                session.tenant, asked, operator=True, tenant_in_links=True, session=session
            )
        if self.config.auth_mode == "noauth" and asked:
            operator = asked == "*"
            return Viewer(asked, "" if operator else asked, operator, tenant_in_links=True)
        if session is None:
            return None
        if asked and asked != session.tenant:
            # Another tenant's pages are answered as a stack that does not exist.
            raise not_found(f"The tenant {asked[:100]!r} was not found.")
        return Viewer(session.tenant, session.tenant, session=session)

    def had_cookie(self, ui: UiRequest) -> bool:
        return COOKIE_NAME in ui.request.cookies

    # ----------------------------------------------------------------- pages
    def form(self, ui: UiRequest, *, status: int = 200, message: str = "") -> Response:
        if not message and self.had_cookie(ui) and self.session(ui) is None:
            message = "Your session has ended or its cookie is not valid: sign in again."
        body = render(
            "login.html",
            mode=self.config.auth_mode,
            next=safe_next(ui.query.text("next", limit=2000)),
            message=message,
            ui=ui,
        )
        return html(body, status)

    async def sign_in(self, ui: UiRequest, body: bytes) -> Response:
        check_origin(ui, self.config)
        form = Query.parse(body, "form")
        target = safe_next(form.text("next", limit=2000))
        if self.config.auth_mode == "noauth":
            tenant = form.text("tenant")
            problem = name_problem(tenant) if tenant else "is empty"
            if problem:
                raise bad_request(f"The tenant's name {problem}.")
            session = Session(tenant, time.time() + self.config.session_ttl, "noauth")
        else:
            token = form.text("token", limit=4096)
            if not token:
                return self.form(ui, status=401, message="Give a token to sign in with.")
            try:
                identity = await self._identify(ui, token)
            except ApiFault:
                # The authenticator's message, never the token.
                return self.form(
                    ui, status=401, message="This token is not one this service accepts."
                )
            expires = time.time() + self.config.session_ttl
            if identity.expires_at is not None:
                expires = min(expires, identity.expires_at)
            fingerprint = (
                self.codec.fingerprint(token_hash(token)) if self._known is not None else ""
            )
            session = Session(identity.tenant, expires, self.config.auth_mode, fingerprint)
        return redirect(target, {"Set-Cookie": self._cookie(ui, session)})

    async def _identify(self, ui: UiRequest, token: str) -> Identity:
        headers = {TOKEN_HEADER: token}
        if self.authenticator.mode == "keystone":
            return await ui.gateway.run(lambda: self.authenticator.identify("", headers))
        return self.authenticator.identify("", headers)

    def sign_out(self, ui: UiRequest) -> Response:
        check_origin(ui, self.config)
        return redirect(PREFIX + "/login", {"Set-Cookie": self._cookie(ui, None)})

    def _cookie(self, ui: UiRequest, session: Session | None) -> str:
        secure = "; Secure" if ui.request.url.scheme == "https" else ""
        if session is None:
            value, age = "", 0
        else:
            value, age = self.codec.dump(session), max(0, int(session.expires_at - time.time()))
        return (
            f"{COOKIE_NAME}={value}; Path={PREFIX}/; Max-Age={age}; HttpOnly; "
            f"SameSite=Strict{secure}"
        )


def _host_of(url: str) -> str:
    try:
        return (urlsplit(url).netloc or "").lower()
    except ValueError:
        return "\x00"  # not a URL: matches no host


def check_origin(ui: UiRequest, config: UiConfig) -> None:
    """403 for a POST another site's page sent: its Origin, or its Referer when it has no
    Origin, must name this host. A request with neither comes from no browser's form."""
    headers = ui.request.headers
    sent = headers.get("origin") or headers.get("referer")
    if sent is None:
        return
    allowed = {(headers.get("host") or "").lower()}
    if config.public_url:
        allowed.add(_host_of(config.public_url))
    if sent == "null" or _host_of(sent) not in allowed:
        raise UiError(403, "This form was sent from another site's page: refused.")
