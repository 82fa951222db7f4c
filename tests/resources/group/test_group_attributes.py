"""The member attributes a group's child stack must hand on for the template's references."""

from __future__ import annotations

from conv_tasks.resources.builtin.group import member_attributes_needed


def test_member_attributes_needed_for_references() -> None:
    references = [
        ("refs", []),
        ("refs_map", []),
        ("removed_rsrc_list", []),
        ("attributes", ["name", "x"]),
        ("net", ["ips"]),
        ("resource.0", []),
        ("resource.1", ["ip"]),
        ("resource.2.a.b", []),
        ("name", []),
        ("attributes", []),
    ]
    assert member_attributes_needed(references) == ("name", "net", "ip", "a.b")
