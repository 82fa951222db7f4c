"""A preview's text: what a type's `observe` saw of the real object gets a line under its
resource (gone, the properties that differ, or why it could not be read)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.cli.render.preview import show_preview


def _result(*realities: dict[str, Any] | None) -> dict[str, Any]:
    resources = [
        {
            "name": f"r{i}",
            "type": "ConvTasks::HTTP::Resource",
            "action": "unchanged",
            "reason": "",
            "changes": {},
            "uncertain": None,
            "reality": reality,
        }
        for i, reality in enumerate(realities)
    ]
    return {"ok": True, "stack": "s", "exists": True, "resources": resources, "summary": "done"}


def test_each_difference_from_reality_gets_a_line(capsys: pytest.CaptureFixture[str]) -> None:
    show_preview(
        _result(
            {"exists": False},
            {"exists": True, "differs": ["body", "headers"]},
            {"unknown": "resource r2: 503 Service Unavailable"},
            None,
        ),
        as_json=False,
    )
    lines = capsys.readouterr().out.splitlines()
    assert lines[1:] == [
        "  = r0  ConvTasks::HTTP::Resource  unchanged",
        "      reality: the object is gone",
        "  = r1  ConvTasks::HTTP::Resource  unchanged",
        "      reality: differs in body, headers",
        "  = r2  ConvTasks::HTTP::Resource  unchanged",
        "      reality: could not be read (resource r2: 503 Service Unavailable)",
        "  = r3  ConvTasks::HTTP::Resource  unchanged",
        "done",
    ]
