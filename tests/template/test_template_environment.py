"""Environments: parsing each section, refusals by name and path, merging in order, limits."""

from __future__ import annotations

import pytest

from conv_tasks.errors import InvalidEnvironment, ParameterError
from conv_tasks.limits import (
    MAX_ENVIRONMENT_BYTES,
    MAX_ENVIRONMENTS,
    MAX_FILE_NAME_CHARS,
    MAX_FILES,
    MAX_FILES_BYTES,
)
from conv_tasks.template.environment import (
    EMPTY,
    check_files,
    merge_environments,
    parameter_values,
    parse_environment,
    stored_environment,
)

ENV_TEXT = """
parameters:
  flavor: m1.small
parameter_defaults:
  image: cirros
  not_in_any_template: 1
resource_registry:
  "My::Random": OS::Heat::RandomString
  "OS::Old::*": "OS::New::*"
  "My::Server": server.yaml
  resources:
    web:
      "OS::Nova::Server": OS::Heat::None
"""


def paths(exc: pytest.ExceptionInfo[InvalidEnvironment]) -> list[str]:
    return [p.path for p in exc.value.problems]


def test_every_section_is_read() -> None:
    env = parse_environment(ENV_TEXT, name="env.yaml")
    assert env.parameters == {"flavor": "m1.small"}
    assert env.parameter_defaults == {"image": "cirros", "not_in_any_template": 1}
    assert env.registry == {
        "My::Random": "OS::Heat::RandomString",
        "OS::Old::*": "OS::New::*",
        "My::Server": "server.yaml",
    }
    assert env.resource_registry == {"web": {"OS::Nova::Server": "OS::Heat::None"}}


def test_the_stored_form_reads_back_the_same() -> None:
    env = parse_environment(ENV_TEXT, name="env.yaml")
    assert stored_environment(env.to_dict()) == env
    assert stored_environment({}) is EMPTY
    assert stored_environment(None) is EMPTY


def test_an_empty_file_is_an_empty_environment() -> None:
    assert parse_environment("", name="empty.yaml").is_empty()
    assert parse_environment("{}", name="empty.yaml").is_empty()


def test_unknown_sections_are_refused_naming_the_file_and_section() -> None:
    with pytest.raises(InvalidEnvironment) as exc:
        parse_environment("parameters: {}\nparamters: {a: 1}\n", name="prod.yaml")
    assert paths(exc) == ["prod.yaml.paramters"]
    assert "unknown section" in str(exc.value)
    assert "parameter_defaults" in str(exc.value)
    assert exc.value.code == "invalid_environment"


@pytest.mark.parametrize(
    ("text", "path", "words"),
    [
        ("event_sinks: [{type: zaqar-queue}]", "e.yaml.event_sinks", "not supported"),
        (
            "parameter_merge_strategies: {default: merge}",
            "e.yaml.parameter_merge_strategies",
            "not supported",
        ),
        ("encrypted_param_names: [password]", "e.yaml.encrypted_param_names", "must be empty"),
        (
            "resource_registry: {resources: {web: {hooks: pre-create}}}",
            "e.yaml.resource_registry.resources.web.hooks",
            "hooks are not supported",
        ),
        (
            "resource_registry: {resources: {web: {restricted_actions: replace}}}",
            "e.yaml.resource_registry.resources.web.restricted_actions",
            "not supported",
        ),
        ("parameters: [a, b]", "e.yaml.parameters", "must be a mapping"),
        ("resource_registry: {'My::T': 3}", "e.yaml.resource_registry.My::T", "must name"),
        (
            "resource_registry: {'My::T': 'OS::New::*'}",
            "e.yaml.resource_registry.My::T",
            "wildcard",
        ),
        (
            "resource_registry: {'My::T': 'https://example.com/t.yaml'}",
            "e.yaml.resource_registry.My::T",
            "URLs are not supported",
        ),
        ("resource_registry: {resources: [web]}", "e.yaml.resource_registry.resources", "map"),
        ("- a\n- b\n", "e.yaml", "must be a mapping"),
    ],
)
def test_refusals_name_the_path(text: str, path: str, words: str) -> None:
    with pytest.raises(InvalidEnvironment) as exc:
        parse_environment(text, name="e.yaml")
    assert path in paths(exc)
    assert words in str(exc.value)


def test_empty_refused_sections_are_accepted() -> None:
    # Heat writes these out empty when it shows an environment; reading one back is fine.
    env = parse_environment(
        "encrypted_param_names: []\nevent_sinks: []\nparameter_merge_strategies: {}\n",
        name="e.yaml",
    )
    assert env.is_empty()


