"""A database URL naming a primary and its standbys, in both of libpq's multi-host forms
(issue 30), and how such a URL is shown."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine

from conv_tasks.db.session import driver_url
from conv_tasks.masked_url import masked, scrubbed

LISTED = "postgresql://app:p%40ss@db1:5432,db2:5433/conv?target_session_attrs=read-write"
QUERY = "postgresql://app:p%40ss@/conv?host=db1,db2&port=5432,5433&target_session_attrs=read-write"


def _connect_args(url: str) -> dict[str, object]:
    engine = create_engine(driver_url(url))
    try:
        _, kwargs = engine.dialect.create_connect_args(engine.url)
    finally:
        engine.dispose()
    kwargs.pop("context", None)
    return dict(kwargs)


def test_both_multi_host_forms_reach_libpq_alike() -> None:
    expected = {
        "dbname": "conv",
        "user": "app",
        "password": "p@ss",
        "host": "db1,db2",
        "port": "5432,5433",
        "target_session_attrs": "read-write",
    }
    assert _connect_args(LISTED) == expected
    assert _connect_args(QUERY) == expected
    assert driver_url(LISTED).drivername == "postgresql+psycopg"


def test_a_single_host_url_is_read_as_before() -> None:
    args = _connect_args("postgresql://postgres@127.0.0.1:5432/conv_tasks_test")
    assert (args["host"], args["port"], args["dbname"]) == ("127.0.0.1", 5432, "conv_tasks_test")


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://app@db1:5432,db2:5433/conv?host=db3", "names its hosts twice"),
        ("postgresql://app@db1:5432,,db2/conv", "an empty host"),
    ],
)
def test_a_malformed_multi_host_url_is_refused_by_name(url: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        driver_url(url)


def test_a_multi_host_url_is_shown_without_its_password_or_query() -> None:
    shown = masked(LISTED.replace("p%40ss", "s3cret") + "&password=other")
    assert shown == "postgresql://app:**@db1:5432,db2:5433/conv"
    assert scrubbed("auth failed for s3cret", LISTED.replace("p%40ss", "s3cret")) == (
        "auth failed for **"
    )
