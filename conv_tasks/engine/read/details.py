"""What users read about one resource, and a stack's template, as JSON-able dicts.

Like views.py, which this builds on, hidden parameter values
never leave this module: a property whose template value reads a hidden
parameter (or an attribute of a resource derived from one) is masked whole,
so are all the attributes of such a resource, every secret attribute (a
wait condition handle's token) and every secret property (a role's
password), and every other value goes through the stack's redactor. With
no template to judge by, nothing is shown.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from conv_tasks.engine.definition import MASK, StackDefinition
from conv_tasks.engine.environment import EngineEnv
from conv_tasks.engine.payload import read_stored_output
from conv_tasks.engine.read.views import (
    iso_time,
    redactor_for,
    resource_summary,
    stack_definition,
)
from conv_tasks.errors import NotFound
from conv_tasks.template import iter_calls, reads_secret_attribute

RECENT_EVENTS = 20


def _masked_properties(definition: StackDefinition, name: str) -> frozenset[str] | None:
    """The properties of `name` that are secret (its type's secret_properties) or whose
    template values derive from a hidden parameter (or read a secret attribute);
    None when all of them must be masked (a resource the template does not name)."""
    secret = definition.secret_properties.get(name, frozenset())
    if name not in definition.hidden_resources:
        return secret
    snippet = definition.template.resources.get(name)
    if snippet is None or name in definition.facade_readers:
        # A reader of a hidden facade: the values are in place of the calls, so which
        # property holds them is not known any more.
        return None
    hidden = definition.template.hidden_parameters()
    masked = set()
    for key, value in snippet.properties.items():
        for function, args in iter_calls(value):
            target = args[0] if isinstance(args, list) and args else args
            if not isinstance(target, str):
                continue  # not a reference (str_replace's mapping): its calls come next
            secret = definition.secret_attributes.get(target, frozenset())
            if (
                (function == "get_param" and target in hidden)
                or (function == "get_attr" and target in definition.hidden_resources)
                or (function == "get_attr" and reads_secret_attribute(args, secret))
            ):
                masked.add(key)
                break
    return frozenset(masked) | secret


def _mask_all(values: Mapping[str, Any]) -> dict[str, Any]:
    return {key: (MASK if value is not None else None) for key, value in values.items()}


def show_resource(
    env: EngineEnv, tenant: str, ref: str, name: str, *, recent_events: int = RECENT_EVENTS
) -> dict[str, Any]:
    """The head version of resource `name` with its properties, attributes, every version
    and its latest events."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, ref)
        definition = stack_definition(env, tx, stack)
        redact = redactor_for(definition)
        rows = sorted(
            (r for r in tx.resources.of_stack(stack.id) if r.name == name),
            key=lambda r: r.version,
        )
        if not rows:
            raise NotFound(f"Stack {stack.name!r} has no resource {name!r}.")
        head = next((r for r in reversed(rows) if r.is_head), rows[-1])
        properties = dict(head.properties_data)
        attributes = dict(read_stored_output(head.attr_data).attributes)
        masked = None if definition is None else _masked_properties(definition, name)
        if masked is None:
            properties, attributes = _mask_all(properties), _mask_all(attributes)
        else:
            properties = {
                key: MASK if key in masked and value is not None else redact.value(value)
                for key, value in properties.items()
            }
            if name in definition.hidden_resources:  # type: ignore[union-attr]
                attributes = _mask_all(attributes)
            else:
                attributes = redact.value(attributes)
            secret = definition.secret_attributes.get(name, frozenset())  # type: ignore[union-attr]
            attributes = {
                key: MASK if key in secret and value is not None else value
                for key, value in attributes.items()
            }
        events = tx.events.list(stack.id, resource_name=name)
        data = resource_summary(head, redact)
        if definition is not None:
            data["status_reason"] = definition.reason(name, head.status_reason)
        data.update(
            stack_id=stack.id,
            stack_name=stack.name,
            properties=properties,
            attributes=attributes,
            versions=[resource_summary(r, redact) for r in rows],
            events=[
                {
                    "id": e.id,
                    "physical_id": e.physical_id,
                    "status": e.state,
                    "reason": redact(e.reason or ""),
                    "time": iso_time(e.created_at),
                }
                for e in events[-recent_events:]
            ],
        )
        return data


def show_template(env: EngineEnv, tenant: str, ref: str) -> dict[str, Any]:
    """The stack's current template and merged environment as stored, with hidden
    parameters' defaults and values masked, and the names of its files."""
    with env.db.transaction() as tx:
        stack = tx.stacks.find(tenant, ref)
        template_id = stack.raw_template_id or stack.prev_raw_template_id
        if template_id is None:
            raise NotFound(f"Stack {stack.name!r} has no template.")
        raw = tx.templates.get(template_id)
        definition = stack_definition(env, tx, stack)
        document = dict(raw.template)
        hidden = definition.template.hidden_parameters() if definition is not None else ()
        parameters = document.get("parameters")
        if isinstance(parameters, dict):
            document["parameters"] = {
                key: (
                    {**schema, "default": MASK}
                    if key in hidden and isinstance(schema, dict) and "default" in schema
                    else schema
                )
                for key, schema in parameters.items()
            }
        environment = {
            section: (
                {k: MASK if k in hidden else v for k, v in values.items()}
                if section in ("parameters", "parameter_defaults") and isinstance(values, dict)
                else values
            )
            for section, values in (raw.environment or {}).items()
        }
        return {
            "stack_id": stack.id,
            "template_id": template_id,
            "template": redactor_for(definition).value(document),
            "environment": redactor_for(definition).value(environment),
            "files": sorted(raw.files or {}),
        }
