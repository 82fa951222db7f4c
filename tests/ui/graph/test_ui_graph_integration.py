"""The renderer on a real stack: created by real workers, read through the public tasks
(conv_tasks.stack.graph, conv_tasks.stack.resources with nested_depth) as the web view reads
them, drawn with the real `dot`: one node per resource, the failed one marked, the group
collapsed with its members' counts until opened."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from conv_tasks.client import Client
from conv_tasks.ui.graph import render_svg

NS = "{http://www.w3.org/2000/svg}"

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  db: {type: OS::Heat::TestResource, properties: {value: d}}
  app:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [db, output]}}
  web: {type: OS::Heat::TestResource, depends_on: [app]}
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 3
      resource_def: {type: OS::Heat::TestResource, properties: {value: m-%index%}}
  broken:
    type: OS::Heat::TestResource
    depends_on: [web, group]
    properties: {fail: true}
"""


def nodes(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    found = {}
    for group in root.iter(f"{NS}g"):
        path = group.get("data-path")
        if path is not None:
            assert path not in found, f"{path} drawn twice"
            found[path] = group
    return found


def label(group: ET.Element) -> list[str]:
    return [t.text or "" for t in group.iter(f"{NS}text")]


def test_a_real_stack_is_drawn_one_node_per_resource_with_the_failed_one_marked(
    client: Client,
) -> None:
    created = client.create("drawn", TEMPLATE, disable_rollback=True)
    assert client.wait(created["stack_id"], timeout=120)["status"] == "CREATE_FAILED"
    graph = client.graph("drawn")
    resources = client.resources("drawn", nested_depth=1)
    top = [r for r in resources if r["stack_id"] == created["stack_id"]]
    assert sorted(r["name"] for r in top) == ["app", "broken", "db", "group", "web"]

    view = render_svg(graph, resources)
    drawn = nodes(view.svg)
    assert set(drawn) == {r["name"] for r in top}
    assert (view.node_count, view.total_nodes, view.trimmed, view.note) == (5, 5, False, "")
    for r in top:
        node = drawn[r["name"]]
        assert node.get("data-node") == r["name"]
        assert node.get("data-status") == r["status"]
        assert node.get("data-phase") == "update"
    broken = drawn["broken"]
    assert broken.get("data-status") == "CREATE_FAILED"
    assert broken.get("class") == "node status-create_failed failed"
    assert label(broken) == ["broken", "CREATE_FAILED"]
    assert [p for p, g in drawn.items() if "failed" in (g.get("class") or "").split()] == ["broken"]
    assert label(drawn["db"]) == ["db", "CREATE_COMPLETE"]
    # The failed resource's reason is its tooltip.
    title = broken.find(f"{NS}title")
    assert title is not None and title.text is not None
    assert title.text.startswith("broken: CREATE_FAILED\n")
    reason = next(r["status_reason"] for r in top if r["name"] == "broken")
    assert reason and reason in title.text

    group = drawn["group"]
    assert group.get("data-collapsed") == "true"
    assert label(group) == ["group (3: 3 complete)", "CREATE_COMPLETE"]

    opened = render_svg(graph, resources, expand=frozenset({"group"}))
    members = nodes(opened.svg)
    assert set(members) == {r["name"] for r in top} | {"group/0", "group/1", "group/2"}
    assert members["group"].get("data-collapsed") == "false"
    assert {members[f"group/{i}"].get("data-status") for i in range(3)} == {"CREATE_COMPLETE"}

    with_cleanup = render_svg(graph, resources, show_cleanup=True)
    phases = sorted(
        (str(g.get("data-node")), str(g.get("data-phase"))) for g in nodes_all(with_cleanup.svg)
    )
    assert phases == sorted(
        [(r["name"], "update") for r in top] + [(r["name"], "cleanup") for r in top]
    )


def nodes_all(svg: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter(f"{NS}g") if g.get("data-node") is not None]
