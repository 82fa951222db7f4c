"""The web view's session: a signed cookie naming the tenant, never holding the token.

A cookie is `v1.<payload>.<mac>`: the payload is URL-safe base64 of a small JSON object
(tenant, expiry, the authentication mode it was made under, and for a static token a keyed
fingerprint of its hash), the mac an HMAC-SHA256 of it under the secret. A cookie that does
not verify, is past its expiry or was made under another mode reads as no session: nothing
in it is trusted before its mac is. Pure: no I/O, the time is passed in.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
from dataclasses import dataclass

from conv_tasks.edge import ALL_TENANTS

COOKIE_NAME = "conv_tasks_ui"
# Past this a cookie is refused unread: a real one is about 200 bytes.
MAX_COOKIE_CHARS = 2048
_VERSION = "v1"
_CONTEXT = b"conv_tasks.ui.session\x00"


@dataclass(frozen=True)
class Session:
    """Who a browser is signed in as, until when (Unix time)."""

    tenant: str
    expires_at: float
    mode: str
    # For a static token: a keyed fingerprint of its hash, so that a session ends when its
    # token leaves the tokens file. Empty otherwise.
    fingerprint: str = ""

    @property
    def operator(self) -> bool:
        """An operator's session: every tenant's stacks."""
        return self.tenant == ALL_TENANTS


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SessionCodec:
    """Signs sessions into cookie values and reads them back."""

    def __init__(self, secret: bytes) -> None:
        if len(secret) < 16:
            raise ValueError("a session secret needs at least 16 bytes")
        self._key = hashlib.sha256(_CONTEXT + secret).digest()

    def fingerprint(self, token_digest: str) -> str:
        """What a session keeps of a static token: a keyed hash of its SHA-256, from which
        neither the token nor its hash in the tokens file can be had."""
        mac = hmac.new(self._key, b"token\x00" + token_digest.encode("ascii"), hashlib.sha256)
        return mac.hexdigest()[:32]

    def _mac(self, payload: str) -> str:
        return _b64(hmac.new(self._key, payload.encode("ascii"), hashlib.sha256).digest())

    def dump(self, session: Session) -> str:
        body = {
            "t": session.tenant,
            "x": int(session.expires_at),
            "m": session.mode,
            "k": session.fingerprint,
        }
        payload = _b64(json.dumps(body, separators=(",", ":"), ensure_ascii=True).encode())
        return f"{_VERSION}.{payload}.{self._mac(payload)}"

    def load(self, value: str | None, *, now: float, mode: str) -> Session | None:
        """The session `value` carries, or None if it is missing, forged, altered, expired
        or made under another authentication mode."""
        if not value or len(value) > MAX_COOKIE_CHARS or not value.isascii():
            return None
        parts = value.split(".")
        if len(parts) != 3 or parts[0] != _VERSION:
            return None
        _, payload, mac = parts
        if not hmac.compare_digest(mac, self._mac(payload)):
            return None
        try:
            body = json.loads(_unb64(payload))
        except (ValueError, binascii.Error):
            return None
        if not isinstance(body, dict):
            return None
        tenant, expires, made_under, fingerprint = (
            body.get("t"),
            body.get("x"),
            body.get("m"),
            body.get("k", ""),
        )
        if not isinstance(tenant, str) or not tenant or not isinstance(fingerprint, str):
            return None
        if not isinstance(expires, int) or isinstance(expires, bool) or expires <= now:
            return None
        if made_under != mode:
            return None
        return Session(tenant, float(expires), mode, fingerprint)
