"""Which stack states a suspend or resume is allowed from, and how a refusal reads."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from conv_tasks.db import StackRow
from conv_tasks.engine.stack.suspension import is_suspended, resume_problem, suspend_problem

NOW = datetime(2026, 11, 26, tzinfo=UTC)


def _stack(state: str, *, template: int | None = 1) -> StackRow:
    action, _, status = state.partition("_")
    return StackRow(
        id="s-1",
        name="web",
        tenant="t",
        action=action,
        status=status,
        status_reason="",
        raw_template_id=template,
        prev_raw_template_id=None,
        current_traversal="tr",
        current_graph=None,
        disable_rollback=False,
        timeout_mins=None,
        operation_started_at=NOW,
        created_at=NOW,
        updated_at=NOW,
        deleted_at=None,
        idempotency_key=None,
        tags=(),
        parent_stack_id=None,
        parent_resource=None,
        nested_depth=0,
    )


@pytest.mark.parametrize(
    "state",
    [
        "CREATE_COMPLETE",
        "UPDATE_COMPLETE",
        "ROLLBACK_COMPLETE",
        "CHECK_COMPLETE",
        "RESUME_COMPLETE",
        "SUSPEND_FAILED",
        "RESUME_FAILED",
    ],
)
def test_a_stack_whose_operation_completed_may_be_suspended(state: str) -> None:
    assert suspend_problem(_stack(state)) is None


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ("UPDATE_IN_PROGRESS", "'web' is UPDATE_IN_PROGRESS: it can be suspended only when"),
        ("SUSPEND_IN_PROGRESS", "no operation is in progress"),
        ("SUSPEND_COMPLETE", "'web' is SUSPEND_COMPLETE: it is suspended already"),
        ("CREATE_FAILED", "'web' is CREATE_FAILED: only a stack whose last operation completed"),
        ("UPDATE_FAILED", "update or roll it back first"),
        ("CHECK_FAILED", "CHECK_FAILED"),
        ("DELETE_COMPLETE", "was deleted"),
    ],
)
def test_a_suspend_is_refused_naming_the_stack_and_its_state(state: str, says: str) -> None:
    problem = suspend_problem(_stack(state))
    assert problem is not None and says in problem


@pytest.mark.parametrize("state", ["SUSPEND_COMPLETE", "SUSPEND_FAILED", "RESUME_FAILED"])
def test_a_suspended_stack_may_be_resumed(state: str) -> None:
    assert resume_problem(_stack(state)) is None


@pytest.mark.parametrize(
    ("state", "says"),
    [
        ("CREATE_COMPLETE", "'web' is CREATE_COMPLETE: only a suspended stack"),
        ("RESUME_COMPLETE", "RESUME_COMPLETE: only a suspended stack"),
        ("UPDATE_FAILED", "only a suspended stack"),
        ("SUSPEND_IN_PROGRESS", "it can be resumed only when no operation is in progress"),
        ("DELETE_IN_PROGRESS", "in progress"),
    ],
)
def test_a_resume_is_refused_naming_the_stack_and_its_state(state: str, says: str) -> None:
    problem = resume_problem(_stack(state))
    assert problem is not None and says in problem


def test_a_deleted_stack_is_neither_suspended_nor_resumed() -> None:
    gone = _stack("CREATE_COMPLETE", template=None)
    assert "was deleted" in (suspend_problem(gone) or "")
    assert "was deleted" in (resume_problem(gone) or "")


def test_only_a_suspend_leaves_a_stack_suspended() -> None:
    assert is_suspended(_stack("SUSPEND_COMPLETE")) and is_suspended(_stack("SUSPEND_FAILED"))
    assert not is_suspended(_stack("RESUME_FAILED"))
    assert not is_suspended(_stack("CREATE_COMPLETE"))
