"""Fixtures of ConvTasks::HTTP::Resource's tests against a real REST server (json-server):
one cluster (http_support.py) for the tests that kill nothing, its server cleared for each.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from http_support import HttpCluster, http_cluster


@pytest.fixture(scope="session")
def shared_http_cluster(
    database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[HttpCluster]:
    """Two workers of two processes each, for the tests that kill nothing."""
    with http_cluster(
        database_url,
        tmp_path_factory.mktemp("http-cluster"),
        name="http",
        workers={"h1": 2, "h2": 2},
    ) as cluster:
        yield cluster


@pytest.fixture
def cluster(shared_http_cluster: HttpCluster) -> HttpCluster:
    """The shared cluster, its json-server's counters and rules cleared."""
    shared_http_cluster.server.reset()
    return shared_http_cluster
