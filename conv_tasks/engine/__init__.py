"""The convergence engine: stack operations, graph nodes, completion and the watchdog.

The engine decides in pure functions (`decide`), acts through the
repositories in conv_tasks.db and the SyncPoints in Redis, and hands work to
Celery only through a `Dispatcher`, so it can run in a test without a worker.
"""
