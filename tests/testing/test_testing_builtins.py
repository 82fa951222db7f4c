"""The conformance kit applied to the built-in types it applies to, on real workers; those that
act on the sandbox cloud again with the sandbox's faults on (it throttles and fails some calls,
as a busy cloud does)."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from sqlalchemy import select

from conv_tasks.db.models import SandboxObject
from conv_tasks.db.session import session_scope
from conv_tasks.testing import (
    CheckedStack,
    CheckResult,
    Conformance,
    TypeCase,
    Verdict,
    sandbox_faults,
)


def sandbox_objects(stack: CheckedStack) -> int:
    """The live sandbox objects the stack's TestResources made (their tokens name the stack)."""
    with session_scope(stack.database_url) as session:
        rows = session.scalars(
            select(SandboxObject).where(
                SandboxObject.token.like(f"{stack.stack_id}:%"), SandboxObject.deleted.is_(False)
            )
        )
        return len(list(rows))


TEST_RESOURCE = TypeCase(
    type_name="OS::Heat::TestResource",
    properties={"value": "one"},
    update_in_place={"value": "two"},
    update_replace={"update_replace_value": "other"},
    slow_properties={"action_wait_secs": {"create": 2}},
    count_objects=sandbox_objects,
)


def test_test_resource_conforms(conformance: Conformance) -> None:
    report = conformance.check(TEST_RESOURCE)
    assert report.not_applicable == [
        CheckResult("secrets kept", Verdict.NOT_APPLICABLE, "the case names no connections")
    ]


def test_test_resource_conforms_with_the_sandboxs_faults_on(conformance: Conformance) -> None:
    busy = replace(TEST_RESOURCE, service_faults=sandbox_faults())
    report = conformance.check(busy, service_faults=True)
    assert report.service_faults
    assert {r.check for r in report.not_applicable} == {"secrets kept"}, report.render()


CHILD_TEMPLATE = json.dumps(
    {
        "heat_template_version": "2018-08-31",
        "parameters": {"v": {"type": "string"}},
        "resources": {
            "r": {"type": "OS::Heat::TestResource", "properties": {"value": {"get_param": "v"}}}
        },
    }
)
MEMBER = {"type": "OS::Heat::TestResource", "properties": {"value": "member"}}
CANNOT_OBSERVE = {"observe after create", "observe after delete"}
NO_SECRETS = {"secrets kept"}
ONE_STEP = {"interrupt"}  # a create that finishes in its first step has nothing to interrupt

# Each case, and the checks that do not apply to its type (all others must pass).
CASES = [
    (
        TypeCase(
            type_name="OS::Heat::RandomString",
            properties={"length": 8},
            update_replace={"salt": "another"},
        ),
        CANNOT_OBSERVE | NO_SECRETS | ONE_STEP | {"update in place"},
    ),
    (
        TypeCase(
            type_name="OS::Heat::Value",
            properties={"value": "one", "type": "string"},
            update_in_place={"value": "two"},
        ),
        CANNOT_OBSERVE | NO_SECRETS | ONE_STEP | {"replacement"},
    ),
    (
        TypeCase(
            type_name="OS::Heat::None",
            properties={"anything": 1},
            update_in_place={"anything": 2},
        ),
        CANNOT_OBSERVE | NO_SECRETS | ONE_STEP | {"replacement"},
    ),
    (
        TypeCase(type_name="OS::Heat::WaitConditionHandle"),  # its create takes two steps
        CANNOT_OBSERVE | NO_SECRETS | {"update in place", "replacement"},
    ),
    (
        TypeCase(
            type_name="OS::Heat::SoftwareConfig",
            properties={"config": "echo one"},
            update_replace={"config": "echo two"},
        ),
        CANNOT_OBSERVE | NO_SECRETS | ONE_STEP | {"update in place"},
    ),
    (
        TypeCase(
            type_name="OS::Heat::Stack",
            properties={"template": CHILD_TEMPLATE, "parameters": {"v": "one"}},
            update_in_place={"parameters": {"v": "two"}},
        ),
        CANNOT_OBSERVE | NO_SECRETS | {"replacement"},
    ),
    (
        TypeCase(
            type_name="OS::Heat::ResourceGroup",
            properties={"count": 1, "resource_def": MEMBER},
            update_in_place={"count": 2},
            update_replace={"index_var": "%i%"},
        ),
        CANNOT_OBSERVE | NO_SECRETS,
    ),
]


