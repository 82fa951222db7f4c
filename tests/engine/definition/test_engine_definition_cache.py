"""Definitions are cached within a byte budget, and their weight bounds their real size."""

from __future__ import annotations

import gc
import json
import tracemalloc
from collections.abc import Callable
from typing import Any, ClassVar

import pytest

from conv_tasks.engine.definition.cache import ByteBoundedCache
from conv_tasks.engine.definition.definitions import Definitions, definition_weight
from conv_tasks.engine.definition.model import StackDefinition
from conv_tasks.errors import NotFound, TemplateError
from conv_tasks.resources import default_registry
from conv_tasks.resources.builtin.none import NoneResource


def test_least_recently_used_entries_go_first_to_stay_within_budget() -> None:
    cache: ByteBoundedCache[str, int] = ByteBoundedCache(100)
    cache.put("a", 1, 40)
    cache.put("b", 2, 40)
    assert cache.get("a") == 1  # b is now the least recently used
    cache.put("c", 3, 40)
    assert ("a" in cache, "b" in cache, "c" in cache) == (True, False, True)
    assert cache.used == 80
    cache.put("a", 4, 10)  # replacing an entry frees its old weight
    assert cache.used == 50 and cache.get("a") == 4


def test_an_entry_heavier_than_the_budget_is_not_kept() -> None:
    cache: ByteBoundedCache[str, int] = ByteBoundedCache(100)
    cache.put("small", 1, 60)
    cache.put("huge", 2, 101)
    assert "huge" not in cache and cache.get("small") == 1 and cache.used == 60


def _chain(n: int) -> dict[str, Any]:
    resources: dict[str, Any] = {"r0": {"type": "OS::Heat::None"}}
    for i in range(1, n):
        resources[f"r{i}"] = {
            "type": "OS::Heat::None",
            "depends_on": [f"r{i - 1}"],
            "properties": {"rev": 1, "name": f"n{i}"},
        }
    return {"heat_template_version": "2018-08-31", "resources": resources}


def _attrs(n: int) -> dict[str, Any]:
    resources: dict[str, Any] = {}
    for i in range(n):
        value: Any = {"get_attr": [f"r{i - 1}", "output"]} if i else {"get_param": "seed"}
        resources[f"r{i}"] = {"type": "OS::Heat::TestResource", "properties": {"value": value}}
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {"seed": {"type": "string", "hidden": True}},
        "resources": resources,
        "outputs": {"last": {"value": {"get_attr": [f"r{n - 1}", "output"]}}},
    }


def _fan(n: int) -> dict[str, Any]:
    middle = {f"m{i}": {"type": "OS::Heat::None", "depends_on": ["root"]} for i in range(n)}
    return {
        "heat_template_version": "2018-08-31",
        "resources": {
            "root": {"type": "OS::Heat::None"},
            **middle,
            "sink": {"type": "OS::Heat::None", "depends_on": list(middle)},
        },
    }


@pytest.mark.parametrize(
    ("shape", "size", "parameters"),
    [
        (_chain, 1, {}),
        (_chain, 300, {}),
        (_chain, 3000, {}),
        (_attrs, 1000, {"seed": "s3cret"}),
        (_fan, 3000, {}),
    ],
)
def test_weight_is_an_upper_bound_of_the_memory_a_definition_holds(
    shape: Callable[[int], dict[str, Any]], size: int, parameters: dict[str, Any]
) -> None:
    template_text, parameters_text = json.dumps(shape(size)), json.dumps(parameters)
    StackDefinition.build(json.loads(template_text), parameters)  # imports and caches warm
    gc.collect()
    tracemalloc.start()
    try:
        definition = StackDefinition.build(json.loads(template_text), json.loads(parameters_text))
        gc.collect()
        held, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert definition.template.resources
    assert held <= definition_weight(template_text, parameters_text)


def test_definitions_load_on_a_miss_only_and_refuse_a_missing_template() -> None:
    loads: list[int] = []
    text = json.dumps(_chain(3))

    def load(template_id: int) -> tuple[str, str] | None:
        loads.append(template_id)
        return (text, "{}") if template_id == 1 else None

    definitions = Definitions(10 * 2**20)
    first = definitions.get(1, load)
    assert definitions.get(1, load) is first
    assert loads == [1]
    assert definitions.used == definition_weight(text, "{}")
    with pytest.raises(NotFound):
        definitions.get(2, load)


def test_definitions_beyond_the_budget_are_evicted() -> None:
    text = json.dumps(_chain(50))
    budget = 2 * definition_weight(text, "{}")
    definitions = Definitions(budget)
    for template_id in range(1, 6):
        definitions.get(template_id, lambda _: (text, "{}"))
    assert definitions.used <= budget


class ThirdPartyThing(NoneResource):
    """A type only a custom registry has (as a plugin package's would be)."""

    type_name: ClassVar[str] = "Example::Thing"


def test_a_stored_template_is_built_with_the_engine_s_registry() -> None:
    # A worker whose cache is cold builds a stored template's definition again: with the
    # registry the engine was given, not the default one (which lacks the type).
    text = json.dumps(
        {"heat_template_version": "2018-08-31", "resources": {"t": {"type": "Example::Thing"}}}
    )
    registry = default_registry().with_types({"Example::Thing": ThirdPartyThing})
    built = Definitions(10 * 2**20, registry).get(1, lambda _: (text, "{}"))
    assert built.template.resources["t"].type == "Example::Thing"
    with pytest.raises(TemplateError, match="Example::Thing"):
        Definitions(10 * 2**20).get(1, lambda _: (text, "{}"))
