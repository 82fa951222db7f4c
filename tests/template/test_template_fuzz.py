"""Property-based: whatever the input, the template layer raises only ConvTasksError."""

from __future__ import annotations

import contextlib
import copy
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conv_tasks.errors import ConvTasksError
from conv_tasks.template import (
    FUNCTION_NAMES,
    ResourceData,
    load_template,
    resolve_outputs,
    resolve_resource,
    validate_parameters,
)

VALID: dict[str, Any] = {
    "heat_template_version": "2018-08-31",
    "description": "fuzz base",
    "parameters": {
        "s": {
            "type": "string",
            "default": "abc",
            "constraints": [{"length": {"min": 1, "max": 9}}, {"allowed_pattern": "[a-z]*"}],
        },
        "n": {"type": "number", "default": 3, "constraints": [{"range": {"min": 0}}]},
        "b": {"type": "boolean", "default": True},
        "j": {"type": "json", "default": {"k": [1, 2]}},
        "l": {
            "type": "comma_delimited_list",
            "default": "x,y",
            "constraints": [{"allowed_values": ["x", "y", "z"]}],
        },
        "h": {"type": "string", "hidden": True, "default": "secret"},
    },
    "parameter_groups": [{"label": "g", "parameters": ["s", "n"]}],
    "resources": {
        "a": {"type": "T", "properties": {"p": {"get_param": "s"}}},
        "b": {
            "type": "T",
            "depends_on": ["a"],
            "metadata": {"m": {"get_attr": ["a", "x", 0]}},
            "properties": {
                "q": {"str_replace": {"template": "$v", "params": {"$v": {"get_resource": "a"}}}},
                "r": {"list_join": [",", {"get_param": "l"}, ["w"]]},
                "t": {"get_param": ["j", "k", 1]},
            },
            "deletion_policy": "Retain",
        },
    },
    "outputs": {"o": {"value": {"get_attr": ["b", "y"]}, "description": "d"}},
}

names = st.sampled_from(["a", "b", "s", "n", "j", "l", "h", "x", "type", "value", "zz", ""])
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=12), names
)


def calls(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.builds(
        lambda name, args: {name: args},
        st.sampled_from(sorted(FUNCTION_NAMES)),
        st.one_of(children, st.lists(st.one_of(names, children), max_size=4)),
    )


values = st.recursive(
    scalars,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.dictionaries(st.one_of(names, st.text(max_size=6)), children, max_size=4),
        calls(children),
    ),
    max_leaves=20,
)


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found.extend(paths(item, (*prefix, key)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            found.extend(paths(item, (*prefix, i)))
    return found


@st.composite
def mutated_templates(draw: st.DrawFn) -> Any:
    document = copy.deepcopy(VALID)
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        candidates = paths(document)[1:]
        if not candidates:
            break
        path = draw(st.sampled_from(candidates))
        parent = document
        for key in path[:-1]:
            parent = parent[key]
        key = path[-1]
        action = draw(st.sampled_from(["drop", "replace", "call", "string", "wrap"]))
        if action == "drop":
            del parent[key]
        elif action == "replace":
            parent[key] = draw(values)
        elif action == "call":
            parent[key] = draw(calls(values))
        elif action == "string":
            parent[key] = draw(st.text(max_size=10))
        else:
            parent[key] = [parent[key]]
    return document


@st.composite
def yaml_texts(draw: st.DrawFn) -> str:
    text = yaml.safe_dump(draw(mutated_templates()), sort_keys=False)
    if draw(st.booleans()):
        position = draw(st.integers(min_value=0, max_value=len(text)))
        text = text[:position] + draw(st.text(max_size=4)) + text[position:]
    return text


sources = st.one_of(
    mutated_templates(),
    yaml_texts(),
    values,
    st.text(max_size=60),
    st.binary(max_size=40),
)
parameter_values = st.dictionaries(st.one_of(names, st.text(max_size=4)), values, max_size=5)
inputs = st.dictionaries(
    names,
    st.builds(
        ResourceData,
        st.one_of(st.none(), st.text(max_size=5)),
        st.dictionaries(names, values, max_size=4),
    ),
    max_size=4,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(source=sources, given_values=parameter_values, data=inputs)
def test_only_conv_tasks_errors(source: Any, given_values: dict[str, Any], data: Any) -> None:
    try:
        template = load_template(source)
    except ConvTasksError:
        return
    for candidate in (given_values, {}):
        try:
            parameters = validate_parameters(template, candidate)
        except ConvTasksError:
            continue
        for name in template.resources:
            with contextlib.suppress(ConvTasksError):
                resolve_resource(template, name, parameters, data)
        outputs = resolve_outputs(template, parameters, data)
        assert set(outputs) == set(template.outputs)


def test_base_template_is_valid() -> None:
    template = load_template(VALID)
    parameters = validate_parameters(template, {})
    a = ResourceData("a-1", {"x": ["first"]})
    resolved = resolve_resource(template, "b", parameters, {"a": a})
    assert resolved.properties == {"q": "a-1", "r": "x,y,w", "t": 2}
    assert resolved.metadata == {"m": "first"}
