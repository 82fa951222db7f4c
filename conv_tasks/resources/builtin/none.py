"""OS::Heat::None: a resource that exists only on paper.

It accepts any properties, gives any attribute as None, creates nothing, and is
updated in place - the stand-in for types whose real implementation is gone, and for
resources an environment disables. Never calls the sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.sdk import PropertySchema, ResourceType, SupportStatus


class NoneResource(ResourceType):
    """Does nothing and accepts any properties; useful as a placeholder."""

    type_name: ClassVar[str] = "OS::Heat::None"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="5.0.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = None
    # Any attribute reads as None, as in Heat, so that a resource disabled by mapping its
    # type to OS::Heat::None (resource_registry) does not break those that read from it.
    dynamic_attributes: ClassVar[bool] = True
    any_attribute: ClassVar[bool] = True
    # It exists only on paper: a create that ended without an id left nothing to delete.
    makes_objects: ClassVar[bool] = False

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        return False
