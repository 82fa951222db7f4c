"""The script hook, with real scripts in a temporary directory (no services)."""

from __future__ import annotations

from pathlib import Path

from agent_fakes import deployment_entry

from conv_tasks.agent.hooks import ScriptHook, default_hooks
from conv_tasks.agent.metadata import parse_deployment

SCRIPT = """#!/bin/sh
echo "hello $greeting from $deploy_action"
echo "to stderr" >&2
printf '%s' "$count-items" > "$heat_outputs_path.result"
printf 'second' > "$heat_outputs_path.other"
echo "cred=${deploy_signal_credential:-unset} agent=${CONV_TASKS_AGENT_CREDENTIAL:-unset}"
echo "broker=${CONV_TASKS_BROKER_URL:-unset} path=${PATH:+set}"
"""


def _run(tmp_path: Path, **kwargs: object) -> object:
    deployment = parse_deployment(deployment_entry(**kwargs))  # type: ignore[arg-type]
    workdir = tmp_path / "work"
    workdir.mkdir()
    hook = ScriptHook(
        {
            "PATH": "/usr/bin:/bin",
            "CONV_TASKS_AGENT_CREDENTIAL": "leak",
            "CONV_TASKS_BROKER_URL": "amqp://u:p@h/",
        }
    )
    return hook.run(deployment, workdir)


def test_script_gets_inputs_as_environment_and_writes_outputs(tmp_path: Path) -> None:
    result = _run(
        tmp_path,
        config=SCRIPT,
        outputs=("result", "missing", "other"),
        inputs={"greeting": "hi", "count": 3},
    )
    assert result.status_code == 0  # type: ignore[attr-defined]
    assert result.succeeded  # type: ignore[attr-defined]
    assert "hello hi from CREATE" in result.stdout  # type: ignore[attr-defined]
    assert result.stderr == "to stderr\n"  # type: ignore[attr-defined]
    # Declared outputs the script wrote; one it did not write is absent.
    assert result.outputs == {"result": "3-items", "other": "second"}  # type: ignore[attr-defined]
    # Neither credential nor the agent's own configuration reaches the script.
    assert "cred=unset agent=unset" in result.stdout  # type: ignore[attr-defined]
    assert "broker=unset path=set" in result.stdout  # type: ignore[attr-defined]


def test_a_failing_script_reports_its_status_and_stderr(tmp_path: Path) -> None:
    result = _run(tmp_path, config="#!/bin/sh\necho boom >&2\nexit 3\n")
    assert result.status_code == 3  # type: ignore[attr-defined]
    assert not result.succeeded  # type: ignore[attr-defined]
    assert result.stderr == "boom\n"  # type: ignore[attr-defined]
    assert result.failure is None  # type: ignore[attr-defined]


def test_a_config_without_interpreter_line_fails_with_a_hint(tmp_path: Path) -> None:
    result = _run(tmp_path, config="echo no shebang\n")
    assert not result.succeeded  # type: ignore[attr-defined]
    assert "does it start with #!" in (result.failure or "")  # type: ignore[attr-defined]


def test_a_config_that_is_not_text_fails(tmp_path: Path) -> None:
    result = _run(tmp_path, config={"not": "a script"})
    assert "needs the config to be the script's text" in result.failure  # type: ignore[attr-defined]


def test_an_input_that_cannot_be_an_environment_variable_is_reported(tmp_path: Path) -> None:
    result = _run(tmp_path, config="#!/bin/sh\necho ok\n", inputs={"a=b": "x"})
    assert result.succeeded  # type: ignore[attr-defined]
    assert "inputs left out" in result.stderr  # type: ignore[attr-defined]
    assert "'a=b'" in result.stderr  # type: ignore[attr-defined]


def test_output_names_cannot_escape_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("do not read")
    result = _run(tmp_path, config="#!/bin/sh\ntrue\n", outputs=("/../../secret",))
    assert result.outputs == {}  # type: ignore[attr-defined]


def test_the_agent_has_the_script_hook() -> None:
    assert set(default_hooks()) == {"script"}
