"""Domain names: dns_name, dns_domain and rel_dns_name, with Heat's rules.

A name is labels joined by dots, optionally ending with a dot (fully qualified); each label
has 1 to 63 characters among lowercase letters, digits and hyphens, and neither starts nor
ends with a hyphen; the name without its final dot has at most 255 characters; a fully
qualified name's last label (its top-level domain) is not all digits. Heat allows only
lowercase letters, so `Example.com` is refused here too. An empty value passes, as in Heat.
"""

from __future__ import annotations

import re
from typing import Any

from conv_tasks.constraints.network import NOT_TEXT

MAX_NAME = 255
MAX_LABEL = 63
# A relative name still needs room for a dot and a domain of at least two characters.
MAX_RELATIVE = MAX_NAME - 3
_LABEL = re.compile(r"[a-z0-9-]+")


def dns_name(value: Any) -> str | None:
    """A host or domain name, relative or fully qualified."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value == "":
        return None
    trimmed = value[:-1] if value.endswith(".") else value
    if len(trimmed) > MAX_NAME:
        return f"is longer than {MAX_NAME} characters"
    labels = trimmed.split(".")
    for label in labels:
        if label == "":
            return "has an empty label (two dots in a row, or a leading dot)"
        if label.startswith("-") or label.endswith("-"):
            return "has a label that starts or ends with a hyphen"
        if len(label) > MAX_LABEL or not _LABEL.fullmatch(label):
            return f"has a label that is not 1 to {MAX_LABEL} lowercase letters, digits or hyphens"
    if value.endswith(".") and len(labels) > 1 and labels[-1].isdigit():
        return "has an all-numeric top-level domain"
    return None


def dns_domain(value: Any) -> str | None:
    """A fully qualified domain name: a name that ends with a dot."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value == "":
        return None
    reason = dns_name(value)
    if reason is not None:
        return reason
    return None if value.endswith(".") else "must end with '.' (a fully qualified domain name)"


def rel_dns_name(value: Any) -> str | None:
    """A name relative to a domain: no final dot, and room left for the domain."""
    if not isinstance(value, str):
        return NOT_TEXT
    if value == "":
        return None
    if value.endswith("."):
        return "is fully qualified (ends with '.'); a relative name is wanted"
    if len(value) > MAX_RELATIVE:
        return (
            f"is longer than {MAX_RELATIVE} characters: with a domain added it would pass the "
            f"{MAX_NAME} characters of a fully qualified name"
        )
    return dns_name(value)
