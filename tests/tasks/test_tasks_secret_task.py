"""The deployment tasks show monitors no credential: not in their arguments, not in results."""

from __future__ import annotations

from types import SimpleNamespace

from celery.utils.saferepr import saferepr

from conv_tasks.tasks.app import app
from conv_tasks.tasks.request import HIDDEN, Request, ResultHiddenTask, shown_kwargs

DEPLOYMENT_TASKS = [
    "conv_tasks.deployment.metadata",
    "conv_tasks.deployment.signal",
    "conv_tasks.deployment.credential",
    "conv_tasks.deployment.list",
    "conv_tasks.deployment.show",
]


def test_only_names_and_ids_show_their_values() -> None:
    shown = shown_kwargs(
        {
            "server": "web-1",
            "credential": "SECRET",
            "deployment": "d-1",
            "action": "CREATE",
            "details": {"deploy_stdout": "SECRET", "result": "SECRET"},
        }
    )
    assert "SECRET" not in shown
    assert "'server': 'web-1'" in shown and "'deployment': 'd-1'" in shown
    assert f"'credential': '{HIDDEN}'" in shown
    assert "'deploy_stdout'" in shown  # a mapping shows its keys only
    assert shown_kwargs(["not", "a", "mapping"]) == HIDDEN


def test_the_request_replaces_what_the_sender_wrote() -> None:
    import conv_tasks.tasks.deployment  # noqa: F401 - registers the tasks

    kwargs = {"server": "web-1", "credential": "SECRET"}
    headers = {
        "id": "1",
        "task": "conv_tasks.deployment.metadata",
        "argsrepr": "()",
        "kwargsrepr": repr(kwargs),  # what a plain send_task writes
    }
    body = ((), kwargs, {})
    message = SimpleNamespace(
        headers=headers,
        body=body,
        payload=body,
        delivery_info={},
        properties={},
        content_type="application/json",
        content_encoding="utf-8",
    )
    request = Request(
        message,
        app=app,
        task=app.tasks["conv_tasks.deployment.metadata"],
        decoded=True,
        body=body,
        headers=headers,
    )
    assert "SECRET" not in request.kwargsrepr
    assert "SECRET" not in str(request.info(safe=False))
    assert request.kwargs == kwargs  # the task itself still gets its arguments


def test_every_deployment_task_hides_its_arguments_and_result() -> None:
    import conv_tasks.tasks.deployment  # noqa: F401 - registers the tasks

    result = {"ok": True, "deployments": [{"inputs": [{"value": "SECRET"}]}]}
    for name in DEPLOYMENT_TASKS:
        task = app.tasks[name]
        assert isinstance(task, ResultHiddenTask), name
        assert "SECRET" not in saferepr(result, task.resultrepr_maxsize)
        assert "SECRET" not in saferepr({"ok": True, "credential": "SECRET"}, 1)
