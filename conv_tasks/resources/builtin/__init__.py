"""The resource types conv_tasks ships with, one module each.

Registering them is the registry's job; this package only lists them.
"""

from __future__ import annotations

from conv_tasks.resources.builtin.celery_task import CeleryTaskResource
from conv_tasks.resources.builtin.dummy import DummyResource
from conv_tasks.resources.builtin.group import ResourceGroup
from conv_tasks.resources.builtin.heat_stack import HeatStackResource
from conv_tasks.resources.builtin.http import HttpResource
from conv_tasks.resources.builtin.none import NoneResource
from conv_tasks.resources.builtin.postgresql import PostgreSQLDatabase, PostgreSQLRole
from conv_tasks.resources.builtin.random_string import RandomStringResource
from conv_tasks.resources.builtin.software_config import SoftwareConfigResource
from conv_tasks.resources.builtin.software_deployment import SoftwareDeploymentResource
from conv_tasks.resources.builtin.software_deployment_group import (
    SoftwareDeploymentGroup,
    SoftwareDeployments,
)
from conv_tasks.resources.builtin.test_resource import TestResource
from conv_tasks.resources.builtin.test_resource_old import TestResourceOld
from conv_tasks.resources.builtin.value import ValueResource
from conv_tasks.resources.builtin.wait_condition import WaitConditionResource
from conv_tasks.resources.builtin.wait_condition_handle import WaitConditionHandleResource
from conv_tasks.sdk import ResourceType

# The import rules of this folder, checked by `make lint` (scripts/check_imports.py).
MAY_IMPORT = ("conv_tasks.sdk",)
MUST_NOT_IMPORT = (
    "conv_tasks.connections",
    "conv_tasks.db",
    "conv_tasks.deployments",
    "conv_tasks.engine",
    "conv_tasks.resources",
    "conv_tasks.syncpoint",
    "conv_tasks.template",
    "conv_tasks.waitconditions",
    "sqlalchemy",
)

BUILTIN_TYPES: tuple[type[ResourceType], ...] = (
    NoneResource,
    ValueResource,
    RandomStringResource,
    TestResource,
    TestResourceOld,
    DummyResource,
    SoftwareConfigResource,
    SoftwareDeploymentResource,
    SoftwareDeploymentGroup,
    SoftwareDeployments,
    HeatStackResource,
    ResourceGroup,
    WaitConditionHandleResource,
    WaitConditionResource,
    PostgreSQLRole,
    PostgreSQLDatabase,
    HttpResource,
    CeleryTaskResource,
)

__all__ = [
    "BUILTIN_TYPES",
    "CeleryTaskResource",
    "DummyResource",
    "HeatStackResource",
    "HttpResource",
    "NoneResource",
    "PostgreSQLDatabase",
    "PostgreSQLRole",
    "RandomStringResource",
    "ResourceGroup",
    "SoftwareConfigResource",
    "SoftwareDeploymentGroup",
    "SoftwareDeploymentResource",
    "SoftwareDeployments",
    "TestResource",
    "TestResourceOld",
    "ValueResource",
    "WaitConditionHandleResource",
    "WaitConditionResource",
]
