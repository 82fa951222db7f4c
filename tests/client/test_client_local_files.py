"""conv_tasks.local_files: what the CLI and client send beside a template, read from disk."""

from __future__ import annotations

from pathlib import Path

import pytest

from conv_tasks.errors import FilesError
from conv_tasks.local_files import collect


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


TEMPLATE = """
heat_template_version: 2018-08-31
resources:
  config:
    type: OS::Heat::Value
    properties:
      value: {get_file: scripts/setup.sh}
  nested:
    type: lib/nested.yaml
outputs:
  motd:
    value: {str_replace: {template: {get_file: motd.txt}, params: {x: y}}}
"""

NESTED = """
heat_template_version: 2018-08-31
resources:
  inner:
    type: OS::Heat::Value
    properties:
      value: {get_file: inner.txt}
"""


def test_get_file_and_provider_templates_are_read_relative_to_their_referrer(
    tmp_path: Path,
) -> None:
    template = write(tmp_path / "stack" / "main.yaml", TEMPLATE)
    write(tmp_path / "stack" / "scripts" / "setup.sh", "#!/bin/sh\n")
    write(tmp_path / "stack" / "motd.txt", "hello")
    write(tmp_path / "stack" / "lib" / "nested.yaml", NESTED)
    write(tmp_path / "stack" / "lib" / "inner.txt", "inner text")
    collected = collect(str(template))
    assert collected.template == TEMPLATE
    assert dict(collected.files) == {
        "scripts/setup.sh": "#!/bin/sh\n",
        "motd.txt": "hello",
        "lib/nested.yaml": NESTED,
        "inner.txt": "inner text",  # relative to lib/nested.yaml, which names it
    }


def test_environments_bring_their_provider_templates(tmp_path: Path) -> None:
    template = write(tmp_path / "main.yaml", "heat_template_version: 2018-08-31\n")
    env_text = (
        "resource_registry:\n"
        "  My::Server: providers/server.yaml\n"
        "  My::Alias: OS::Heat::None\n"
        "  resources:\n"
        "    web:\n"
        f"      My::Web: file://{tmp_path}/abs/web.template\n"
    )
    env = write(tmp_path / "envs" / "prod.yaml", env_text)
    write(tmp_path / "envs" / "providers" / "server.yaml", NESTED)
    write(tmp_path / "envs" / "providers" / "inner.txt", "in providers")
    write(tmp_path / "abs" / "web.template", "heat_template_version: 2018-08-31\n")
    second = write(tmp_path / "second.yaml", "parameters: {a: 1}\n")
    collected = collect(str(template), [str(env), str(second)])
    assert collected.environments == (env_text, "parameters: {a: 1}\n")
    assert set(collected.files) == {
        "providers/server.yaml",
        "inner.txt",
        f"file://{tmp_path}/abs/web.template",
    }
    assert collected.files["inner.txt"] == "in providers"


def test_absolute_paths_are_allowed(tmp_path: Path) -> None:
    data = write(tmp_path / "data.txt", "absolute")
    template = write(
        tmp_path / "t" / "main.yaml",
        f"heat_template_version: 2018-08-31\noutputs: {{o: {{value: {{get_file: '{data}'}}}}}}\n",
    )
    assert collect(str(template)).files == {str(data): "absolute"}


def test_a_missing_file_names_the_file_and_its_referrer(tmp_path: Path) -> None:
    template = write(tmp_path / "main.yaml", TEMPLATE)
    write(tmp_path / "scripts" / "setup.sh", "")
    with pytest.raises(FilesError) as exc:
        collect(str(template))
    message = str(exc.value)
    assert "motd.txt" in message or "lib/nested.yaml" in message
    assert str(template) in message
    assert "no such file" in message


def test_urls_are_refused(tmp_path: Path) -> None:
    template = write(
        tmp_path / "main.yaml",
        "heat_template_version: 2018-08-31\n"
        "outputs: {o: {value: {get_file: 'https://example.com/x.txt'}}}\n",
    )
    with pytest.raises(FilesError, match="URLs is not supported"):
        collect(str(template))


def test_one_name_meaning_two_files_is_refused(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "top")
    write(tmp_path / "lib" / "a.txt", "nested")
    write(
        tmp_path / "lib" / "nested.yaml",
        "heat_template_version: 2018-08-31\noutputs: {o: {value: {get_file: a.txt}}}\n",
    )
    template = write(
        tmp_path / "main.yaml",
        "heat_template_version: 2018-08-31\n"
        "resources: {n: {type: lib/nested.yaml}}\n"
        "outputs: {o: {value: {get_file: a.txt}}}\n",
    )
    with pytest.raises(FilesError, match="one name must mean one file"):
        collect(str(template))


def test_the_same_file_named_twice_is_sent_once(tmp_path: Path) -> None:
    write(tmp_path / "a.txt", "once")
    template = write(
        tmp_path / "main.yaml",
        "heat_template_version: 2018-08-31\n"
        "outputs:\n  o: {value: {get_file: a.txt}}\n  p: {value: {get_file: a.txt}}\n",
    )
    assert collect(str(template)).files == {"a.txt": "once"}


