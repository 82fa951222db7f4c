"""The checkers come from the `conv_tasks.constraints` entry points, conv_tasks' own too."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from conv_tasks.constraints import ENTRY_POINT_GROUP, installed_checkers, load_checkers
from conv_tasks.constraints.network import ip_addr
from conv_tasks.errors import InvalidInput

BUILT_IN = {
    "cron_expression",
    "dns_domain",
    "dns_name",
    "expiration",
    "ip_addr",
    "ip_or_cidr",
    "iso_8601",
    "json_string",
    "mac_addr",
    "net_cidr",
    "rel_dns_name",
    "test_constr",
    "timezone",
}


@dataclass(frozen=True)
class FakeEntryPoint:
    name: str
    target: Any
    value: str = "some.package:checker"

    def load(self) -> Any:
        if isinstance(self.target, Exception):
            raise self.target
        return self.target


def test_conv_tasks_declares_its_checkers_as_entry_points() -> None:
    installed = installed_checkers()
    assert ENTRY_POINT_GROUP == "conv_tasks.constraints"
    assert set(installed.names()) >= BUILT_IN
    assert installed.knows("ip_addr") and not installed.knows("nova.flavor")
    assert installed.check("ip_addr", "10.0.0.1") is None
    assert installed.check("ip_addr", "nope") == "is not an IP address"
    assert installed.strict is False


def test_a_package_adds_a_checker_by_its_entry_point() -> None:
    def flavor(value: Any) -> str | None:
        return None if value in ("m1.small", "m1.large") else "is not a known flavor"

    checkers = load_checkers([FakeEntryPoint("nova.flavor", flavor), FakeEntryPoint("ip", ip_addr)])
    assert checkers.names() == ["ip", "nova.flavor"]
    assert checkers.check("nova.flavor", "m1.small") is None
    assert checkers.check("nova.flavor", "m9") == "is not a known flavor"


def test_broken_entry_points_are_named_together() -> None:
    with pytest.raises(InvalidInput) as caught:
        load_checkers(
            [
                FakeEntryPoint("gone", ImportError("No module named 'gone'")),
                FakeEntryPoint("text", "not a function"),
                FakeEntryPoint("twice", ip_addr, "a:ip_addr"),
                FakeEntryPoint("twice", len, "b:len"),
            ]
        )
    paths = [problem.path for problem in caught.value.problems]
    assert paths == [
        "entry_points.conv_tasks.constraints.gone",
        "entry_points.conv_tasks.constraints.text",
        "entry_points.conv_tasks.constraints.twice",
    ]
    messages = str(caught.value)
    assert "No module named 'gone'" in messages and "is not callable" in messages
    assert "already provided by a:ip_addr" in messages


def test_the_same_checker_declared_twice_is_one() -> None:
    checkers = load_checkers([FakeEntryPoint("ip", ip_addr), FakeEntryPoint("ip", ip_addr)])
    assert checkers.names() == ["ip"]


def test_a_checker_that_raises_fails_the_value_without_an_error() -> None:
    def broken(value: Any) -> str | None:
        raise RuntimeError(f"cannot look up {value}")

    checkers = load_checkers([FakeEntryPoint("broken", broken)])
    reason = checkers.check("broken", "secret-value")
    assert reason == "could not be checked (the checker raised RuntimeError)"


def test_strictly_keeps_the_checkers() -> None:
    strict = installed_checkers().strictly(True)
    assert strict.strict and strict.names() == installed_checkers().names()
    assert installed_checkers().strict is False