# The built-in types whose stacks act on the sandbox (a child stack's, a group's members).
ON_THE_SANDBOX = [
    (case, not_applicable)
    for case, not_applicable in CASES
    if case.type_name in ("OS::Heat::Stack", "OS::Heat::ResourceGroup")
]


@pytest.mark.parametrize(
    ("case", "not_applicable"), ON_THE_SANDBOX, ids=[case.type_name for case, _ in ON_THE_SANDBOX]
)
def test_a_builtin_type_with_sandbox_members_conforms_with_the_sandboxs_faults_on(
    conformance: Conformance, case: TypeCase, not_applicable: set[str]
) -> None:
    report = conformance.check(replace(case, service_faults=sandbox_faults()), service_faults=True)
    assert {r.check for r in report.not_applicable} == not_applicable, report.render()


@pytest.mark.parametrize(
    ("case", "not_applicable"), CASES, ids=[case.type_name for case, _ in CASES]
)
def test_a_builtin_type_conforms(
    conformance: Conformance, case: TypeCase, not_applicable: set[str]
) -> None:
    report = conformance.check(case)
    assert {r.check for r in report.not_applicable} == not_applicable, report.render()


def signal_handle_twice(stack: CheckedStack) -> bool:
    """The host a wait condition waits for: two SUCCESS signals on its handle (enough for a
    count of two) once the handle exists."""
    for _ in range(2):
        stack.client.signal(stack.stack_id, "handle", {"status": "SUCCESS"})
    return True


def test_wait_condition_conforms_with_a_host_that_signals(conformance: Conformance) -> None:
    case = TypeCase(
        type_name="OS::Heat::WaitCondition",
        companions={"handle": {"type": "OS::Heat::WaitConditionHandle"}},
        properties={"handle": {"get_resource": "handle"}, "timeout": 60},
        update_in_place={"count": 2},
        update_replace={"timeout": 120},
        act=signal_handle_twice,
    )
    report = conformance.check(case)
    assert {r.check for r in report.not_applicable} == CANNOT_OBSERVE | NO_SECRETS


def deploy(stack: CheckedStack) -> bool:
    """The server's agent: it reports the deployment's run COMPLETE once the resource has
    published it (the owner's signal goes to the deployment its resource records)."""
    deployment = stack.client.deployment(stack.stack_id, stack.resource)
    [resource] = [r for r in stack.client.resources(stack.stack_id) if r["name"] == stack.resource]
    if resource["physical_id"] != deployment["id"] or not deployment["status"].endswith(
        "_IN_PROGRESS"
    ):
        return False
    stack.client.signal(stack.stack_id, stack.resource, {"deploy_status": "COMPLETE"})
    return True


def test_software_deployment_conforms_with_an_agent_that_signals(
    conformance: Conformance,
) -> None:
    case = TypeCase(
        type_name="OS::Heat::SoftwareDeployment",
        companions={
            "config": {"type": "OS::Heat::SoftwareConfig", "properties": {"config": "true"}}
        },
        properties={"config": {"get_resource": "config"}, "server": "server-1"},
        update_in_place={"input_values": {"round": 2}},
        update_replace={"server": "server-2"},
        act=deploy,
    )
    report = conformance.check(case)
    assert {r.check for r in report.not_applicable} == CANNOT_OBSERVE | NO_SECRETS
