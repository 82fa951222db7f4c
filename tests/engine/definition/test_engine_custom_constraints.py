"""custom_constraint in validate and in a request's definition: checked values, a warning
for a constraint nobody provides, a refusal when strict, nothing for a stored template."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.constraints import installed_checkers
from conv_tasks.engine.definition import StackDefinition, validate_template
from conv_tasks.errors import ParameterError, TemplateError

TEMPLATE = """\
heat_template_version: 2018-08-31
parameters:
  flavor:
    type: string
    default: m1.small
    constraints:
      - custom_constraint: nova.flavor
  address:
    type: string
    constraints:
      - custom_constraint: ip_addr
        description: the server's address
  zones:
    type: comma_delimited_list
    default: Europe/Paris,UTC
    constraints:
      - custom_constraint: timezone
resources:
  server:
    type: OS::Heat::TestResource
    properties:
      value: {get_param: flavor}
"""
WARNING = (
    "parameters.flavor: the custom constraint 'nova.flavor' has no checker here, so its "
    "values are not checked (a package can provide one; CONV_TASKS_STRICT_CONSTRAINTS=1 "
    "refuses such templates)"
)
STRICT = installed_checkers().strictly(True)


def test_validate_warns_of_a_constraint_nobody_provides() -> None:
    result = validate_template(TEMPLATE)
    assert result["valid"] is True, result["errors"]
    assert result["warnings"] == [WARNING]


def test_validate_checks_values_defaults_and_environments_with_the_checkers() -> None:
    result = validate_template(TEMPLATE, {"address": "10.0.0.300"})
    assert [(e["path"], e["line"]) for e in result["errors"]] == [("parameters.address", 8)]
    assert result["errors"][0]["message"] == (
        "the value does not pass the custom constraint 'ip_addr': is not an IP address "
        "(the server's address)"
    )
    bad_default = TEMPLATE.replace("Europe/Paris,UTC", "Europe/Paris,Mars/Base")
    result = validate_template(bad_default)
    assert [e["path"] for e in result["errors"]] == ["parameters.zones.default"]
    assert (
        "item 1 of the value does not pass the custom constraint 'timezone'"
        in (result["errors"][0]["message"])
    )
    environment = [{"parameter_defaults": {"address": "::1/64"}}]
    result = validate_template(TEMPLATE, environment=environment)
    assert [e["path"] for e in result["errors"]] == ["environment.parameter_defaults.address"]


def test_strict_validate_refuses_the_constraint_by_its_path() -> None:
    result = validate_template(TEMPLATE, constraints=STRICT)
    assert result["valid"] is False
    assert [(e["path"], e["line"], e["column"]) for e in result["errors"]] == [
        ("parameters.flavor.constraints.0.custom_constraint", 7, 9)
    ]
    assert "CONV_TASKS_STRICT_CONSTRAINTS" in result["errors"][0]["message"]
    assert result["warnings"] == []


def build(parameters: dict[str, Any], **kwargs: Any) -> StackDefinition:
    return StackDefinition.build(TEMPLATE, parameters, **kwargs)


def test_a_requests_definition_warns_and_checks() -> None:
    definition = build({"address": "10.0.0.1"}, constraints=installed_checkers())
    assert definition.warnings == (WARNING,)
    with pytest.raises(ParameterError) as caught:
        build({"address": "10.0.0.01"}, constraints=installed_checkers())
    assert [p.path for p in caught.value.problems] == ["parameters.address"]


def test_a_strict_request_is_refused() -> None:
    with pytest.raises(TemplateError) as caught:
        build({"address": "10.0.0.1"}, constraints=STRICT)
    assert [p.path for p in caught.value.problems] == [
        "parameters.flavor.constraints.0.custom_constraint"
    ]


def test_a_stored_template_is_rebuilt_without_the_checks() -> None:
    # What a request accepted stays loadable: no checkers, no warning, no refusal.
    definition = build({"address": "not checked any more"})
    assert definition.warnings == ()
    assert definition.parameters["address"] == "not checked any more"
