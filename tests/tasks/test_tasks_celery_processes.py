"""CeleryProcesses keeps one process per name: a second start of a running name must not leave
an orphan that goes on taking tasks after the test session that made it has ended."""

from __future__ import annotations

from pathlib import Path

from conv_tasks.celery_processes import CeleryProcesses


class SleepingProcesses(CeleryProcesses):
    """Processes that only sleep: the bookkeeping is what is tested, not Celery."""

    def command(self, args: list[str]) -> list[str]:
        return ["sleep", "30"]


def test_starting_a_running_name_again_keeps_the_one_process(tmp_path: Path) -> None:
    processes = SleepingProcesses(tmp_path)
    try:
        first = processes.start_worker("w3")
        again = processes.start_worker("w3")
        assert again is first and first.poll() is None
    finally:
        processes.stop_all(timeout=5)
    assert first.poll() is not None  # stop_all reached it


def test_a_name_whose_process_ended_starts_afresh(tmp_path: Path) -> None:
    processes = SleepingProcesses(tmp_path)
    try:
        first = processes.start_worker("w1")
        processes.kill("w1")
        second = processes.start_worker("w1")
        assert second is not first and second.poll() is None
        first_gone = processes.start_worker("w2")
        first_gone.kill()
        first_gone.wait(5)
        assert processes.start_worker("w2") is not first_gone
    finally:
        processes.stop_all(timeout=5)
