"""Definitions build a nested stack's template with the facade stored beside it: from the
node's template text (get), from a row (of_row) and from values (of); without one,
resource_facade is an error naming its path."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest

from conv_tasks.engine.definition.definitions import Definitions
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.engine.definition.redact import MASK
from conv_tasks.errors import TemplateError
from conv_tasks.template import ResourceData

CHILD = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "v": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"resource_facade": "metadata"}, "type": "json"},
        }
    },
    "outputs": {"policy": {"value": {"resource_facade": "deletion_policy"}}},
}
FACADE = {"metadata": {"role": "web"}, "deletion_policy": "Retain", "update_policy": {}}


@dataclass
class Row:
    id: int
    template: dict[str, Any]
    parameters: dict[str, Any] = field(default_factory=dict)
    environment: dict[str, Any] = field(default_factory=dict)
    files: dict[str, Any] = field(default_factory=dict)
    facade: dict[str, Any] | None = None


def _texts(facade: dict[str, Any] | None) -> tuple[str, str, str, str, str | None]:
    return json.dumps(CHILD), "{}", "{}", "{}", None if facade is None else json.dumps(facade)


def test_get_builds_with_the_stored_facade() -> None:
    built = Definitions(10 * 2**20).get(1, lambda _: _texts(FACADE))
    assert built.template.resources["v"].properties["value"] == {"role": "web"}
    assert built.outputs({})["policy"]["value"] == "Retain"


def test_get_without_a_stored_facade_names_the_calls() -> None:
    with pytest.raises(TemplateError) as refused:
        Definitions(10 * 2**20).get(1, lambda _: _texts(None))
    assert [p.path for p in refused.value.problems] == [
        "resources.v.properties.value.resource_facade",
        "outputs.policy.value.resource_facade",
    ]


def test_of_row_and_of_pass_the_facade() -> None:
    definitions = Definitions(10 * 2**20)
    built = definitions.of_row(Row(1, CHILD, facade=FACADE))
    assert built.template.resources["v"].properties["value"] == {"role": "web"}
    other = {"metadata": {"role": "db"}}
    built = definitions.of(2, CHILD, {}, facade=other)
    assert built.template.resources["v"].properties["value"] == {"role": "db"}
    # A facade that does not say gives Heat's defaults.
    assert built.outputs({})["policy"]["value"] == "Delete"


def test_the_facade_counts_in_the_cached_weight() -> None:
    small, large = Definitions(10 * 2**20), Definitions(10 * 2**20)
    small.of(1, CHILD, {}, facade=FACADE)
    large.of(1, CHILD, {}, facade={**FACADE, "metadata": {"blob": "x" * 10_000}})
    assert large.used > small.used


READERS = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "v": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"resource_facade": "metadata"}, "type": "json"},
        },
        "after": {
            "type": "OS::Heat::Value",
            "properties": {"value": {"get_attr": ["v", "value"]}, "type": "json"},
        },
        "apart": {"type": "OS::Heat::Value", "properties": {"value": "plain"}},
    },
    "outputs": {
        "direct": {"value": {"resource_facade": "metadata"}},
        "through": {"value": {"get_attr": ["after", "value"]}},
        "plain": {"value": {"get_attr": ["apart", "value"]}},
    },
}


def test_a_hidden_facade_hides_what_reads_it() -> None:
    secret = {"metadata": {"password": "s3cret"}, "hidden": True}
    built = StackDefinition.build(READERS, {}, facade=secret)
    assert built.hidden_resources == {"v", "after"}
    assert built.hidden_outputs == {"direct", "through"}
    inputs = {
        "after": ResourceData(None, {"value": {"password": "s3cret"}}),
        "apart": ResourceData(None, {"value": "plain"}),
    }
    shown = {name: out["value"] for name, out in built.shown_outputs(inputs).items()}
    assert shown == {"direct": MASK, "through": MASK, "plain": "plain"}
    assert "s3cret" not in built.reason("v", "failed with s3cret")
    # The same values from a parent that is not hidden are shown.
    plain = StackDefinition.build(READERS, {}, facade={"metadata": {"password": "s3cret"}})
    assert plain.hidden_resources == frozenset() and plain.hidden_outputs == frozenset()
