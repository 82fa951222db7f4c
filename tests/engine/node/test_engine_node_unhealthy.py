"""repaired_in_place (pure but for one read of the child): a resource that owns a child stack
whose check failed is updated in place, whatever its class; any other is replaced. The
engine asks the type (owns_child_stack), never which built-in class it is."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, ClassVar, cast

import pytest

from conv_tasks.db import ResourceVersion
from conv_tasks.engine import EngineEnv
from conv_tasks.engine.node.unhealthy import repaired_in_place
from conv_tasks.sdk import ChildStack, ResourceType


class _Owner(ResourceType):
    """A type of some other package whose resources own a child stack: no subclass of a
    built-in type."""

    type_name: ClassVar[str] = "Example::Owner"
    owns_child_stack: ClassVar[bool] = True


class _Plain(ResourceType):
    type_name: ClassVar[str] = "Example::Plain"


class _Children:
    def __init__(self, child: ChildStack) -> None:
        self.child = child
        self.asked: list[str] = []

    def get(self, child_id: str) -> ChildStack:
        self.asked.append(child_id)
        return self.child


def _env(children: _Children) -> EngineEnv:
    return cast(EngineEnv, SimpleNamespace(child_stacks=lambda: children))


def _head(physical_id: str | None) -> ResourceVersion:
    return cast(ResourceVersion, SimpleNamespace(physical_id=physical_id))


@pytest.mark.parametrize(
    ("status", "deleted", "repaired"),
    [("FAILED", False, True), ("COMPLETE", False, False), ("FAILED", True, False)],
)
def test_a_type_that_owns_a_child_is_repaired_when_its_child_failed_its_check(
    status: str, deleted: bool, repaired: bool
) -> None:
    children = _Children(ChildStack("c-1", "child", "CHECK", status, deleted=deleted))
    assert repaired_in_place(_env(children), _Owner, _head("c-1")) is repaired
    assert children.asked == ["c-1"]


@pytest.mark.parametrize(("plugin_type", "physical_id"), [(_Plain, "p-1"), (_Owner, None)])
def test_a_type_without_a_child_or_a_child_never_made_is_replaced_unasked(
    plugin_type: type[ResourceType], physical_id: Any
) -> None:
    children = _Children(ChildStack("c-1", "child", "CHECK", "FAILED"))
    assert not repaired_in_place(_env(children), plugin_type, _head(physical_id))
    assert children.asked == []
