"""Requests and graph work on separate queues: a read answers while a large traversal runs."""

from __future__ import annotations

import json
from typing import Any

from click.testing import CliRunner

from conv_tasks.cli.main import cli
from conv_tasks.client import Client

# Enough independent nodes that the workers are still busy with them when the read arrives:
# all of them are queued before the create request answers.
SIZE = 1000


def _flat(size: int) -> dict[str, Any]:
    resources = {f"r{i}": {"type": "OS::Heat::None"} for i in range(size)}
    return {"heat_template_version": "2018-08-31", "resources": resources}


def test_stack_list_answers_while_a_large_traversal_is_queued(client: Client) -> None:
    created = client.create("big", _flat(SIZE))
    try:
        # The CLI's own read, on the same workers: behind one shared queue it would answer only
        # after every node had run, and show the stack COMPLETE.
        listed = CliRunner().invoke(cli, ["--tenant", client.tenant, "--json", "stack", "list"])
        assert listed.exit_code == 0, listed.output
        (row,) = json.loads(listed.stdout)
        assert row["id"] == created["stack_id"]
        assert row["status"] == "CREATE_IN_PROGRESS"
        # The in-process client's read as well.
        (again,) = client.list()
        assert again["status"] == "CREATE_IN_PROGRESS"
    finally:
        assert client.wait("big", timeout=600, interval=0.5)["status"] == "CREATE_COMPLETE"
        client.delete("big")
        client.wait(created["stack_id"], timeout=600, interval=0.5)
