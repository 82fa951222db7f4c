"""OS::Heat::None: a resource that exists only on paper.

It accepts any properties, creates nothing, and is updated in place - the
stand-in for types whose real implementation is gone. Never calls the sandbox.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from conv_tasks.resources.plugin import ResourceType
from conv_tasks.resources.schema import PropertySchema
from conv_tasks.resources.support import SupportStatus


class NoneResource(ResourceType):
    """Does nothing and accepts any properties; useful as a placeholder."""

    type_name: ClassVar[str] = "OS::Heat::None"
    support_status: ClassVar[SupportStatus] = SupportStatus(version="5.0.0")
    properties_schema: ClassVar[Mapping[str, PropertySchema] | None] = None

    def needs_replacement(self, old: Mapping[str, Any], new: Mapping[str, Any]) -> bool:
        return False
