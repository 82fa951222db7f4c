"""What a type package tells the conformance kit about the type it checks.

A TypeCase names the type, the properties of one resource of it, the changes an update makes
in place and one that replaces it, the connections it acts through, and, for types whose
create waits for someone outside conv_tasks (a wait condition's host, a deployment's agent),
the hook that plays that part; how the service's faults are turned on, and how long the kit
keeps asking when the service is busy. It is a plain value: nothing here starts or checks
anything.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import yaml

from conv_tasks.testing.retries import RetryBudget

if TYPE_CHECKING:
    from conv_tasks.client import Client
    from conv_tasks.testing.cluster import Cluster

UNDER_TEST = "under_test"
"""The name of the resource under test in every stack the kit makes."""
UNIQUE = "%unique%"
"""Written in a property's value (anywhere in a string), it is replaced by a suffix of the
stack's own: each stack the kit makes gets its own names (`f"kit_db_{UNIQUE}"`)."""
ServiceFaults = Callable[["Cluster"], AbstractContextManager[object]]
"""A TypeCase's `service_faults`: called with the cluster, it returns a context manager inside
which the service misbehaves."""


def unique_suffix() -> str:
    """A suffix for one stack's names: 8 lowercase letters and digits, starting with a letter
    (a name a service keeps, PostgreSQL's, may not start with a digit)."""
    return "k" + uuid.uuid4().hex[:7]


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
    - `service_faults`: turns the service's fault injection on: called with the cluster, it
      returns a context manager inside which the service misbehaves (`conformance.check(case,
      service_faults=True)` runs every check inside it). HttpFaultProxy.faulty,
      TcpFaultProxy.faulty and `sandbox_faults` make one.
    - `retries`: how long the kit keeps asking when the service puts its own calls off
      (Throttled, Transient): see conv_tasks.testing.retries.

    Any string in `properties`, `update_in_place`, `update_replace`, `slow_properties` and
    `companions` may hold UNIQUE (`%unique%`): each stack the kit makes puts a suffix of its
    own there, so that names the service keeps unique do not collide between checks.
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
    service_faults: ServiceFaults | None = None
    retries: RetryBudget = field(default_factory=RetryBudget)

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

    def unique(self, suffix: str) -> TypeCase:
        """The case for one stack: UNIQUE replaced by `suffix` wherever it is written."""

        def filled(value: Any) -> Any:
            if isinstance(value, str):
                return value.replace(UNIQUE, suffix)
            if isinstance(value, Mapping):
                return {key: filled(item) for key, item in value.items()}
            if isinstance(value, list | tuple):
                return [filled(item) for item in value]
            return value

        def maybe(change: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
            return None if change is None else filled(change)

        return replace(
            self,
            properties=filled(self.properties),
            update_in_place=maybe(self.update_in_place),
            update_replace=maybe(self.update_replace),
            slow_properties=maybe(self.slow_properties),
            companions=filled(self.companions),
        )


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
