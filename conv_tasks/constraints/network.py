"""Addresses: ip_addr, net_cidr, ip_or_cidr and mac_addr, as Heat accepts them.

Heat checks addresses with netaddr and neutron-lib; these say the same with the standard
library's ipaddress. An IPv4 address is written in full, four decimal numbers without leading
zeros (`010.0.0.1` may mean octal to one reader and decimal to another); a CIDR must have a
prefix, may have host bits set (`10.0.0.1/24`), and an IPv4 one is written as ipaddress
writes it back (`/24`, not `/255.255.255.0`). IPv6 scope ids (`fe80::1%eth0`) are refused,
as Heat refuses them.
"""

from __future__ import annotations

import ipaddress
import re
from typing import Any

NOT_TEXT = "must be a string"


def ip_addr(value: Any) -> str | None:
    """An IPv4 or IPv6 address."""
    if not isinstance(value, str):
        return NOT_TEXT
    return None if _address(value) else "is not an IP address"


def net_cidr(value: Any) -> str | None:
    """A network in CIDR notation, ADDRESS/PREFIX."""
    if not isinstance(value, str):
        return NOT_TEXT
    if "/" not in value:
        return "is not a network in CIDR notation (ADDRESS/PREFIX): the prefix is missing"
    return None if _network(value) else "is not a network in CIDR notation (ADDRESS/PREFIX)"


def ip_or_cidr(value: Any) -> str | None:
    """An address, or a network in CIDR notation."""
    if not isinstance(value, str):
        return NOT_TEXT
    if "/" in value:
        return net_cidr(value)
    return ip_addr(value)


def _plain(value: str) -> bool:
    return value != "" and not any(c.isspace() or c == "%" for c in value)


def _address(value: str) -> bool:
    if not _plain(value):
        return False
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return False
    return address.version == 6 or str(address) == value


def _network(value: str) -> bool:
    if not _plain(value):
        return False
    prefix = value.partition("/")[2]
    if not prefix.isascii() or not prefix.isdigit():
        return False
    try:
        interface = ipaddress.ip_interface(value)
    except ValueError:
        return False
    return interface.version == 6 or str(interface) == value


# The ways of writing a 48-bit MAC address that Heat (through netaddr) accepts: six groups
# of one or two hex digits, three of one to four, two of five or six, or 11 to 12 digits.
_GROUPED_MAC = (
    (6, 1, 2, ":-"),
    (3, 1, 4, ":-."),
    (2, 5, 6, ":-"),
)
_BARE_MAC = re.compile(r"[0-9a-f]{11,12}", re.IGNORECASE)


def mac_addr(value: Any) -> str | None:
    """A MAC address: 00:1b:77:49:54:fd, 00-1B-77-49-54-FD, 001b.7749.54fd, 001b774954fd."""
    if not isinstance(value, str):
        return NOT_TEXT
    if _BARE_MAC.fullmatch(value) or any(_grouped(value, *form) for form in _GROUPED_MAC):
        return None
    return "is not a MAC address"


def _grouped(value: str, groups: int, shortest: int, longest: int, separators: str) -> bool:
    for separator in separators:
        parts = value.split(separator)
        if len(parts) == groups and all(
            shortest <= len(part) <= longest and _is_hex(part) for part in parts
        ):
            return True
    return False


def _is_hex(text: str) -> bool:
    return all(c in "0123456789abcdefABCDEF" for c in text)
