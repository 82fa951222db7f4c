"""What a type package tells the conformance kit about the type it checks.

A TypeCase names the type, the properties of one resource of it, the changes an update makes
in place and one that replaces it, the connections it acts through, and, for types whose
create waits for someone outside conv_tasks (a wait condition's host, a deployment's agent),
the hook that plays that part. It is a plain value: nothing here starts or checks anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from conv_tasks.client import Client

UNDER_TEST = "under_test"
"""The name of the resource under test in every stack the kit makes."""


@dataclass(frozen=True)
class CheckedStack:
    """A stack the kit is checking a type on, as the case's hooks see it."""

    client: Client
    """The tenant's client of the cluster (send signals with it)."""
    stack_id: str
    """The stack's id (every idempotency token of its resources starts with it)."""
    tenant: str
    """The case's tenant."""
    action: str
    """The action the kit waits for: CREATE, UPDATE or DELETE."""
    database_url: str
    """The cluster's database."""
    resource: str = UNDER_TEST
    """The name of the resource under test."""


@dataclass(frozen=True)
class TypeCase:
    """One resource of `type_name`, and how the kit may change it.

    - `properties`: the resource's properties when it is created.
    - `update_in_place`: properties that an update changes in place (merged over
      `properties`); None: the type has no in-place update (that check is not applicable).
    - `update_replace`: properties whose change replaces the resource (merged over
      `properties`); None: no change replaces it.
    - `connections`: the CONV_TASKS_CONNECTIONS file (YAML) the cluster's workers read.
    - `environ`: more environment for the workers (the variable a `password_env` names).
    - `companions`: other resources of the stack (name -> resource definition) that the one
      under test needs, a handle for a wait condition say; its properties may refer to them.
    - `slow_properties`: properties (merged over `properties`) with which a create is still
      under way after its first step, for the interrupt and killed-worker checks; not needed
      by a type whose create waits for an outside actor (the kit does not act then).
    - `act`: the outside actor. While the kit waits for an action of the resource, it is
      called (with a CheckedStack) until it returns True; a conv_tasks error it raises (the
      resource is not there yet) means "not yet".
    - `count_objects`: how many real objects of the stack exist now; the exactly-once checks
      then count them too (without it they rely on the physical id and `observe`).
    - `timeout`: seconds any one operation may take before its check fails.
    """

    type_name: str
    properties: Mapping[str, Any] = field(default_factory=dict)
    update_in_place: Mapping[str, Any] | None = None
    update_replace: Mapping[str, Any] | None = None
    connections: str = ""
    environ: Mapping[str, str] = field(default_factory=dict)
    companions: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    slow_properties: Mapping[str, Any] | None = None
    act: Callable[[CheckedStack], bool] | None = None
    count_objects: Callable[[CheckedStack], int] | None = None
    tenant: str = "conformance"
    timeout: float = 90.0

    def template(self, properties: Mapping[str, Any]) -> dict[str, Any]:
        """The stack of the resource under test (with these properties) and its companions."""
        resources: dict[str, Any] = {name: dict(body) for name, body in self.companions.items()}
        resources[UNDER_TEST] = {"type": self.type_name, "properties": dict(properties)}
        return {"heat_template_version": "2018-08-31", "resources": resources}

    def changed(self, change: Mapping[str, Any] | None) -> dict[str, Any]:
        """`properties` with `change` merged over them."""
        return {**self.properties, **(change or {})}

    @property
    def slow(self) -> dict[str, Any]:
        return self.changed(self.slow_properties)


def connections_file(
    default: Mapping[str, Mapping[str, Any]] | None = None,
    tenants: Mapping[str, Mapping[str, Mapping[str, Any]]] | None = None,
) -> str:
    """The text of a connections file (TypeCase.connections) with these connections: name ->
    {kind, that kind's fields, where its secret is}, for every tenant (`default`) or per tenant.
    PrivatePostgres.connection() and PrivateRedis.connection() give theirs."""
    document: dict[str, Any] = {"default": {k: dict(v) for k, v in (default or {}).items()}}
    if tenants:
        document["tenants"] = {
            tenant: {k: dict(v) for k, v in named.items()} for tenant, named in tenants.items()
        }
    return yaml.safe_dump(document, sort_keys=False)
