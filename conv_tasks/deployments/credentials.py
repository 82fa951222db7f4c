"""Credentials for servers and their deployments: made here, only their hashes kept.

A server credential (one per stack and server) lets that server's agent
read its deployments. The signal credential of each run of a deployment's
action is derived from the server credential, the deployment id and the
run, so conv_tasks can hand it to the agent without ever storing it: the
metadata request brings the server credential, the run's signal credential
is computed from it, and only its hash is written for signals to be checked
against. A signal of an earlier run of the same action is thereby told from
one of the current run. Rotating a server's credential also replaces the
signal credentials of its deployments (once the agent has read its metadata
with the new one).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets

# Bytes of randomness in a server credential (secrets.token_urlsafe encodes them in base64url).
CREDENTIAL_BYTES = 32


def new_credential() -> str:
    """A fresh server credential."""
    return secrets.token_urlsafe(CREDENTIAL_BYTES)


def credential_hash(credential: str) -> str:
    """What is stored of a credential: its SHA-256, hex. A credential is 256 random bits, so a
    plain (unsalted, fast) hash is enough: there is nothing to guess."""
    return hashlib.sha256(credential.encode("utf-8")).hexdigest()


def matches(credential: object, stored_hash: str | None) -> bool:
    """Whether `credential` is the one whose hash is stored, in constant time."""
    if not isinstance(credential, str) or not credential or not stored_hash:
        return False
    return hmac.compare_digest(credential_hash(credential), stored_hash)


def signal_credential(server_credential: str, deployment_id: str, run: str) -> str:
    """The secret the signals of one run (`run`: the action's token) of a deployment must
    carry, derived from its server's credential."""
    digest = hmac.new(
        server_credential.encode("utf-8"),
        f"conv_tasks deployment signal {deployment_id} {run}".encode(),
        hashlib.sha256,
    ).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")
