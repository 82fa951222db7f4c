"""deploy/compose.yaml as docker-compose reads it: valid, in order, healthy, Flower locked.

Debian's `docker-compose` checks a file without a Docker engine (`config`); `make test` and
CI install it (scripts/ensure-docker-compose.sh). Without it these tests fail, never skip.
The shell commands of migrate and Flower are run here with stand-ins for conv-tasks, celery
and sleep, so their retry and refusal are tried, not only read.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml
from deploy_tools import CLEAN_ENV, DEPLOY, ROOT, compose_config

COMPOSE = DEPLOY / "compose.yaml"


@pytest.fixture(scope="module")
def config() -> dict[str, Any]:
    """The file as docker-compose resolves it (anchors merged, variables filled in)."""
    done = compose_config(COMPOSE)
    assert done.returncode == 0, done.stderr
    loaded: dict[str, Any] = yaml.safe_load(done.stdout)
    return loaded


def test_the_compose_file_is_valid() -> None:
    done = compose_config(COMPOSE, "-q")
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    ("old", "new", "complaint"),
    [
        ("migrate: { condition", "migrat: { condition", "which is undefined"),
        ("restart: unless-stopped", "restart: unless-stopped\n    restrat: always", "restrat"),
        ("interval: 5s", "interval: [5s]", "healthcheck.interval"),
    ],
    ids=["unknown-dependency", "unknown-key", "wrong-type"],
)
def test_a_broken_compose_file_fails_the_check(
    tmp_path: Path, old: str, new: str, complaint: str
) -> None:
    text = COMPOSE.read_text()
    assert old in text
    broken = tmp_path / "deploy" / "compose.yaml"
    broken.parent.mkdir()
    broken.write_text(text.replace(old, new, 1))
    done = compose_config(broken, "-q")
    assert done.returncode != 0, f"docker-compose accepted a broken file:\n{done.stdout}"
    assert complaint in done.stderr


def test_services_report_their_health(config: dict[str, Any]) -> None:
    services = config["services"]
    for name in ("postgres", "redis", "worker", "flower"):
        assert services[name]["healthcheck"]["test"], name
    assert "pg_isready" in services["postgres"]["healthcheck"]["test"]
    # Over TCP: the image's first-start server listens on the Unix socket only.
    assert "127.0.0.1" in services["postgres"]["healthcheck"]["test"]
    assert "ping" in services["redis"]["healthcheck"]["test"]
    worker_check = " ".join(services["worker"]["healthcheck"]["test"])
    assert "inspect ping -d celery@$$HOSTNAME" in worker_check
    assert "/healthcheck" in " ".join(services["flower"]["healthcheck"]["test"])


def test_migrate_waits_for_postgres_and_the_rest_for_migrate(config: dict[str, Any]) -> None:
    services = config["services"]
    assert services["migrate"]["depends_on"] == {"postgres": {"condition": "service_healthy"}}
    assert services["migrate"]["restart"] == "no"
    for name in ("worker", "beat"):
        assert services[name]["depends_on"] == {
            "postgres": {"condition": "service_healthy"},
            "redis": {"condition": "service_healthy"},
            "migrate": {"condition": "service_completed_successfully"},
        }, name
    assert services["flower"]["depends_on"] == {"redis": {"condition": "service_healthy"}}


def test_two_beats_run_side_by_side(config: dict[str, Any]) -> None:
    # One lease in Redis picks the beat that sends; the other takes over if it dies.
    beat = config["services"]["beat"]
    assert beat["deploy"]["replicas"] == 2
    assert beat["command"] == ["conv-tasks", "beat"]  # no schedule file: the state is in Redis
    assert beat["restart"] == "unless-stopped"


def _stand_ins(tmp_path: Path, **scripts: str) -> dict[str, str]:
    """An environment whose PATH finds these shell scripts before the real commands."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, body in scripts.items():
        path = bin_dir / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)
    return {"PATH": f"{bin_dir}:/usr/bin:/bin"}


