"""Templates past a limit are refused before any work, each refusal naming its limit.

The cases that crashed or hung a worker (deep YAML flow collections, a
catastrophically backtracking allowed_pattern) run in a child process with a
time limit, so that a regression fails this test instead of the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from typing import Any

import pytest

from conv_tasks import limits
from conv_tasks.errors import ParameterError, TemplateError
from conv_tasks.template import load_template, validate_parameters

VERSION = "heat_template_version: 2018-08-31\n"


def problems_of(source: Any) -> list[str]:
    with pytest.raises(TemplateError) as info:
        load_template(source)
    return [str(p) for p in info.value.problems]


def run_child(code: str, timeout: float = 20) -> str:
    """Run code in a fresh interpreter; its stdout. Fails on a crash or past the timeout."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(code)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {timeout} s")
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    return done.stdout


@pytest.mark.parametrize(("opening", "closing"), [("[", "]"), ("{a: ", "}"), ("[a, ", "]")])
def test_deep_yaml_flow_collections_are_refused_without_crashing(
    opening: str, closing: str
) -> None:
    out = run_child(
        f"""
        from conv_tasks.errors import TemplateError
        from conv_tasks.template import load_template
        n = 200_000
        try:
            load_template("resources: " + {opening!r} * n + {closing!r} * n)
        except TemplateError as exc:
            print(exc)
        """
    )
    assert "MAX_TEMPLATE_DEPTH" in out


def test_deep_block_nesting_is_refused_naming_the_limit() -> None:
    source = VERSION + "resources:\n" + "".join(" " * i + "- \n" for i in range(1, 300))
    [problem] = problems_of(source)
    assert "MAX_TEMPLATE_DEPTH" in problem


def test_depth_at_the_limit_is_accepted_and_one_more_is_refused() -> None:
    def nested(levels: int) -> dict[str, Any]:
        # The document itself is one level; the description's lists make the rest.
        value: Any = "x"
        for _ in range(levels - 1):
            value = [value]
        return {"heat_template_version": "2018-08-31", "outputs": {}, "x": value}

    # Unknown key x is a problem, but not the depth.
    assert not any("DEPTH" in p for p in problems_of(nested(limits.MAX_TEMPLATE_DEPTH)))
    [problem] = problems_of(nested(limits.MAX_TEMPLATE_DEPTH + 1))
    assert "MAX_TEMPLATE_DEPTH" in problem
    text = "x: " + "[" * (limits.MAX_TEMPLATE_DEPTH - 1) + "]" * (limits.MAX_TEMPLATE_DEPTH - 1)
    assert not any("DEPTH" in p for p in problems_of(VERSION + text))
    text = "x: " + "[" * limits.MAX_TEMPLATE_DEPTH + "]" * limits.MAX_TEMPLATE_DEPTH
    assert any("MAX_TEMPLATE_DEPTH" in p for p in problems_of(VERSION + text))


def test_billion_laughs_is_refused_before_it_expands() -> None:
    lines = ["a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    lines += [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 10) + "]" for i in range(1, 10)]
    [problem] = problems_of(VERSION + "\n".join(lines))
    assert "MAX_TEMPLATE_VALUES" in problem
    assert "too large" in problem


def test_more_aliases_than_the_limit_are_refused_naming_it() -> None:
    aliases = ", ".join(["*a"] * (limits.MAX_YAML_ALIASES + 1))
    [problem] = problems_of(VERSION + f"description: &a x\nx: [{aliases}]\n")
    assert "MAX_YAML_ALIASES" in problem
    aliases = ", ".join(["*a"] * limits.MAX_YAML_ALIASES)
    assert not any("ALIASES" in p for p in problems_of(VERSION + f"d: &a x\nx: [{aliases}]\n"))


def test_template_text_larger_than_the_limit_is_refused_before_parsing() -> None:
    [problem] = problems_of(VERSION + "#" * limits.MAX_TEMPLATE_BYTES)
    assert "MAX_TEMPLATE_BYTES" in problem


@pytest.mark.parametrize("as_text", [False, True])
def test_more_resources_than_the_limit_are_refused_naming_it(as_text: bool) -> None:
    # One past the limit: as text, 100,000 resources are refused by MAX_TEMPLATE_BYTES first.
    count = limits.MAX_RESOURCES + 1
    if as_text:
        source: Any = (
            VERSION
            + "resources:\n"
            + "".join(f"  r{i}: {{type: OS::Heat::None}}\n" for i in range(count))
        )
    else:
        resources = {f"r{i}": {"type": "OS::Heat::None"} for i in range(count)}
        source = {"heat_template_version": "2018-08-31", "resources": resources}
    [problem] = problems_of(source)
    assert problem.startswith("resources:")
    assert "MAX_RESOURCES" in problem


def test_resources_at_the_limit_are_accepted() -> None:
    resources = {f"r{i}": {"type": "OS::Heat::None"} for i in range(limits.MAX_RESOURCES)}
    template = load_template({"heat_template_version": "2018-08-31", "resources": resources})
    assert len(template.resources) == limits.MAX_RESOURCES


