"""The agent's poll against a fake engine: what it runs, what it signals, what it remembers."""

from __future__ import annotations

import logging
import time
from dataclasses import replace
from pathlib import Path

import pytest
from agent_fakes import SERVER_CREDENTIAL, FakeHook, FakeServer, deployment_entry

from conv_tasks.agent import signals
from conv_tasks.agent.agent import (
    KEEP_FINISHED_SECS,
    Agent,
    CredentialError,
    PollOutcome,
    credential_from_file,
    fixed_credentials,
)
from conv_tasks.agent.hooks import HookResult, ScriptHook
from conv_tasks.agent.metadata import RunKey
from conv_tasks.agent.redact import SecretFilter
from conv_tasks.agent.state import RunPhase, RunRecord, StateStore


def _agent(
    tmp_path: Path,
    server: FakeServer,
    hook: object | None = None,
    *,
    legacy: bool = False,
    credential: str = SERVER_CREDENTIAL,
) -> Agent:
    hooks = {"script": hook or FakeHook()}
    return Agent(
        "srv-1",
        fixed_credentials([credential]),
        server,
        StateStore(tmp_path / "state"),
        hooks,  # type: ignore[arg-type]
        legacy=legacy,
    )


def test_status_aware_run_signals_in_progress_then_complete(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", aware=True)])
    hook = FakeHook()
    report = _agent(tmp_path, server, hook).run_once()
    assert report.outcome is PollOutcome.DONE
    assert hook.runs == ["d1"]
    assert server.statuses() == [("d1", "IN_PROGRESS"), ("d1", "COMPLETE")]
    final = server.signals[-1]
    assert final["credential"] == "signal-secret-d1"
    assert final["action"] == "CREATE"
    assert final["x"] == "1"
    assert final["deploy_stdout"] == "out"
    assert final["deploy_status_code"] == 0
    assert report.finished == [(RunKey("d1", "CREATE", "2024-01-01T00:00:00"), "COMPLETE")]


@pytest.mark.parametrize("aware", [None, False])
def test_no_in_progress_without_deploy_status_aware(tmp_path: Path, aware: bool | None) -> None:
    server = FakeServer([deployment_entry("d1", aware=aware)])
    _agent(tmp_path, server).run_once()
    assert server.statuses() == [("d1", "COMPLETE")]


def test_legacy_agent_sends_neither_in_progress_nor_deploy_status(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", aware=True)])
    _agent(tmp_path, server, legacy=True).run_once()
    assert server.statuses() == [("d1", None)]
    assert server.signals[0]["deploy_status_code"] == 0


def test_a_run_is_never_run_twice_but_an_update_is_a_new_run(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1")])
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    agent.run_once()
    agent.run_once()
    # A new agent on the same state directory (a restart) does not run it either.
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == ["d1"]
    server.deployments = [deployment_entry("d1", action="UPDATE", updated_time="2024-01-02")]
    agent.run_once()
    assert hook.runs == ["d1", "d1"]
    assert [s["action"] for s in server.signals] == ["CREATE", "CREATE", "UPDATE", "UPDATE"]


def test_unknown_group_fails_saying_so_and_runs_nothing(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", group="puppet")])
    hook = FakeHook()
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == []
    assert server.statuses() == [("d1", "FAILED")]
    reason = server.signals[0]["deploy_status_reason"]
    assert "no hook for group 'puppet'" in reason
    assert "script" in reason


def test_a_run_found_started_is_reported_interrupted_not_run_again(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1")])
    store = StateStore(tmp_path / "state")
    key = RunKey("d1", "CREATE", "2024-01-01T00:00:00")
    store.put(RunRecord(key, RunPhase.STARTED))
    (store.workdir(key) / "outputs.result").write_text("half-written")
    hook = FakeHook()
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == []
    assert not any(store.work.iterdir())
    assert server.statuses() == [("d1", "FAILED")]
    assert server.signals[0]["deploy_status_reason"] == signals.INTERRUPTED_REASON
    assert server.signals[0]["deploy_status_code"] != 0


def test_a_final_signal_lost_on_the_way_is_sent_again_without_running_again(
    tmp_path: Path,
) -> None:
    server = FakeServer([deployment_entry("d1", aware=False)], drop_signals=1)
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    report = agent.run_once()
    assert report.outcome is PollOutcome.UNREACHABLE
    assert server.signals == []
    # The agent restarts; the kept result goes out on the next poll.
    report = _agent(tmp_path, server, hook).run_once()
    assert report.outcome is PollOutcome.DONE
    assert hook.runs == ["d1"]
    assert server.statuses() == [("d1", "COMPLETE")]
    assert server.signals[0]["x"] == "1"


def test_in_progress_lost_on_the_way_leaves_the_run_to_the_next_poll(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", aware=True)], drop_signals=1)
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    assert agent.run_once().outcome is PollOutcome.UNREACHABLE
    assert hook.runs == []
    assert agent.store.get(RunKey("d1", "CREATE", "2024-01-01T00:00:00")) is None
    assert agent.run_once().outcome is PollOutcome.DONE
    assert hook.runs == ["d1"]
    assert server.statuses() == [("d1", "IN_PROGRESS"), ("d1", "COMPLETE")]


def test_a_duplicate_in_progress_refusal_does_not_stop_the_run(tmp_path: Path) -> None:
    server = FakeServer(
        [deployment_entry("d1")], refuse={"IN_PROGRESS": ("conflict", "already started")}
    )
    hook = FakeHook()
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == ["d1"]
    assert server.statuses()[-1] == ("d1", "COMPLETE")


@pytest.mark.parametrize("code", ["not_authorized", "not_found"])
def test_an_in_progress_refused_for_good_stops_the_run(tmp_path: Path, code: str) -> None:
    server = FakeServer([deployment_entry("d1")], refuse={"IN_PROGRESS": (code, "no")})
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    agent.run_once()
    agent.run_once()
    assert hook.runs == []
    assert server.statuses() == [("d1", "IN_PROGRESS")]
    record = agent.store.get(RunKey("d1", "CREATE", "2024-01-01T00:00:00"))
    assert record is not None and record.phase is RunPhase.FINISHED
    assert record.outcome.startswith(f"refused: {code}")


@pytest.mark.parametrize(
    "ended",
    [
        # The run timed out; the answer says so.
        {"duplicate": True, "ended": True, "deploy_status": "FAILED", "message": "ended FAILED"},
        # The deployment moved on to a newer run, which waits.
        {"duplicate": True, "ended": True, "deploy_status": "IN_PROGRESS", "message": "moved on"},
        # An engine whose answers say only how the run stands.
        {"duplicate": True, "deploy_status": "FAILED", "message": "ended FAILED"},
    ],
)
def test_an_action_that_ended_before_it_ran_is_not_run(
    tmp_path: Path, ended: dict[str, object]
) -> None:
    # The engine answers IN_PROGRESS as a duplicate when the run has ended (timed out, say).
    server = FakeServer([deployment_entry("d1")], replies={"IN_PROGRESS": ended})
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    agent.run_once()
    assert hook.runs == []
    assert server.statuses() == [("d1", "IN_PROGRESS")]
    record = agent.store.get(RunKey("d1", "CREATE", "2024-01-01T00:00:00"))
    assert record is not None
    assert record.outcome == f"ended before it ran: {ended['message']}"


def test_a_repeated_start_does_not_stop_the_run(tmp_path: Path) -> None:
    again = {
        "duplicate": True,
        "ended": False,
        "deploy_status": "IN_PROGRESS",
        "message": "already recorded",
    }
    server = FakeServer([deployment_entry("d1")], replies={"IN_PROGRESS": again})
    hook = FakeHook()
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == ["d1"]


def test_a_final_signal_answered_as_duplicate_finishes_the_run(tmp_path: Path) -> None:
    dup = {"duplicate": True, "deploy_status": "COMPLETE", "message": "already ended COMPLETE"}
    server = FakeServer([deployment_entry("d1", aware=False)], replies={None: dup})
    agent = _agent(tmp_path, server)
    report = agent.run_once()
    assert report.finished[0][1] == "duplicate: already ended COMPLETE"


def test_one_credential_per_stack(tmp_path: Path) -> None:
    server = FakeServer(
        [deployment_entry("d1", aware=False)],
        others={"second-stack": [deployment_entry("d2", aware=False)]},
    )
    hook = FakeHook()
    agent = Agent(
        "srv-1",
        fixed_credentials([SERVER_CREDENTIAL, "second-stack", "revoked"]),
        server,
        StateStore(tmp_path / "state"),
        {"script": hook},
    )
    report = agent.run_once()
    # The revoked credential is reported; the deployments of the others still run.
    assert report.outcome is PollOutcome.NOT_AUTHORIZED
    assert "credential 3 of 3" in report.message
    assert hook.runs == ["d1", "d2"]


def test_runs_the_engine_stopped_listing_are_settled_and_old_records_dropped(
    tmp_path: Path,
) -> None:
    server = FakeServer([deployment_entry("d1", aware=False)], drop_signals=1)
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    agent.run_once()  # ran, but its final signal was lost: RAN, outputs kept
    key = RunKey("d1", "CREATE", "2024-01-01T00:00:00")
    assert agent.store.get(key).phase is RunPhase.RAN  # type: ignore[union-attr]
    server.deployments = []  # the engine stopped waiting (timed out)
    agent.run_once()
    record = agent.store.get(key)
    assert record is not None and record.phase is RunPhase.FINISHED and record.signal is None
    assert record.outcome.startswith("abandoned")
    assert server.signals == []
    agent.store.put(replace(record, finished_at=time.time() - KEEP_FINISHED_SECS - 1))
    agent.run_once()
    assert agent.store.get(key) is None
    # While the engine cannot be asked, nothing is settled.
    agent.store.put(record.finished("x"))
    server.down = True
    agent.store.put(RunRecord(RunKey("d9", "CREATE", "t"), RunPhase.RAN, signal={}))
    agent.run_once()
    assert agent.store.get(RunKey("d9", "CREATE", "t")).phase is RunPhase.RAN  # type: ignore[union-attr]


def test_a_refused_final_signal_finishes_the_run(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", aware=False)], refuse={None: ("conflict", "done")})
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook)
    agent.run_once()
    agent.run_once()
    assert hook.runs == ["d1"]
    assert len(server.signals) == 1


def test_a_hook_that_raises_fails_the_run(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1", aware=False)])
    _agent(tmp_path, server, FakeHook(raises=RuntimeError("disk full"))).run_once()
    assert server.statuses() == [("d1", "FAILED")]
    assert "RuntimeError: disk full" in server.signals[0]["deploy_status_reason"]


def test_a_deployment_without_signal_credential_is_left_alone(tmp_path: Path) -> None:
    entry = deployment_entry("d1")
    entry["inputs"] = [i for i in entry["inputs"] if i["name"] != "deploy_signal_credential"]
    server = FakeServer([entry, deployment_entry("d2", aware=False)])
    hook = FakeHook()
    _agent(tmp_path, server, hook).run_once()
    assert hook.runs == ["d2"]


def test_refused_credential_and_unreachable_engine(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    server = FakeServer([deployment_entry("d1")])
    hook = FakeHook()
    agent = _agent(tmp_path, server, hook, credential="wrong")
    caplog.set_level(logging.DEBUG, logger="conv_tasks.agent")
    assert agent.run_once().outcome is PollOutcome.NOT_AUTHORIZED
    assert agent.run_once().outcome is PollOutcome.NOT_AUTHORIZED
    warnings = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warnings) == 1  # the same problem again goes to the debug level
    assert "not_authorized" in warnings[0].getMessage()
    server.down = True
    good = _agent(tmp_path, server, hook)
    assert good.run_once().outcome is PollOutcome.UNREACHABLE
    assert hook.runs == []


def test_a_credential_file_is_read_at_every_poll(tmp_path: Path) -> None:
    path = tmp_path / "cred"
    read = credential_from_file(path)
    with pytest.raises(CredentialError, match="cannot read the credential file"):
        read()
    path.write_text("# for stack web\n\n")
    with pytest.raises(CredentialError, match="holds no credential"):
        read()
    path.write_text(f"# for stack web\n{SERVER_CREDENTIAL}\n\n  other  \n")
    assert read() == [SERVER_CREDENTIAL, "other"]


def test_no_credential_is_a_problem_of_the_poll(tmp_path: Path) -> None:
    server = FakeServer([deployment_entry("d1")])
    agent = Agent(
        "srv-1",
        credential_from_file(tmp_path / "absent"),
        server,
        StateStore(tmp_path / "state"),
        {"script": FakeHook()},
    )
    assert agent.run_once().outcome is PollOutcome.NO_CREDENTIAL
    assert server.fetches == 0


def test_real_script_end_to_end_and_credentials_stay_out_of_the_log(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    script = (
        "#!/bin/sh\necho started $name\n"
        'printf \'%s\' "hello $name" > "$heat_outputs_path.greeting"\n'
    )
    server = FakeServer(
        [
            deployment_entry("d1", config=script, outputs=("greeting",), inputs={"name": "world"}),
            deployment_entry("d2", config="#!/bin/sh\necho nope >&2\nexit 4\n", aware=False),
        ]
    )
    secrets = SecretFilter()
    handler_records: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            handler_records.append(self.format(record))

    handler = Collect()
    handler.addFilter(secrets)
    logger = logging.getLogger("conv_tasks.agent.test")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        agent = Agent(
            "srv-1",
            fixed_credentials([SERVER_CREDENTIAL]),
            server,
            StateStore(tmp_path / "state"),
            {"script": ScriptHook({"PATH": "/usr/bin:/bin"})},
            secrets=secrets,
            log=logger,
        )
        agent.run_once()
        # Anything that would log a credential has it masked.
        logger.warning("engine said %s about %s", SERVER_CREDENTIAL, "signal-secret-d1")
    finally:
        logger.removeHandler(handler)
    assert server.statuses() == [("d1", "IN_PROGRESS"), ("d1", "COMPLETE"), ("d2", "FAILED")]
    assert server.signals[1]["greeting"] == "hello world"
    assert server.signals[1]["deploy_stdout"] == "started world\n"
    assert server.signals[2]["deploy_status_code"] == 4
    assert server.signals[2]["deploy_status_reason"] == "script exited with status 4: nope"
    text = "\n".join(handler_records)
    assert "d1" in text and "COMPLETE" in text
    assert SERVER_CREDENTIAL not in text
    assert "signal-secret" not in text
    assert "engine said ****** about ******" in text
    # Once finished, nothing of the run stays on disk but its record, without outputs.
    assert not any(agent.store.work.iterdir())
    assert all(r.signal is None for r in agent.store.records())


def test_run_forever_survives_a_bug_in_one_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    import threading

    class Broken(FakeServer):
        def fetch(self, server: str, credential: str):  # type: ignore[no-untyped-def]
            stop.set()
            raise KeyError("surprise")

    stop = threading.Event()
    agent = _agent(tmp_path, Broken())
    caplog.set_level(logging.INFO, logger="conv_tasks.agent")
    agent.run_forever(0.01, stop)
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage() for r in errors] == ["poll failed: KeyError: 'surprise'"]
    assert errors[0].exc_info is None


def test_hook_result_of_a_kill_is_a_failure() -> None:
    assert not HookResult(-9).succeeded
