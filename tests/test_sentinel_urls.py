"""sentinel:// URL lists and the settings that hold them (pure: no server is asked)."""

from __future__ import annotations

from types import SimpleNamespace

import kombu.transport
import pytest
import redis
from kombu import Connection
from kombu.transport import TRANSPORT_ALIASES

from conv_tasks.broker import redis_transport
from conv_tasks.broker.options import RESTORE_EVERY, BrokerKind, broker_options, connection_conf
from conv_tasks.errors import InvalidInput
from conv_tasks.masked_url import masked
from conv_tasks.redis_client import redis_client
from conv_tasks.sentinel_urls import (
    MASTER_SOCKET_TIMEOUT,
    SENTINEL_SOCKET_TIMEOUT,
    SentinelUrl,
    is_sentinel,
    no_retry,
    parse_sentinel_url,
    sentinel_transport_options,
)
from conv_tasks.settings import Settings

# How often a Redis broker's worker looks for messages past their visibility timeout (issue 23).
RESTORE = {"unacked_restore_interval": RESTORE_EVERY, "unacked_restore_throttle": 1}

LIST = "sentinel://10.0.0.1:26379;sentinel://10.0.0.2:26380;sentinel://s3.example/2"


def test_a_list_names_its_sentinels_and_the_database_its_last_url_gives() -> None:
    parsed = parse_sentinel_url(LIST)
    assert parsed == SentinelUrl(
        (("10.0.0.1", 26379), ("10.0.0.2", 26380), ("s3.example", 26379)), db=2
    )
    assert parsed.addresses() == "10.0.0.1:26379, 10.0.0.2:26380, s3.example:26379"


def test_the_normalised_list_carries_database_and_password_in_every_url() -> None:
    # kombu and Celery read the database and the password of the first URL only.
    parsed = parse_sentinel_url("sentinel://:p%40ss@h1:1;sentinel://h2:2/5")
    assert parsed.password == "p@ss" and parsed.db == 5
    assert parsed.url() == "sentinel://:p%40ss@h1:1/5;sentinel://:p%40ss@h2:2/5"
    assert parse_sentinel_url(parsed.url()) == parsed
    assert "p%40ss" not in repr(parsed) and "p@ss" not in repr(parsed)


def test_one_sentinel_and_a_repeated_one() -> None:
    assert parse_sentinel_url("sentinel://h").sentinels == (("h", 26379),)
    assert parse_sentinel_url("sentinel://h:1;sentinel://h:1").sentinels == (("h", 1),)


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("sentinel://h:1;redis://h:2/0", "URL 2 of the list has the scheme 'redis'"),
        ("sentinel://h:1;;sentinel://h:2", "URL 2 of the list is empty"),
        ("sentinel://:26379", "URL 1 of the list names no host"),
        ("sentinel://h:port", "its port must be a number"),
        ("sentinel://h:1/zero", "the database 'zero': it must be a number"),
        ("sentinel://h:1/1;sentinel://h:2/2", "different databases"),
        ("sentinel://:a@h:1;sentinel://:b@h:2", "different passwords"),
        ("sentinel://h:1/0?ssl=true", "takes none of"),
    ],
)
def test_a_malformed_list_is_refused_saying_what_is_wrong(url: str, says: str) -> None:
    with pytest.raises(ValueError, match=says.replace("(", r"\(").replace("?", r"\?")):
        parse_sentinel_url(url)


def test_which_urls_are_sentinel_lists() -> None:
    assert is_sentinel(LIST) and is_sentinel("SENTINEL://h")
    assert not is_sentinel("redis://h:6379/0") and not is_sentinel("amqp://h//")


def _env(**given: str) -> dict[str, str]:
    return {f"CONV_TASKS_{key}": value for key, value in given.items()}


def test_settings_hand_on_the_normalised_lists_and_the_master() -> None:
    settings = Settings.from_env(
        _env(
            REDIS_URL="sentinel://a:1;sentinel://b:2/1",
            BROKER_URL="sentinel://a:1;sentinel://b:2/0",
            SENTINEL_MASTER=" mymaster ",
            SENTINEL_PASSWORD="s3cret",
        )
    )
    assert settings.redis_url == "sentinel://a:1/1;sentinel://b:2/1"
    assert settings.result_backend == settings.redis_url  # the SyncPoint Redis's, by default
    assert settings.broker_url == "sentinel://a:1/0;sentinel://b:2/0"
    assert settings.sentinel_master == "mymaster"
    assert "s3cret" not in repr(settings)