@pytest.mark.parametrize("section", ["resources", "parameters", "outputs"])
def test_long_names_are_refused_naming_the_limit(section: str) -> None:
    name = "r" * 5000
    spec = {
        "resources": {"type": "OS::Heat::None"},
        "parameters": {"type": "string"},
        "outputs": {"value": 1},
    }[section]
    [problem] = problems_of({"heat_template_version": "2018-08-31", section: {name: spec}})
    assert problem.startswith(f"{section}: ")
    assert "MAX_NAME_CHARS" in problem
    assert len(problem) < 400  # the name is not echoed whole


@pytest.mark.parametrize("name", ["a\x00b", "a\nb", "\x1b[2J"])
def test_names_with_control_characters_are_refused(name: str) -> None:
    template = {"heat_template_version": "2018-08-31", "resources": {name: {"type": "T"}}}
    [problem] = problems_of(template)
    assert problem.startswith("resources: ")
    assert "control character" in problem or "NUL" in problem


CATASTROPHIC = [r"(a+)+$", r"(a|a)*b", r"^(([a-z])+.)+[A-Z]([a-z])+$", r"(x+x+)+y"]


def test_a_catastrophic_allowed_pattern_answers_at_once() -> None:
    out = run_child(
        f"""
        import time
        from conv_tasks.errors import ParameterError
        from conv_tasks.template import load_template, validate_parameters
        for pattern in {CATASTROPHIC!r}:
            template = load_template({{
                "heat_template_version": "2018-08-31",
                "parameters": {{"p": {{"type": "string",
                                       "constraints": [{{"allowed_pattern": pattern}}]}}}},
            }})
            started = time.monotonic()
            try:
                validate_parameters(template, {{"p": "a" * 40 + "!"}})
            except ParameterError:
                pass
            print(round(time.monotonic() - started, 3))
        """,
        timeout=30,
    )
    assert all(float(seconds) < 0.5 for seconds in out.split()), out


def pattern_template(pattern: str, **spec: Any) -> Any:
    return {
        "heat_template_version": "2018-08-31",
        "parameters": {
            "p": {"type": "string", "constraints": [{"allowed_pattern": pattern}], **spec}
        },
    }


@pytest.mark.parametrize(
    ("pattern", "reason"),
    [(r"(a)\1", "backreference"), (r"(?=a)a", "look-around"), (r"((a{100}){100}){100}", "")],
)
def test_patterns_a_linear_time_engine_cannot_run_are_refused_at_load(
    pattern: str, reason: str
) -> None:
    [problem] = problems_of(pattern_template(pattern))
    assert problem.startswith("parameters.p.constraints.0.allowed_pattern: ")
    assert reason in problem


def test_patterns_longer_than_the_limit_are_refused() -> None:
    [problem] = problems_of(pattern_template("a" * (limits.MAX_PATTERN_CHARS + 1)))
    assert "MAX_PATTERN_CHARS" in problem


def test_pattern_checks_past_the_work_limit_are_refused_naming_it() -> None:
    pattern = "[ab]*a[ab]{999}"
    template = load_template(pattern_template(pattern))
    value = "ab" * (limits.MAX_PATTERN_WORK // 1000)
    with pytest.raises(ParameterError) as info:
        validate_parameters(template, {"p": value})
    [problem] = [str(p) for p in info.value.problems]
    assert "MAX_PATTERN_WORK" in problem


def test_ordinary_patterns_still_match_as_before() -> None:
    template = load_template(pattern_template(r"[a-z][a-z0-9_-]{0,30}\d", default="ab1"))
    assert validate_parameters(template, {}) == {"p": "ab1"}
    assert validate_parameters(template, {"p": "web-01"}) == {"p": "web-01"}
    with pytest.raises(ParameterError):
        validate_parameters(template, {"p": "Web-01"})


def test_numbers_beyond_a_float_are_not_finite() -> None:
    template = load_template(
        {"heat_template_version": "2018-08-31", "parameters": {"n": {"type": "number"}}}
    )
    with pytest.raises(ParameterError, match="finite"):
        validate_parameters(template, {"n": 10**400})
    assert validate_parameters(template, {"n": 10**300}) == {"n": 10**300}


def test_a_yaml_nul_escape_in_a_value_is_refused_where_it_is() -> None:
    source = VERSION + 'resources:\n  r:\n    type: T\n    properties: {value: "x\\0y"}\n'
    [problem] = problems_of(source)
    assert problem.startswith("resources.r.properties.value: ")
    assert "NUL" in problem


def test_text_that_is_not_unicode_is_refused_in_values_and_keys() -> None:
    template = {
        "heat_template_version": "2018-08-31",
        "resources": {"r": {"type": "T", "properties": {"value": "\ud800", "k\x00": 1}}},
    }
    problems = problems_of(template)
    assert any(p.startswith("resources.r.properties.value: ") for p in problems), problems
    assert any("a key must not contain NUL" in p for p in problems), problems
