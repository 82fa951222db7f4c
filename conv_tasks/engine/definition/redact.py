"""Keeps hidden parameter values out of everything a user or an operator can read."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MASK = "******"


class Redactor:
    """Replaces every hidden value (as text) in a message by a mask."""

    def __init__(self, secrets: Iterable[object]) -> None:
        texts = {str(s) for s in secrets if s is not None and str(s) != ""}
        # Longest first, so a secret containing another is masked whole.
        self._secrets = sorted(texts, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, MASK)
        return text

    def value(self, data: Any) -> Any:
        """`data` with every string inside it redacted (for outputs built from parameters)."""
        if not self._secrets:
            return data
        if isinstance(data, str):
            return self(data)
        if isinstance(data, Mapping):
            return {key: self.value(item) for key, item in data.items()}
        if isinstance(data, list | tuple):
            return [self.value(item) for item in data]
        if data is not None and not isinstance(data, bool) and str(data) in self._secrets:
            return MASK
        return data