def test_a_missing_environment_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(FilesError) as exc:
        collect(None, [str(tmp_path / "nope.yaml")])
    assert "nope.yaml" in str(exc.value) and "command line" in str(exc.value)


def test_a_provider_that_refers_to_itself_is_read_once(tmp_path: Path) -> None:
    write(
        tmp_path / "loop.yaml",
        "heat_template_version: 2018-08-31\nresources: {r: {type: loop.yaml}}\n",
    )
    template = write(tmp_path / "main.yaml", "resources: {n: {type: loop.yaml}}\n")
    assert set(collect(str(template)).files) == {"loop.yaml"}


GROUP = """
heat_template_version: 2018-08-31
resources:
  group:
    type: OS::Heat::ResourceGroup
    properties:
      count: 2
      resource_def:
        type: members/child.yaml
        properties: {label: "m-%index%"}
"""
CHILD = """
heat_template_version: 2018-08-31
parameters:
  label: {type: string}
resources:
  inner:
    type: OS::Heat::ResourceGroup
    properties:
      resource_def: {type: deeper/grandchild.yaml}
  v:
    type: OS::Heat::Value
    properties: {value: {get_file: child.txt}}
"""
GRANDCHILD = """
heat_template_version: 2018-08-31
resources:
  v:
    type: OS::Heat::Value
    properties: {value: {get_file: grandchild.txt}}
"""


def test_a_groups_member_template_is_read_to_any_depth(tmp_path: Path) -> None:
    template = write(tmp_path / "parent.yaml", GROUP)
    write(tmp_path / "members" / "child.yaml", CHILD)
    write(tmp_path / "members" / "child.txt", "child text")
    write(tmp_path / "members" / "deeper" / "grandchild.yaml", GRANDCHILD)
    write(tmp_path / "members" / "deeper" / "grandchild.txt", "grandchild text")
    assert dict(collect(str(template)).files) == {
        "members/child.yaml": CHILD,
        "child.txt": "child text",  # relative to members/child.yaml
        "deeper/grandchild.yaml": GRANDCHILD,  # relative to members/child.yaml
        "grandchild.txt": "grandchild text",  # relative to members/deeper/grandchild.yaml
    }


def test_every_type_inside_a_resource_definition_is_followed(tmp_path: Path) -> None:
    # An AutoScalingGroup's `resource`, and types chosen by a condition, name files too;
    # a `type` that is not a template file (a Value's `type: string`) is not a file.
    template = write(
        tmp_path / "main.yaml",
        "heat_template_version: 2018-08-31\n"
        "conditions: {big: true}\n"
        "resources:\n"
        "  scaled:\n"
        "    type: OS::Heat::AutoScalingGroup\n"
        "    properties: {resource: {type: scaled.template}}\n"
        "  chosen:\n"
        "    type: OS::Heat::ResourceGroup\n"
        "    properties:\n"
        "      resource_def: {if: [big, {type: big.yaml}, {type: small.yaml}]}\n"
        "  v:\n"
        "    type: OS::Heat::Value\n"
        "    properties: {type: string, value: x}\n",
    )
    for name in ("scaled.template", "big.yaml", "small.yaml"):
        write(tmp_path / name, "heat_template_version: 2018-08-31\n")
    assert set(collect(str(template)).files) == {"scaled.template", "big.yaml", "small.yaml"}


def test_a_missing_member_template_names_the_file_and_its_referrer(tmp_path: Path) -> None:
    template = write(tmp_path / "parent.yaml", GROUP)
    with pytest.raises(FilesError) as exc:
        collect(str(template))
    assert "members/child.yaml" in str(exc.value) and str(template) in str(exc.value)
    assert "no such file" in str(exc.value)


def test_heatclients_absolute_file_urls_are_read_and_keyed_as_written(tmp_path: Path) -> None:
    child_url = f"file://{tmp_path}/lib/child.yaml"
    text_url = f"file://{tmp_path}/lib/motd%20text.txt"  # a URL's escapes are undone
    child = (
        "heat_template_version: 2018-08-31\n"
        "resources:\n"
        "  v:\n"
        "    type: OS::Heat::Value\n"
        f"    properties: {{value: {{get_file: '{text_url}'}}}}\n"
    )
    write(tmp_path / "lib" / "child.yaml", child)
    write(tmp_path / "lib" / "motd text.txt", "motd")
    template = write(
        tmp_path / "top" / "parent.yaml",
        GROUP.replace("members/child.yaml", child_url),
    )
    env = write(
        tmp_path / "env.yaml",
        f"resource_registry:\n  resources:\n    group:\n      My::Child: '{child_url}'\n",
    )
    assert dict(collect(str(template), [str(env)]).files) == {child_url: child, text_url: "motd"}
