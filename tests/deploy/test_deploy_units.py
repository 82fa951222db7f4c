"""The systemd units in deploy/, read as systemd reads them (sections of repeatable keys)."""

from __future__ import annotations

import shlex
from collections import defaultdict
from pathlib import Path

import pytest
from deploy_tools import DEPLOY

UNITS = sorted(DEPLOY.glob("*.service"))
# The engine's own units; the agent's runs on the servers, with its own environment file.
ENGINE_UNITS = [
    DEPLOY / "conv-tasks-api.service",
    DEPLOY / "conv-tasks-beat@.service",
    DEPLOY / "conv-tasks-worker@.service",
]
AGENT_UNIT = DEPLOY / "conv-tasks-agent.service"

Unit = dict[str, dict[str, list[str]]]


def read_unit(path: Path) -> Unit:
    """Section -> key -> every value given (systemd allows a key more than once)."""
    unit: Unit = defaultdict(lambda: defaultdict(list))
    section = None
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.strip()
        if not line or line[0] in "#;":
            continue
        if line.startswith("[") and line.endswith("]"):
            section = line[1:-1]
            continue
        key, sep, value = line.partition("=")
        assert sep and section, f"{path.name}:{number}: not KEY=VALUE in a section: {raw!r}"
        unit[section][key.strip()].append(value.strip())
    return unit


def words(unit: Unit, section: str, key: str) -> list[str]:
    """A list-valued setting (After=, Wants=): every value, split on spaces."""
    return [word for value in unit[section][key] for word in value.split()]


def one(unit: Unit, section: str, key: str) -> str:
    [value] = unit[section][key]
    return value


def test_the_engine_and_agent_units_are_here() -> None:
    assert sorted([*ENGINE_UNITS, AGENT_UNIT]) == UNITS


@pytest.mark.parametrize("path", UNITS, ids=lambda path: path.name)
def test_waiting_for_the_network_also_pulls_it_in(path: Path) -> None:
    # After= only orders: without Wants= nothing starts network-online.target, and the unit
    # starts before the network is up after all.
    unit = read_unit(path)
    assert "network-online.target" in words(unit, "Unit", "After")
    assert "network-online.target" in words(unit, "Unit", "Wants")


@pytest.mark.parametrize("path", ENGINE_UNITS, ids=lambda path: path.name)
def test_units_read_the_sample_environment_file(path: Path) -> None:
    unit = read_unit(path)
    assert one(unit, "Service", "EnvironmentFile") == "/etc/conv-tasks/conv-tasks.env"
    assert (DEPLOY / "conv-tasks.env.sample").exists()
    assert one(unit, "Service", "User") == "conv-tasks"
    assert one(unit, "Install", "WantedBy") == "multi-user.target"


def test_stopping_a_worker_lets_its_pool_finish() -> None:
    unit = read_unit(DEPLOY / "conv-tasks-worker@.service")
    # SIGTERM to Celery's main process only (a warm shutdown); SIGKILL to all after the timeout.
    assert one(unit, "Service", "KillMode") == "mixed"
    assert one(unit, "Service", "KillSignal") == "SIGTERM"
    assert float(one(unit, "Service", "TimeoutStopSec")) >= 60


def test_beats_are_a_template_to_run_several_with_no_schedule_file() -> None:
    # Any number of beats run side by side (one lease in Redis picks who sends): one instance
    # per host, `conv-tasks-beat@1`, `@2`; none keeps a schedule file, so none needs state.
    path = DEPLOY / "conv-tasks-beat@.service"
    unit = read_unit(path)
    assert "%i" in one(unit, "Unit", "Description")
    command = shlex.split(one(unit, "Service", "ExecStart"))
    assert command[1:] == ["beat"]
    assert "StateDirectory" not in unit["Service"]
    assert one(unit, "Service", "Restart") == "always"
    assert "conv-tasks-beat@2" in path.read_text()


def test_the_agent_finishes_its_script_and_keeps_its_state() -> None:
    unit = read_unit(AGENT_UNIT)
    assert one(unit, "Service", "KillMode") == "mixed"
    assert one(unit, "Service", "StateDirectory") == "conv-tasks-agent"
    assert "--state-dir /var/lib/conv-tasks-agent" in one(unit, "Service", "ExecStart")


def test_the_edge_serves_plain_http_on_loopback_behind_a_proxy() -> None:
    path = DEPLOY / "conv-tasks-api.service"
    unit = read_unit(path)
    command = shlex.split(one(unit, "Service", "ExecStart"))
    assert command[1:3] == ["api", "serve"]
    assert command[command.index("--host") + 1] == "127.0.0.1"
    assert command[command.index("--port") + 1] == "8004"
    assert one(unit, "Service", "NoNewPrivileges") == "true"
    assert "TLS belongs to a proxy" in path.read_text()
