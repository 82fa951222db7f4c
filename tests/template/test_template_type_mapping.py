"""resource_registry: aliases, wildcards, per-resource mappings, OS::Heat::None, providers."""

from __future__ import annotations

import pytest

from conv_tasks.errors import TemplateError
from conv_tasks.limits import MAX_TYPE_MAPPINGS
from conv_tasks.template import load_template
from conv_tasks.template.environment import EMPTY, Environment, parse_environment
from conv_tasks.template.type_mapping import (
    ProviderTemplate,
    map_resource_types,
    resolve_type,
)

TEMPLATE = {
    "heat_template_version": "2018-08-31",
    "resources": {
        "web": {"type": "OS::Nova::Server", "properties": {"image": "x"}},
        "db": {"type": "OS::Nova::Server"},
        "token": {"type": "My::Random", "properties": {"length": 8}},
        "thing": {"type": "OS::Heat::None"},
    },
}


def env(registry: dict[str, object]) -> Environment:
    return parse_environment({"resource_registry": registry}, name="e")


def test_without_mappings_a_type_is_itself() -> None:
    assert resolve_type(EMPTY, "OS::Heat::None", "r") == "OS::Heat::None"
    template = load_template(TEMPLATE)
    assert map_resource_types(template, EMPTY, {}).template is template


def test_an_alias_and_a_chain_of_aliases() -> None:
    e = env({"My::Random": "My::Other", "My::Other": "OS::Heat::RandomString"})
    assert resolve_type(e, "My::Random", "token") == "OS::Heat::RandomString"


def test_a_mapping_to_itself_is_the_type() -> None:
    e = env({"OS::Heat::None": "OS::Heat::None"})
    assert resolve_type(e, "OS::Heat::None", "r") == "OS::Heat::None"


def test_a_resources_own_mapping_wins_over_the_stack_wide_one() -> None:
    e = env(
        {
            "OS::Nova::Server": "OS::Heat::TestResource",
            "resources": {"web": {"OS::Nova::Server": "OS::Heat::None"}},
        }
    )
    assert resolve_type(e, "OS::Nova::Server", "web") == "OS::Heat::None"
    assert resolve_type(e, "OS::Nova::Server", "db") == "OS::Heat::TestResource"


def test_wildcards_keep_the_suffix_and_the_longest_prefix_wins() -> None:
    e = env({"OS::Old::*": "OS::New::*", "OS::Old::Special::*": "OS::Heat::None"})
    assert resolve_type(e, "OS::Old::Thing", "r") == "OS::New::Thing"
    assert resolve_type(e, "OS::Old::Special::X", "r") == "OS::Heat::None"
    # an exact mapping wins over a wildcard
    e = env({"OS::Old::*": "OS::New::*", "OS::Old::Thing": "OS::Heat::None"})
    assert resolve_type(e, "OS::Old::Thing", "r") == "OS::Heat::None"


def test_a_circle_of_mappings_is_refused_at_the_resource_type() -> None:
    e = env({"A::A": "B::B", "B::B": "A::A"})
    with pytest.raises(TemplateError) as exc:
        resolve_type(e, "A::A", "web")
    assert exc.value.problems[0].path == "resources.web.type"
    assert "A::A -> B::B -> A::A" in str(exc.value)


def test_a_chain_past_the_limit_is_refused() -> None:
    chain = {f"T::{i}": f"T::{i + 1}" for i in range(MAX_TYPE_MAPPINGS + 1)}
    with pytest.raises(TemplateError, match="MAX_TYPE_MAPPINGS"):
        resolve_type(env(chain), "T::0", "web")
    chain = {f"T::{i}": f"T::{i + 1}" for i in range(MAX_TYPE_MAPPINGS)}
    assert resolve_type(env(chain), "T::0", "web") == f"T::{MAX_TYPE_MAPPINGS}"


def test_types_are_replaced_in_a_copy_of_the_template() -> None:
    template = load_template(TEMPLATE)
    e = env(
        {
            "My::Random": "OS::Heat::RandomString",
            "resources": {"web": {"OS::Nova::Server": "OS::Heat::None"}},
        }
    )
    mapped = map_resource_types(template, e, {})
    types = {name: r.type for name, r in mapped.template.resources.items()}
    assert types == {
        "web": "OS::Heat::None",
        "db": "OS::Nova::Server",
        "token": "OS::Heat::RandomString",
        "thing": "OS::Heat::None",
    }
    assert mapped.template.resources["web"].properties == {"image": "x"}
    assert template.resources["web"].type == "OS::Nova::Server"  # the original is untouched
    assert mapped.template.raw is template.raw
    assert not mapped.providers


def test_a_provider_template_comes_with_its_text() -> None:
    template = load_template(TEMPLATE)
    e = env({"OS::Nova::Server": "server.yaml"})
    mapped = map_resource_types(template, e, {"server.yaml": "heat_template_version: 2018-08-31"})
    assert mapped.providers == {
        name: ProviderTemplate(
            "OS::Nova::Server", "server.yaml", "heat_template_version: 2018-08-31"
        )
        for name in ("web", "db")
    }
    # The file is the resource's type from now on: what the engine stores and looks up.
    assert {mapped.template.resources[n].type for n in ("web", "db")} == {"server.yaml"}


def test_a_type_written_as_a_template_file_is_a_provider_too() -> None:
    source = {"heat_template_version": "2018-08-31", "resources": {"n": {"type": "nested.yaml"}}}
    mapped = map_resource_types(load_template(source), EMPTY, {"nested.yaml": "x"})
    assert mapped.providers["n"] == ProviderTemplate("nested.yaml", "nested.yaml", "x")


def test_a_provider_template_missing_from_files_names_type_and_file() -> None:
    template = load_template(TEMPLATE)
    with pytest.raises(TemplateError) as exc:
        map_resource_types(template, env({"My::Random": "random.yaml"}), {})
    [problem] = exc.value.problems
    assert problem.path == "resources.token.type"
    assert "'My::Random'" in problem.message and "'random.yaml'" in problem.message
