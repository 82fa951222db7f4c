"""The public tasks' JSON Schemas: one for every task, valid Draft 2020-12, and refusing a
payload at exactly the paths the worker names."""

from __future__ import annotations

import json
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from conv_tasks.errors import PayloadError
from conv_tasks.requests import Field
from conv_tasks.tasks.app import app
from conv_tasks.tasks.contracts import contracts, public_tasks
from conv_tasks.tasks.payload_schema import kwargs_schema, schema_paths
from conv_tasks.tasks.payloads import parse_payload

# Tasks that are not part of the public interface: graph nodes, beat jobs, the health ping.
INTERNAL = ("conv_tasks.node.", "conv_tasks.beat.", "conv_tasks.health.")
TEMPLATE = {"heat_template_version": "2018-08-31", "resources": {}}

TASKS = public_tasks()


def _sample(spec: Field) -> Any:
    """A valid value of the field."""
    if spec.name == "template":
        return TEMPLATE
    if spec.name == "marker":
        return "0b6f4cbe-4a56-4c8e-9d2a-3f1e8a7b5c60"  # a stack id (conv_tasks.stack.overview)
    kind = spec.kinds[0]
    if kind is str:
        return "web-1"
    if kind is bool:
        return False
    if kind is int:
        return spec.low if spec.low is not None else 0
    return {} if kind is dict else []


def valid_payload(task: str) -> dict[str, Any]:
    return {spec.name: _sample(spec) for spec in TASKS[task]}


def foreign_validator(task: str) -> tuple[dict[str, Any], Draft202012Validator]:
    """The kwargs schema as a caller in another language gets it: printed JSON."""
    schema = json.loads(json.dumps(contracts(task)[task]["kwargs"]))
    return schema, Draft202012Validator(schema)


def worker_paths(task: str, payload: dict[str, Any]) -> set[str]:
    try:
        parse_payload(task, payload, TASKS[task])
    except PayloadError as exc:
        return {p.path for p in exc.problems}
    return set()


def test_every_registered_public_task_has_a_contract() -> None:
    registered = {name for name in app.tasks if name.startswith("conv_tasks.")}
    public = {name for name in registered if not name.startswith(INTERNAL)}
    assert public == set(TASKS)
    assert len(public) >= 16
    assert set(contracts()) == public


@pytest.mark.parametrize("task", sorted(TASKS))
def test_each_schema_is_valid_draft_2020_12(task: str) -> None:
    contract = contracts(task)[task]
    for part in ("kwargs", "result"):
        schema = contract[part]
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        Draft202012Validator.check_schema(schema)
    kwargs = contract["kwargs"]
    assert set(kwargs["properties"]) == {spec.name for spec in TASKS[task]}
    assert set(kwargs["required"]) == {spec.name for spec in TASKS[task] if spec.required}


@pytest.mark.parametrize("task", sorted(TASKS))
def test_a_valid_payload_passes_the_schema_and_the_worker(task: str) -> None:
    payload = valid_payload(task)
    schema, validator = foreign_validator(task)
    assert not list(validator.iter_errors(payload))
    assert worker_paths(task, payload) == set()
    # Optional fields may be left out, or given as null.
    required = {k: v for k, v in payload.items() if k in schema["required"]}
    assert not list(validator.iter_errors(required)) and worker_paths(task, required) == set()
    nulls = {**required, **{k: None for k in payload if k not in required}}
    assert not list(validator.iter_errors(nulls)) and worker_paths(task, nulls) == set()


def _broken(task: str) -> list[dict[str, Any]]:
    """Invalid payloads for the task, each breaking one or more fields."""
    base = valid_payload(task)
    out: list[dict[str, Any]] = [{**base, "surplus": 1}, {**base, "other": "x", "more": []}]
    for spec in TASKS[task]:
        if spec.required:
            out.append({k: v for k, v in base.items() if k != spec.name})
            out.append({**base, spec.name: None})
        wrong: Any = 7 if str in spec.kinds else "seven"
        out.append({**base, spec.name: wrong})
        if int in spec.kinds:
            out.append({**base, spec.name: True})
            if spec.high is not None:
                out.append({**base, spec.name: spec.high.value + 1})
                out.append({**base, spec.name: (spec.low or 0) - 1})
        if str in spec.kinds and spec.required:
            out.append({**base, spec.name: "   "})
        if spec.is_name:
            out.append({**base, spec.name: "a\nb"})
            out.append({**base, spec.name: "zero\u200bwidth"})
            out.append({**base, spec.name: "n" * 256})
    everything = {spec.name: [] for spec in TASKS[task] if list not in spec.kinds}
    out.append({**everything, "unknown": 1})
    return out


@pytest.mark.parametrize("task", sorted(TASKS))
def test_invalid_payloads_fail_the_schema_at_the_paths_the_worker_names(task: str) -> None:
    schema, validator = foreign_validator(task)
    cases = _broken(task)
    assert len(cases) >= 5
    for payload in cases:
        expected = worker_paths(task, payload)
        assert expected, payload
        assert set(schema_paths(schema, payload, validator)) == expected, payload


def test_results_carry_the_ok_envelope_or_the_refusal() -> None:
    schema = contracts("conv_tasks.stack.create")["conv_tasks.stack.create"]["result"]
    validator = Draft202012Validator(schema)
    started = {
        "ok": True,
        "stack_id": "s",
        "name": "web",
        "action": "CREATE",
        "status": "CREATE_IN_PROGRESS",
        "traversal": "t",
        "event_id": 3,
        "warnings": [],
    }
    refusal = {
        "ok": False,
        "error": "invalid_payload",
        "message": "Invalid payload: name: is required (a string)",
        "problems": [{"path": "name", "message": "is required (a string)"}],
    }
    assert not list(validator.iter_errors(started))
    assert not list(validator.iter_errors(refusal))
    assert list(validator.iter_errors({"ok": True, "stack_id": 5}))
    assert list(validator.iter_errors({"ok": False, "problems": []}))
    # A task without a result schema of its own still has the envelope.
    assert contracts("conv_tasks.stack.list")["conv_tasks.stack.list"]["result"]["oneOf"]


def test_whatever_the_schema_refuses_the_worker_refuses(monkeypatch: pytest.MonkeyPatch) -> None:
    """The schema is enforced, not only the Field checks: a stricter schema refuses more."""
    from conv_tasks.tasks import payloads

    def stricter(task: str, fields: list[Field]) -> dict[str, Any]:
        schema = kwargs_schema(task, fields)
        schema["properties"]["count"]["multipleOf"] = 2
        return schema

    monkeypatch.setattr(payloads, "kwargs_schema", stricter)
    fields = [Field("count", (int,), required=True)]
    assert parse_payload("conv_tasks.example.even", {"count": 4}, fields) == {"count": 4}
    with pytest.raises(PayloadError) as caught:
        parse_payload("conv_tasks.example.even", {"count": 3}, fields)
    [problem] = caught.value.problems
    assert problem.path == "count" and "JSON Schema" in problem.message
