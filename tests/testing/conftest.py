"""The conformance kit's cluster in the project's own test run: on a Redis of its own.

The kit takes its broker and Redis from CONV_TASKS_TEST_*, the same the session's workers
(tests/conftest.py) listen on: they would take the kit's messages and act on the wrong
database. Here the kit's cluster gets a private Redis server (broker, SyncPoints, results);
its database is still a fresh one beside the session's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace

import pytest

from conv_tasks.testing import PrivateRedis, TestServices


@pytest.fixture(scope="session")
def conv_tasks_services() -> Iterator[TestServices]:
    server = PrivateRedis()
    server.start()
    try:
        yield replace(
            TestServices.from_env(),
            broker_url=server.url(0),
            redis_url=server.url(1),
            result_backend=server.url(2),
        )
    finally:
        server.stop()
