"""The SDK's promises that need no service: its face, a type's declared SDK versions and its
connection, and the default check through observe."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, ClassVar

import pytest

import conv_tasks.sdk as sdk
from conv_tasks.errors import InvalidInput
from conv_tasks.resources import Registry


def _type(name: str, **attrs: Any) -> type[sdk.ResourceType]:
    return type(name.replace(":", "_"), (sdk.ResourceType,), {"type_name": name, **attrs})


def test_the_face_holds_what_a_type_author_uses() -> None:
    for name in (
        "ResourceType", "ActionContext", "Progress", "Observed", "PropertySchema",
        "AttributeSchema", "SupportStatus", "NotFound", "AlreadyExists", "Conflict",
        "Throttled", "Transient", "Fatal", "SDK_VERSION", "connection_property", "Problem",
    ):  # fmt: skip
        assert hasattr(sdk, name), name
    assert issubclass(sdk.Throttled, sdk.Transient)
    assert sdk.SDK_VERSION == "1.3"
    assert (sdk.SUSPEND, sdk.RESUME) == ("SUSPEND", "RESUME")


@pytest.mark.parametrize(
    ("versions", "says"),
    [
        (">=2.0", "is written for SDK >=2.0; this conv_tasks offers SDK 1.3"),
        ("one point oh", "is not a version specifier"),
    ],
)
def test_a_type_for_another_sdk_is_refused_by_name(versions: str, says: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        Registry().register(_type("Example::Old", sdk_versions=versions))
    assert "resource_types.Example::Old.sdk_versions" in str(raised.value)
    assert says in str(raised.value)


def test_a_type_for_this_sdk_is_registered() -> None:
    registry = Registry()
    registry.register(_type("Example::Now", sdk_versions=">=1.0,<2"))
    assert "Example::Now" in registry


def test_a_type_with_a_connection_needs_its_kind_and_its_property() -> None:
    with pytest.raises(InvalidInput, match="must be one of postgresql, http, celery"):
        Registry().register(_type("Example::A", connection_kind="ftp"))
    with pytest.raises(InvalidInput, match="needs a string property `connection`"):
        Registry().register(_type("Example::B", connection_kind="http"))
    registry = Registry()
    schema = {"connection": sdk.connection_property("http")}
    registry.register(_type("Example::C", connection_kind="http", properties_schema=schema))
    assert "Example::C" in registry


class Watched(sdk.ResourceType):
    type_name: ClassVar[str] = "Example::Watched"
    seen: ClassVar[sdk.Observed | None] = None

    def observe(self, ctx: sdk.ActionContext) -> sdk.Observed | None:
        return self.seen


def _check(seen: sdk.Observed | None, properties: Mapping[str, Any]) -> None:
    Watched.seen = seen
    now = time.time()
    ctx = sdk.ActionContext(
        stack_id="s", resource_name="r", action="CHECK", idempotency_token="t",
        properties=properties, old_properties=None, physical_id="p-1", data={},
        started_at=now, now=now, sandbox=None,  # type: ignore[arg-type]
    )  # fmt: skip
    Watched().check(ctx)


def test_the_default_check_is_what_observe_finds() -> None:
    _check(None, {"size": 1})  # cannot observe: healthy as far as it knows
    _check(sdk.Observed(True, {"size": 1}), {"size": 1, "secret": "x"})
    with pytest.raises(sdk.Fatal, match="its object p-1 does not exist"):
        _check(sdk.Observed(False), {"size": 1})
    with pytest.raises(sdk.Fatal, match="differs from the template in size"):
        _check(sdk.Observed(True, {"size": 2, "colour": "red"}), {"size": 1})
