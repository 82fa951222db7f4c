"""Conditions and the newer intrinsic functions, through real workers: flipping a parameter
makes a resource appear and disappear, and every function's value reaches the resources
and the outputs."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from integration_support import sandbox_objects

from conv_tasks.client import Client
from conv_tasks.errors import InvalidInput

TEMPLATE: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "parameters": {
        "env": {"type": "string", "default": "dev"},
        "names": {"type": "comma_delimited_list", "default": "a,b,c"},
    },
    "conditions": {
        "prod": {"equals": [{"get_param": "env"}, "prod"]},
        "not_prod": {"not": "prod"},
    },
    "resources": {
        "db": {
            "type": "OS::Heat::TestResource",
            "condition": "prod",
            "properties": {
                "value": {
                    "str_replace_strict": {
                        "template": "db-$env",
                        "params": {"$env": {"get_param": "env"}},
                    }
                }
            },
        },
        "cache": {
            "type": "OS::Heat::TestResource",
            "condition": "not_prod",
            "properties": {"value": "cache"},
        },
        "web": {
            "type": "OS::Heat::Value",
            "properties": {
                "type": "json",
                "value": {
                    "name": {"if": ["prod", "prod-web", "dev-web"]},
                    "backend": {
                        "if": ["prod", {"get_attr": ["db", "output"]}, {"get_attr": ["cache"]}]
                    },
                    "ports": {
                        "repeat": {"template": {"port": "%p%"}, "for_each": {"%p%": ["80", "443"]}}
                    },
                    "tags": {
                        "map_merge": [
                            {"a": "1"},
                            {"map_replace": [{"b": "2"}, {"keys": {"b": "B"}}]},
                        ]
                    },
                    "all": {"list_concat_unique": [["x", "y"], ["y", "z"]]},
                    "url": {
                        "make_url": {
                            "scheme": "https",
                            "host": {"str_split": [",", "h1,h2", 0]},
                            "path": "/x y",
                        }
                    },
                    "digest": {"digest": ["sha256", {"list_join": ["-", {"get_param": "names"}]}]},
                    "filtered": {"filter": [["b"], {"get_param": "names"}]},
                    "has_a": {"contains": ["a", {"get_param": "names"}]},
                },
            },
        },
    },
    "outputs": {
        "web": {"value": {"get_attr": ["web", "value"]}},
        "db": {"value": {"get_attr": ["db"]}, "condition": "prod"},
        "where": {"value": {"if": ["prod", {"get_resource": "db"}, {"get_resource": "cache"}]}},
    },
}


def sandbox_values(stack_id: str) -> list[str]:
    return sorted(o.properties["value"] for o in sandbox_objects(stack_id))


def test_conditions_flip_resources_and_functions_reach_values(client: Client) -> None:
    stack_id = client.create("functions", TEMPLATE)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    assert sorted(r["name"] for r in client.resources(stack_id)) == ["cache", "web"]
    assert sandbox_values(stack_id) == ["cache"]
    outputs = client.outputs(stack_id)
    web = outputs["web"]["value"]
    assert web == {
        "name": "dev-web",
        "backend": {"output": "cache", "physical_id": web["backend"]["physical_id"]},
        "ports": [{"port": "80"}, {"port": "443"}],
        "tags": {"a": "1", "B": "2"},
        "all": ["x", "y", "z"],
        "url": "https://h1/x%20y",
        "digest": hashlib.sha256(b"a-b-c").hexdigest(),
        "filtered": ["a", "c"],
        "has_a": True,
    }
    assert web["backend"]["physical_id"]
    assert outputs["db"]["value"] is None
    assert outputs["where"]["value"] == web["backend"]["physical_id"]

    # Production: the database appears, the cache goes, and web follows the database.
    client.update(stack_id, parameters={"env": "prod", "names": "b,d"})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert sorted(r["name"] for r in client.resources(stack_id)) == ["db", "web"]
    assert sandbox_values(stack_id) == ["db-prod"]
    outputs = client.outputs(stack_id)
    web = outputs["web"]["value"]
    assert (web["name"], web["backend"], web["filtered"], web["has_a"]) == (
        "prod-web",
        "db-prod",
        ["d"],
        False,
    )
    assert web["digest"] == hashlib.sha256(b"b-d").hexdigest()
    assert outputs["db"]["value"]["output"] == "db-prod"
    assert outputs["where"]["value"] == outputs["db"]["value"]["physical_id"]

    # And back: the database is deleted again.
    client.update(stack_id, parameters={"env": "dev"})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert sorted(r["name"] for r in client.resources(stack_id)) == ["cache", "web"]
    assert sandbox_values(stack_id) == ["cache"]
    assert client.outputs(stack_id)["web"]["value"]["backend"]["output"] == "cache"


def test_a_reference_to_a_left_out_resource_is_refused_and_changes_nothing(
    client: Client,
) -> None:
    broken = {
        **TEMPLATE,
        "outputs": {"db": {"value": {"get_resource": "db"}}},
    }
    with pytest.raises(InvalidInput) as info:
        client.create("functions-broken", broken)
    assert "outputs.db: refers to resource 'db', which 'prod' leaves out" in str(info.value)
    assert client.list() == []  # the tenant is fresh: nothing was stored


CHILD = """
heat_template_version: 2018-08-31
resources:
  motd:
    type: OS::Heat::Value
    properties: {value: {get_file: motd.txt}}
outputs:
  motd: {value: {get_attr: [motd, value]}}
"""


def test_get_file_reads_the_files_given_and_kept_across_updates(client: Client) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "parameters": {"greeting": {"type": "string", "default": "hello"}},
        "resources": {
            "v": {
                "type": "OS::Heat::Value",
                "properties": {
                    "value": {
                        "str_replace": {
                            "template": {"get_file": "motd.txt"},
                            "params": {"$greeting": {"get_param": "greeting"}},
                        }
                    }
                },
            },
            # The child's template is a file, and reads a file itself: files go down.
            "child": {
                "type": "OS::Heat::Stack",
                "properties": {"template": {"get_file": "child.yaml"}},
            },
        },
        "outputs": {
            "v": {"value": {"get_attr": ["v", "value"]}},
            "child": {"value": {"get_attr": ["child", "outputs", "motd"]}},
        },
    }
    files = {"motd.txt": "$greeting from a file", "child.yaml": CHILD}
    stack_id = client.create("files", template, files=files)["stack_id"]
    assert client.wait(stack_id)["status"] == "CREATE_COMPLETE"
    outputs = client.outputs(stack_id)
    assert outputs["v"]["value"] == "hello from a file"
    assert outputs["child"]["value"] == "$greeting from a file"
    # The stored template keeps the call; the file is stored beside it.
    stored = client.template(stack_id)
    assert stored["resources"]["v"]["properties"]["value"]["str_replace"]["template"] == {
        "get_file": "motd.txt"
    }
    # A parameters-only update keeps the template and its files.
    client.update(stack_id, parameters={"greeting": "hi"})
    assert client.wait(stack_id)["status"] == "UPDATE_COMPLETE"
    assert client.outputs(stack_id)["v"]["value"] == "hi from a file"


def test_a_create_naming_a_file_not_given_is_refused(client: Client) -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "v": {"type": "OS::Heat::Value", "properties": {"value": {"get_file": "x.txt"}}}
        },
    }
    with pytest.raises(InvalidInput) as info:
        client.create("no-file", template, files={"y.txt": "y"})
    assert (
        "resources.v.properties.value.get_file: file 'x.txt' is not among the files given "
        "with the template" in str(info.value)
    )
    assert client.list() == []