def _run_command(service: dict[str, Any], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    shell, flag, script = service["command"]
    assert (shell, flag) == ("sh", "-c")
    # `$$` is compose's escape for a `$` the container's shell sees.
    return subprocess.run(
        [shell, flag, script.replace("$$", "$")],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )


def test_migrate_retries_until_the_database_answers(config: dict[str, Any], tmp_path: Path) -> None:
    attempts = tmp_path / "attempts"
    env = _stand_ins(
        tmp_path,
        **{
            "conv-tasks": f'echo x >> {attempts}; [ "$(wc -l < {attempts})" -ge 3 ]',
            "sleep": "exit 0",
        },
    )
    done = _run_command(config["services"]["migrate"], env)
    assert done.returncode == 0, done.stderr
    assert attempts.read_text().count("x") == 3
    assert "attempt 2 failed; retrying" in done.stderr


def test_migrate_gives_up_with_a_failure(config: dict[str, Any], tmp_path: Path) -> None:
    env = _stand_ins(tmp_path, **{"conv-tasks": "exit 1", "sleep": "exit 0"})
    done = _run_command(config["services"]["migrate"], env)
    assert done.returncode == 1
    assert "attempt 12 failed" in done.stderr


def test_flower_is_never_served_without_authentication(
    config: dict[str, Any], tmp_path: Path
) -> None:
    flower = config["services"]["flower"]
    env = _stand_ins(tmp_path, celery='echo "celery $*"')
    refused = _run_command(flower, env)
    assert refused.returncode == 1
    assert "set FLOWER_BASIC_AUTH=user:password" in refused.stderr
    assert refused.stdout == ""
    started = _run_command(flower, {**env, "FLOWER_BASIC_AUTH": "admin:secret"})
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "celery -A conv_tasks.tasks.app flower --port=5555"
    oauth = _run_command(flower, {**env, "FLOWER_AUTH": ".*@example\\.com"})
    assert oauth.returncode == 0, oauth.stderr


def test_flower_takes_its_credentials_from_the_environment(config: dict[str, Any]) -> None:
    flower = config["services"]["flower"]
    # No value in the file: docker-compose passes on the variable of the shell it runs in.
    assert "FLOWER_BASIC_AUTH" in flower["environment"]
    assert flower["environment"]["FLOWER_BASIC_AUTH"] is None
    # On the host's loopback only, unless FLOWER_LISTEN says otherwise.
    [port] = flower["ports"]
    assert port.startswith("127.0.0.1:5555:5555")


def test_flower_credentials_given_to_compose_reach_the_container() -> None:
    done = compose_config(
        COMPOSE, env={"FLOWER_BASIC_AUTH": "admin:secret", "FLOWER_LISTEN": "0.0.0.0"}
    )
    assert done.returncode == 0, done.stderr
    flower = yaml.safe_load(done.stdout)["services"]["flower"]
    assert flower["environment"]["FLOWER_BASIC_AUTH"] == "admin:secret"
    assert flower["ports"][0].startswith("0.0.0.0:5555:5555")


def test_the_image_copies_no_virtualenv_git_or_caches() -> None:
    ignored = {
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for entry in (".venv", ".git", "**/__pycache__", ".pytest_cache", ".mypy_cache", "tests"):
        assert entry in ignored, entry
    # What the Dockerfile installs from must reach the build.
    for needed in ("requirements.txt", "pyproject.toml", "README.md", "conv_tasks"):
        assert needed not in ignored, needed


AMQP_URL = "amqp://conv_tasks:pw@rabbitmq:5672/conv_tasks"


def test_rabbitmq_is_an_optional_broker_behind_a_profile(config: dict[str, Any]) -> None:
    services = config["services"]
    rabbitmq = services["rabbitmq"]
    assert rabbitmq["profiles"] == ["rabbitmq"]
    assert rabbitmq["healthcheck"]["test"][:2] == ["CMD", "rabbitmq-diagnostics"]
    assert "check_port_connectivity" in rabbitmq["healthcheck"]["test"]
    assert "ports" not in rabbitmq  # only the services on compose's network reach it
    assert rabbitmq["environment"]["RABBITMQ_DEFAULT_VHOST"] == "conv_tasks"
    # Without the profile nothing depends on it (that would stop `up`), and Redis is the broker.
    for name, service in services.items():
        assert "rabbitmq" not in service.get("depends_on", {}), name
    for name in ("migrate", "worker", "beat", "flower"):
        assert services[name]["environment"]["CONV_TASKS_BROKER_URL"] == "redis://redis:6379/0"


def test_the_rabbitmq_profile_is_valid() -> None:
    done = compose_config(COMPOSE, "-q", env={"COMPOSE_PROFILES": "rabbitmq"})
    assert done.returncode == 0, done.stderr


def test_a_broker_url_given_to_compose_reaches_every_conv_tasks_service() -> None:
    done = compose_config(
        COMPOSE, env={"CONV_TASKS_BROKER_URL": AMQP_URL, "RABBITMQ_PASSWORD": "pw"}
    )
    assert done.returncode == 0, done.stderr
    services = yaml.safe_load(done.stdout)["services"]
    for name in ("migrate", "worker", "beat", "flower"):
        assert services[name]["environment"]["CONV_TASKS_BROKER_URL"] == AMQP_URL, name
        # The SyncPoints stay in Redis whatever the broker.
        assert services[name]["environment"]["CONV_TASKS_REDIS_URL"] == "redis://redis:6379/1"
    assert services["rabbitmq"]["environment"]["RABBITMQ_DEFAULT_PASS"] == "pw"


def test_rabbitmq_refuses_to_start_without_a_password(
    config: dict[str, Any], tmp_path: Path
) -> None:
    rabbitmq = config["services"]["rabbitmq"]
    env = _stand_ins(tmp_path, **{"docker-entrypoint.sh": 'echo "entrypoint $*"'})
    refused = _run_command(rabbitmq, env)
    assert refused.returncode == 1
    assert "set RABBITMQ_PASSWORD" in refused.stderr
    assert refused.stdout == ""
    started = _run_command(rabbitmq, {**env, "RABBITMQ_DEFAULT_PASS": "pw"})
    assert started.returncode == 0, started.stderr
    assert started.stdout.strip() == "entrypoint rabbitmq-server"


def test_rabbitmq_serves_the_management_api_flower_reads_queue_depths_from(
    config: dict[str, Any],
) -> None:
    # Flower's Broker page asks RabbitMQ's management API (http://<broker host>:15672/api/),
    # which the plain image lacks: without it the page lists no queue.
    assert config["services"]["rabbitmq"]["image"].endswith("-management")


def _make_flower_columns() -> str:
    """The task columns `make flower` gives Flower, as make expands them."""
    done = subprocess.run(
        ["make", "-n", "-o", "setup", "flower"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=CLEAN_ENV,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    [columns] = re.findall(r"--tasks_columns=(\S+)", done.stdout)
    return columns


def test_flower_lists_each_task_s_kwargs_in_compose_as_make_flower_does(
    config: dict[str, Any],
) -> None:
    from flower.views.tasks import TASK_COLUMNS  # the pinned Flower's column names

    columns = config["services"]["flower"]["environment"]["FLOWER_TASKS_COLUMNS"]
    assert columns == _make_flower_columns()
    slugs = columns.split(",")
    assert "kwargs" in slugs and "name" in slugs
    # Flower drops a name it does not know without a word: every one must be its own.
    assert set(slugs) <= set(TASK_COLUMNS), set(slugs) - set(TASK_COLUMNS)
    given = compose_config(COMPOSE, env={"FLOWER_TASKS_COLUMNS": "name,uuid"})
    assert given.returncode == 0, given.stderr
    flower = yaml.safe_load(given.stdout)["services"]["flower"]
    assert flower["environment"]["FLOWER_TASKS_COLUMNS"] == "name,uuid"


def test_the_http_edge_is_served_with_tokens_and_a_health_check(config: dict[str, Any]) -> None:
    api = config["services"]["api"]
    assert api["command"][:3] == ["conv-tasks", "api", "serve"]
    # Not noauth: bound to 0.0.0.0 inside its container, the edge would refuse to start.
    assert api["environment"]["CONV_TASKS_API_AUTH"] == "tokens"
    tokens = api["environment"]["CONV_TASKS_API_TOKENS_FILE"]
    # docker-compose 1.x prints short volume syntax: host:container:mode.
    assert any(volume.endswith(f":{tokens}:ro") for volume in api["volumes"]), api["volumes"]
    assert "/healthcheck" in " ".join(api["healthcheck"]["test"])
    assert api["depends_on"] == {"redis": {"condition": "service_healthy"}}
    assert api["ports"] == ["127.0.0.1:8004:8004/tcp"]
    # The web view's cookie secret comes from UI_SECRET (the edge refuses tokens without it).
    assert api["environment"]["CONV_TASKS_UI_SECRET"] == ""
    given = compose_config(COMPOSE, env={"UI_SECRET": "s" * 40, "UI": "0"})
    assert given.returncode == 0, given.stderr
    served = yaml.safe_load(given.stdout)["services"]["api"]["environment"]
    assert served["CONV_TASKS_UI_SECRET"] == "s" * 40 and served["CONV_TASKS_UI"] == "0"
