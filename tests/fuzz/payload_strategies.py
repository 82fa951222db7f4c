"""Hypothesis strategies for the payloads of the public tasks: malformed, and hostile but
well-formed.

A malformed payload is a legal one (values of the right type, hostile-looking
text included) with one to three breaking changes, each on its own field: a
required field left out, a value of the wrong type, a name that is not a name
(NUL, a lone surrogate, a control or invisible character, too long, blank),
a number out of its range or beyond a float, a NUL, a lone surrogate or a
non-finite number buried in a mapping, nesting past MAX_PAYLOAD_DEPTH, or an
argument the task does not take. Each must be refused by the payload checks
naming every field a change broke, before anything is read or written.

A well-formed hostile payload passes the payload checks and reaches the
engine: a garbage template, a stack or tenant that does not exist, a read of
a stack that does. A write must be refused; a read is refused or answered.

The task fields mirror conv_tasks/tasks/stack.py: a test that reads them from
the code under test could not notice the code changing them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any

from fuzz_support import READ_TASKS as READS
from hypothesis import strategies as st
from killers import INJECTIONS, TEST_RESOURCE, VERSION, nested

from conv_tasks.input_text import text_problem
from conv_tasks.limits import (
    MAX_ID,
    MAX_NAME_CHARS,
    MAX_PAYLOAD_DEPTH,
    MAX_TAG_CHARS,
    MAX_TAGS,
    MAX_TIMEOUT_MINS,
)


class Kind(Enum):
    NAME = "name"
    BOOL = "bool"
    TIMEOUT = "timeout"
    CURSOR = "cursor"
    TEMPLATE = "template"
    MAPPING = "mapping"
    TEXT = "text"  # free text, such as a reason
    TAGS = "tags"  # a list of stack tags (conv_tasks/tags.py)
    NAMES = "names"  # a list of resource names (delete's retain, rollback's skip)


@dataclass(frozen=True)
class Spec:
    kind: Kind
    required: bool = False


NAME = Spec(Kind.NAME, required=True)
TASKS: dict[str, dict[str, Spec]] = {
    "conv_tasks.stack.create": {
        "tenant": NAME,
        "name": NAME,
        "template": Spec(Kind.TEMPLATE, required=True),
        "parameters": Spec(Kind.MAPPING),
        "disable_rollback": Spec(Kind.BOOL),
        "timeout_mins": Spec(Kind.TIMEOUT),
        "tags": Spec(Kind.TAGS),
    },
    "conv_tasks.stack.apply": {
        "tenant": NAME,
        "name": NAME,
        "template": Spec(Kind.TEMPLATE, required=True),
        "parameters": Spec(Kind.MAPPING),
        "disable_rollback": Spec(Kind.BOOL),
        "timeout_mins": Spec(Kind.TIMEOUT),
        "tags": Spec(Kind.TAGS),
    },
    "conv_tasks.stack.update": {
        "tenant": NAME,
        "stack": NAME,
        "template": Spec(Kind.TEMPLATE),
        "parameters": Spec(Kind.MAPPING),
        "existing_parameters": Spec(Kind.BOOL),
        "disable_rollback": Spec(Kind.BOOL),
        "timeout_mins": Spec(Kind.TIMEOUT),
        "tags": Spec(Kind.TAGS),
    },
    "conv_tasks.stack.delete": {"tenant": NAME, "stack": NAME, "retain": Spec(Kind.NAMES)},
    "conv_tasks.stack.rollback": {"tenant": NAME, "stack": NAME, "skip": Spec(Kind.NAMES)},
    "conv_tasks.stack.cancel_update": {"tenant": NAME, "stack": NAME, "rollback": Spec(Kind.BOOL)},
    "conv_tasks.stack.show": {"tenant": NAME, "stack": NAME, "include_deleted": Spec(Kind.BOOL)},
    "conv_tasks.stack.list": {
        "tenant": NAME,
        "tags": Spec(Kind.TAGS),
        "tags_any": Spec(Kind.TAGS),
        "not_tags": Spec(Kind.TAGS),
        "not_tags_any": Spec(Kind.TAGS),
    },
    "conv_tasks.stack.check": {"tenant": NAME, "stack": NAME},
    "conv_tasks.stack.suspend": {"tenant": NAME, "stack": NAME},
    "conv_tasks.stack.resume": {"tenant": NAME, "stack": NAME},
    "conv_tasks.resource.mark_unhealthy": {
        "tenant": NAME,
        "stack": NAME,
        "resource": NAME,
        "reason": Spec(Kind.TEXT),
        "reset": Spec(Kind.BOOL),
    },
    "conv_tasks.stack.resources": {"tenant": NAME, "stack": NAME, "all_versions": Spec(Kind.BOOL)},
    "conv_tasks.stack.events": {"tenant": NAME, "stack": NAME, "after_id": Spec(Kind.CURSOR)},
    "conv_tasks.stack.outputs": {"tenant": NAME, "stack": NAME},
    "conv_tasks.resource.signal": {
        "tenant": NAME,
        "stack": NAME,
        "resource": NAME,
        "details": Spec(Kind.MAPPING),
    },
}


@dataclass(frozen=True)
class Sent:
    """One generated payload, and the fields its breaking changes must be refused for.

    An argument the task does not take is named by its own name, or, when the
    name itself is not storable text, by the empty path.
    """

    task: str
    payload: dict[str, Any]
    broken: tuple[str, ...] = ()


# ------------------------------------------------------------------ legal values

# Any storable text: no NUL, no lone surrogate.
TEXT = st.text(st.characters(exclude_categories=("Cs",), exclude_characters="\x00"), max_size=24)
# A name: no control or invisible formatting characters either, and not blank.
NAME_CHARS = st.characters(exclude_categories=("Cs", "Cc", "Cf", "Zl", "Zp"))
LEGAL_NAMES = st.one_of(
    st.text(NAME_CHARS, min_size=1, max_size=30).filter(str.strip),
    st.sampled_from([*INJECTIONS, "n" * MAX_NAME_CHARS]),
)
FINITE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)
JSON = st.recursive(
    FINITE,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
    max_leaves=12,
)
MAPPINGS = st.dictionaries(TEXT, JSON, max_size=5)
# A stack tag: a name of at most MAX_TAG_CHARS characters without a comma.
LEGAL_TAGS = st.text(NAME_CHARS.filter(lambda c: c != ","), min_size=1, max_size=20).filter(
    str.strip
) | st.sampled_from(["prod", "t" * MAX_TAG_CHARS])


def legal(kind: Kind) -> st.SearchStrategy[Any]:
    if kind is Kind.NAME:
        return LEGAL_NAMES
    if kind is Kind.BOOL:
        return st.booleans()
    if kind is Kind.TIMEOUT:
        return st.integers(min_value=1, max_value=MAX_TIMEOUT_MINS)
    if kind is Kind.CURSOR:
        return st.integers(min_value=0, max_value=MAX_ID)
    if kind is Kind.TEMPLATE:
        return MAPPINGS | TEXT
    if kind is Kind.TEXT:
        return TEXT
    if kind is Kind.TAGS:
        return st.lists(LEGAL_TAGS, max_size=4)
    if kind is Kind.NAMES:
        return st.lists(LEGAL_NAMES, max_size=4)
    return MAPPINGS


# ------------------------------------------------------------------ breaking values

_MISSING = object()
# Integers no 64-bit float holds: not finite in JSON terms, refused anywhere in a payload.
_BEYOND_FLOAT = st.sampled_from([10**400, -(10**400), 2**1024])
_HUGE = _BEYOND_FLOAT | st.sampled_from([2**63, 2**64, -(2**63) - 1, 2**1000])
_NOT_FINITE = st.sampled_from([float("nan"), float("inf"), float("-inf")])


@st.composite
def _text_with(draw: st.DrawFn, bad: st.SearchStrategy[str]) -> str:
    text = draw(TEXT)
    at = draw(st.integers(min_value=0, max_value=len(text)))
    return text[:at] + draw(bad) + text[at:]


_NUL_TEXT = _text_with(st.just("\x00"))
_SURROGATE_TEXT = _text_with(st.characters(categories=("Cs",)))
_INVISIBLE_TEXT = _text_with(
    st.characters(categories=("Cc", "Cf", "Zl", "Zp")) | st.sampled_from(["\u202e", "\u200b"])
)
_UNSTORABLE_TEXT = _NUL_TEXT | _SURROGATE_TEXT


@st.composite
def _poisoned_mapping(draw: st.DrawFn) -> dict[str, Any]:
    """A legal mapping with one thing a payload may not hold, somewhere inside it."""
    poison = draw(
        _UNSTORABLE_TEXT
        | _NOT_FINITE
        | _BEYOND_FLOAT
        # Past MAX_PAYLOAD_DEPTH wherever it is put below, within the message's limit.
        | st.integers(min_value=MAX_PAYLOAD_DEPTH, max_value=MAX_PAYLOAD_DEPTH + 4).map(nested)
    )
    mapping = draw(MAPPINGS)
    if draw(st.booleans()):
        mapping[draw(TEXT)] = poison
    elif isinstance(poison, str):
        mapping[poison] = draw(JSON)  # as a key
    else:
        mapping[draw(TEXT)] = {"in": [draw(JSON), poison]}
    return mapping


def _wrong_types(kind: Kind, required: bool) -> st.SearchStrategy[Any]:
    """JSON values of another type than the field takes (null only where it is required:
    elsewhere null means "not given")."""
    others: list[st.SearchStrategy[Any]] = [
        st.lists(FINITE, max_size=3),
        st.floats(allow_nan=False, allow_infinity=False),
    ]
    if required:
        others.append(st.none())
    if kind is not Kind.BOOL:
        others.append(st.booleans())
    if kind not in (Kind.TIMEOUT, Kind.CURSOR, Kind.BOOL):
        others.append(st.integers())
    if kind in (Kind.TIMEOUT, Kind.CURSOR, Kind.BOOL):
        others.append(TEXT)
        others.append(st.dictionaries(TEXT, FINITE, max_size=2))
    if kind is Kind.NAME:
        others.append(st.dictionaries(TEXT, FINITE, max_size=2))
    if kind is Kind.BOOL:
        others.append(st.integers())
    if kind is Kind.MAPPING:
        others.append(TEXT)
    if kind is Kind.TEXT:
        others.append(st.dictionaries(TEXT, FINITE, max_size=2))
    if kind in (Kind.TAGS, Kind.NAMES):
        others = [TEXT, st.dictionaries(TEXT, FINITE, max_size=2), st.booleans(), st.integers()]
    return st.one_of(others)


def breaking(kind: Kind, required: bool) -> st.SearchStrategy[Any]:
    """A value (or _MISSING) the payload checks must refuse for this field."""
    ways = [_wrong_types(kind, required)]
    if required:
        ways.append(st.just(_MISSING))
    if kind is Kind.NAME:
        ways += [
            _UNSTORABLE_TEXT,
            _INVISIBLE_TEXT,
            st.integers(min_value=MAX_NAME_CHARS + 1, max_value=20_000).map(lambda n: "n" * n),
            st.sampled_from(["", " ", "\u3000", " \u2003 "]),
        ]
    elif kind is Kind.TIMEOUT:
        ways += [st.integers(max_value=0), st.integers(min_value=MAX_TIMEOUT_MINS + 1), _HUGE]
        ways.append(_NOT_FINITE)
    elif kind is Kind.CURSOR:
        ways += [st.integers(max_value=-1), st.integers(min_value=MAX_ID + 1), _HUGE]
    elif kind is Kind.TEMPLATE:
        ways += [_poisoned_mapping(), _UNSTORABLE_TEXT]
    elif kind is Kind.MAPPING:
        ways.append(_poisoned_mapping())
    elif kind is Kind.TEXT:
        ways.append(_UNSTORABLE_TEXT)
    elif kind is Kind.TAGS:
        bad_tag = st.one_of(
            st.sampled_from(["", " ", "a,b", "t" * (MAX_TAG_CHARS + 1)]),
            _INVISIBLE_TEXT,
            _UNSTORABLE_TEXT,
            st.integers(),
            st.none(),
        )
        ways += [
            st.tuples(st.lists(LEGAL_TAGS, max_size=3), bad_tag).map(lambda t: [*t[0], t[1]]),
            st.just([f"t{i}" for i in range(MAX_TAGS + 1)]),
        ]
    elif kind is Kind.NAMES:
        bad_name = st.one_of(
            st.sampled_from(["", " ", "n" * (MAX_NAME_CHARS + 1)]),
            _INVISIBLE_TEXT,
            _UNSTORABLE_TEXT,
            st.integers(),
            st.none(),
        )
        ways.append(
            st.tuples(st.lists(LEGAL_NAMES, max_size=3), bad_name).map(lambda t: [*t[0], t[1]])
        )
    return st.one_of(ways)


@st.composite
def malformed(draw: st.DrawFn) -> Sent:
    task = draw(st.sampled_from(sorted(TASKS)))
    fields = TASKS[task]
    payload = {
        name: draw(legal(spec.kind))
        for name, spec in fields.items()
        if spec.required or draw(st.booleans())
    }
    extra = "(an argument the task does not take)"
    targets = draw(st.lists(st.sampled_from([*fields, extra]), min_size=1, max_size=3, unique=True))
    broken: list[str] = []
    for target in targets:
        if target == extra:
            key = draw(TEXT | _UNSTORABLE_TEXT | st.sampled_from(["__class__", "", "kwargs"]))
            if key in fields or key in payload:
                continue
            payload[key] = draw(JSON)
            broken.append(key if text_problem(key) is None else "")
            continue
        spec = fields[target]
        value = draw(breaking(spec.kind, spec.required))
        if value is _MISSING:
            payload.pop(target, None)
        else:
            payload[target] = value
        broken.append(target)
    if not broken:  # every extra key drawn was taken: break the first field instead
        first = next(iter(fields))
        payload[first] = draw(_wrong_types(fields[first].kind, True))
        broken.append(first)
    return Sent(task, payload, tuple(broken))


# ------------------------------------------------------------------ well-formed, hostile

_TYPES = st.sampled_from([TEST_RESOURCE, "OS::Heat::None", "OS::Heat::RandomString"]) | TEXT
_FUNCTIONS = st.sampled_from(
    ["get_param", "get_attr", "get_resource", "str_replace", "list_join", "if", "equals"]
)
_SNIPPETS = st.recursive(
    FINITE,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(TEXT, inner, max_size=3)
        | st.builds(lambda name, arg: {name: arg}, _FUNCTIONS, inner)
    ),
    max_leaves=8,
)


@st.composite
def garbage_template(draw: st.DrawFn) -> Any:
    """A template that must be refused: whatever else it holds, one resource has a type
    that does not exist."""
    if draw(st.integers(min_value=0, max_value=9)) == 0:
        return draw(TEXT)  # text: never a template with a version and resources
    resources = {
        draw(LEGAL_NAMES): {
            "type": draw(_TYPES),
            "properties": draw(st.dictionaries(TEXT, _SNIPPETS, max_size=3)),
            **draw(st.fixed_dictionaries({}, optional={"depends_on": _SNIPPETS})),
        }
        for _ in range(draw(st.integers(min_value=0, max_value=3)))
    }
    resources["zz-unknown"] = {"type": "Fuzz::No::Such::Type"}
    return {
        "heat_template_version": draw(st.sampled_from([VERSION, "2013-05-23"]) | TEXT),
        "resources": resources,
        **draw(
            st.fixed_dictionaries(
                {},
                optional={
                    "description": TEXT,
                    "parameters": st.dictionaries(
                        LEGAL_NAMES,
                        st.fixed_dictionaries(
                            {"type": st.sampled_from(["string", "number", "json"]) | TEXT},
                            optional={
                                "default": JSON,
                                "hidden": st.booleans(),
                                "constraints": _SNIPPETS,
                            },
                        ),
                        max_size=2,
                    ),
                    "outputs": st.dictionaries(
                        LEGAL_NAMES, st.fixed_dictionaries({"value": _SNIPPETS}), max_size=2
                    ),
                    "conditions": _SNIPPETS,
                },
            )
        ),
    }


@dataclass(frozen=True)
class Known:
    """A stack that exists, for reads that must succeed."""

    tenant: str
    name: str
    stack_id: str


# A stack name as create takes it (conv_tasks/engine/operations.py), or a name that only the
# payload checks take.
_STACK_NAMES = st.from_regex(r"\A[A-Za-z][A-Za-z0-9_.-]{0,40}\Z") | LEGAL_NAMES


# Check, suspend, resume and mark-unhealthy would only ever meet "no such stack" here, as
# delete and rollback do: left out, so that creates and updates with garbage templates stay
# a good share.
_HOSTILE_TASKS = sorted(
    set(TASKS)
    - {
        "conv_tasks.stack.check",
        "conv_tasks.stack.suspend",
        "conv_tasks.stack.resume",
        "conv_tasks.resource.mark_unhealthy",
    }
)


def hostile(known: Known) -> st.SearchStrategy[Sent]:
    """Writes that must be refused (a create or update with a garbage template, anything
    else on a stack that does not exist) and reads of stacks that do and do not exist."""

    @st.composite
    def draw_one(draw: st.DrawFn) -> Sent:
        task = draw(st.sampled_from(_HOSTILE_TASKS))
        # A tenant with no stacks: nothing a write names can exist.
        stranger = "fz-" + draw(st.text(NAME_CHARS, max_size=20))
        mine = draw(st.booleans())
        tenant = known.tenant if mine else stranger
        stack = draw(st.sampled_from([known.name, known.stack_id])) if mine else draw(LEGAL_NAMES)
        payload: dict[str, Any]
        if task == "conv_tasks.stack.create":
            payload = {"tenant": stranger, "name": draw(_STACK_NAMES)}
            payload["template"] = draw(garbage_template())
            payload["parameters"] = draw(MAPPINGS)
        elif task == "conv_tasks.stack.apply":
            # The stack that exists too (an update of it), or a new one: refused either way,
            # and the stack left as it was.
            name = known.name if mine else draw(_STACK_NAMES)
            payload = {"tenant": tenant, "name": name, "template": draw(garbage_template())}
            payload["parameters"] = draw(MAPPINGS)
        elif task == "conv_tasks.stack.update":
            # The stack that exists too: a refused update must leave it as it was.
            payload = {"tenant": tenant, "stack": stack, "template": draw(garbage_template())}
            payload["parameters"] = draw(MAPPINGS)
        elif task == "conv_tasks.resource.signal":
            # A resource the stack does not have (it has "a" only).
            resource = draw(LEGAL_NAMES.filter(lambda name: name != "a"))
            payload = {"tenant": tenant, "stack": stack, "resource": resource}
            payload["details"] = draw(MAPPINGS)
        elif task not in READS:
            payload = {"tenant": stranger, "stack": draw(LEGAL_NAMES)}
        else:
            payload = {"tenant": tenant if mine or draw(st.booleans()) else stranger}
            if "stack" in TASKS[task]:
                payload["stack"] = stack
        for name, spec in TASKS[task].items():
            if name not in payload and draw(st.booleans()):
                payload[name] = draw(legal(spec.kind))
        return Sent(task, payload)

    return draw_one()
