"""The fixed corpus of known killers: payloads that stopped, hung, crashed or leaked before.

Each is a `send_task` payload for a public task, sent as a foreign service
would send it (plain JSON kwargs, no kwargsrepr). A Killer says what must come
back: a refusal naming its field (and, for a limit, the limit's name), or,
for an input that is hostile-looking but valid, a correct result. Payloads of
megabytes are built when their test runs, not at import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from conv_tasks.limits import (
    MAX_MESSAGE_BYTES,
    MAX_PAYLOAD_BYTES,
    MAX_REASON_CHARS,
    MAX_TEMPLATE_BYTES,
    MAX_TEMPLATE_DEPTH,
)

VERSION = "2018-08-31"
CREATE = "conv_tasks.stack.create"
TEST_RESOURCE = "OS::Heat::TestResource"


def template(resources: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"heat_template_version": VERSION, "resources": resources, **extra}


def test_resource(value: Any = "v", **props: Any) -> dict[str, Any]:
    return {"type": TEST_RESOURCE, "properties": {"value": value, **props}}


test_resource.__test__ = False  # type: ignore[attr-defined]


def nested(levels: int, leaf: Any = 1) -> Any:
    """A value `levels` deep (mappings around a leaf), built without recursion."""
    value = leaf
    for _ in range(levels - 1):
        value = {"a": value}
    return value


def billion_laughs(levels: int = 9) -> str:
    lines = [f"heat_template_version: {VERSION}", 'lol0: &l0 "lol"']
    for level in range(1, levels + 1):
        refs = ", ".join([f"*l{level - 1}"] * 10)
        lines.append(f"lol{level}: &l{level} [{refs}]")
    lines.append("resources: {}")
    lines.append(f"description: *l{levels}")
    return "\n".join(lines) + "\n"


def yaml_flow(levels: int) -> str:
    return (
        f"heat_template_version: {VERSION}\nresources:\n  a:\n    type: {TEST_RESOURCE}\n"
        f"    properties:\n      value: {'[' * levels}{']' * levels}\n"
    )


def many_resources_yaml(count: int) -> str:
    body = "".join(f"  r{i}: {{type: {TEST_RESOURCE}}}\n" for i in range(count))
    return f"heat_template_version: {VERSION}\nresources:\n{body}"


def text_of_size(size: int) -> str:
    """A valid template of no resources, `size` bytes of YAML text."""
    head = f"heat_template_version: {VERSION}\nresources: {{}}\n# "
    return head + "x" * (size - len(head))


def test_resource_yaml(properties: str, name: str = "a") -> str:
    return (
        f"heat_template_version: {VERSION}\nresources:\n  {name}:\n    type: {TEST_RESOURCE}\n"
        f"    properties:\n{properties}"
    )


test_resource_yaml.__test__ = False  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Killer:
    """One payload of the corpus and what must come back.

    `fields`: every field the refusal must name (a problem's path is the field
    or inside it); empty for a refusal of the whole message (its path is "").
    `says`: text the refusal's message must hold, e.g. the name of the limit.
    `expect`: "refused"; "valid" for a payload that is hostile-looking but valid
    and must succeed; "answered" when either is right and only the time matters.
    """

    id: str
    task: str
    build: Callable[[str], dict[str, Any]]
    fields: tuple[str, ...] = ()
    says: str = ""
    code: str = "invalid_payload"
    expect: str = "refused"
    # How long the answer may take (the catastrophic pattern's bound is what it tests).
    within: float = 30.0


def create(name: str, tmpl: Any, **more: Any) -> Callable[[str], dict[str, Any]]:
    return lambda tenant: {"tenant": tenant, "name": name, "template": tmpl, **more}


def create_lazily(name: str, make: Callable[[], Any]) -> Callable[[str], dict[str, Any]]:
    return lambda tenant: {"tenant": tenant, "name": name, "template": make()}


def with_tenant(**payload: Any) -> Callable[[str], dict[str, Any]]:
    return lambda tenant: {"tenant": tenant, **payload}


def exactly(**payload: Any) -> Callable[[str], dict[str, Any]]:
    return lambda _tenant: dict(payload)


ONE = template({"a": test_resource()})
SIGNAL = "conv_tasks.resource.signal"
INJECTIONS = [
    "'; DROP TABLE stack; --",
    "../../etc/passwd",
    "{{7*7}}",
    "%s%n%x%d",
    "${jndi:ldap://example.invalid/a}",
    "<script>alert(1)</script>",
    "$(reboot)",
    "😀 stack",
    "مكدس",
    "é\u0301",
]

KILLERS: list[Killer] = [
    # 1. Nesting: past the message decoder's limit (issue 11 #1: it stopped the worker), past
    # the payload's, past the template's.
    Killer("json-nested-900", CREATE, create("deep", nested(900)), says="MAX_MESSAGE_DEPTH"),
    Killer(
        "json-nested-125",
        CREATE,
        create("deep", nested(125)),
        ("template",),
        says="MAX_PAYLOAD_DEPTH",
    ),
    Killer(
        "json-nested-past-template-depth",
        CREATE,
        create("deep", template({"a": test_resource(nested(MAX_TEMPLATE_DEPTH + 5))})),
        says="MAX_TEMPLATE_DEPTH",
        code="invalid_template",
    ),
    # 2. Size.
    Killer(
        "payload-past-max-payload-bytes",
        CREATE,
        lambda tenant: create("big", ONE, parameters={"p": "x" * MAX_PAYLOAD_BYTES})(tenant),
        says="MAX_PAYLOAD_BYTES",
    ),
    Killer(
        "payload-past-max-message-bytes",
        CREATE,
        lambda tenant: create("big", ONE, parameters={"p": "x" * (MAX_MESSAGE_BYTES + 1)})(tenant),
        says="MAX_MESSAGE_BYTES",
    ),
    Killer(
        "template-text-past-max-template-bytes",
        CREATE,
        create_lazily("big", lambda: text_of_size(MAX_TEMPLATE_BYTES + 1000)),
        ("template",),
        says="MAX_TEMPLATE_BYTES",
    ),
    Killer(
        "template-text-at-max-template-bytes",
        CREATE,
        create_lazily("edge", lambda: text_of_size(MAX_TEMPLATE_BYTES)),
        expect="valid",
    ),
    Killer(
        "template-text-one-past-max-template-bytes",
        CREATE,
        create_lazily("edge", lambda: text_of_size(MAX_TEMPLATE_BYTES + 1)),
        ("template",),
        says="MAX_TEMPLATE_BYTES",
    ),
    Killer(
        "template-description-past-max-template-bytes",
        CREATE,
        create_lazily("big", lambda: template({}, description="d" * (MAX_TEMPLATE_BYTES + 1))),
        ("template",),
        says="MAX_TEMPLATE_BYTES",
    ),
    # 100,000 resources: written out in full the template is past a size limit first...
    Killer(
        "resources-100000-mapping",
        CREATE,
        create_lazily("many", lambda: template({f"r{i}": test_resource() for i in range(100_000)})),
        says="MAX_PAYLOAD_BYTES",
    ),
    Killer(
        "resources-100000-yaml",
        CREATE,
        create_lazily("many", lambda: many_resources_yaml(100_000)),
        ("template",),
        says="MAX_TEMPLATE_BYTES",
    ),
    # ...and written small enough to pass them, past the number of resources.
    Killer(
        "resources-100000-compact-mapping",
        CREATE,
        create_lazily("many", lambda: template(dict.fromkeys(map(str, range(100_000))))),
        code="invalid_template",
        says="MAX_RESOURCES",
    ),
    Killer(
        "resources-100000-compact-yaml",
        CREATE,
        create_lazily(
            "many",
            lambda: (
                f"heat_template_version: {VERSION}\nresources:\n"
                + "".join(f" {i}: \n" for i in range(100_000))
            ),
        ),
        code="invalid_template",
        says="MAX_RESOURCES",
    ),
    Killer(
        "stack-name-million-chars",
        CREATE,
        lambda tenant: create("n" * 1_000_000, ONE)(tenant),
        ("name",),
        says="MAX_NAME_CHARS",
    ),
    Killer("tenant-300-chars", "conv_tasks.stack.list", exactly(tenant="t" * 300), ("tenant",)),
    Killer(
        "resource-name-5000-chars",
        CREATE,
        create("longres", template({"r" * 5000: test_resource()})),
        says="MAX_NAME_CHARS",
        code="invalid_template",
    ),
    Killer(
        "signal-reason-past-max-reason-chars",
        SIGNAL,
        with_tenant(
            stack="s",
            resource="r",
            details={"deploy_status_reason": "r" * (MAX_REASON_CHARS + 1)},
        ),
        ("details.deploy_status_reason",),
        says="MAX_REASON_CHARS",
    ),
    # 3. NUL and text that is not Unicode (issue 11 #2: psycopg tracebacks).
    Killer("nul-in-stack", "conv_tasks.stack.show", with_tenant(stack="a\x00b"), ("stack",), "NUL"),
    Killer("nul-tenant", "conv_tasks.stack.list", exactly(tenant="\x00"), ("tenant",), "NUL"),
    Killer("nul-in-name", CREATE, create("a\x00", ONE), ("name",), "NUL"),
    Killer(
        "nul-in-template-value",
        CREATE,
        create("nul", template({"a": test_resource("x\x00y")})),
        ("template",),
        "NUL",
    ),
    Killer(
        "nul-in-template-key",
        CREATE,
        create("nul", template({"a\x00b": test_resource()})),
        ("template",),
        "NUL",
    ),
    Killer(
        "nul-in-parameter-value",
        CREATE,
        create("nul", ONE, parameters={"p": "\x00"}),
        ("parameters",),
        "NUL",
    ),
    Killer(
        "nul-in-signal-details",
        SIGNAL,
        with_tenant(stack="s", resource="r", details={"deploy_status_reason": "\x00"}),
        ("details",),
        "NUL",
    ),
    Killer(
        "nul-escaped-in-yaml-resource-name",
        CREATE,
        create("nul", f'heat_template_version: {VERSION}\nresources:\n  "a\\0b": {{type: x}}\n'),
        code="invalid_template",
        says="NUL",
    ),
    Killer(
        "nul-escaped-in-yaml-value",
        CREATE,
        create("nul", test_resource_yaml('      value: "x\\0y"\n')),
        code="invalid_template",
        says="NUL",
    ),
    Killer(
        "lone-surrogate-escaped-in-yaml-value",
        CREATE,
        create("sur", test_resource_yaml('      value: "x\\uD800y"\n')),
        code="invalid_template",
    ),
    Killer("lone-surrogate-in-name", CREATE, create("a\ud800", ONE), ("name",), "surrogate"),
    Killer(
        "lone-surrogate-in-template",
        CREATE,
        create("sur", template({"a": test_resource("\udfff")})),
        ("template",),
        "surrogate",
    ),
    # 4. Numbers out of range (issue 11 #3: a DataError traceback; -1 was accepted).
    Killer(
        "timeout-2-70",
        CREATE,
        create("t", ONE, timeout_mins=2**70),
        ("timeout_mins",),
        "MAX_TIMEOUT_MINS",
    ),
    Killer(
        "timeout-minus-1",
        CREATE,
        create("t", ONE, timeout_mins=-1),
        ("timeout_mins",),
        "MAX_TIMEOUT_MINS",
    ),
    Killer("timeout-zero", CREATE, create("t", ONE, timeout_mins=0), ("timeout_mins",)),
    Killer(
        "timeout-10-400",
        CREATE,
        create("t", ONE, timeout_mins=10**400),
        ("timeout_mins",),
        "finite",
    ),
    Killer(
        "timeout-huge-negative",
        CREATE,
        create("t", ONE, timeout_mins=-(2**200)),
        ("timeout_mins",),
    ),
    Killer(
        "events-after-id-past-bigint",
        "conv_tasks.stack.events",
        with_tenant(stack="s", after_id=2**63),
        ("after_id",),
        "MAX_ID",
    ),
    Killer(
        "events-after-id-negative",
        "conv_tasks.stack.events",
        with_tenant(stack="s", after_id=-1),
        ("after_id",),
    ),
    Killer(
        "wait-secs-1e400-yaml",
        CREATE,
        create("wait", test_resource_yaml("      value: v\n      wait_secs: 1e400\n")),
        code="invalid_template",
        says="wait_secs",
    ),
    Killer(
        "wait-secs-10-400-int",
        CREATE,
        create("wait", template({"a": test_resource(wait_secs=10**400)})),
        ("template",),
        "finite",
    ),
    Killer(
        "wait-secs-infinity",
        CREATE,
        create("wait", template({"a": test_resource(wait_secs=float("inf"))})),
        ("template",),
        "finite",
    ),
    Killer(
        "wait-secs-nan",
        CREATE,
        create("wait", template({"a": test_resource(wait_secs=float("nan"))})),
        ("template",),
        "finite",
    ),
    Killer(
        "wait-secs-a-year",
        CREATE,
        create("wait", template({"a": test_resource(wait_secs=365 * 86400)})),
        code="invalid_template",
        says="wait_secs",
    ),
    # 5. YAML bombs (issue 11 #6: deep flow collections were a SIGSEGV).
    Killer(
        "yaml-billion-laughs",
        CREATE,
        create("lol", billion_laughs()),
        code="invalid_template",
        says="MAX_",
    ),
    Killer(
        "yaml-flow-5000-deep",
        CREATE,
        create("flow", yaml_flow(5000)),
        code="invalid_template",
        says="MAX_TEMPLATE_DEPTH",
    ),
    Killer(
        "yaml-flow-50000-deep",
        CREATE,
        create("flow", yaml_flow(50_000)),
        code="invalid_template",
        says="MAX_TEMPLATE_DEPTH",
    ),
    Killer(
        "yaml-python-tag",
        CREATE,
        create(
            "tag", f"heat_template_version: {VERSION}\nx: !!python/object/apply:os.system [id]\n"
        ),
        code="invalid_template",
    ),
    Killer(
        "yaml-not-a-mapping", CREATE, create("text", "- just\n- a list\n"), code="invalid_template"
    ),
    Killer("yaml-syntax-error", CREATE, create("text", "a: [b\n c: {"), code="invalid_template"),
    # 6. A catastrophic allowed_pattern (issue 11 #6: never answered within 30 s). Refused or
    # not, the answer must come at once; `within` is the bound.
    Killer(
        "allowed-pattern-catastrophic",
        CREATE,
        lambda tenant: {
            "tenant": tenant,
            "name": "redos",
            "template": template(
                {"a": test_resource({"get_param": "p"})},
                parameters={
                    "p": {"type": "string", "constraints": [{"allowed_pattern": "(a+)+$"}]}
                },
            ),
            "parameters": {"p": "a" * 48 + "!"},
        },
        expect="answered",
        within=10.0,
    ),
    # 7. Wrong types everywhere.
    Killer(
        "create-every-field-wrong",
        CREATE,
        exactly(
            tenant=1,
            name=[],
            template=3.5,
            parameters="p",
            disable_rollback="yes",
            timeout_mins="10",
        ),
        ("tenant", "name", "template", "parameters", "disable_rollback", "timeout_mins"),
    ),
    Killer(
        "update-every-field-wrong",
        "conv_tasks.stack.update",
        exactly(
            tenant=None,
            stack={},
            template=[],
            parameters=[],
            existing_parameters=1,
            disable_rollback=0,
            timeout_mins=True,
        ),
        (
            "tenant",
            "stack",
            "template",
            "parameters",
            "existing_parameters",
            "disable_rollback",
            "timeout_mins",
        ),
    ),
    Killer(
        "signal-every-field-wrong",
        SIGNAL,
        exactly(tenant=True, stack=0.0, resource=None, details=[]),
        ("tenant", "stack", "resource", "details"),
    ),
    Killer(
        "signal-deploy-status-wrong",
        SIGNAL,
        with_tenant(stack="s", resource="r", details={"deploy_status": 5}),
        ("details.deploy_status",),
    ),
    Killer(
        "events-after-id-string",
        "conv_tasks.stack.events",
        with_tenant(stack="s", after_id="0"),
        ("after_id",),
    ),
    Killer(
        "show-include-deleted-string",
        "conv_tasks.stack.show",
        with_tenant(stack="s", include_deleted="yes"),
        ("include_deleted",),
    ),
    Killer(
        "unknown-arguments",
        "conv_tasks.stack.list",
        with_tenant(tenants=["*"], **{"__class__": 1, "": 2}),
        ("tenants", "__class__", ""),
    ),
    Killer("no-arguments", "conv_tasks.stack.delete", exactly(), ("tenant", "stack")),
    Killer(
        "template-every-section-wrong",
        CREATE,
        create("types", {"heat_template_version": 5, "resources": [1, 2], "outputs": "o"}),
        code="invalid_template",
    ),
    Killer(
        "template-properties-wrong",
        CREATE,
        create("types", template({"a": test_resource({"k": [1]}, wait_secs="soon", fail=3)})),
        code="invalid_template",
    ),
    Killer(
        "template-functions-wrong",
        CREATE,
        create(
            "fns",
            template(
                {"a": test_resource({"get_attr": [1, {}]}, fail_on={"str_replace": 5})},
                outputs={"o": {"value": {"get_param": ["x", {"y": None}]}}},
            ),
        ),
        code="invalid_template",
    ),
    Killer(
        "parameter-value-wrong-type",
        CREATE,
        create(
            "ptype",
            template(
                {"a": test_resource({"get_param": "p"})}, parameters={"p": {"type": "number"}}
            ),
            parameters={"p": {"nested": [1]}},
        ),
        code="invalid_parameters",
    ),
    Killer(
        "dependency-cycle",
        CREATE,
        create(
            "cycle",
            template(
                {
                    "a": {**test_resource(), "depends_on": ["b"]},
                    "b": {**test_resource(), "depends_on": ["a"]},
                }
            ),
        ),
        code="dependency_cycle",
    ),
    # 8. Unicode that hides or forges what a name shows.
    Killer("rtl-override-in-name", CREATE, create("abc\u202egpj.exe", ONE), ("name",)),
    Killer(
        "zero-width-in-tenant", "conv_tasks.stack.list", exactly(tenant="a\u200bb"), ("tenant",)
    ),
    Killer("newline-in-stack", "conv_tasks.stack.show", with_tenant(stack="a\nb"), ("stack",)),
    Killer(
        "rtl-override-in-resource-name",
        CREATE,
        create("rtl", template({"a\u202eb": test_resource()})),
        code="invalid_template",
    ),
    # 9. Injection-looking text: refused as a stack name (letters, digits, '_', '-', '.'), a
    # correct result anywhere else, kept exactly as given.
    *(
        Killer(f"injection-stack-name-{i}", CREATE, create(text, ONE), ("name",))
        for i, text in enumerate(INJECTIONS)
    ),
    *(
        Killer(
            f"injection-tenant-{i}", "conv_tasks.stack.list", exactly(tenant=text), expect="valid"
        )
        for i, text in enumerate(INJECTIONS)
    ),
    *(
        Killer(
            f"injection-in-template-{i}",
            CREATE,
            create(
                f"inj{i}",
                template(
                    {text: test_resource({"get_param": text})},
                    description=text,
                    parameters={text: {"type": "string", "default": text}},
                    outputs={text: {"value": {"get_attr": [text, "output"]}}},
                ),
                parameters={text: text},
            ),
            expect="valid",
        )
        for i, text in enumerate(INJECTIONS)
    ),
]
