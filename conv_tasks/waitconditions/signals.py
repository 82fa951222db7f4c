"""What a signal to a wait condition handle holds, decided from its details alone (Heat's rules).

A signal is a JSON object with at most `status` (SUCCESS or FAILURE),
`reason`, `data` and `id`. Missing ones take Heat's defaults: SUCCESS,
"Signal N received", null, and N, where N is one more than the number of
signals the handle already holds. A signal whose id the handle already holds
replaces that one (Heat overwrites it); any other is added. Anything else
in the details is refused, naming the field. This module never stores
anything and never sees a credential.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from conv_tasks.errors import PayloadError, Problem
from conv_tasks.limits import (
    MAX_NAME_CHARS,
    MAX_REASON_CHARS,
    MAX_WAIT_SIGNAL_DATA_BYTES,
    MAX_WAIT_SIGNALS,
)

STATUS = "status"
REASON = "reason"
DATA = "data"
ID = "id"
SIGNAL_KEYS = (STATUS, REASON, DATA, ID)


class SignalStatus(StrEnum):
    """What a host reports to a wait condition handle."""

    SUCCESS = "SUCCESS"
    FAILURE = "FAILURE"


@dataclass(frozen=True)
class WaitSignal:
    """One signal a handle holds."""

    id: str
    status: SignalStatus
    reason: str
    data: Any = None

    def to_json(self) -> dict[str, Any]:
        return {ID: self.id, STATUS: self.status.value, REASON: self.reason, DATA: self.data}

    @classmethod
    def from_json(cls, raw: Mapping[str, Any]) -> WaitSignal:
        return cls(
            id=str(raw[ID]),
            status=SignalStatus(raw[STATUS]),
            reason=str(raw.get(REASON) or ""),
            data=raw.get(DATA),
        )


def parse_signal(
    details: Mapping[str, Any] | None, held: Sequence[WaitSignal], *, path: str = "details"
) -> WaitSignal:
    """The signal `details` make, given the signals the handle holds; PayloadError naming every
    malformed field (under `path`)."""
    details = {} if details is None else details
    if not isinstance(details, Mapping):
        raise PayloadError([Problem(path, "must be a JSON object")])
    problems: list[Problem] = []
    for key in details:
        if key not in SIGNAL_KEYS:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    f"is not a wait condition signal field (allowed: {', '.join(SIGNAL_KEYS)})",
                )
            )
    number = len(held) + 1
    status = _status(details.get(STATUS), f"{path}.{STATUS}", problems)
    reason = _reason(details.get(REASON), f"{path}.{REASON}", problems)
    signal_id = _id(details.get(ID), f"{path}.{ID}", problems)
    data = details.get(DATA)
    size = len(json.dumps(data, separators=(",", ":"), default=str).encode("utf-8"))
    if size > MAX_WAIT_SIGNAL_DATA_BYTES:
        problems.append(
            Problem(
                f"{path}.{DATA}",
                f"is {size} bytes of JSON, more than MAX_WAIT_SIGNAL_DATA_BYTES "
                f"({MAX_WAIT_SIGNAL_DATA_BYTES})",
            )
        )
    if problems:
        raise PayloadError(problems)
    return WaitSignal(
        id=str(number) if signal_id is None else signal_id,
        status=status,
        reason=f"Signal {number} received" if reason is None else reason,
        data=data,
    )


def record(held: Sequence[WaitSignal], signal: WaitSignal) -> tuple[WaitSignal, ...]:
    """The signals a handle holds once `signal` arrived: one with the same id replaced in its
    place, or `signal` added last. PayloadError if the handle is full."""
    if any(s.id == signal.id for s in held):
        return tuple(signal if s.id == signal.id else s for s in held)
    if len(held) >= MAX_WAIT_SIGNALS:
        raise PayloadError(
            [
                Problem(
                    ID,
                    f"the handle already holds MAX_WAIT_SIGNALS ({MAX_WAIT_SIGNALS}) signals; "
                    "send one with the id of a signal it holds to replace it",
                )
            ]
        )
    return (*held, signal)


def data_text(signals: Sequence[WaitSignal]) -> str:
    """The `data` attribute of a wait condition: JSON text of {id: data}, as Heat gives it."""
    return json.dumps({s.id: s.data for s in signals})


def _status(raw: object, path: str, problems: list[Problem]) -> SignalStatus:
    if raw is None:
        return SignalStatus.SUCCESS
    if isinstance(raw, str) and raw in SignalStatus.__members__:
        return SignalStatus(raw)
    allowed = ", ".join(s.value for s in SignalStatus)
    problems.append(Problem(path, f"must be one of {allowed}, got {_shown(raw)}"))
    return SignalStatus.SUCCESS


def _reason(raw: object, path: str, problems: list[Problem]) -> str | None:
    if raw is None:
        return None
    if not isinstance(raw, str):
        problems.append(Problem(path, f"must be a string, got {type(raw).__name__}"))
        return None
    if len(raw) > MAX_REASON_CHARS:
        problems.append(
            Problem(
                path,
                f"holds {len(raw)} characters, more than MAX_REASON_CHARS ({MAX_REASON_CHARS})",
            )
        )
        return None
    return raw


def _id(raw: object, path: str, problems: list[Problem]) -> str | None:
    if raw is None:
        return None
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        problems.append(Problem(path, f"must be a string or an integer, got {_shown(raw)}"))
        return None
    text = str(raw)
    if not text or len(text) > MAX_NAME_CHARS:
        problems.append(
            Problem(path, f"must be 1 to MAX_NAME_CHARS ({MAX_NAME_CHARS}) characters long")
        )
        return None
    return text


def _shown(raw: object) -> str:
    text = repr(raw)
    return text if len(text) <= 100 else text[:97] + "..."
