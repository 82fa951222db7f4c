"""`conv-tasks db upgrade|purge|rotate-key|new-key`: the database's schema, deleting what is
kept too long, and the keys that seal secrets at rest.

`db purge` deletes stacks deleted long ago and old events, now, in batches: the
same purge beat runs every CONV_TASKS_PURGE_INTERVAL (the engine's upkeep),
with the retention settings; the options here override them for one run.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from conv_tasks.cli import render
from conv_tasks.cli.context import Context, pass_ctx
from conv_tasks.durations import format_duration, parse_duration
from conv_tasks.errors import ENCRYPTION_KEYS_SETTING

if TYPE_CHECKING:
    from conv_tasks.secrets_at_rest import Sealer
    from conv_tasks.settings import Settings


class Age(click.ParamType):
    """A duration with its unit: 90s, 15m, 12h, 30d (a bare number is refused)."""

    name = "AGE"

    def convert(
        self, value: Any, param: click.Parameter | None, ctx: click.Context | None
    ) -> float:
        if isinstance(value, float):
            return value
        try:
            return parse_duration(str(value), unit_required=True)
        except ValueError as exc:
            self.fail(str(exc), param, ctx)


def _age(seconds: float | None) -> str:
    return "never" if seconds is None else format_duration(seconds)


def describe(report: dict[str, Any], deleted_after: float | None, events: float | None) -> str:
    """One sentence saying what the purge deleted, for a person."""
    parts = []
    if deleted_after is not None:
        parts.append(
            f"{report['stacks']} stack(s) deleted more than {_age(deleted_after)} ago "
            f"({report['resources']} resource(s), {report['stack_events']} event(s))"
        )
    if events is not None:
        parts.append(f"{report['old_events']} event(s) of live stacks older than {_age(events)}")
    parts.append(f"{report['templates']} unreferenced template(s)")
    sentence = f"Purged {', '.join(parts)} in {report['transactions']} transaction(s)."
    if not report["finished"]:
        sentence += " Stopped early: run it again for the rest."
    return sentence


@click.group()
def db() -> None:
    """Database administration."""


@db.command("upgrade")
@click.option("--revision", default="head", show_default=True)
@click.option("--create-database", is_flag=True, help="Create the database first if missing.")
def db_upgrade(revision: str, create_database: bool) -> None:
    """Bring the database schema up to date."""
    from conv_tasks.db import ensure_database, upgrade

    if create_database and ensure_database():
        click.echo("created the database")
    upgrade(revision=revision)
    click.echo(f"database schema at {revision}")


@db.command("purge")
@click.option(
    "--older-than",
    type=Age(),
    help="Purge stacks deleted longer ago than AGE (90s, 15m, 12h, 30d), with their resources "
    "and events. [default: $CONV_TASKS_PURGE_DELETED_AFTER, 30d]",
)
@click.option(
    "--events-older-than",
    type=Age(),
    help="Purge events of live stacks older than AGE, but each stack's latest --keep-events. "
    "[default: $CONV_TASKS_EVENT_RETENTION, 30d]",
)
@click.option(
    "--keep-events",
    type=click.IntRange(min=0),
    metavar="N",
    help="Keep each live stack's latest N events, whatever their age. "
    "[default: $CONV_TASKS_EVENTS_KEEP, 1000]",
)
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    metavar="N",
    help="Rows one transaction deletes at most. [default: $CONV_TASKS_PURGE_BATCH, 1000]",
)
@pass_ctx
def db_purge(
    ctx: Context,
    older_than: float | None,
    events_older_than: float | None,
    keep_events: int | None,
    batch_size: int | None,
) -> None:
    """Delete stacks deleted long ago (resources, events, templates) and old events.

    What the retention settings say is purged (the beat job does it every
    CONV_TASKS_PURGE_INTERVAL), or what the options say, now. Each transaction
    deletes at most --batch-size rows and skips rows other transactions hold.
    """
    from conv_tasks.db import Database
    from conv_tasks.engine import RetentionPolicy, purge
    from conv_tasks.settings import get_settings

    settings = get_settings()
    policy = RetentionPolicy.from_settings(settings)
    policy = RetentionPolicy(
        deleted_after=older_than or policy.deleted_after,
        event_retention=events_older_than or policy.event_retention,
        events_keep=policy.events_keep if keep_events is None else keep_events,
        batch_size=batch_size or policy.batch_size,
    )
    report = purge(Database(settings.database_url, sealer=_sealer(settings)), policy).to_dict()
    if ctx.as_json:
        render.emit_json(report)
    else:
        click.echo(describe(report, policy.deleted_after, policy.event_retention))


def _sealer(settings: Settings) -> Sealer:
    from conv_tasks.secrets_at_rest import Sealer

    return Sealer(settings.encryption_keys)


@db.command("rotate-key")
@click.option(
    "--batch-size",
    type=click.IntRange(min=1),
    default=200,
    show_default=True,
    metavar="N",
    help="Rows one transaction re-encrypts at most.",
)
@pass_ctx
def db_rotate_key(ctx: Context, batch_size: int) -> None:
    """Re-encrypt every secret at rest with the first key of CONV_TASKS_ENCRYPTION_KEYS.

    Values written without a key are encrypted too; values already under the first key are
    left as they are, so a second run re-encrypts nothing. Safe while workers run: rows are
    rewritten in short transactions, each with a compare-and-swap on what was read. Give the
    workers the new key first (and the old ones after it) before running it; drop the old
    keys once it has run.
    """
    from conv_tasks.db import reseal_database
    from conv_tasks.settings import get_settings

    settings = get_settings()
    if not settings.encryption_keys:
        raise click.ClickException(
            f"{ENCRYPTION_KEYS_SETTING} is not set: there is no key to encrypt with."
        )
    report = reseal_database(settings.database_url, _sealer(settings), batch_size=batch_size)
    if ctx.as_json:
        render.emit_json(report.to_dict())
        return
    sentence = f"Re-encrypted {report.total} value(s) with the first key"
    tables = ", ".join(f"{table} {count}" for table, count in report.resealed.items() if count)
    sentence += f" ({tables})." if tables else "."
    if report.left:
        sentence += f" {report.left} row(s) kept changing: run it again for them."
    click.echo(sentence)


@db.command("new-key")
def db_new_key() -> None:
    """Print a fresh key for CONV_TASKS_ENCRYPTION_KEYS (put it first to rotate to it)."""
    from conv_tasks.secrets_at_rest import new_key

    click.echo(new_key())
