"""dns_name, dns_domain and rel_dns_name follow Heat's rules for names."""

from __future__ import annotations

import pytest

from conv_tasks.constraints.dns import dns_domain, dns_name, rel_dns_name

LABEL_63 = "a" * 63


@pytest.mark.parametrize(
    "value",
    ["", "host", "www.example.com", "www.example.com.", "a-b.c-d", "123.example.com",
     f"{LABEL_63}.example", "xn--bcher-kva.example", "10.0.0.1"],
)  # fmt: skip
def test_dns_name_takes_names(value: str) -> None:
    assert dns_name(value) is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("Example.com", "lowercase"),  # Heat allows no capitals
        ("exa_mple.com", "lowercase"),
        (f"{LABEL_63}a.example", "1 to 63"),
        ("-web.example.com", "hyphen"),
        ("web-.example.com", "hyphen"),
        ("www..example.com", "empty label"),
        (".example.com", "empty label"),
        ("example.com..", "empty label"),
        ("example.123.", "all-numeric top-level domain"),
        (".".join(["abcdefg"] * 32) + "x", "longer than 255"),
    ],
)
def test_dns_name_refuses_and_says_why(value: str, why: str) -> None:
    reason = dns_name(value)
    assert reason is not None and why in reason


def test_a_name_of_255_characters_and_a_final_dot_passes() -> None:
    name = ".".join(["a" * 63] * 4)[:255]
    assert len(name) == 255 and not name.endswith(".")
    assert dns_name(name) is None
    assert dns_name(name + ".") is None


def test_dns_domain_must_be_fully_qualified() -> None:
    assert dns_domain("example.com.") is None
    assert dns_domain("") is None
    assert "must end with '.'" in (dns_domain("example.com") or "")
    assert "hyphen" in (dns_domain("-x.com.") or "")
    assert dns_domain(42) == "must be a string"


def test_rel_dns_name_is_relative_and_leaves_room_for_a_domain() -> None:
    assert rel_dns_name("www") is None
    assert rel_dns_name("www.branch") is None
    assert rel_dns_name("") is None
    assert "fully qualified" in (rel_dns_name("www.example.com.") or "")
    long_name = ".".join(["a" * 50] * 5)[:252]  # room left for ".xy"
    assert len(long_name) == 252 and rel_dns_name(long_name) is None
    assert "longer than 252" in (rel_dns_name(long_name + "c") or "")
    assert "lowercase" in (rel_dns_name("WWW") or "")
    assert rel_dns_name(["www"]) == "must be a string"
