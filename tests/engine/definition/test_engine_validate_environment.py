"""validate_template with environments and files: mapped types, environment values, refusals."""

from __future__ import annotations

from conv_tasks.engine.definition.validate import validate_template

TEMPLATE = """heat_template_version: 2018-08-31
parameters:
  length: {type: number, constraints: [{range: {min: 1, max: 64}}]}
resources:
  token:
    type: My::Token
    properties:
      length: {get_param: length}
  other:
    type: OS::Heat::TestResource
    properties:
      value: {get_attr: [token, value]}
"""
REGISTRY = {"resource_registry": {"My::Token": "OS::Heat::RandomString"}}


def paths(result: dict) -> list[str]:
    return [e["path"] for e in result["errors"]]


def test_types_are_those_after_the_registry() -> None:
    result = validate_template(TEMPLATE, environment=[REGISTRY])
    assert result["valid"], result["errors"]
    assert result["types"] == {"token": "OS::Heat::RandomString", "other": "OS::Heat::TestResource"}
    # get_attr is checked against the mapped type's attributes
    assert result["order"] == ["token", "other"]


def test_without_the_registry_the_alias_is_unknown_with_its_line() -> None:
    result = validate_template(TEMPLATE)
    [error] = result["errors"]
    assert (error["path"], error["line"]) == ("resources.token.type", 6)


def test_environment_values_are_checked_against_declarations() -> None:
    result = validate_template(
        TEMPLATE, environment=[REGISTRY, {"parameter_defaults": {"length": 100}}]
    )
    assert paths(result) == ["environment.parameter_defaults.length"]
    result = validate_template(TEMPLATE, environment=[REGISTRY, {"parameters": {"lenght": 3}}])
    assert paths(result) == ["environment.parameters.lenght"]


def test_a_malformed_environment_is_an_answer_not_a_refusal() -> None:
    result = validate_template(TEMPLATE, environment=[REGISTRY, {"resource_registry": []}])
    assert not result["valid"]
    assert paths(result) == ["environment.1.resource_registry"]


PROVIDER = """heat_template_version: 2018-08-31
parameters:
  length: {type: number}
outputs:
  value: {value: {get_param: length}}
"""


def test_a_provider_template_is_checked_as_a_type() -> None:
    env = {"resource_registry": {"My::Token": "token.yaml"}}
    result = validate_template(TEMPLATE, environment=[env], files={"token.yaml": PROVIDER})
    assert result["valid"], result["errors"]
    assert result["types"]["token"] == "token.yaml"
    # get_attr of an output the provider template does not have is caught
    wrong = TEMPLATE.replace("[token, value]", "[token, valeu]")
    result = validate_template(wrong, environment=[env], files={"token.yaml": PROVIDER})
    assert paths(result) == ["resources.other.properties.value.get_attr"]
    broken = validate_template(TEMPLATE, environment=[env], files={"token.yaml": "{}"})
    assert paths(broken) == ["resources.token.type"]
    assert "does not load" in broken["errors"][0]["message"]
    missing = validate_template(TEMPLATE, environment=[env])
    assert "not in the files" in missing["errors"][0]["message"]


def test_a_template_that_does_not_load_still_has_its_types_mapped() -> None:
    broken = TEMPLATE + "outputs:\n  o: {valeu: 1}\n"
    result = validate_template(broken, environment=[REGISTRY])
    assert "resources.token.type" not in paths(result)
    assert "outputs.o.valeu" in paths(result)
