"""ip_addr, net_cidr, ip_or_cidr and mac_addr accept what Heat accepts."""

from __future__ import annotations

from typing import Any

import pytest

from conv_tasks.constraints.network import ip_addr, ip_or_cidr, mac_addr, net_cidr


@pytest.mark.parametrize(
    "value", ["10.0.0.1", "0.0.0.0", "255.255.255.255", "::1", "2001:db8::8:800:200c:417a",
              "::ffff:192.0.2.1", "FE80::1"],
)  # fmt: skip
def test_ip_addr_takes_addresses(value: str) -> None:
    assert ip_addr(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "10.0.0",  # three parts
        "10.0.0.256",
        "010.0.0.1",  # a leading zero: octal to some readers
        " 10.0.0.1",
        "10.0.0.1 ",
        "fe80::1%eth0",  # a scope id
        "10.0.0.0/8",
        "2001:db8:::1",
        "example.com",
    ],
)
def test_ip_addr_refuses_what_is_not_one_address(value: str) -> None:
    assert ip_addr(value) == "is not an IP address"


@pytest.mark.parametrize("value", [3232235777, None, ["10.0.0.1"], True])
def test_every_checker_here_refuses_what_is_not_text(value: Any) -> None:
    for checker in (ip_addr, net_cidr, ip_or_cidr, mac_addr):
        assert checker(value) == "must be a string"


@pytest.mark.parametrize(
    "value", ["10.0.0.0/8", "10.0.0.1/24", "192.168.1.0/32", "0.0.0.0/0", "2001:db8::/32",
              "2001:db8::1/64", "::/0"],
)  # fmt: skip
def test_net_cidr_takes_networks_with_host_bits_or_not(value: str) -> None:
    assert net_cidr(value) is None


@pytest.mark.parametrize(
    ("value", "why"),
    [
        ("10.0.0.0", "the prefix is missing"),
        ("10.0.0.0/33", "CIDR"),
        ("10.0.0.0/255.0.0.0", "CIDR"),  # a netmask is not how Heat writes a prefix
        ("10.0.0.0/08", "CIDR"),
        ("010.0.0.0/8", "CIDR"),
        ("10.0.0.0/", "CIDR"),
        ("10.0.0.0/8 ", "CIDR"),
        ("10.0.0/8", "CIDR"),
        ("2001:db8::/129", "CIDR"),
        ("/8", "CIDR"),
    ],
)
def test_net_cidr_refuses_what_is_not_a_network(value: str, why: str) -> None:
    reason = net_cidr(value)
    assert reason is not None and why in reason


def test_ip_or_cidr_takes_either_and_says_which_is_wrong() -> None:
    assert ip_or_cidr("10.0.0.1") is None
    assert ip_or_cidr("10.0.0.0/8") is None
    assert ip_or_cidr("2001:db8::/48") is None
    assert ip_or_cidr("10.0.0.300") == "is not an IP address"
    assert "CIDR" in (ip_or_cidr("10.0.0.0/40") or "")


@pytest.mark.parametrize(
    "value",
    [
        "00:1b:77:49:54:fd",
        "00-1B-77-49-54-FD",
        "0:1b:7:49:54:fd",  # one-digit groups
        "001b.7749.54fd",  # Cisco's
        "001b:7749:54fd",
        "001b77-4954fd",  # PostgreSQL's
        "001b774954fd",  # bare
        "01b774954fd",  # bare, 11 digits
    ],
)
def test_mac_addr_takes_the_usual_spellings(value: str) -> None:
    assert mac_addr(value) is None


@pytest.mark.parametrize(
    "value",
    [
        "",
        "00:1b:77:49:54",  # five groups
        "00:1b:77:49:54:fd:00",
        "00:1b:77:49:54:fg",
        "001:1b:77:49:54:fd",
        "00:1b-77:49:54:fd",  # mixed separators
        "001b.7749.54fd.0000",
        "001b774954fdab",
        " 00:1b:77:49:54:fd",
    ],
)
def test_mac_addr_refuses_the_rest(value: str) -> None:
    assert mac_addr(value) == "is not a MAC address"
