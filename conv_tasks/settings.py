"""Configuration, read from the environment once.

Nothing else in conv_tasks reads os.environ: code asks for `get_settings()`.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from urllib.parse import urlsplit

from conv_tasks.durations import parse_duration
from conv_tasks.errors import ENCRYPTION_KEYS_SETTING, InvalidInput, Problem
from conv_tasks.masked_url import masked
from conv_tasks.secrets_at_rest import parse_keys
from conv_tasks.sentinel_urls import (
    MASTER_SETTING,
    PASSWORD_SETTING,
    is_sentinel,
    parse_sentinel_url,
)

DEFAULT_DATABASE_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/conv_tasks"
DEFAULT_BROKER_URL = "redis://127.0.0.1:6379/0"
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/1"


def _float(env: Mapping[str, str], name: str, default: float, problems: list[Problem]) -> float:
    raw = env.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = float(raw)
    except ValueError:
        problems.append(Problem(name, f"must be a number, got {raw!r}"))
        return default
    if not math.isfinite(value):
        problems.append(Problem(name, f"must be a finite number, got {raw!r}"))
        return default
    if value <= 0:
        problems.append(Problem(name, f"must be greater than zero, got {raw!r}"))
        return default
    return value


def _retention(
    env: Mapping[str, str], name: str, default: float | None, problems: list[Problem]
) -> float | None:
    """Seconds, written 90, 90s, 15m, 12h or 30d; `never` is None (keep forever)."""
    raw = (env.get(name) or "").strip()
    if raw == "":
        return default
    if raw.lower() == "never":
        return None
    return _duration(env, name, 0.0, problems, also="or never") or default


def _duration(
    env: Mapping[str, str], name: str, default: float, problems: list[Problem], *, also: str = ""
) -> float:
    """Seconds, written 90, 90s, 15m, 12h or 30d."""
    raw = (env.get(name) or "").strip()
    if raw == "":
        return default
    try:
        return parse_duration(raw)
    except ValueError as exc:
        problems.append(Problem(name, f"{exc}{', ' + also if also else ''}"))
        return default


def _count(
    env: Mapping[str, str], name: str, default: int, problems: list[Problem], *, minimum: int
) -> int:
    raw = (env.get(name) or "").strip()
    if raw == "":
        return default
    if not raw.isdigit() or int(raw) < minimum:
        problems.append(Problem(name, f"must be a whole number from {minimum}, got {raw!r}"))
        return default
    return int(raw)


def _keys(env: Mapping[str, str], name: str, problems: list[Problem]) -> tuple[str, ...]:
    """Comma-separated Fernet keys; a malformed one is named by its position, never shown."""
    keys, wrong = parse_keys(env.get(name) or "")
    problems.extend(Problem(name, message) for message in wrong)
    return () if wrong else keys


# The web view's cookie-signing secret: at least this many characters (32 bytes of
# `secrets.token_urlsafe(32)` are 43), so that it cannot be guessed.
UI_SECRET_MIN_CHARS = 32


def _ui_secret(env: Mapping[str, str], problems: list[Problem]) -> str:
    raw = (env.get("CONV_TASKS_UI_SECRET") or "").strip()
    if raw and len(raw) < UI_SECRET_MIN_CHARS:
        # Its length only: the value itself is never printed.
        problems.append(
            Problem(
                "CONV_TASKS_UI_SECRET",
                f"must be at least {UI_SECRET_MIN_CHARS} characters long, got {len(raw)} "
                "(make one with `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)",
            )
        )
        return ""
    return raw


API_AUTH_MODES = ("noauth", "tokens", "keystone")
# conv_tasks.broker.options.QueueType's values (that module imports kombu; this one does not).
RABBITMQ_QUEUE_TYPES = ("quorum", "classic")


def _choice(
    env: Mapping[str, str],
    name: str,
    default: str,
    choices: tuple[str, ...],
    problems: list[Problem],
) -> str:
    raw = (env.get(name) or "").strip()
    if raw == "":
        return default
    if raw.lower() not in choices:
        problems.append(Problem(name, f"must be one of {', '.join(choices)}, got {raw!r}"))
        return default
    return raw.lower()


_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def _flag(env: Mapping[str, str], name: str, default: bool, problems: list[Problem]) -> bool:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    problems.append(Problem(name, f"must be 1 or 0 (true or false), got {raw!r}"))
    return default


def _public_url(env: Mapping[str, str], name: str, problems: list[Problem]) -> str:
    """An http(s) base URL with a host and nothing after its path (trailing / dropped)."""
    raw = (env.get(name) or "").strip()
    if not raw:
        return ""
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
        problems.append(
            Problem(name, f"must be an http:// or https:// base URL with a host, got {raw!r}")
        )
        return ""
    return raw.rstrip("/")


def _redis_url(
    env: Mapping[str, str], name: str, default: str, master: str, problems: list[Problem]
) -> str:
    """The URL setting `name`; a sentinel:// list checked and written with its database and
    credentials in each of its URLs (conv_tasks.sentinel_urls), which needs a master name."""
    raw = (env.get(name) or "").strip() or default
    if not is_sentinel(raw):
        return raw
    try:
        parsed = parse_sentinel_url(raw)
    except ValueError as exc:
        problems.append(Problem(name, f"is not a sentinel URL list ({masked(raw)}): {exc}"))
        return raw
    if not master and all(problem.path != MASTER_SETTING for problem in problems):
        problems.append(
            Problem(
                MASTER_SETTING,
                f"must name the Redis master the sentinels of {name} watch "
                "(their `sentinel monitor NAME ...`)",
            )
        )
    return parsed.url()


@dataclass(frozen=True)
class Settings:
    """Every knob of conv_tasks. Durations are in seconds."""

    database_url: str = DEFAULT_DATABASE_URL
    broker_url: str = DEFAULT_BROKER_URL
    redis_url: str = DEFAULT_REDIS_URL
    result_backend: str = ""
    # The name of the Redis master the sentinels of a sentinel:// URL watch (their `sentinel
    # monitor NAME ...`), and the password the sentinels themselves ask for, if any (the URL's
    # own password is the master's). Never printed.
    sentinel_master: str = ""
    sentinel_password: str = field(default="", repr=False)
    # Prefix of every Redis key conv_tasks writes (SyncPoints, heartbeats, waiters).
    redis_prefix: str = "conv"
    # How long a SyncPoint lives in Redis without being touched.
    syncpoint_ttl: float = 7 * 24 * 3600.0
    # How long a resource lock is held without renewal before another traversal may take it.
    lock_ttl: float = 60.0
    # A traversal with no progress for this long is restarted by the watchdog.
    stall_after: float = 180.0
    # How often beat runs the watchdog and the template garbage collector.
    watchdog_interval: float = 30.0
    gc_interval: float = 300.0
    # How long a broker message may stay unacknowledged before Redis hands it to another worker.
    visibility_timeout: float = 600.0
    # The AMQP heartbeat a worker asks RabbitMQ for (Celery's broker_heartbeat; its default).
    # RabbitMQ gives up on a worker it has not heard from for about two of these, and hands
    # the messages that worker held to the others: a worker cut off by the network, which
    # never closes its connection, holds them that long. Ignored on Redis.
    broker_heartbeat: float = 120.0
    # Delay between two completion checks of a resource action in progress.
    poll_interval: float = 1.0
    # Bytes a worker process may spend on cached template definitions.
    cache_bytes: int = 128 * 1024 * 1024
    # Task events for Flower: workers report each task received, started and finished.
    task_events: bool = True
    # Whether publishing a task also sends a task-sent event (one more broker message per task).
    task_sent_events: bool = False
    # Whether reads (stack show, events, list, ...) send task events too: pollers send them
    # every half second, and their rows would bury the graph nodes in Flower.
    read_task_events: bool = False
    # Retention (the engine's upkeep): deleted stacks are purged this long after their
    # deletion, events of live stacks at this age, except each stack's latest `events_keep`.
    # None keeps them forever.
    purge_deleted_after: float | None = 30 * 86400.0
    event_retention: float | None = 30 * 86400.0
    events_keep: int = 1000
    # How often beat purges, and the most rows one of its transactions deletes.
    purge_interval: float = 3600.0
    purge_batch: int = 1000
    # The YAML file of named connections resource types act through (conv_tasks.connections);
    # empty: none are defined.
    connections_file: str = ""
    # A JSON fault plan the sandbox cloud (OS::Heat::TestResource's) follows while the file
    # exists: it throttles or fails some calls, for tests (conv_tasks.resources.sandbox_faults).
    sandbox_faults_file: str = ""
    # The keys that seal secrets at rest (conv_tasks.secrets_at_rest), the first one writing;
    # empty: values are stored as they are. Never printed.
    encryption_keys: tuple[str, ...] = field(default=(), repr=False)
    # The HTTP edge (conv_tasks.api): how callers authenticate (noauth, tokens, keystone), the
    # file of token hashes (tokens), the keystonemiddleware options file (keystone), how many
    # requests it waits on at once and how long it waits for a task's answer.
    api_auth: str = "noauth"
    api_tokens_file: str = ""
    api_keystone_config: str = ""
    api_threads: int = 16
    api_timeout: float = 30.0
    # How long the edge keeps an idle keep-alive connection open. It must outlast the pauses of
    # clients that poll: python-heatclient's `--wait` sleeps 5 s between event polls, and a
    # server that closes at the same 5 s races the client's next request on that connection,
    # which then fails with "connection reset by peer".
    api_keep_alive: int = 75
    # The HTTP edge's base URL as servers reach it (`conv-tasks api serve` behind its proxy):
    # wait condition handles give Heat's curl command against it. Empty: they give the
    # `conv-tasks wait-condition signal` command, over the broker.
    api_public_url: str = ""
    # The type of conv_tasks' two queues on a RabbitMQ broker: quorum (replicated over the
    # cluster; countdowns wait in RabbitMQ) or classic (one node's; as before issue 23). A
    # queue's type cannot change: a deployment whose queues are classic sets classic until it
    # moves them (docs/operations/rabbitmq.md). Ignored on Redis.
    rabbitmq_queue_type: str = "quorum"
    # The web view at /ui/ of the HTTP edge (conv_tasks.ui): whether it is served; the secret
    # that signs its session cookies (required with tokens or keystone: the edge refuses to
    # start without it; with noauth a random one is made per process); how long a session
    # lasts; how many live event streams (SSE) it serves at once; the comment it sends on an
    # idle stream this often, so that proxies keep it open.
    ui_enabled: bool = True
    ui_secret: str = field(default="", repr=False)
    ui_session_ttl: float = 8 * 3600.0
    ui_max_streams: int = 64
    ui_heartbeat: float = 15.0
    # Whether a parameter's custom_constraint that no installed checker provides refuses the
    # template (true) or only adds a warning to the answer (false, the default).
    strict_constraints: bool = False
    # The environment these settings were read from: where a connection's `password_env` or
    # `bearer_token_env` is looked up. Never printed.
    environ: Mapping[str, str] = field(default_factory=dict, repr=False, compare=False)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        env = os.environ if env is None else env
        problems: list[Problem] = []
        master = (env.get(MASTER_SETTING) or "").strip()
        redis_url = _redis_url(env, "CONV_TASKS_REDIS_URL", DEFAULT_REDIS_URL, master, problems)
        settings = cls(
            database_url=env.get("CONV_TASKS_DATABASE_URL") or DEFAULT_DATABASE_URL,
            broker_url=_redis_url(
                env, "CONV_TASKS_BROKER_URL", DEFAULT_BROKER_URL, master, problems
            ),
            redis_url=redis_url,
            result_backend=(
                _redis_url(env, "CONV_TASKS_RESULT_BACKEND", redis_url, master, problems)
                if (env.get("CONV_TASKS_RESULT_BACKEND") or "").strip()
                else redis_url
            ),
            sentinel_master=master,
            sentinel_password=env.get(PASSWORD_SETTING) or "",
            redis_prefix=env.get("CONV_TASKS_REDIS_PREFIX") or "conv",
            syncpoint_ttl=_float(env, "CONV_TASKS_SYNCPOINT_TTL", cls.syncpoint_ttl, problems),
            lock_ttl=_float(env, "CONV_TASKS_LOCK_TTL", cls.lock_ttl, problems),
            stall_after=_float(env, "CONV_TASKS_STALL_AFTER", cls.stall_after, problems),
            watchdog_interval=_float(
                env, "CONV_TASKS_WATCHDOG_INTERVAL", cls.watchdog_interval, problems
            ),
            gc_interval=_float(env, "CONV_TASKS_GC_INTERVAL", cls.gc_interval, problems),
            visibility_timeout=_float(
                env, "CONV_TASKS_VISIBILITY_TIMEOUT", cls.visibility_timeout, problems
            ),
            broker_heartbeat=_float(
                env, "CONV_TASKS_BROKER_HEARTBEAT", cls.broker_heartbeat, problems
            ),
            poll_interval=_float(env, "CONV_TASKS_POLL_INTERVAL", cls.poll_interval, problems),
            cache_bytes=int(
                _float(env, "CONV_TASKS_CACHE_MB", cls.cache_bytes / 2**20, problems) * 2**20
            ),
            task_events=_flag(env, "CONV_TASKS_TASK_EVENTS", cls.task_events, problems),
            task_sent_events=_flag(
                env, "CONV_TASKS_TASK_SENT_EVENTS", cls.task_sent_events, problems
            ),
            read_task_events=_flag(
                env, "CONV_TASKS_READ_TASK_EVENTS", cls.read_task_events, problems
            ),
            purge_deleted_after=_retention(
                env, "CONV_TASKS_PURGE_DELETED_AFTER", cls.purge_deleted_after, problems
            ),
            event_retention=_retention(
                env, "CONV_TASKS_EVENT_RETENTION", cls.event_retention, problems
            ),
            events_keep=_count(env, "CONV_TASKS_EVENTS_KEEP", cls.events_keep, problems, minimum=0),
            purge_interval=_duration(
                env, "CONV_TASKS_PURGE_INTERVAL", cls.purge_interval, problems
            ),
            purge_batch=_count(env, "CONV_TASKS_PURGE_BATCH", cls.purge_batch, problems, minimum=1),
            connections_file=(env.get("CONV_TASKS_CONNECTIONS") or "").strip(),
            sandbox_faults_file=(env.get("CONV_TASKS_SANDBOX_FAULTS") or "").strip(),
            encryption_keys=_keys(env, ENCRYPTION_KEYS_SETTING, problems),
            api_auth=_choice(env, "CONV_TASKS_API_AUTH", cls.api_auth, API_AUTH_MODES, problems),
            api_tokens_file=(env.get("CONV_TASKS_API_TOKENS_FILE") or "").strip(),
            api_keystone_config=(env.get("CONV_TASKS_API_KEYSTONE_CONFIG") or "").strip(),
            api_threads=_count(env, "CONV_TASKS_API_THREADS", cls.api_threads, problems, minimum=1),
            api_timeout=_float(env, "CONV_TASKS_API_TIMEOUT", cls.api_timeout, problems),
            api_keep_alive=_count(
                env, "CONV_TASKS_API_KEEP_ALIVE", cls.api_keep_alive, problems, minimum=1
            ),
            api_public_url=_public_url(env, "CONV_TASKS_API_PUBLIC_URL", problems),
            rabbitmq_queue_type=_choice(
                env,
                "CONV_TASKS_RABBITMQ_QUEUE_TYPE",
                cls.rabbitmq_queue_type,
                RABBITMQ_QUEUE_TYPES,
                problems,
            ),
            ui_enabled=_flag(env, "CONV_TASKS_UI", cls.ui_enabled, problems),
            ui_secret=_ui_secret(env, problems),
            ui_session_ttl=_duration(
                env, "CONV_TASKS_UI_SESSION_TTL", cls.ui_session_ttl, problems
            ),
            ui_max_streams=_count(
                env, "CONV_TASKS_UI_MAX_STREAMS", cls.ui_max_streams, problems, minimum=1
            ),
            ui_heartbeat=_duration(env, "CONV_TASKS_UI_HEARTBEAT", cls.ui_heartbeat, problems),
            strict_constraints=_flag(
                env, "CONV_TASKS_STRICT_CONSTRAINTS", cls.strict_constraints, problems
            ),
            environ=dict(env),
        )
        for name, value in (
            ("CONV_TASKS_DATABASE_URL", settings.database_url),
            ("CONV_TASKS_BROKER_URL", settings.broker_url),
            ("CONV_TASKS_REDIS_URL", settings.redis_url),
        ):
            if "://" not in value:
                problems.append(
                    Problem(name, f"must be a URL such as scheme://host/..., got {value!r}")
                )
        if problems:
            raise InvalidInput(problems, what="configuration")
        return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read from the environment on first use."""
    return Settings.from_env()
