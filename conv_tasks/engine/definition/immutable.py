"""Heat's immutable parameters: an update may not change the value of one.

Pure: it compares the parameter values of the stack's current definition with those of
the definition an update would store. Its messages never show a value (a hidden
parameter may be immutable too).
"""

from __future__ import annotations

from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import ParameterError, Problem


def declares_immutable(definition: StackDefinition) -> bool:
    """Whether the template marks any parameter immutable (most do not: nothing to load)."""
    return any(schema.immutable for schema in definition.template.parameters.values())


def check_immutable(old: StackDefinition, new: StackDefinition) -> None:
    """Refuse an update that changes an immutable parameter's value.

    As in Heat, the new template says which parameters are immutable, and only those the
    old template had too are held: a parameter new to the stack may take any value.
    """
    changed = [
        name
        for name, schema in new.template.parameters.items()
        if schema.immutable
        and name in old.template.parameters
        and old.parameters.get(name) != new.parameters.get(name)
    ]
    if changed:
        raise ParameterError(
            [
                Problem(
                    f"parameters.{name}",
                    "is immutable: an update may not change its value (keep the value the "
                    "stack has, or create a new stack)",
                )
                for name in sorted(changed)
            ]
        )
