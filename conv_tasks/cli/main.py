"""Entry point of `conv-tasks` (the console script `conv_tasks.cli.main:main`): the group
that reads --tenant, --json and --timeout into the Context, with every command under it."""

from __future__ import annotations

import click

from conv_tasks import DISTRIBUTION
from conv_tasks.agent import agent_command
from conv_tasks.cli import commands
from conv_tasks.cli.context import Context
from conv_tasks.cli.failures import EXIT_CODES, run


@click.group(
    epilog=EXIT_CODES,
    commands=[
        commands.stack,
        commands.resource_type,
        commands.template,
        commands.resource,
        commands.db,
        commands.worker,
        commands.beat,
        commands.deployment,
        commands.wait_condition,
        agent_command,
        commands.output,
        commands.api,
    ],
)
@click.option(
    "--tenant",
    # click reads the variable (conv_tasks code reads no os.environ outside settings.py).
    envvar="CONV_TASKS_TENANT",
    default="default",
    show_default=True,
    show_envvar=True,
    help="Tenant whose stacks to act on.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of tables.")
# The installed package's version, from its metadata (pyproject.toml writes it once).
@click.version_option(
    package_name=DISTRIBUTION, prog_name="conv-tasks", message="%(prog)s %(version)s"
)
@click.option(
    "--timeout",
    default=60.0,
    show_default=True,
    help="Seconds to wait for the engine to answer a request.",
)
@click.pass_context
def cli(ctx: click.Context, tenant: str, as_json: bool, timeout: float) -> None:
    """conv-tasks: converge declarative stacks with Celery workers."""
    ctx.obj = Context(tenant, as_json, timeout)


def main() -> None:
    run(cli)
