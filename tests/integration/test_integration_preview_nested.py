"""The preview of an update sees into nested stacks and groups (issue 25, item 9), with real
workers: a provider template's and a group's members' changes two levels deep, a group's
members added and removed by its count, `uncertain` only where a nested input is known at
apply, nothing left to change after the update, and nothing written by a preview."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from integration_support import template
from sqlalchemy import event, text
from sqlalchemy.engine import Engine

from conv_tasks.cli.main import cli
from conv_tasks.client import Client
from conv_tasks.db.session import session_scope
from conv_tasks.engine import default_env, preview_stack

BOX = """heat_template_version: 2018-08-31
parameters:
  value: {type: string}
  label: {type: string, default: fixed}
resources:
  a:
    type: OS::Heat::TestResource
    properties: {value: {get_param: value}}
  r:
    type: OS::Heat::TestResource
    properties: {value: {get_param: value}, update_replace: true}
  b:
    type: OS::Heat::TestResource
    properties: {value: {get_param: label}}
outputs:
  out: {value: {get_attr: [a, output]}}
"""

ENV = {"resource_registry": {"My::Box": "box.yaml"}}
FILES = {"box.yaml": BOX}


def _parent(value: str, count: int = 2) -> dict[str, Any]:
    return template(
        {
            "box": {"type": "My::Box", "properties": {"value": value}},
            "grp": {
                "type": "OS::Heat::ResourceGroup",
                "properties": {
                    "count": count,
                    "resource_def": {"type": "My::Box", "properties": {"value": value}},
                },
            },
        }
    )


def _create(client: Client, name: str, parent: dict[str, Any]) -> str:
    stack_id = client.create(name, parent, environment=[ENV], files=FILES)["stack_id"]
    assert client.wait(stack_id, timeout=120)["status"] == "CREATE_COMPLETE"
    return str(stack_id)


def _preview(client: Client, name: str, parent: dict[str, Any]) -> dict[str, Any]:
    return client.preview(name, parent, environment=[ENV], files=FILES)


def _by_name(entries: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in entries}


def _actions(entries: list[dict[str, Any]]) -> dict[str, str]:
    return {e["name"]: e["action"] for e in entries}


def rows(tenant: str) -> dict[str, object]:
    """Every row a change of the tenant's stacks (its nested ones too) would add or touch.
    Scoped to the tenant: stacks other tests left acting (a stuck resource, say) keep writing
    to the same database."""
    with session_scope() as session:

        def one(sql: str) -> object:
            return tuple(session.execute(text(sql), {"tenant": tenant}).one())

        mine = "SELECT id FROM stack WHERE tenant = :tenant"
        return {
            "stack": one(
                "SELECT count(*), max(updated_at), max(raw_template_id),"
                " string_agg(coalesce(current_traversal, '') || action || status, ',' ORDER BY id)"
                " FROM stack WHERE tenant = :tenant"
            ),
            "resource": one(
                "SELECT count(*), max(updated_at), max(id) FROM resource"
                f" WHERE stack_id IN ({mine})"
            ),
            "event": one(f"SELECT count(*) FROM event WHERE stack_id IN ({mine})"),
            "raw_template": one(
                "SELECT count(*), max(id) FROM raw_template WHERE id IN (SELECT raw_template_id"
                " FROM stack WHERE tenant = :tenant UNION SELECT prev_raw_template_id FROM stack"
                " WHERE tenant = :tenant)"
            ),
        }


def settled_rows(tenant: str, timeout: float = 20.0) -> dict[str, object]:
    """rows() once nothing has changed them for a second: a stack reads COMPLETE as its last
    node satisfies its SyncPoint, and that node may release its resource's lease just after
    (a write the preview must not be blamed for)."""
    deadline = time.monotonic() + timeout
    last = rows(tenant)
    while time.monotonic() < deadline:
        time.sleep(1.0)
        now = rows(tenant)
        if now == last:
            return now
        last = now
    raise AssertionError(f"the tenant's rows kept changing for {timeout} s: {last}")


def foreign_traversals(tenant: str) -> set[str]:
    """The current traversals of other tenants' stacks (other tests' stacks still acting)."""
    with session_scope() as session:
        found = session.execute(
            text("SELECT current_traversal FROM stack WHERE tenant <> :tenant"), {"tenant": tenant}
        )
        return {row[0] for row in found if row[0]}


def _traversal_of(key: bytes) -> str:
    found = re.search(rb"\{([^}]*)\}", key)
    return found.group(1).decode() if found else ""


def new_syncpoints_of_this_test(redis_client: Any, before: set[bytes], tenant: str) -> set[bytes]:
    """SyncPoint keys made since `before`, leaving out those of other tests' traversals."""
    others = foreign_traversals(tenant)
    return {key for key in syncpoints(redis_client) - before if _traversal_of(key) not in others}


