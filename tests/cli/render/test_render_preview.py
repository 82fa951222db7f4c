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


def test_a_reality_unread_for_a_passing_fault_says_to_preview_again(
    capsys: pytest.CaptureFixture[str],
) -> None:
    show_preview(
        _result({"unknown": "resource r0: 429 Too Many Requests", "retryable": True}),
        as_json=False,
    )
    assert capsys.readouterr().out.splitlines()[2] == (
        "      reality: could not be read (resource r0: 429 Too Many Requests; a passing fault: "
        "preview again)"
    )


def _nested_entry(name: str, action: str, *inner: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "type": "OS::Heat::TestResource",
        "action": action,
        "reason": "",
        "changes": {},
        "uncertain": None,
        "reality": None,
        "nested_stack": {"id": f"{name}-id", "name": f"web-{name}"} if inner else None,
        "nested": list(inner),
        **extra,
    }


def test_a_nested_stack_s_changes_are_indented_under_its_parent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    deep = _nested_entry(
        "a", "update", changes={"value": {"old": "v1", "new": "v2"}}, uncertain="maybe"
    )
    member = _nested_entry("0", "update", deep, _nested_entry("b", "unchanged"))
    group = _nested_entry("grp", "update", member, _nested_entry("1", "delete"))
    group["nested"].append(_nested_entry("2", "unchanged"))
    result = {"stack": "web", "exists": True, "resources": [group], "summary": "done"}

    show_preview(result, as_json=False)

    assert capsys.readouterr().out.splitlines()[1:] == [
        "  ~ grp  OS::Heat::TestResource  update",
        "      in web-grp:",
        "      ~ 0  OS::Heat::TestResource  update",
        "          in web-0:",
        "          ~ a  OS::Heat::TestResource  update",
        '              value: "v1" -> "v2"',
        "              note: maybe",
        "              (1 unchanged)",
        "      - 1  OS::Heat::TestResource  delete",
        "          (1 unchanged)",
        "done",
    ]
