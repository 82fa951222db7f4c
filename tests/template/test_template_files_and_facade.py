"""get_file (resolved from the files given when the template is loaded) and
resource_facade (resolved from the parent resource's definition)."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.template import apply_facade, load_template

DOC: dict[str, Any] = {
    "heat_template_version": "2013-05-23",
    "resources": {
        "a": {
            "type": "T",
            "properties": {
                "script": {"get_file": "scripts/boot.sh"},
                "nested": [{"config": {"get_file": "conf/app.yaml"}}],
            },
            "metadata": {"m": {"get_file": "scripts/boot.sh"}},
        }
    },
    "outputs": {"o": {"value": {"get_file": "conf/app.yaml"}}},
}
FILES = {"scripts/boot.sh": "#!/bin/sh\necho {get_param: x}\n", "conf/app.yaml": "a: 1\n"}


def test_get_file_puts_the_text_in_place() -> None:
    template = load_template(DOC, files=FILES)
    assert template.resources["a"].properties == {
        "script": FILES["scripts/boot.sh"],
        "nested": [{"config": "a: 1\n"}],
    }
    assert template.resources["a"].metadata == {"m": FILES["scripts/boot.sh"]}
    assert template.outputs["o"].value == "a: 1\n"


def test_the_raw_document_keeps_get_file() -> None:
    template = load_template(DOC, files=FILES)
    assert template.raw["resources"]["a"]["properties"]["script"] == {"get_file": "scripts/boot.sh"}


def test_a_missing_file_names_the_file_and_the_path() -> None:
    with pytest.raises(TemplateError) as info:
        load_template(DOC, files={"scripts/boot.sh": "x"})
    assert [str(p) for p in info.value.problems] == [
        "resources.a.properties.nested.0.config.get_file: file 'conf/app.yaml' is not among "
        "the files given with the template",
        "outputs.o.value.get_file: file 'conf/app.yaml' is not among the files given with the "
        "template",
    ]


def test_get_file_without_files_and_with_a_bad_argument() -> None:
    doc = {
        "heat_template_version": "2018-08-31",
        "resources": {
            "a": {"type": "T", "properties": {"p": {"get_file": "x"}, "q": {"get_file": ["x"]}}}
        },
    }
    with pytest.raises(TemplateError) as info:
        load_template(doc)
    assert [str(p) for p in info.value.problems] == [
        "resources.a.properties.p.get_file: file 'x' is not among the files given with the "
        "template",
        "resources.a.properties.q.get_file: the argument must be the name of a file",
    ]


FACADE_DOC: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "a": {
            "type": "T",
            "properties": {
                "policy": {"resource_facade": "deletion_policy"},
                "update": {"resource_facade": "update_policy"},
            },
            "metadata": {"from_parent": {"resource_facade": "metadata"}},
        }
    },
    "outputs": {"o": {"value": {"resource_facade": "metadata"}}},
}


def test_resource_facade_reads_the_parent_definition() -> None:
    template = apply_facade(
        load_template(FACADE_DOC),
        {"metadata": {"role": "db"}, "deletion_policy": "Retain", "update_policy": {"x": 1}},
    )
    assert template.resources["a"].properties == {"policy": "Retain", "update": {"x": 1}}
    assert template.resources["a"].metadata == {"from_parent": {"role": "db"}}
    assert template.outputs["o"].value == {"role": "db"}


def test_resource_facade_defaults_when_the_parent_does_not_say() -> None:
    template = apply_facade(load_template(FACADE_DOC), {})
    assert template.resources["a"].properties == {"policy": "Delete", "update": {}}


def test_resource_facade_without_a_parent_is_an_error() -> None:
    with pytest.raises(TemplateError) as info:
        apply_facade(load_template(FACADE_DOC), None)
    message = (
        "resource_facade works only in a template used as a nested stack or as a provider "
        "of a resource type"
    )
    assert [str(p) for p in info.value.problems] == [
        f"resources.a.properties.policy.resource_facade: {message}",
        f"resources.a.properties.update.resource_facade: {message}",
        f"resources.a.metadata.from_parent.resource_facade: {message}",
        f"outputs.o.value.resource_facade: {message}",
    ]


def test_resource_facade_argument_is_checked_at_load() -> None:
    doc = {
        "heat_template_version": "2018-08-31",
        "resources": {"a": {"type": "T", "properties": {"p": {"resource_facade": "name"}}}},
    }
    with pytest.raises(TemplateError) as info:
        load_template(doc)
    assert [str(p) for p in info.value.problems] == [
        "resources.a.properties.p.resource_facade: the argument must be one of metadata, "
        "deletion_policy, update_policy"
    ]
