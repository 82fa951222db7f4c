"""stack preview and stack update --dry-run through the real CLI, client and workers:
each resource's action, the properties that differ, the summary, and nothing changed."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from sqlalchemy import text

from conv_tasks.cli.main import cli
from conv_tasks.client import Client
from conv_tasks.db.session import session_scope

BEFORE = """heat_template_version: 2018-08-31
parameters:
  secret: {type: string, hidden: true}
resources:
  keep: {type: OS::Heat::TestResource, properties: {value: k}}
  upd: {type: OS::Heat::TestResource, properties: {value: a}}
  rep: {type: OS::Heat::TestResource, properties: {value: r, update_replace: true}}
  gone: {type: OS::Heat::TestResource}
  hush: {type: OS::Heat::TestResource, properties: {value: {get_param: secret}}}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [upd, output]}}}
"""

AFTER = """heat_template_version: 2018-08-31
parameters:
  secret: {type: string, hidden: true}
resources:
  keep: {type: OS::Heat::TestResource, properties: {value: k}}
  upd: {type: OS::Heat::TestResource, properties: {value: b}}
  rep: {type: OS::Heat::TestResource, properties: {value: r2, update_replace: true}}
  new1: {type: OS::Heat::TestResource, properties: {value: {get_attr: [keep, output]}}}
  new2: {type: OS::Heat::None}
  hush: {type: OS::Heat::TestResource, properties: {value: {get_param: secret}}}
  reader: {type: OS::Heat::TestResource, properties: {value: {get_attr: [upd, output]}}}
"""


def counts(stack_id: str | None = None) -> dict[str, object]:
    """What a change to the stack would change: its row, its resources and events, and any
    template stored after its own."""
    with session_scope() as session:

        def one(sql: str) -> object:
            return session.execute(text(sql), {"s": stack_id}).one()

        return {
            "stack": one(
                "SELECT count(*), max(raw_template_id), max(current_traversal),"
                " max(updated_at), max(action || status) FROM stack WHERE id = :s"
            ),
            "resource": one("SELECT count(*), max(updated_at) FROM resource WHERE stack_id = :s"),
            "event": one("SELECT count(*) FROM event WHERE stack_id = :s"),
            "later_templates": one(
                "SELECT count(*) FROM raw_template WHERE id >"
                " coalesce((SELECT raw_template_id FROM stack WHERE id = :s), 0)"
            ),
        }


def run(client: Client, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--tenant", client.tenant, "--timeout", "30", *args])
    return result.exit_code, result.stdout


def test_preview_of_an_update_names_every_action_and_changes_nothing(
    client: Client, tmp_path: Path
) -> None:
    created = client.create("web", BEFORE, {"secret": "s3cr3t-one"})
    assert client.wait(created["stack_id"], timeout=120)["status"] == "CREATE_COMPLETE"
    after = tmp_path / "after.yaml"
    after.write_text(AFTER)
    stack_id = created["stack_id"]
    before = counts(stack_id)

    code, out = run(client, "--json", "stack", "preview", "web", "-t", str(after), "--existing")
    assert code == 0, out
    data = json.loads(out)
    actions = {e["name"]: e["action"] for e in data["resources"]}
    assert actions == {
        "keep": "unchanged",
        "upd": "update",
        "rep": "replace",
        "new1": "create",
        "new2": "create",
        "gone": "delete",
        "hush": "unchanged",
        "reader": "unchanged",
    }
    entries = {e["name"]: e for e in data["resources"]}
    assert entries["upd"]["changes"] == {"value": {"old": "a", "new": "b"}}
    assert entries["rep"]["changes"] == {"value": {"old": "r", "new": "r2"}}
    assert entries["reader"]["uncertain"] == (
        "reads upd, which will change: its values here are the current ones"
    )
    assert entries["keep"]["uncertain"] is None
    assert data["summary"] == "2 to create, 1 to update, 1 to replace, 1 to delete, 3 unchanged"

    code, out = run(
        client,
        "stack",
        "update",
        "web",
        "-t",
        str(after),
        "--existing",
        "-P",
        "secret=two",
        "--dry-run",
    )
    assert code == 0, out
    assert out.splitlines()[-1] == (
        "2 to create, 2 to update, 1 to replace, 1 to delete, 2 unchanged"
    )
    assert "  ~ upd  OS::Heat::TestResource  update" in out
    assert '      value: "a" -> "b"' in out
    assert "hush" in out and "s3cr3t" not in out and "two" not in out.split("hush")[1]

    assert counts(stack_id) == before
    assert client.get("web")["status"] == "CREATE_COMPLETE"


def test_preview_of_a_stack_that_does_not_exist_creates_everything(
    client: Client, tmp_path: Path
) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(AFTER.replace("{get_attr: [keep, output]}", "x"))
    code, out = run(client, "stack", "preview", "fresh", "-t", str(path), "-P", "secret=x")
    assert code == 0, out
    assert out.splitlines()[0] == "Preview of the create of stack fresh (nothing was changed):"
    assert out.splitlines()[-1] == (
        "7 to create, 0 to update, 0 to replace, 0 to delete, 0 unchanged"
    )
    assert client.list() == []
