"""Stamps on beat jobs, read by a worker from any sender's message (conv_tasks.beat.fencing)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.beat import Stamp, Verdict, read_stamp, refusal
from conv_tasks.beat.fencing import MAX_STAMP_NUMBER


def test_a_well_formed_stamp_is_read() -> None:
    stamp = read_stamp(4, 1_764_166_200_000)
    assert stamp == Stamp(epoch=4, slot=1_764_166_200_000)
    assert isinstance(stamp, Stamp)
    assert stamp.kwargs() == {"epoch": 4, "slot": 1_764_166_200_000}
    assert stamp.due() == "2025-11-26T14:10:00.000Z"


@pytest.mark.parametrize(
    ("epoch", "slot", "says"),
    [
        (None, None, "carries no beat lease epoch"),
        ("abc", 0, "epoch must be a whole number from 1, got 'abc'"),
        (0, 0, "got 0"),
        (-3, 0, "got -3"),
        (True, 0, "got True"),
        (1.5, 0, "got 1.5"),
        ({"a": 1}, 0, "got {'a': 1}"),
        (MAX_STAMP_NUMBER + 1, 0, "epoch must be a whole number"),
        (2, None, "slot must be a whole number of milliseconds from 0, got None"),
        (2, "1764166200000", "slot must be"),
        (2, -1, "got -1"),
        (2, "x" * 1000, "..."),
    ],
)
def test_a_bad_stamp_is_one_sentence(epoch: Any, slot: Any, says: str) -> None:
    problem = read_stamp(epoch, slot)
    assert isinstance(problem, str)
    assert says in problem
    assert "\n" not in problem and len(problem) < 200


def test_each_refusal_says_why() -> None:
    stamp = Stamp(epoch=3, slot=60_000)
    assert "epoch 3, and the lease is at epoch 5: its beat lost the lease" in refusal(
        stamp, Verdict.STALE, 5
    )
    assert "epoch 3 was never held" in refusal(stamp, Verdict.UNKNOWN, 2)
    assert "1970-01-01T00:01:00.000Z has run already" in refusal(stamp, Verdict.DONE, 60_000)
    with pytest.raises(ValueError):
        refusal(stamp, Verdict.RUN, 0)
