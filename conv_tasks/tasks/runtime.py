"""The engine environment of this worker process, with Celery as its dispatcher."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from conv_tasks.engine.environment import EngineEnv

NODE_TASK = "conv_tasks.node.converge"


class CeleryDispatcher:
    """Enqueues graph nodes as Celery tasks on the broker."""

    def node(self, payload: Mapping[str, Any], *, countdown: float | None = None) -> None:
        from conv_tasks.tasks.app import app

        app.send_task(NODE_TASK, kwargs=dict(payload), countdown=countdown)

    def nodes(self, payloads: list[Mapping[str, Any]]) -> None:
        from conv_tasks.tasks.app import app

        with app.producer_or_acquire() as producer:
            for payload in payloads:
                app.send_task(NODE_TASK, kwargs=dict(payload), producer=producer)


_envs: dict[int, EngineEnv] = {}


def engine_env() -> EngineEnv:
    env = _envs.get(os.getpid())
    if env is None:
        env = EngineEnv.default(CeleryDispatcher())
        _envs[os.getpid()] = env
    return env