def syncpoints(redis_client: Any) -> set[bytes]:
    return set(redis_client.scan_iter(match="*:sp:*", count=1000))


def test_the_preview_lists_changes_inside_provider_templates_and_groups(
    client: Client, redis_client: Any, tmp_path: Path
) -> None:
    _create(client, "deep", _parent("v1"))
    before, points = settled_rows(client.tenant), syncpoints(redis_client)

    data = _preview(client, "deep", _parent("v2"))

    top = _by_name(data["resources"])
    assert _actions(data["resources"]) == {"box": "update", "grp": "update"}
    # A provider template: its child's resources, as the update would give them.
    box = top["box"]
    assert box["nested_stack"]["id"]
    assert _actions(box["nested"]) == {"a": "update", "r": "replace", "b": "unchanged"}
    inside = _by_name(box["nested"])
    assert inside["a"]["changes"] == {"value": {"old": "v1", "new": "v2"}}
    assert inside["a"]["uncertain"] is None and inside["b"]["uncertain"] is None
    # A group: each member (a provider template) and, a level deeper, the member's resources.
    grp = top["grp"]
    assert _actions(grp["nested"]) == {"0": "update", "1": "update"}
    for member in grp["nested"]:
        assert member["type"] in ("My::Box", "box.yaml")  # the group's child maps it so
        assert _actions(member["nested"]) == {"a": "update", "r": "replace", "b": "unchanged"}
    assert data["counts"]["update"] == 2
    assert data["nested_counts"] == {
        "create": 0,
        "update": 5,
        "replace": 3,
        "delete": 0,
        "unchanged": 3,
    }
    assert data["summary"].endswith(
        "; inside nested stacks: 0 to create, 5 to update, 3 to replace, 0 to delete, 3 unchanged"
    )
    # The CLI's text: the nested changes indented under their parent, two levels deep.
    (tmp_path / "box.yaml").write_text(BOX)
    (tmp_path / "env.yaml").write_text(json.dumps(ENV))
    (tmp_path / "parent.yaml").write_text(json.dumps(_parent("v2")))
    args = ["stack", "preview", "deep", "-t", str(tmp_path / "parent.yaml")]
    args += ["-e", str(tmp_path / "env.yaml")]
    result = CliRunner().invoke(cli, ["--tenant", client.tenant, "--timeout", "30", *args])
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    grp = lines.index("  ~ grp  OS::Heat::ResourceGroup  update")
    assert lines[grp + 1].startswith("      resource_def: ")
    assert lines[grp + 2].startswith("      in deep-grp-")
    assert lines[grp + 3].startswith("      ~ 0  ")
    assert lines[grp + 4].startswith("          value: ")
    assert lines[grp + 5].startswith("          in ")
    assert lines[grp + 6].startswith("          ~ a  ")
    assert lines[grp + 7] == '              value: "v1" -> "v2"'
    # A preview writes nothing: no row, no template, no event, no traversal, no SyncPoint.
    assert rows(client.tenant) == before
    assert new_syncpoints_of_this_test(redis_client, points, client.tenant) == set()


def test_a_group_count_change_lists_the_members_added_and_removed(client: Client) -> None:
    _create(client, "scaled", _parent("v1", count=2))

    grown = _by_name(_preview(client, "scaled", _parent("v1", count=3))["resources"])["grp"]
    assert grown["action"] == "update"
    assert _actions(grown["nested"]) == {"0": "unchanged", "1": "unchanged", "2": "create"}
    assert _by_name(grown["nested"])["0"]["nested"] == []  # unchanged: nothing inside to say

    shrunk = _by_name(_preview(client, "scaled", _parent("v1", count=1))["resources"])["grp"]
    assert _actions(shrunk["nested"]) == {"0": "unchanged", "1": "delete"}


def test_an_input_known_only_at_apply_is_uncertain_only_where_it_is_read(
    client: Client,
) -> None:
    def parent(value: str) -> dict[str, Any]:
        return template(
            {
                "src": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": value, "update_replace": True},
                },
                "box": {
                    "type": "My::Box",
                    "properties": {"value": {"get_attr": ["src", "output"]}},
                },
                "still": {"type": "My::Box", "properties": {"value": "same"}},
            }
        )

    _create(client, "unsure", parent("s1"))

    data = _preview(client, "unsure", parent("s2"))

    top = _by_name(data["resources"])
    assert top["src"]["action"] == "replace"
    assert top["box"]["uncertain"] == (
        "reads src, which will change: its values here are the current ones"
    )
    inside = _by_name(top["box"]["nested"])
    # a and r read the parameter fed by src; b reads a parameter known now.
    assert inside["a"]["uncertain"] == inside["r"]["uncertain"]
    assert "value" in str(inside["a"]["uncertain"])
    assert inside["b"]["uncertain"] is None
    assert top["still"]["action"] == "unchanged" and top["still"]["uncertain"] is None
    assert top["still"]["nested"] == []


