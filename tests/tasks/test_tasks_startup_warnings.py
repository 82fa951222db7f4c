"""Workers and beat warn once at start-up when secrets would be stored unencrypted."""

from __future__ import annotations

import logging

import pytest
from celery.signals import beat_init, worker_init

from conv_tasks.secrets_at_rest import new_key
from conv_tasks.settings import Settings
from conv_tasks.tasks import app as app_module
from conv_tasks.tasks.startup_warnings import warn_if_unsealed


def test_without_a_key_one_warning_names_the_setting(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="conv_tasks.secrets_at_rest"):
        assert warn_if_unsealed("worker", Settings.from_env({}))
    [record] = caplog.records
    assert record.levelno == logging.WARNING
    assert "CONV_TASKS_ENCRYPTION_KEYS is not set" in record.getMessage()
    assert "worker" in record.getMessage()


def test_with_a_key_nothing_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    key = new_key()
    with caplog.at_level(logging.DEBUG, logger="conv_tasks.secrets_at_rest"):
        assert not warn_if_unsealed("beat", Settings.from_env({"CONV_TASKS_ENCRYPTION_KEYS": key}))
    assert caplog.records == []


def test_worker_and_beat_start_up_signals_run_the_check() -> None:
    # Celery sends worker_init once per worker (its main process) and beat_init once per beat.
    def receivers(signal: object) -> list[object]:
        return [ref() for _, ref in signal.receivers]  # type: ignore[attr-defined]

    assert app_module._worker_started in receivers(worker_init)
    assert app_module._beat_started in receivers(beat_init)


def test_kombus_warning_about_the_direct_request_exchange_is_left_out() -> None:
    import logging

    from conv_tasks.tasks.startup_checks import RequestExchangeNotice

    def record(message: str) -> logging.LogRecord:
        return logging.LogRecord("kombu", logging.WARNING, __file__, 1, message, None, None)

    notice = RequestExchangeNotice()
    assert not notice.filter(
        record("Exchange conv_tasks is a direct exchange and native delayed delivery do not ...")
    )
    # Another exchange's, or another warning, is kept.
    assert notice.filter(record("Exchange billing is a direct exchange and native delayed ..."))
    assert notice.filter(record("Failed to bind queue 'conv_tasks.nodes': boom"))
