"""`conv-tasks stack graph` through the real CLI and workers: the DOT parses (pydot), with the
nodes and edges of a known template, coloured by live status; and Mermaid."""

from __future__ import annotations

import re

from click.testing import CliRunner

from conv_tasks.cli.main import cli
from conv_tasks.cli.render.graph import COLOURS
from conv_tasks.client import Client

TEMPLATE = """heat_template_version: 2018-08-31
resources:
  db: {type: OS::Heat::TestResource, properties: {value: d}}
  app:
    type: OS::Heat::TestResource
    properties: {value: {get_attr: [db, output]}}
  web: {type: OS::Heat::TestResource, depends_on: [app]}
  broken: {type: OS::Heat::TestResource, properties: {fail: true}}
"""


def run(client: Client, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--tenant", client.tenant, "--timeout", "30", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_graph_as_dot_has_the_templates_nodes_edges_and_live_colours(client: Client) -> None:
    import pydot

    created = client.create("g", TEMPLATE, disable_rollback=True)
    assert client.wait(created["stack_id"], timeout=120)["status"] == "CREATE_FAILED"
    (graph,) = pydot.graph_from_dot_data(run(client, "stack", "graph", "g"))
    nodes = {n.get_name().strip('"'): n for n in graph.get_nodes() if n.get_name() != "node"}
    names = ("db", "app", "web", "broken")
    assert set(nodes) == {f"{phase}:{n}" for phase in ("update", "cleanup") for n in names}
    edges = {(e.get_source().strip('"'), e.get_destination().strip('"')) for e in graph.get_edges()}
    assert {("update:db", "update:app"), ("update:app", "update:web")} <= edges
    assert ("update:web", "update:db") not in edges
    assert not [e for e in edges if e[0] == "update:broken" and e[1].startswith("update:")]

    def fill(node: str) -> str:
        return str(nodes[node].get("fillcolor")).strip('"')

    assert nodes["update:db"].get("status").strip('"') == "CREATE_COMPLETE"
    assert fill("update:db") == COLOURS["COMPLETE"]
    assert nodes["update:broken"].get("status").strip('"') == "CREATE_FAILED"
    assert fill("update:broken") == COLOURS["FAILED"]


def test_graph_as_mermaid(client: Client) -> None:
    created = client.create("m", TEMPLATE.split("  broken:")[0])
    assert client.wait(created["stack_id"], timeout=120)["status"] == "CREATE_COMPLETE"
    text = run(client, "stack", "graph", "m", "--format", "mermaid")
    lines = text.splitlines()
    assert lines[0] == "flowchart LR"
    ids = {}  # "phase:name" -> the Mermaid id
    for line in lines:
        match = re.fullmatch(r'  (n\d+)\["([^<]+)<br/>(\w+): (\w+)"\]', line)
        if match:
            ids[f"{match[3]}:{match[2]}"] = match[1]
    assert set(ids) == {f"{p}:{n}" for p in ("update", "cleanup") for n in ("db", "app", "web")}
    assert f"  {ids['update:db']} --> {ids['update:app']}" in lines
    assert f"  style {ids['update:web']} fill:{COLOURS['COMPLETE']}" in lines
