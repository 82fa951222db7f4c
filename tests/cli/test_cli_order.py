"""Stable output order and `-f csv`: the real `conv-tasks` executable against real workers.

Outputs, resources and parameters come in the order the template writes them, whichever
worker answers (the database used to give a template back in an order of its own, and a
worker that had the template cached since its create gave the written one: `stack
outputs` alternated); `-c` columns come in the order given, in every format.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

import pytest
import yaml
from cli_process import run, tenant, test_resource, write_template

# Neither sorted nor shortest-first (the order PostgreSQL's jsonb keeps keys in).
RESOURCES = ["zeta", "alpha", "mid"]
OUTPUTS = ["zz_last", "a_first", "mm"]
PARAMETERS = ["zeta_size", "a"]


@pytest.fixture(scope="module")
def world(workers: Any, tmp_path_factory: pytest.TempPathFactory) -> str:
    who = tenant()
    path = write_template(
        tmp_path_factory.mktemp("order") / "t.json",
        {name: test_resource(name) for name in RESOURCES},
        parameters={name: {"type": "string", "default": name} for name in PARAMETERS},
        outputs={
            name: {"value": {"get_attr": [RESOURCES[n], "output"]}, "description": f"d {n}"}
            for n, name in enumerate(OUTPUTS)
        },
    )
    done = run(who, "stack", "create", "ordered", "-t", path, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    return who


def out(done: Any) -> str:
    assert done.returncode == 0, done.stdout + done.stderr
    return str(done.stdout)


def test_outputs_come_in_template_order_on_every_call(world: str) -> None:
    # Four worker processes each answer some of the calls: each must give the same order.
    for _ in range(8):
        names = out(run(world, "stack", "outputs", "ordered", "-f", "value", "-c", "output"))
        assert names.split() == OUTPUTS
    as_json = json.loads(out(run(world, "--json", "stack", "outputs", "ordered")))
    assert list(as_json) == OUTPUTS


def test_resources_come_in_template_order(world: str) -> None:
    for _ in range(4):
        names = out(run(world, "stack", "resources", "ordered", "-f", "value", "-c", "name"))
        assert names.split() == RESOURCES
    table = out(run(world, "stack", "resources", "ordered")).splitlines()[2:]
    assert [line.split()[0] for line in table] == RESOURCES


def test_json_and_yaml_keep_the_order_of_the_columns_given(world: str) -> None:
    picked = ("-c", "status", "-c", "parameters")
    shown = json.loads(out(run(world, "stack", "show", "ordered", "-f", "json", *picked)))
    assert list(shown) == ["status", "parameters"]
    assert list(shown["parameters"]) == PARAMETERS
    backwards = out(
        run(world, "stack", "show", "ordered", "-f", "yaml", "-c", "parameters", "-c", "status")
    )
    assert list(yaml.safe_load(backwards)) == ["parameters", "status"]
    assert backwards.index("zeta_size:") < backwards.index("a: a")
    rows = json.loads(
        out(run(world, "stack", "resources", "ordered", "-f", "json", "-c", "status", "-c", "name"))
    )
    assert [list(row) for row in rows] == [["status", "name"]] * len(RESOURCES)
    assert [row["name"] for row in rows] == RESOURCES


def test_csv_has_a_header_and_quotes_as_cliff_does(world: str) -> None:
    picked = ("-c", "name", "-c", "version", "-c", "status")
    text = out(run(world, "stack", "resources", "ordered", "-f", "csv", *picked))
    lines = text.splitlines()
    # cliff's default, nonnumeric: every string quoted, numbers bare.
    assert lines[0] == '"name","version","status"'
    assert lines[1:] == [f'"{name}",0,"CREATE_COMPLETE"' for name in RESOURCES]
    minimal = out(
        run(world, "stack", "outputs", "ordered", "-f", "csv", "--quote", "minimal")
    ).splitlines()
    assert minimal[0] == "output,value,description,error"
    assert minimal[1:] == [f"{name},{RESOURCES[n]},d {n}," for n, name in enumerate(OUTPUTS)]


def test_csv_of_a_show_is_one_row_and_structures_are_json(world: str) -> None:
    text = out(
        run(world, "stack", "show", "ordered", "-f", "csv", "-c", "name", "-c", "parameters")
    )
    [header, row] = list(csv.reader(io.StringIO(text)))
    assert header == ["name", "parameters"]
    assert row[0] == "ordered"
    assert json.loads(row[1]) == {"zeta_size": "zeta_size", "a": "a"}
    assert list(json.loads(row[1])) == PARAMETERS


def test_a_table_keeps_the_template_order_of_a_value(world: str) -> None:
    text = out(run(world, "stack", "show", "ordered", "-c", "parameters"))
    assert '{"zeta_size": "zeta_size", "a": "a"}' in text
