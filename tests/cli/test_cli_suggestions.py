""" "Did you mean ...?" in refusals and in `template validate`: the real `conv-tasks`
executable against real workers. A misspelt type, property, function, parameter or
attribute is answered with the nearest known name."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from cli_process import run, tenant, write_template

RANDOM_STRNG = {"type": "OS::Heat::RandomStrng", "properties": {"length": 8}}
MEANT = "did you mean 'OS::Heat::RandomString'?"


@pytest.fixture
def who(workers: Any) -> str:
    return tenant()


def refused(done: Any) -> str:
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith("ERROR: ") and "Traceback" not in done.stderr
    return str(done.stderr)


def test_a_create_with_a_misspelt_type_is_refused_with_the_type_meant(
    who: str, tmp_path: Path
) -> None:
    path = write_template(tmp_path / "t.json", {"pw": RANDOM_STRNG})
    assert refused(run(who, "stack", "create", "typo", "-t", path)) == (
        "ERROR: Invalid input: resources.pw.type: unknown resource type "
        f"'OS::Heat::RandomStrng'; {MEANT}\n"
    )
    done = run(who, "resource-type", "show", "OS::Heat::RandomStrng")
    assert refused(done) == f"ERROR: Unknown resource type 'OS::Heat::RandomStrng'; {MEANT}\n"


def test_misspelt_properties_functions_and_parameters_are_refused_with_the_names_meant(
    who: str, tmp_path: Path
) -> None:
    path = write_template(
        tmp_path / "t.json",
        {
            "tr": {
                "type": "OS::Heat::TestResource",
                "properties": {
                    "valeu": {"get_param": "size"},
                    "fail_on": {"list_jion": [",", ["create"]]},
                },
            }
        },
        parameters={"size": {"type": "string", "default": "1"}},
    )
    text = refused(run(who, "stack", "create", "typo", "-t", path))
    assert "resources.tr.properties.valeu: is not a known property; did you mean 'value'?" in text
    assert (
        "resources.tr.properties.fail_on: must be a list, not a map "
        "('list_jion' is not a function; did you mean 'list_join'?)." in text
    )
    text = refused(run(who, "stack", "create", "typo", "-t", path, "-P", "sise=2"))
    assert "parameters.sise: is not a parameter of this template; did you mean 'size'?" in text


def test_template_validate_suggests_each_name(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text(
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  pw:\n"
        "    type: OS::Heat::RandomStrng\n"
        "  tr:\n"
        "    type: OS::Heat::TestResource\n"
        "  other:\n"
        "    type: OS::Heat::TestResource\n"
        "    properties:\n"
        "      value: {get_attr: [tr, outptu]}\n"
    )
    done = run(tenant(), "template", "validate", str(path))
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{path}:4:5: resources.pw.type: unknown resource type 'OS::Heat::RandomStrng'; {MEANT}",
        f"{path}:10:15: resources.other.properties.value.get_attr: resource 'tr' "
        "(OS::Heat::TestResource) has no attribute 'outptu'; did you mean 'output'?",
        f"2 error(s) in {path}",
    ]
