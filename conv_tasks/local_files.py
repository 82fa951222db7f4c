"""Collecting the files a template and its environments refer to, from the local disk.

What the CLI and Python callers send beside a template: the text of every
`get_file` path and of every provider template, each read relative to the file
that names it, recursively (a provider template may use get_file and name
provider templates of its own, to any depth). A provider template is a resource
type that is a template file, wherever a template or an environment can write
one: a resource's `type`, any `type` inside a resource's definition (a
ResourceGroup's `resource_def`, an AutoScalingGroup's `resource`, even inside
an `if`), and a resource_registry value (also per resource, under `resources:`).
Paths may be relative, absolute or file:// URLs (python-heatclient writes
absolute file:///... names); http(s) URLs are refused. Each file is keyed by
its name as written, which is what get_file and the resource_registry look up;
one name that means two different files is refused.

It only reads files: it must never send anything, and never evaluate a template beyond
finding these references.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from conv_tasks.errors import FilesError, Problem, TemplateError
from conv_tasks.limits import MAX_FILES, MAX_FILES_BYTES
from conv_tasks.template import is_provider, parse_yaml


@dataclass(frozen=True)
class Collected:
    """A request's local inputs: the template's text, the environments' texts in order, and
    the files they refer to (name as written -> text)."""

    template: str | None
    environments: tuple[str, ...] = ()
    files: Mapping[str, str] = field(default_factory=dict)


def collect(template_path: str | None, environment_paths: Sequence[str] = ()) -> Collected:
    """Read the template, the environments and every file they refer to.

    Raises FilesError naming the file and the file that refers to it.
    """
    reader = _Reader()
    template = None
    if template_path is not None:
        template = reader.read(Path(template_path), template_path, "the command line")
        reader.template_references(template, Path(template_path), template_path)
    environments = []
    for path in environment_paths:
        text = reader.read(Path(path), path, "the command line")
        environments.append(text)
        document = _parsed(text, path)
        registry = document.get("resource_registry") if isinstance(document, Mapping) else None
        for name in _registry_providers(registry):
            reader.provider(name, Path(path).parent, path)
    return Collected(template, tuple(environments), dict(reader.files))


class _Reader:
    def __init__(self) -> None:
        self.files: dict[str, str] = {}
        self.sources: dict[str, tuple[Path, str]] = {}  # name -> (where read, who named it)
        self.total = 0

    def read(self, path: Path, shown: str, referrer: str) -> str:
        try:
            return path.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise FilesError(
                [Problem(shown, f"no such file (referred to by {referrer}; looked at {path})")]
            ) from None
        except (OSError, UnicodeDecodeError) as exc:
            reason = getattr(exc, "strerror", None) or str(exc)
            raise FilesError(
                [Problem(shown, f"cannot be read ({reason}; referred to by {referrer})")]
            ) from None

    def add(self, name: str, base: Path, referrer: str) -> str | None:
        """Read `name` (written in `referrer`, which lives at `base`) into files; its text,
        or None if it was already there."""
        path = _local_path(name, base, referrer)
        if name in self.sources:
            earlier, earlier_referrer = self.sources[name]
            if earlier.resolve() != path.resolve():
                raise FilesError(
                    [
                        Problem(
                            name,
                            f"means {earlier} in {earlier_referrer} but {path} in {referrer}; "
                            "files are sent by the name written, so one name must mean one "
                            "file (use an absolute path or another name)",
                        )
                    ]
                )
            return None
        text = self.read(path, name, referrer)
        self.total += len(text.encode("utf-8"))
        if len(self.files) + 1 > MAX_FILES or self.total > MAX_FILES_BYTES:
            raise FilesError(
                [
                    Problem(
                        name,
                        f"the files referred to pass the limits of {MAX_FILES} files "
                        f"(MAX_FILES) or {MAX_FILES_BYTES} bytes (MAX_FILES_BYTES)",
                    )
                ]
            )
        self.files[name] = text
        self.sources[name] = (path, referrer)
        return text

    def provider(self, name: str, base: Path, referrer: str) -> None:
        text = self.add(name, base, referrer)
        if text is not None:
            path = _local_path(name, base, referrer)
            self.template_references(text, path, name)

    def template_references(self, text: str, path: Path, shown: str) -> None:
        document = _parsed(text, shown)
        for name in _get_files(document):
            self.add(name, path.parent, shown)
        resources = document.get("resources") if isinstance(document, Mapping) else None
        if isinstance(resources, Mapping):
            for type_name in _provider_types(resources):
                self.provider(type_name, path.parent, shown)


def _local_path(name: str, base: Path, referrer: str) -> Path:
    if name.startswith(("http://", "https://")):
        raise FilesError(
            [
                Problem(
                    name,
                    f"files are read from the local disk; fetching URLs is not supported "
                    f"(referred to by {referrer}): download it and refer to the copy",
                )
            ]
        )
    if name.startswith("file://"):
        return Path(unquote(urlparse(name).path))
    path = Path(name)
    return path if path.is_absolute() else base / path


def _parsed(text: str, shown: str) -> Any:
    try:
        return parse_yaml(text, filename=shown)
    except TemplateError as exc:
        raise FilesError(exc.problems) from None


def _get_files(value: Any) -> Iterator[str]:
    """The literal paths of every get_file call in value (a computed path cannot be sent)."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, Mapping):
            if len(item) == 1 and "get_file" in item and isinstance(item["get_file"], str):
                yield item["get_file"]
                continue
            todo.extend(item.values())
        elif isinstance(item, list):
            todo.extend(item)


def _provider_types(resources: Mapping[str, Any]) -> Iterator[str]:
    """Every provider template a resource definition names, in the order written: its own
    type and any `type` key at any depth of its definition, which is where a group names
    its members' type (as python-heatclient looks for them)."""
    todo: list[Any] = list(reversed(list(resources.values())))
    while todo:
        item = todo.pop()
        if isinstance(item, Mapping):
            type_name = item.get("type")
            if isinstance(type_name, str) and is_provider(type_name):
                yield type_name
            todo.extend(reversed([v for k, v in item.items() if k != "type"]))
        elif isinstance(item, list):
            todo.extend(reversed(item))


def _registry_providers(registry: Any) -> Iterator[str]:
    if not isinstance(registry, Mapping):
        return
    for key, value in registry.items():
        if key == "resources" and isinstance(value, Mapping):
            for mappings in value.values():
                if isinstance(mappings, Mapping):
                    yield from (
                        v for v in mappings.values() if isinstance(v, str) and is_provider(v)
                    )
        elif isinstance(value, str) and is_provider(value):
            yield value
