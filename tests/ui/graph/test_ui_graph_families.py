"""Status families and the CSS class of a status."""

from __future__ import annotations

import pytest

from conv_tasks.ui.graph.families import Family, family_of, is_focus, status_class


@pytest.mark.parametrize(
    ("status", "family"),
    [
        ("CREATE_COMPLETE", Family.COMPLETE),
        ("UPDATE_COMPLETE", Family.COMPLETE),
        ("CHECK_COMPLETE", Family.COMPLETE),
        ("CREATE_IN_PROGRESS", Family.IN_PROGRESS),
        ("DELETE_IN_PROGRESS", Family.IN_PROGRESS),
        ("CREATE_FAILED", Family.FAILED),
        ("CHECK_FAILED", Family.FAILED),
        ("SUSPEND_COMPLETE", Family.COMPLETE),
        ("RESUME_COMPLETE", Family.COMPLETE),
        ("SUSPEND_IN_PROGRESS", Family.IN_PROGRESS),
        ("RESUME_FAILED", Family.FAILED),
        ("NOT_STARTED", Family.NOT_STARTED),
        ("INIT_COMPLETE", Family.NOT_STARTED),
        ("", Family.NOT_STARTED),
        ("CLEANED", Family.CLEANED),
        ("DELETE_COMPLETE", Family.CLEANED),
    ],
)
def test_family_of_a_status(status: str, family: Family) -> None:
    assert family_of(status) is family
    assert is_focus(status) is (family in (Family.FAILED, Family.IN_PROGRESS))


@pytest.mark.parametrize(
    ("status", "css"),
    [
        ("CREATE_FAILED", "status-create_failed"),
        ("NOT_STARTED", "status-not_started"),
        ('X" onload="alert(1)', "status-x-onload-alert-1"),
        ("<>", "status-unknown"),
        ("A" * 200, "status-" + "a" * 64),
    ],
)
def test_a_status_class_is_a_plain_css_class(status: str, css: str) -> None:
    assert status_class(status) == css
