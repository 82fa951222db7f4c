"""Fixtures of the ConvTasks::Celery::Task tests (celery_task_world.py says what they run).

This conftest.py puts its folder on sys.path (pytest does) and tests/chaos, for the private
services those tests share.
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent.parent / "chaos"))

from celery_task_world import ServiceWorld


@pytest.fixture(scope="module")
def service() -> Iterator[ServiceWorld]:
    """The other service, for the tests of one module."""
    world = ServiceWorld.start(Path(tempfile.mkdtemp(prefix="conv-tasks-celery-service-")))
    try:
        yield world
    finally:
        world.stop()