def test_after_the_update_a_second_preview_says_nothing_changes(client: Client) -> None:
    stack_id = _create(client, "settled", _parent("v1"))
    client.update(stack_id, _parent("v2", count=3), environment=[ENV], files=FILES)
    assert client.wait(stack_id, timeout=180)["status"] == "UPDATE_COMPLETE"

    data = _preview(client, "settled", _parent("v2", count=3))

    assert _actions(data["resources"]) == {"box": "unchanged", "grp": "unchanged"}
    assert all(e["nested"] == [] for e in data["resources"])
    assert sum(data["nested_counts"].values()) == 0
    assert data["summary"] == "0 to create, 0 to update, 0 to replace, 0 to delete, 2 unchanged"


class _NoDispatch:
    """A preview enqueues nothing: any node sent is a failure."""

    def node(self, payload: Any, *, countdown: float | None = None) -> None:
        raise AssertionError(f"a preview enqueued a node: {payload}")

    def nodes(self, payloads: Any) -> None:
        raise AssertionError(f"a preview enqueued nodes: {payloads}")


def test_the_preview_s_reads_do_not_grow_with_the_number_of_nested_stacks(
    client: Client,
) -> None:
    _create(client, "two", _parent("v1", count=2))
    _create(client, "six", _parent("v1", count=6))
    env = default_env(_NoDispatch())  # type: ignore[arg-type]

    def statements(name: str, count: int) -> tuple[int, dict[str, Any]]:
        """The statements a preview runs on conv_tasks' own tables (a TestResource reading its
        real object, in the sandbox table, is the resource's own cost: left out)."""
        seen: list[str] = []

        def record(*args: Any) -> None:
            if "sandbox_object" not in str(args[2]):
                seen.append(str(args[2]))

        event.listen(Engine, "before_cursor_execute", record)
        try:
            result = preview_stack(
                env,
                tenant=client.tenant,
                stack_ref=name,
                template=_parent("v2", count),
                parameters={},
                environment=[ENV],
                files=FILES,
            )
        finally:
            event.remove(Engine, "before_cursor_execute", record)
        return len(seen), result

    few, small = statements("two", 2)
    many, large = statements("six", 6)
    assert len(_by_name(small["resources"])["grp"]["nested"]) == 2
    assert len(_by_name(large["resources"])["grp"]["nested"]) == 6
    assert large["nested_counts"]["update"] == 1 + 6 + 6  # box.a, the members, each one's a
    # Six member stacks cost what two do: each level of child stacks is read together.
    assert many == few


def test_a_hidden_value_handed_to_a_nested_stack_stays_hidden_in_its_preview(
    client: Client,
) -> None:
    def parent() -> dict[str, Any]:
        return template(
            {"box": {"type": "My::Box", "properties": {"value": {"get_param": "secret"}}}},
            parameters={"secret": {"type": "string", "hidden": True}},
        )

    stack_id = client.create(
        "hushed", parent(), {"secret": "s3cr3t-one"}, environment=[ENV], files=FILES
    )["stack_id"]
    assert client.wait(stack_id, timeout=120)["status"] == "CREATE_COMPLETE"

    data = client.preview(
        "hushed", parent(), {"secret": "s3cr3t-two"}, environment=[ENV], files=FILES
    )

    inside = _by_name(_by_name(data["resources"])["box"]["nested"])
    assert inside["a"]["action"] == "update"
    assert inside["a"]["changes"] == {"value": {"hidden": True}}
    assert "s3cr3t" not in json.dumps(data)


def test_an_os_heat_stack_s_parameter_known_only_at_apply_is_uncertain_where_read(
    client: Client,
) -> None:
    child = {
        "heat_template_version": "2018-08-31",
        "parameters": {"p": {"type": "string"}, "q": {"type": "string"}},
        "resources": {
            "x": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "p"}}},
            "y": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "q"}}},
        },
    }

    def parent(value: str, q: str) -> dict[str, Any]:
        return template(
            {
                "src": {
                    "type": "OS::Heat::TestResource",
                    "properties": {"value": value, "update_replace": True},
                },
                "inner": {
                    "type": "OS::Heat::Stack",
                    "properties": {
                        "template": json.dumps(child),
                        "parameters": {"p": {"get_attr": ["src", "output"]}, "q": q},
                    },
                },
            }
        )

    stack_id = client.create("inline", parent("s1", "q1"))["stack_id"]
    assert client.wait(stack_id, timeout=120)["status"] == "CREATE_COMPLETE"

    data = client.preview("inline", parent("s2", "q2"))

    inner = _by_name(data["resources"])["inner"]
    assert inner["action"] == "update"
    inside = _by_name(inner["nested"])
    assert "p" in str(inside["x"]["uncertain"])
    assert inside["y"]["uncertain"] is None
    assert inside["y"]["action"] == "update"
    assert inside["y"]["changes"] == {"value": {"old": "q1", "new": "q2"}}
