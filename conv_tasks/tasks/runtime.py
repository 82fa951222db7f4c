"""The engine environment of this worker process, with Celery as its dispatcher."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import Any

from celery import Celery

from conv_tasks.broker import NODE_QUEUE, broker_countdown, delayed_by_broker
from conv_tasks.engine import EngineEnv, default_env
from conv_tasks.tasks.node_summary import NODE_TASK, node_summary

__all__ = ["NODE_TASK", "CeleryDispatcher", "engine_env"]


def _shown(payload: Mapping[str, Any]) -> str:
    # What Flower and the logs show of a node task: never the data it carries, which may hold
    # attribute values derived from hidden parameters.
    return node_summary(payload)


class CeleryDispatcher:
    """Enqueues graph nodes as Celery tasks on the broker: this process's app's, or `app`'s (a
    test process driving another conv_tasks's workers, the conformance kit)."""

    def __init__(self, app: Celery | None = None) -> None:
        self._app = app
        # Whether the app's countdowns wait in RabbitMQ (quorum queues), in whole seconds;
        # found on the first countdown, from the app's queues.
        self._whole_seconds: bool | None = None

    @property
    def app(self) -> Celery:
        if self._app is not None:
            return self._app
        from conv_tasks.tasks.app import app

        return app

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        if countdown and countdown > 0:
            if self._whole_seconds is None:
                self._whole_seconds = delayed_by_broker(self.app.amqp.queues.values())
            if self._whole_seconds:
                countdown = broker_countdown(countdown)
        self.app.send_task(
            NODE_TASK,
            kwargs=dict(payload),
            countdown=countdown,
            kwargsrepr=_shown(payload),
            queue=NODE_QUEUE,
        )

    def nodes(self, payloads: Sequence[Mapping[str, Any]]) -> None:
        """Publish all at once: on a Redis broker one pipelined round trip (kombu's batch).

        Routed explicitly to the node queue, so the batch never depends on task_routes.
        """
        app = self.app
        if len(payloads) == 1:
            self.node(payloads[0])
            return
        with app.producer_or_acquire() as producer, producer.batch():
            for payload in payloads:
                app.send_task(
                    NODE_TASK,
                    kwargs=dict(payload),
                    producer=producer,
                    kwargsrepr=_shown(payload),
                    queue=NODE_QUEUE,
                )


_envs: dict[int, EngineEnv] = {}


def engine_env() -> EngineEnv:
    env = _envs.get(os.getpid())
    if env is None:
        env = default_env(CeleryDispatcher())
        _envs[os.getpid()] = env
    return env
