"""Sealing and opening stored values with a list of keys (Fernet, through MultiFernet).

The first key seals; every key opens, so that keys rotate: put a new key first, re-seal
(`reseal`, which `conv-tasks db rotate-key` runs over the database), then drop the old key.
A value that is not an envelope passes through `open` unchanged; an envelope that no key
opens raises EncryptionKeyError naming the setting and the place, never the value.

What it costs: one Fernet operation per value sealed or opened (AES-128-CBC and HMAC-SHA256
over the value's text, base64 on top): about 15 microseconds for the few hundred bytes of a
resource's properties. A sealed value is about 4/3 of its text plus about 100 bytes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from conv_tasks.errors import ENCRYPTION_KEYS_SETTING, EncryptionKeyError
from conv_tasks.secrets_at_rest.envelope import ENVELOPE_PREFIX, is_sealed, unwrap, wrap

if TYPE_CHECKING:
    from cryptography.fernet import Fernet, MultiFernet


class Sealer:
    """Seals text with the first of `keys` and opens it with any of them; with no keys it
    seals nothing (and refuses to open an envelope, naming the setting)."""

    def __init__(self, keys: Sequence[str] = ()) -> None:
        self._fernets: list[Fernet] = []
        self._multi: MultiFernet | None = None
        if keys:
            # Imported only with keys: settings import this module, and a CLI command that
            # never touches the database should not pay cryptography's 10 ms of imports.
            from cryptography.fernet import Fernet, MultiFernet

            self._fernets = [Fernet(key.encode("ascii")) for key in keys]
            self._multi = MultiFernet(self._fernets)

    def __repr__(self) -> str:  # never the keys
        return f"Sealer({len(self._fernets)} key(s))"

    @property
    def enabled(self) -> bool:
        """Whether new values are sealed (a key is set)."""
        return self._multi is not None

    # ------------------------------------------------------------------ text

    def seal(self, text: str) -> str:
        """`text` in an envelope sealed with the first key; unchanged without keys."""
        if self._multi is None:
            return text
        return wrap(self._multi.encrypt(text.encode("utf-8")))

    def open(self, stored: str, *, where: str = "a stored value") -> str:
        """The text an envelope holds; text that is not an envelope, as it is."""
        if not is_sealed(stored):
            return stored
        if self._multi is None:
            raise EncryptionKeyError(
                f"{where} is encrypted, but {ENCRYPTION_KEYS_SETTING} is not set: give this "
                f"process the keys the database was written with."
            )
        from cryptography.fernet import InvalidToken

        try:
            return self._multi.decrypt(unwrap(stored)).decode("utf-8")
        except (InvalidToken, UnicodeDecodeError, ValueError):
            raise EncryptionKeyError(
                f"{where} is encrypted with a key that is not in {ENCRYPTION_KEYS_SETTING} "
                f"({len(self._fernets)} key(s) tried): add the key it was written with, after "
                f"the first."
            ) from None

    def reseal(self, stored: str, *, where: str = "a stored value") -> str | None:
        """`stored` sealed with the first key, or None when it already is (or there is no
        key): what a rotation writes. Plaintext is sealed too."""
        if self._multi is None:
            return None
        if is_sealed(stored):
            from cryptography.fernet import InvalidToken

            try:
                self._fernets[0].decrypt(unwrap(stored))
                return None
            except InvalidToken:
                pass
        return self.seal(self.open(stored, where=where))

    # ------------------------------------------------------------------ JSON

    def seal_json(self, value: Any) -> Any:
        """A JSON column's value sealed: the envelope of its JSON text (a JSON string). None
        stays None (SQL NULL is no secret); without keys the value is unchanged."""
        if value is None or self._multi is None:
            return value
        return self.seal(json.dumps(value, separators=(",", ":"), ensure_ascii=False))

    def open_json(self, stored: Any, *, where: str = "a stored value") -> Any:
        """A JSON column's value as written: an envelope opened and its JSON read; anything
        else (a row written without a key) as it is."""
        if not is_sealed(stored):
            return stored
        return json.loads(self.open(stored, where=where))

    def open_json_text(self, text: str | None, *, where: str = "a stored value") -> str | None:
        """A JSON column read as JSON text (`column::text`): the JSON text of the value, opened
        when the column holds an envelope (a JSON string of one)."""
        if text is None or not text.startswith('"' + ENVELOPE_PREFIX):
            return text
        return self.open(json.loads(text), where=where)


PLAINTEXT = Sealer()