@pytest.mark.parametrize("setting", ["REDIS_URL", "BROKER_URL", "RESULT_BACKEND"])
def test_a_sentinel_list_without_a_master_name_is_refused_naming_the_setting(setting: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        Settings.from_env(_env(**{setting: "sentinel://a:1;sentinel://b:2/1"}))
    message = str(refused.value)
    assert "\n" not in message
    assert message.startswith("Invalid configuration: CONV_TASKS_SENTINEL_MASTER: must name")
    assert f"CONV_TASKS_{setting}" in message


def test_all_three_without_a_master_make_one_line() -> None:
    url = "sentinel://a:1/1"
    with pytest.raises(InvalidInput) as refused:
        Settings.from_env(_env(REDIS_URL=url, BROKER_URL=url, RESULT_BACKEND=url))
    assert len(refused.value.problems) == 1


def test_a_malformed_list_is_refused_naming_the_setting_and_never_its_password() -> None:
    with pytest.raises(InvalidInput) as refused:
        Settings.from_env(
            _env(BROKER_URL="sentinel://:hush@a:1;rediss://:hush@b:2/0", SENTINEL_MASTER="m")
        )
    message = str(refused.value)
    assert message.startswith("Invalid configuration: CONV_TASKS_BROKER_URL: is not a sentinel")
    assert "hush" not in message and "\n" not in message


def test_a_master_name_without_sentinels_changes_nothing() -> None:
    settings = Settings.from_env(_env(SENTINEL_MASTER="m"))
    assert settings.redis_url.startswith("redis://")


def test_the_broker_and_the_results_get_the_master_and_the_sentinels_password() -> None:
    settings = Settings.from_env(
        _env(
            BROKER_URL="sentinel://a:1/0",
            RESULT_BACKEND="sentinel://a:1/2",
            SENTINEL_MASTER="m",
            SENTINEL_PASSWORD="s3cret",
            VISIBILITY_TIMEOUT="42",
        )
    )
    conf = connection_conf(settings)
    sentinels = {
        "password": "s3cret",
        "socket_timeout": SENTINEL_SOCKET_TIMEOUT,
        "socket_connect_timeout": SENTINEL_SOCKET_TIMEOUT,
        "retry": no_retry(),
    }
    assert conf["broker_url"] == "sentinel://a:1/0"
    assert conf["broker_transport_options"] == {
        "visibility_timeout": 42.0,
        **RESTORE,
        "master_name": "m",
        "sentinel_kwargs": sentinels,
        "socket_timeout": MASTER_SOCKET_TIMEOUT,
        "socket_connect_timeout": SENTINEL_SOCKET_TIMEOUT,
        "socket_keepalive": True,
    }
    assert conf["result_backend"] == "sentinel://a:1/2"
    assert conf["result_backend_transport_options"] == {
        "master_name": "m",
        "sentinel_kwargs": sentinels,
    }
    assert broker_options("sentinel://a:1", visibility_timeout=1.0).kind is BrokerKind.REDIS


def test_redis_urls_get_no_sentinel_options() -> None:
    conf = connection_conf(Settings.from_env(_env(SENTINEL_MASTER="m")))
    assert conf["broker_transport_options"] == {"visibility_timeout": 600.0, **RESTORE}
    assert conf["result_backend_transport_options"] == {}
    assert sentinel_transport_options("amqp://h//", master="m", password="") == {}


def test_masked_lists_show_no_password() -> None:
    shown = masked("sentinel://:hush@a:1/0;sentinel://:hush@b:2/0")
    assert "hush" not in shown and shown.count("sentinel://") == 2


def test_the_factory_gives_a_sentinel_client_for_a_list_and_connects_to_nothing_yet() -> None:
    client = redis_client("sentinel://127.0.0.1:1/3", sentinel_master="m")
    pool = client.connection_pool
    assert pool.service_name == "m" and pool.connection_kwargs["db"] == 3  # type: ignore[attr-defined]
    # A master whose host died is given up on in seconds (then the sentinels are asked again).
    assert pool.connection_kwargs["socket_timeout"] == MASTER_SOCKET_TIMEOUT
    assert pool.connection_kwargs["socket_keepalive"] is True
    with pytest.raises(InvalidInput, match="CONV_TASKS_SENTINEL_MASTER"):
        redis_client("sentinel://127.0.0.1:1/3")
    plain = redis_client("redis://127.0.0.1:1/4")
    assert plain.connection_pool.connection_kwargs["db"] == 4


def test_sentinel_lists_mean_our_sentinel_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(TRANSPORT_ALIASES, "sentinel", "kombu.transport.redis:SentinelTransport")
    monkeypatch.setattr(kombu.transport, "_transport_cache", {})
    assert Connection("sentinel://127.0.0.1:1").get_transport_cls() is not (
        redis_transport.SentinelTransport
    )
    redis_transport.register()
    conn = Connection("sentinel://:hush@127.0.0.1:1/0;sentinel://:hush@127.0.0.1:2/0")
    assert conn.get_transport_cls() is redis_transport.SentinelTransport
    assert conn.transport.driver_type == "redis"
    assert conn.as_uri().startswith("sentinel://") and "hush" not in conn.as_uri()


def test_a_sentinel_channel_of_a_closed_connection_says_it_lost_the_connection() -> None:
    # As tests/broker's test of the Redis channel; the real sequence, against a failing-over
    # Sentinel group, is in tests/chaos/test_chaos_sentinel_failover.py.
    channel = redis_transport.SentinelChannel.__new__(redis_transport.SentinelChannel)
    channel.connection = SimpleNamespace(client=None)
    with pytest.raises(redis.exceptions.ConnectionError, match="closed"):
        channel._get_pool()
