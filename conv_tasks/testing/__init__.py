"""The conformance kit: prove that a resource type behaves, against real conv_tasks workers.

A type package describes one resource of its type in a TypeCase and asks the pytest fixture
`conformance` to check it (the plugin, conv_tasks.testing.plugin, comes with conv_tasks through
the `pytest11` entry point):

    from conv_tasks.testing import TypeCase

    CASE = TypeCase(type_name="Example::Thing", properties={"size": 1},
                    update_in_place={"size": 2}, update_replace={"name": "other"},
                    connections=CONNECTIONS_YAML)

    def test_conformance(conformance):
        conformance.check(CASE)

The checks (conformance.py lists them) run on a private cluster (cluster.py): a fresh
database, real `celery worker` processes that find the package's types through its entry
point, and a CONV_TASKS_CONNECTIONS file written from the case. Some run the engine in the
test process (inprocess.py), to time every step and to kill a worker at a chosen moment.
Each failure names the type, the check, the step and what it saw; a check that does not
apply to the type says so. Each stack a check makes gets names of its own (UNIQUE in the
case's properties), and the run deletes them all at its end. The kit's own calls of the
type are asked again while the service puts them off (RetryBudget), and
`conformance.check(case, service_faults=True)` runs every check with the service's faults on:
HttpFaultProxy and TcpFaultProxy make a service busy or unreliable along a FaultPlan, and
`sandbox_faults` the sandbox cloud. PrivatePostgres, PrivateRedis and PrivateRabbitMQ start
throwaway servers for what a type acts on; PrivateSentinelGroup a Redis primary, replicas and
sentinels to fail over. The guide's page is docs/guide/conformance-kit.md.

This package never changes conv_tasks' own behaviour, and importing it reads no settings.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from conv_tasks.testing.case import (
    UNDER_TEST,
    UNIQUE,
    CheckedStack,
    ServiceFaults,
    TypeCase,
    connections_file,
)
from conv_tasks.testing.fault_plan import Fault, FaultPlan, Weather
from conv_tasks.testing.http_faults import HttpFaultProxy
from conv_tasks.testing.report import CheckResult, ConformanceFailure, Report, Verdict
from conv_tasks.testing.retries import RetryBudget, ServiceBusy
from conv_tasks.testing.sandbox_faults import sandbox_faults

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = (
    "conv_tasks.broker",
    "conv_tasks.celery_processes",
    "conv_tasks.client",
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.engine",
    "conv_tasks.errors",
    "conv_tasks.provider_errors",
    "conv_tasks.resources",
    "conv_tasks.sdk",
    "conv_tasks.settings",
    "conv_tasks.statuses",
    "conv_tasks.tasks",
)
MUST_NOT_IMPORT = (
    "conv_tasks.api",
    "conv_tasks.cli",
    "conv_tasks.server",
    "conv_tasks.ui",
    "sqlalchemy",
)

if TYPE_CHECKING:
    from conv_tasks.testing.cluster import Cluster
    from conv_tasks.testing.conformance import Conformance
    from conv_tasks.testing.private_postgres import PrivatePostgres
    from conv_tasks.testing.private_rabbitmq import PrivateRabbitMQ
    from conv_tasks.testing.private_redis import PrivateRedis
    from conv_tasks.testing.sentinel import PrivateSentinelGroup
    from conv_tasks.testing.services import (
        TestServices,
        celery_app,
        free_port,
        fresh_database,
        wait_for_workers,
    )
    from conv_tasks.testing.tcp_faults import TcpFaultProxy

# The names whose modules start the engine, Celery and SQLAlchemy, imported on first use:
# pytest loads the plugin (and so this face) in every run where conv_tasks is installed, and a
# run that never asks for the kit should not pay for it.
_ON_FIRST_USE = {
    "Cluster": "conv_tasks.testing.cluster",
    "Conformance": "conv_tasks.testing.conformance",
    "PrivatePostgres": "conv_tasks.testing.private_postgres",
    "PrivateRabbitMQ": "conv_tasks.testing.private_rabbitmq",
    "PrivateRedis": "conv_tasks.testing.private_redis",
    "PrivateSentinelGroup": "conv_tasks.testing.sentinel",
    "TcpFaultProxy": "conv_tasks.testing.tcp_faults",
    "TestServices": "conv_tasks.testing.services",
    "celery_app": "conv_tasks.testing.services",
    "free_port": "conv_tasks.testing.services",
    "fresh_database": "conv_tasks.testing.services",
    "wait_for_workers": "conv_tasks.testing.services",
}


def __getattr__(name: str) -> Any:
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = [
    "UNDER_TEST",
    "UNIQUE",
    "CheckResult",
    "CheckedStack",
    "Cluster",
    "Conformance",
    "ConformanceFailure",
    "Fault",
    "FaultPlan",
    "HttpFaultProxy",
    "PrivatePostgres",
    "PrivateRabbitMQ",
    "PrivateRedis",
    "PrivateSentinelGroup",
    "Report",
    "RetryBudget",
    "ServiceBusy",
    "ServiceFaults",
    "TcpFaultProxy",
    "TestServices",
    "TypeCase",
    "Verdict",
    "Weather",
    "celery_app",
    "connections_file",
    "free_port",
    "fresh_database",
    "sandbox_faults",
    "wait_for_workers",
]
