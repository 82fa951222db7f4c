"""OS::Heat::Dummy: a HIDDEN type, kept so that stacks which still use it work.

Its implementation is that of OS::Heat::None, as seed 004 advises for types
whose backing API is gone. It is left out of listings and cannot be shown.
"""

from __future__ import annotations

from typing import ClassVar

from conv_tasks.resources.builtin.none import NoneResource
from conv_tasks.sdk import DEPRECATED, HIDDEN, SupportStatus


class DummyResource(NoneResource):
    """A placeholder from older releases; use OS::Heat::None."""

    type_name: ClassVar[str] = "OS::Heat::Dummy"
    support_status: ClassVar[SupportStatus] = SupportStatus(
        status=HIDDEN,
        version="6.0.0",
        message="Use OS::Heat::None instead.",
        substitute_class=NoneResource,
        previous_status=SupportStatus(
            status=DEPRECATED,
            version="5.0.0",
            substitute_class=NoneResource,
            previous_status=SupportStatus(version="2014.1"),
        ),
    )
