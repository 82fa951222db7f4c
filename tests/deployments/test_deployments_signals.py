"""What a server's signal means (seed 002), from its details alone."""

from __future__ import annotations

import pytest

from conv_tasks.deployments.records import ConfigOutput, DeployStatus
from conv_tasks.deployments.signals import MAX_LOG_CHARS, interpret_signal, tail
from conv_tasks.errors import PayloadError
from conv_tasks.limits import MAX_REASON_CHARS

OUTPUTS = (ConfigOutput("result"), ConfigOutput("oops", error_output=True))


def test_in_progress_keeps_waiting_with_its_reason() -> None:
    verdict = interpret_signal(
        {"deploy_status": "IN_PROGRESS", "deploy_status_reason": "running hook script"}, OUTPUTS
    )
    assert verdict.status == DeployStatus.IN_PROGRESS
    assert verdict.reason == "running hook script"
    assert verdict.outputs == {}


def test_complete_carries_the_outputs_and_standard_values() -> None:
    verdict = interpret_signal(
        {
            "deploy_status": "COMPLETE",
            "result": "42",
            "deploy_stdout": "done\n",
            "deploy_stderr": "",
            "deploy_status_code": 0,
            "undeclared": "dropped",
        },
        OUTPUTS,
    )
    assert verdict.status == DeployStatus.COMPLETE
    assert verdict.outputs == {
        "result": "42",
        "oops": None,
        "deploy_stdout": "done\n",
        "deploy_stderr": "",
        "deploy_status_code": 0,
    }


def test_an_old_agent_without_deploy_status_completes() -> None:
    verdict = interpret_signal({"result": "x", "deploy_status_code": "0"}, OUTPUTS)
    assert verdict.status == DeployStatus.COMPLETE
    assert verdict.outputs["result"] == "x"
    assert verdict.outputs["deploy_status_code"] == 0


def test_empty_details_complete() -> None:
    assert interpret_signal({}).status == DeployStatus.COMPLETE


def test_failed_uses_the_reason_given() -> None:
    verdict = interpret_signal(
        {"deploy_status": "FAILED", "deploy_status_reason": "disk full", "deploy_stderr": "x"}
    )
    assert verdict == interpret_signal(
        {"deploy_status": "FAILED", "deploy_status_reason": "disk full", "deploy_stderr": "x"}
    )
    assert verdict.status == DeployStatus.FAILED
    assert verdict.reason == "disk full"


def test_failed_without_a_reason_quotes_the_end_of_stderr() -> None:
    stderr = "\n".join(f"line {n}" for n in range(30))
    verdict = interpret_signal({"deploy_status": "FAILED", "deploy_stderr": stderr})
    assert verdict.status == DeployStatus.FAILED
    assert verdict.reason.startswith("the server reported FAILED: ")
    assert "line 29" in verdict.reason and "line 19" not in verdict.reason


def test_a_nonzero_status_code_fails_even_when_complete_is_claimed() -> None:
    verdict = interpret_signal(
        {"deploy_status": "COMPLETE", "deploy_status_code": 3, "deploy_stderr": "boom\n"}
    )
    assert verdict.status == DeployStatus.FAILED
    assert verdict.reason == "deploy_status_code 3: boom"


def test_an_old_agent_with_a_nonzero_status_code_fails() -> None:
    verdict = interpret_signal({"deploy_status_code": 1})
    assert verdict.status == DeployStatus.FAILED
    assert verdict.reason == "deploy_status_code 1"


def test_a_set_error_output_fails() -> None:
    verdict = interpret_signal({"oops": "it broke", "result": "r"}, OUTPUTS)
    assert verdict.status == DeployStatus.FAILED
    assert verdict.reason == "error output oops: it broke"
    assert verdict.outputs["oops"] == "it broke"


def test_an_empty_error_output_does_not_fail() -> None:
    assert interpret_signal({"oops": ""}, OUTPUTS).status == DeployStatus.COMPLETE


def test_a_reason_given_wins_over_what_went_wrong() -> None:
    verdict = interpret_signal(
        {"deploy_status_code": 2, "oops": "x", "deploy_status_reason": "custom"}, OUTPUTS
    )
    assert verdict.reason == "custom"


def test_every_malformed_entry_is_reported_at_once() -> None:
    with pytest.raises(PayloadError) as caught:
        interpret_signal(
            {
                "deploy_status": "DONE",
                "deploy_status_code": "one",
                "deploy_stdout": 5,
                "deploy_status_reason": ["x"],
            }
        )
    paths = {p.path for p in caught.value.problems}
    assert paths == {
        "details.deploy_status",
        "details.deploy_status_code",
        "details.deploy_stdout",
        "details.deploy_status_reason",
    }


def test_a_boolean_status_code_is_refused() -> None:
    with pytest.raises(PayloadError):
        interpret_signal({"deploy_status_code": True})


def test_a_reason_past_its_limit_is_refused_by_name() -> None:
    with pytest.raises(PayloadError, match="MAX_REASON_CHARS"):
        interpret_signal({"deploy_status_reason": "x" * (MAX_REASON_CHARS + 1)})


def test_long_logs_keep_their_end() -> None:
    stdout = "a" * MAX_LOG_CHARS + "THE END"
    verdict = interpret_signal({"deploy_stdout": stdout})
    kept = verdict.outputs["deploy_stdout"]
    assert len(kept) == MAX_LOG_CHARS and kept.endswith("THE END")


def test_tail_keeps_lines_and_characters() -> None:
    assert tail("a\nb\nc\n", lines=2) == "b\nc"
    assert tail("x" * 50, chars=10) == "..." + "x" * 7
