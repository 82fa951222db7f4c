"""A real worker process answers the ping task over the real broker."""

from __future__ import annotations

from conv_tasks.tasks.app import app


def test_ping_round_trip_through_a_worker(workers) -> None:
    result = app.send_task("conv_tasks.health.ping", kwargs={"echo": "hello"}).get(timeout=30)
    assert result["pong"] is True
    assert result["echo"] == "hello"
    assert result["database"] is True
    assert result["redis"] is True
