"""What the agent's signals say (seed 002's details)."""

from __future__ import annotations

import json

from conv_tasks.agent import signals
from conv_tasks.agent.hooks import HookResult


def test_a_completed_run_reports_outputs_and_streams() -> None:
    details = signals.outcome(HookResult(0, "out", "err", {"result": "42"}), "script")
    assert details == {
        "result": "42",
        "deploy_stdout": "out",
        "deploy_stderr": "err",
        "deploy_status_code": 0,
        "deploy_status": "COMPLETE",
        "deploy_status_reason": "script completed with status code 0",
    }


def test_a_failed_run_gives_the_status_and_the_last_line_of_stderr() -> None:
    details = signals.outcome(HookResult(2, "", "warning\nfatal: no disk\n\n"), "script")
    assert details["deploy_status"] == "FAILED"
    assert details["deploy_status_code"] == 2
    assert details["deploy_status_reason"] == "script exited with status 2: fatal: no disk"


def test_a_failure_of_the_hook_itself_has_a_nonzero_code() -> None:
    details = signals.outcome(HookResult(0, failure="could not start"), "script")
    assert details["deploy_status_code"] == signals.AGENT_FAILURE_CODE
    assert details["deploy_status"] == "FAILED"
    assert details["deploy_stderr"] == "could not start"


def test_outputs_cannot_override_the_deploy_keys() -> None:
    details = signals.outcome(HookResult(0, "out", "", {"deploy_stdout": "forged"}), "script")
    assert details["deploy_stdout"] == "out"


def test_legacy_signals_carry_no_deploy_status() -> None:
    for details in (
        signals.outcome(HookResult(1, "", "x"), "script", legacy=True),
        signals.failure("nope", legacy=True),
    ):
        assert "deploy_status" not in details
        assert "deploy_status_reason" not in details
        assert details["deploy_status_code"] != 0


def test_in_progress_names_the_server_and_hook() -> None:
    details = signals.in_progress("srv-1", "script")
    assert details["deploy_status"] == "IN_PROGRESS"
    assert "srv-1" in details["deploy_status_reason"]


def test_long_streams_keep_their_end() -> None:
    long = "x" * signals.STREAM_TAIL_CHARS + "THE END"
    details = signals.outcome(HookResult(0, long, ""), "script")
    assert details["deploy_stdout"].endswith("THE END")
    assert details["deploy_stdout"].startswith("[... 7 characters cut ...]")


def test_oversized_details_become_a_failure_saying_so() -> None:
    huge = {"blob": "y" * (signals.MAX_SIGNAL_BYTES + 1)}
    details = signals.bounded(signals.outcome(HookResult(0, "", "", huge), "script"))
    assert details["deploy_status"] == "FAILED"
    assert "more than a signal may carry" in details["deploy_status_reason"]
    assert len(json.dumps(details)) < 1000
