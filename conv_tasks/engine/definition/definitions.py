"""The process's stack definitions, by stored template id: each built once from the stored
row's JSON text and kept in a cache bounded in bytes (Definitions), since a raw template,
with its environment and files, never changes once stored.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from conv_tasks.engine.definition.cache import ByteBoundedCache
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import NotFound
from conv_tasks.resources import Registry
from conv_tasks.template import stored_environment

# What a definition costs in memory, per byte of its template's and parameters' JSON text,
# plus a fixed part: an upper bound measured with tracemalloc over chains, fans and templates
# full of intrinsic functions (tests/engine/test_engine_definition_cache.py holds it to that).
BYTES_PER_JSON_BYTE = 32
BYTES_PER_DEFINITION = 16 * 1024


def definition_weight(*texts: str) -> int:
    """The bytes a definition built from this JSON text (template, parameters, environment,
    files) may hold, at most."""
    return BYTES_PER_DEFINITION + BYTES_PER_JSON_BYTE * sum(len(text) for text in texts)


# What a stored template row holds, as JSON text: template, parameters and, since
# migration 0008, environment and files, and since 0010 the facade (None when the template
# is not a nested stack's). A loader may leave the later ones out.
StoredText = tuple[str, str] | tuple[str, str, str, str] | tuple[str, str, str, str, str | None]


def _build_stored(
    template: Mapping[str, Any],
    parameters: Mapping[str, Any],
    environment: Mapping[str, Any] | None,
    files: Mapping[str, str] | None,
    facade: Mapping[str, Any] | None = None,
    registry: Registry | None = None,
) -> StackDefinition:
    return StackDefinition.build(
        template,
        parameters,
        registry,
        files=files,
        environment=stored_environment(environment),
        facade=facade,
    )


class StoredRow(Protocol):
    """What a stored template gives a definition (conv_tasks.db.TemplateRow)."""

    @property
    def id(self) -> int: ...
    @property
    def template(self) -> dict[str, Any]: ...
    @property
    def parameters(self) -> dict[str, Any]: ...
    @property
    def environment(self) -> dict[str, Any]: ...
    @property
    def files(self) -> dict[str, Any]: ...
    @property
    def facade(self) -> dict[str, Any] | None:
        """The parent resource's definition, for a nested stack's template."""


class Definitions:
    """The definitions of stored templates, built once per process within a byte budget.

    A stored template never changes, so its definition is built on first use
    and kept until the budget needs the room for more recent ones.
    """

    def __init__(self, budget: int, registry: Registry | None = None) -> None:
        self._cache: ByteBoundedCache[int, StackDefinition] = ByteBoundedCache(budget)
        # The types a stored template's definition is built with: the engine's registry.
        self._registry = registry

    @property
    def used(self) -> int:
        """Bytes the kept definitions are estimated to hold."""
        return self._cache.used

    def cached(self, template_id: int) -> StackDefinition | None:
        """The definition of a stored template if this process keeps it, else None: a reader
        that has it need not read the template's row (a 10,000-resource template is about
        1 MB of JSON to decode, and its garbage makes the collector walk every kept
        definition)."""
        return self._cache.get(template_id)

    def get(self, template_id: int, load: Callable[[int], StoredText | None]) -> StackDefinition:
        """The definition of a stored template; `load` gives its JSON text on a miss.

        NotFound if the template is gone (its stack moved on and it was collected).
        """
        found = self._cache.get(template_id)
        if found is not None:
            return found
        loaded = load(template_id)
        if loaded is None:
            raise NotFound(f"Template {template_id} not found.")
        texts = [text for text in loaded if text is not None]  # a NULL facade: no parent
        documents: list[Any] = [json.loads(text) for text in texts]
        template, parameters = documents[0], documents[1]
        environment, files = (documents[2], documents[3]) if len(documents) >= 4 else (None, None)
        facade = documents[4] if len(documents) == 5 else None
        definition = _build_stored(template, parameters, environment, files, facade, self._registry)
        self._cache.put(template_id, definition, definition_weight(*texts))
        return definition

    def remember(
        self,
        template_id: int,
        definition: StackDefinition,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any],
        environment: Mapping[str, Any] | None = None,
        files: Mapping[str, str] | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> None:
        """Keep a definition just built for a template just stored."""
        weight = definition_weight(
            json.dumps(template),
            json.dumps(parameters),
            json.dumps(environment or {}),
            json.dumps(files or {}),
            json.dumps(facade),
        )
        self._cache.put(template_id, definition, weight)

    def of(
        self,
        template_id: int,
        template: Mapping[str, Any],
        parameters: Mapping[str, Any],
        environment: Mapping[str, Any] | None = None,
        files: Mapping[str, str] | None = None,
        facade: Mapping[str, Any] | None = None,
    ) -> StackDefinition:
        """The definition of a stored template whose row the caller has already read
        (pass its files: get_file reads them; and its facade: resource_facade reads it)."""
        found = self._cache.get(template_id)
        if found is not None:
            return found
        definition = _build_stored(template, parameters, environment, files, facade, self._registry)
        self.remember(template_id, definition, template, parameters, environment, files, facade)
        return definition

    def of_row(self, row: StoredRow) -> StackDefinition:
        """The definition of a raw_template row the caller has already read."""
        return self.of(row.id, row.template, row.parameters, row.environment, row.files, row.facade)
