"""deploy/conv-tasks.env.sample works as it stands and with any of its lines uncommented.

systemd's EnvironmentFile= and compose's env_file: read a line KEY=VALUE differently: systemd
keeps everything after `=` (a trailing comment becomes part of the value) and strips quotes,
compose strips a trailing ` # comment` and keeps or strips quotes depending on its version.
A value with no quotes, spaces or `#` means the same to both, so that is all the sample has.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml
from deploy_tools import DEPLOY, compose_config

from conv_tasks.settings import Settings

SAMPLE = DEPLOY / "conv-tasks.env.sample"
SETTING = re.compile(r"(?P<key>[A-Z][A-Z0-9_]*)=(?P<value>[^\s#'\"\\]*)")
COMMENTED_SETTING = re.compile(r"#\s*(?P<line>[A-Z][A-Z0-9_]*=.*)")


def settings_lines(*, uncomment: bool) -> list[str]:
    """The sample's KEY=VALUE lines; with `uncomment`, its commented-out ones too."""
    lines = []
    for raw in SAMPLE.read_text().splitlines():
        commented = COMMENTED_SETTING.fullmatch(raw)
        if commented and uncomment:
            lines.append(commented["line"])
        elif raw and not raw.startswith("#"):
            lines.append(raw)
    return lines


def test_every_line_is_a_comment_or_a_plain_setting() -> None:
    for number, raw in enumerate(SAMPLE.read_text().splitlines(), 1):
        if raw == "" or (raw.startswith("#") and not COMMENTED_SETTING.fullmatch(raw)):
            continue
        line = raw.lstrip("#").lstrip()
        assert SETTING.fullmatch(line), (
            f"conv-tasks.env.sample:{number}: {raw!r} is not KEY=VALUE with a plain value "
            "(no quotes, spaces or trailing comment): systemd and compose would disagree on it"
        )


def test_commented_settings_are_there_to_be_uncommented() -> None:
    active = settings_lines(uncomment=False)
    everything = settings_lines(uncomment=True)
    assert len(everything) > len(active) + 10
    assert {line.partition("=")[0] for line in everything} >= {
        "CONV_TASKS_LOCK_TTL",
        "CONV_TASKS_PURGE_DELETED_AFTER",
        "CONV_TASKS_EVENT_RETENTION",
        "CONV_TASKS_EVENTS_KEEP",
    }


def _as_env(lines: list[str]) -> dict[str, str]:
    return dict(line.split("=", 1) for line in lines)


def test_conv_tasks_accepts_the_sample_with_every_line_uncommented() -> None:
    settings = Settings.from_env(_as_env(settings_lines(uncomment=True)))
    assert settings.lock_ttl == 60
    assert settings.broker_url == "amqp://guest:guest@127.0.0.1:5672//"
    assert settings.purge_deleted_after == 30 * 86400
    assert settings.event_retention == 30 * 86400
    assert settings.events_keep == 1000
    assert settings.purge_interval == 3600


def test_compose_reads_every_value_as_written(tmp_path: Path) -> None:
    lines = settings_lines(uncomment=True)
    env_file = tmp_path / "conv-tasks.env"
    env_file.write_text("\n".join(lines) + "\n")
    compose = tmp_path / "compose.yaml"
    compose.write_text(f"services:\n  probe:\n    image: probe\n    env_file: [{env_file}]\n")
    done = compose_config(compose)
    assert done.returncode == 0, done.stderr
    seen: dict[str, Any] = yaml.safe_load(done.stdout)["services"]["probe"]["environment"]
    assert {key: str(value) for key, value in seen.items()} == _as_env(lines)
