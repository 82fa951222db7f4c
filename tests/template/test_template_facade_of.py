"""facade_of: what a resolved resource hands its child stack for resource_facade."""

from __future__ import annotations

from types import SimpleNamespace

from conv_tasks.template import (
    ResolvedResource,
    facade_of,
    facade_readers,
    load_template,
    resolve_resource,
)


def _resolved(**resource: object) -> ResolvedResource:
    doc = {
        "heat_template_version": "2018-08-31",
        "parameters": {"role": {"type": "string"}},
        "resources": {"box": {"type": "My::Box", **resource}},
    }
    return resolve_resource(load_template(doc), "box", {"role": "web"}, {})


def test_the_facade_is_the_resolved_metadata_and_the_deletion_policy() -> None:
    resolved = _resolved(metadata={"role": {"get_param": "role"}}, deletion_policy="retain")
    assert facade_of(resolved) == {
        "metadata": {"role": "web"},
        "deletion_policy": "Retain",
        "update_policy": {},
    }


def test_the_facade_of_a_resource_that_does_not_say() -> None:
    assert facade_of(_resolved()) == {
        "metadata": {},
        "deletion_policy": "Delete",
        "update_policy": {},
    }


def test_an_update_policy_is_handed_on_when_the_resource_has_one() -> None:
    # The template loader keeps update_policy once resources accept it (ResourceGroup).
    resolved = SimpleNamespace(
        metadata={}, deletion_policy="Delete", update_policy={"rolling_update": {"max": 1}}
    )
    assert facade_of(resolved)["update_policy"] == {"rolling_update": {"max": 1}}  # type: ignore[arg-type]


def test_a_hidden_resource_marks_its_facade_and_its_readers_are_found() -> None:
    resolved = _resolved(metadata={"role": {"get_param": "role"}})
    facade = facade_of(resolved, hidden=True)
    assert facade["hidden"] is True and facade["metadata"] == {"role": "web"}
    child = load_template(
        {
            "heat_template_version": "2018-08-31",
            "resources": {
                "reads": {"type": "T", "metadata": {"m": {"resource_facade": "metadata"}}},
                "not": {"type": "T", "properties": {"p": 1}},
            },
            "outputs": {
                "o": {"value": {"resource_facade": "deletion_policy"}},
                "n": {"value": 1},
            },
        }
    )
    assert facade_readers(child, facade) == ({"reads"}, {"o"})
    assert facade_readers(child, facade_of(resolved)) == (frozenset(), frozenset())
    assert facade_readers(child, None) == (frozenset(), frozenset())
