"""The public wait condition task: hosts and services signal a handle with its token.

`conv_tasks.wait_condition.signal` takes the handle's id (its `endpoint`
attribute), its token and the signal's details ({status, reason, data, id},
all optional) and answers as the other public tasks do. It runs on
ResultHiddenTask, and its token is never shown in task events or logs
(conv_tasks.tasks.request shows only the handle's id).
"""

from __future__ import annotations

from typing import Any

from conv_tasks.engine import signal_handle
from conv_tasks.requests import Field
from conv_tasks.tasks.public import public_task
from conv_tasks.tasks.request import ResultHiddenTask
from conv_tasks.tasks.runtime import engine_env

SIGNAL_TASK = "conv_tasks.wait_condition.signal"


@public_task(
    SIGNAL_TASK,
    [
        Field("handle", (str,), required=True, is_name=True),
        Field("token", (str,), required=True, is_name=True),
        Field("details", (dict,), default={}),
    ],
    base=ResultHiddenTask,
)
def signal(handle: str, token: str, details: dict[str, Any]) -> dict[str, Any]:
    return signal_handle(engine_env(), handle, token, details)
