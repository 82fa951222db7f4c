"""`conv-tasks agent`: the command that runs the reference agent on a server's host."""

from __future__ import annotations

import contextlib
import fcntl
import logging
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from conv_tasks.agent.redact import SecretFilter

if TYPE_CHECKING:  # the links are imported when the command runs: Celery is slow to import
    from conv_tasks.agent.link import ServerLink

CREDENTIAL_VARIABLE = "CONV_TASKS_AGENT_CREDENTIAL"
URL_VARIABLE = "CONV_TASKS_AGENT_URL"
# Exit status of `--once` when the engine refused the server's credential.
EXIT_NOT_AUTHORIZED = 3


def default_state_dir() -> Path:
    if os.geteuid() == 0:
        return Path("/var/lib/conv-tasks-agent")
    return Path.home() / ".conv-tasks-agent"


@contextlib.contextmanager
def exclusive(state_dir: Path) -> Iterator[None]:
    """Hold the state directory alone: two agents on one directory could run a run twice."""
    state_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    with open(state_dir / "agent.lock", "a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise click.ClickException(
                f"another agent is using the state directory {state_dir}; give this one its "
                "own with --state-dir"
            ) from None
        yield


@contextlib.contextmanager
def agent_logging(level: str) -> Iterator[SecretFilter]:
    """Log lines to stderr, every one through the filter that masks credentials."""
    secrets = SecretFilter()
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(secrets)
    root = logging.getLogger()
    root.addHandler(handler)
    if root.level > logging.WARNING or root.level == logging.NOTSET:
        root.setLevel(logging.WARNING)
    logging.getLogger("conv_tasks.agent").setLevel(level)
    # Celery and kombu log each retry of a lost connection; the agent says it once itself.
    quiet = level != "DEBUG"
    for name in ("celery", "kombu"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1 if quiet else logging.NOTSET)
    try:
        yield secrets
    finally:
        root.removeHandler(handler)


def _credentials(credential_file: Path | None) -> Callable[[], list[str]]:
    from conv_tasks.agent.agent import credential_from_file, fixed_credentials, parse_credentials

    # The agent's own scripts never see it (hooks leave CONV_TASKS_* out of their environment).
    from_env = parse_credentials(os.environ.pop(CREDENTIAL_VARIABLE, "").replace(",", "\n"))
    if credential_file is not None:
        return credential_from_file(credential_file)
    if from_env:
        return fixed_credentials(from_env)
    raise click.UsageError(
        f"the agent needs the server's credential: --credential-file PATH or ${CREDENTIAL_VARIABLE}"
        " (the stack's owner gets it with `conv-tasks deployment credential STACK SERVER`)"
    )


def _link(url: str | None, use_broker: bool, timeout: float) -> ServerLink:
    """The agent's way to the engine: the edge at `url`, or the broker."""
    if url and use_broker:
        raise click.UsageError("give --url or --broker, not both")
    if url:
        from conv_tasks.agent.http_link import HttpServerLink

        try:
            return HttpServerLink(url, timeout=timeout)
        except ValueError as exc:
            raise click.BadParameter(str(exc), param_hint="--url") from None
    if use_broker:
        from conv_tasks.agent.link import CeleryServerLink, agent_app

        return CeleryServerLink(agent_app, timeout=timeout)
    raise click.UsageError(
        f"the agent needs a way to the engine: --url URL (or ${URL_VARIABLE}), the HTTP edge "
        "(`conv-tasks api serve`), with nothing but the server's credential; or --broker, "
        "the broker and result backend of the engine's settings"
    )


@click.command("agent")
@click.option("--server", required=True, help="The server whose deployments to run.")
@click.option(
    "--url",
    envvar=URL_VARIABLE,
    help=f"The HTTP edge's base URL (`conv-tasks api serve`), e.g. https://orchestration:8004 "
    f"(else ${URL_VARIABLE}). The agent then holds the server's credential and nothing more.",
)
@click.option(
    "--broker",
    "use_broker",
    is_flag=True,
    help="Reach the engine over the broker instead (CONV_TASKS_BROKER_URL and "
    "CONV_TASKS_RESULT_BACKEND): credentials that can act for any tenant.",
)
@click.option(
    "--credential-file",
    type=click.Path(dir_okay=False, path_type=Path),
    help=f"File holding the server's credential, one a line if stacks gave it several "
    f"(else ${CREDENTIAL_VARIABLE}, comma-separated).",
)
@click.option(
    "--state-dir",
    type=click.Path(file_okay=False, path_type=Path),
    default=default_state_dir,
    show_default="/var/lib/conv-tasks-agent as root, else ~/.conv-tasks-agent",
    help="Where the agent records the runs it started and finished.",
)
@click.option("--once", is_flag=True, help="Poll once, run what is pending, exit.")
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=10.0,
    show_default=True,
    help="Seconds between two polls.",
)
@click.option(
    "--legacy-signals",
    is_flag=True,
    help="Signal as an agent from before IN_PROGRESS existed: no IN_PROGRESS signal and no "
    "deploy_status (to test an engine's compatibility).",
)
@click.option(
    "--log-level",
    type=click.Choice(["DEBUG", "INFO", "WARNING"], case_sensitive=False),
    default="INFO",
    show_default=True,
)
@click.pass_obj
def agent(
    obj: Any,
    server: str,
    url: str | None,
    use_broker: bool,
    credential_file: Path | None,
    state_dir: Path,
    once: bool,
    interval: float,
    legacy_signals: bool,
    log_level: str,
) -> None:
    """Run this host's software deployments for SERVER (the reference agent)."""
    credentials = _credentials(credential_file)
    link = _link(url, use_broker, float(getattr(obj, "timeout", 30.0)))
    from conv_tasks.agent.agent import Agent, PollOutcome
    from conv_tasks.agent.hooks import default_hooks
    from conv_tasks.agent.state import StateStore

    with exclusive(state_dir), agent_logging(log_level.upper()) as secrets:
        runner = Agent(
            server,
            credentials,
            link,
            StateStore(state_dir),
            default_hooks(),
            legacy=legacy_signals,
            secrets=secrets,
        )
        if once:
            outcome = runner.run_once().outcome
        else:
            stop = threading.Event()
            for signum in (signal.SIGTERM, signal.SIGINT):
                signal.signal(signum, lambda *_: stop.set())
            runner.log.info(
                "agent for server %s started (state in %s, polling every %gs)",
                server,
                state_dir,
                interval,
            )
            runner.run_forever(interval, stop)
            runner.log.info("agent stopped")
            return
    if outcome is PollOutcome.NOT_AUTHORIZED:
        sys.exit(EXIT_NOT_AUTHORIZED)
    sys.exit(0 if outcome is PollOutcome.DONE else 1)