def test_yaml_syntax_errors_name_the_file_and_line() -> None:
    with pytest.raises(InvalidEnvironment) as exc:
        parse_environment("parameters:\n  a: [1\n", name="broken.yaml")
    assert "broken.yaml" in str(exc.value)
    assert "line" in str(exc.value)


def test_later_environments_win_key_by_key() -> None:
    first = {
        "parameters": {"a": 1, "b": 1},
        "parameter_defaults": {"x": "first"},
        "resource_registry": {
            "My::A": "OS::Heat::None",
            "My::B": "OS::Heat::RandomString",
            "resources": {"web": {"T::1": "OS::Heat::None", "T::2": "OS::Heat::None"}},
        },
    }
    second = {
        "parameters": {"b": 2},
        "parameter_defaults": {"y": "second"},
        "resource_registry": {
            "My::B": "OS::Heat::None",
            "resources": {"web": {"T::2": "OS::Heat::RandomString"}, "db": {"T::3": "X::Y"}},
        },
    }
    env = merge_environments([first, second])
    assert env.parameters == {"a": 1, "b": 2}
    assert env.parameter_defaults == {"x": "first", "y": "second"}
    assert env.registry == {"My::A": "OS::Heat::None", "My::B": "OS::Heat::None"}
    assert env.resource_registry == {
        "web": {"T::1": "OS::Heat::None", "T::2": "OS::Heat::RandomString"},
        "db": {"T::3": "X::Y"},
    }


def test_merge_reports_every_environment_by_index() -> None:
    with pytest.raises(InvalidEnvironment) as exc:
        merge_environments([{"parameters": {}}, {"bogus": 1}, "resource_registry: 4"])
    assert paths(exc) == ["environment.1.bogus", "environment.2.resource_registry"]


def test_an_environment_that_is_neither_text_nor_mapping_is_refused() -> None:
    with pytest.raises(InvalidEnvironment) as exc:
        merge_environments([3])  # type: ignore[list-item]
    assert paths(exc) == ["environment.0"]


def test_limits_are_checked_before_parsing() -> None:
    with pytest.raises(InvalidEnvironment, match="MAX_ENVIRONMENTS"):
        merge_environments([{}] * (MAX_ENVIRONMENTS + 1))
    big = "parameters:\n  a: '" + "x" * MAX_ENVIRONMENT_BYTES + "'\n"
    with pytest.raises(InvalidEnvironment, match="MAX_ENVIRONMENT_BYTES"):
        parse_environment(big, name="big.yaml")
    with pytest.raises(InvalidEnvironment, match="MAX_ENVIRONMENT_BYTES"):
        parse_environment({"parameters": {"a": "x" * MAX_ENVIRONMENT_BYTES}}, name="big")


def test_parameter_precedence_follows_heat() -> None:
    env = merge_environments(
        [
            {"parameter_defaults": {"a": "default", "b": "default", "c": "default", "zz": 1}},
            {"parameters": {"a": "env", "b": "env"}},
        ]
    )
    values = parameter_values({"a", "b", "c", "d"}, {"a": "explicit"}, env)
    # explicit > environment parameters > parameter_defaults; undeclared defaults ignored
    assert values == {"a": "explicit", "b": "env", "c": "default"}


def test_environment_parameters_must_be_declared() -> None:
    env = parse_environment({"parameters": {"flavour": "x"}}, name="e")
    with pytest.raises(ParameterError) as exc:
        parameter_values({"flavor"}, {}, env)
    assert [p.path for p in exc.value.problems] == ["environment.parameters.flavour"]


def test_files_are_checked_against_the_limits() -> None:
    assert check_files({"a.txt": "hello"}) == {"a.txt": "hello"}
    with pytest.raises(InvalidEnvironment, match="MAX_FILES\\)"):
        check_files({f"f{i}": "" for i in range(MAX_FILES + 1)})
    with pytest.raises(InvalidEnvironment, match="MAX_FILES_BYTES"):
        check_files({"a": "x" * (MAX_FILES_BYTES // 2 + 1), "b": "x" * (MAX_FILES_BYTES // 2)})
    with pytest.raises(InvalidEnvironment, match="MAX_FILE_NAME_CHARS"):
        check_files({"n" * (MAX_FILE_NAME_CHARS + 1): ""})
    with pytest.raises(InvalidEnvironment) as exc:
        check_files({"a.txt": 3, "b.txt": "ok\x00"})
    assert paths(exc) == ["files.a.txt", "files.b.txt"]
