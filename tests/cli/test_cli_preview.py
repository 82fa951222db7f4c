"""`stack preview` of a change to a resource derived from a hidden value: the real
`conv-tasks` executable against real workers. It says that the property changed, never
what from or to, and `******` -> `******` (which said nothing) is gone."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cli_process import run, tenant, test_resource, write_template

OLD, NEW = "first-secret-value", "second-secret-value"


def test_a_change_derived_from_a_hidden_value_says_so_without_values(
    workers: Any, tmp_path: Path
) -> None:
    who = tenant()
    path = write_template(
        tmp_path / "t.json",
        {
            "hush": test_resource({"get_param": "secret"}),
            # Not derived from the hidden parameter, but holding its text: masked where shown.
            "echo": test_resource({"get_param": "plain"}),
            "open": test_resource({"get_param": "label"}),
        },
        parameters={
            "secret": {"type": "string", "hidden": True},
            "plain": {"type": "string"},
            "label": {"type": "string"},
        },
    )
    given = ("-P", f"secret={OLD}", "-P", f"plain=x {OLD}", "-P", "label=a")
    done = run(who, "stack", "create", "quiet", "-t", path, *given, "--wait")
    assert done.returncode == 0, done.stdout + done.stderr
    changed = ("-P", f"secret={NEW}", "-P", f"plain=x {NEW}", "-P", "label=b")

    done = run(who, "stack", "preview", "quiet", "-t", path, *changed)
    assert done.returncode == 0, done.stdout + done.stderr
    text = done.stdout
    assert OLD not in text and NEW not in text and "******" not in text
    lines = text.splitlines()
    assert lines[lines.index("  ~ hush  OS::Heat::TestResource  update") + 1] == (
        "      value: changed (hidden value)"
    )
    assert lines[lines.index("  ~ echo  OS::Heat::TestResource  update") + 1] == (
        "      value: changed (hidden value)"
    )
    assert lines[lines.index("  ~ open  OS::Heat::TestResource  update") + 1] == (
        '      value: "a" -> "b"'
    )

    done = run(who, "--json", "stack", "preview", "quiet", "-t", path, *changed)
    assert done.returncode == 0, done.stdout + done.stderr
    assert OLD not in done.stdout and NEW not in done.stdout
    changes = {e["name"]: e["changes"] for e in json.loads(done.stdout)["resources"]}
    assert changes == {
        "hush": {"value": {"hidden": True}},
        "echo": {"value": {"hidden": True}},
        "open": {"value": {"old": "a", "new": "b"}},
    }
