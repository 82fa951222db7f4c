"""What the server's metadata says: its deployments, parsed into values (pure, no I/O).

The engine's `conv_tasks.deployment.metadata` task returns a list of
deployments; each one carries its config, its group (the hook that runs it),
the action to run and its inputs, among them the credential its signals must
carry. One action run is identified by the deployment's id, the action and
the deployment's `updated_time`: the same deployment updated again is a new
run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# The input whose value is the credential a deployment's signals carry. It goes to the
# signal task only: never to a hook's environment, never to a log line.
SIGNAL_CREDENTIAL_INPUT = "deploy_signal_credential"
# The engine sets this input to true when it understands IN_PROGRESS signals (seed 002).
STATUS_AWARE_INPUT = "deploy_status_aware"
# Inputs a hook never sees, though the engine sends them.
PRIVATE_INPUTS = frozenset({SIGNAL_CREDENTIAL_INPUT})


@dataclass(frozen=True, order=True)
class RunKey:
    """One action run of one deployment: running it once is the agent's whole promise."""

    deployment: str
    action: str
    updated_time: str

    def as_list(self) -> list[str]:
        return [self.deployment, self.action, self.updated_time]


@dataclass(frozen=True)
class OutputSpec:
    """An output the config declares; a hook reports a value for it if the config set one."""

    name: str
    type: str = "String"
    description: str = ""
    error_output: bool = False


@dataclass(frozen=True)
class Deployment:
    """One deployment of this server, as the metadata task returned it."""

    id: str
    name: str
    group: str
    config: Any
    action: str
    updated_time: str
    inputs: Mapping[str, Any] = field(default_factory=dict)
    outputs: tuple[OutputSpec, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> RunKey:
        return RunKey(self.id, self.action, self.updated_time)

    @property
    def status_aware(self) -> bool:
        """Whether the engine asked for IN_PROGRESS signals (absent or false: it did not)."""
        value = self.inputs.get(STATUS_AWARE_INPUT)
        if isinstance(value, bool):
            return value
        return isinstance(value, str) and value.strip().lower() == "true"

    @property
    def signal_credential(self) -> str | None:
        value = self.inputs.get(SIGNAL_CREDENTIAL_INPUT)
        return value if isinstance(value, str) and value else None

    def hook_inputs(self) -> dict[str, Any]:
        """The inputs a hook may see: every input but the private ones."""
        return {k: v for k, v in self.inputs.items() if k not in PRIVATE_INPUTS}

    def describe(self) -> str:
        """How log lines name this run (never with an input value)."""
        return f"deployment {self.name or self.id} ({self.id}) {self.action}"


class MetadataError(ValueError):
    """A deployment entry the agent cannot act on; the message says why."""


def _text(entry: Mapping[str, Any], name: str, *, required: bool = True) -> str:
    value = entry.get(name)
    if value is None and not required:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or (required and not value):
        raise MetadataError(f"{name} must be a non-empty string, got {type(value).__name__}")
    return value


def _inputs(raw: Any) -> dict[str, Any]:
    if raw is None:
        return {}
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise MetadataError("inputs must be a list")
    values: dict[str, Any] = {}
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise MetadataError("each input must be a mapping with a name")
        values[item["name"]] = item.get("value")
    return values


def _outputs(raw: Any) -> tuple[OutputSpec, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        raise MetadataError("outputs must be a list")
    specs = []
    for item in raw:
        if not isinstance(item, Mapping) or not isinstance(item.get("name"), str):
            raise MetadataError("each output must be a mapping with a name")
        specs.append(
            OutputSpec(
                name=item["name"],
                type=str(item.get("type") or "String"),
                description=str(item.get("description") or ""),
                error_output=bool(item.get("error_output")),
            )
        )
    return tuple(specs)


def parse_deployment(entry: Any) -> Deployment:
    """One metadata entry as a Deployment; MetadataError says what is wrong with it."""
    if not isinstance(entry, Mapping):
        raise MetadataError(f"a deployment must be a mapping, got {type(entry).__name__}")
    updated = entry.get("updated_time")
    options = entry.get("options")
    return Deployment(
        id=_text(entry, "id"),
        name=_text(entry, "name", required=False),
        group=_text(entry, "group", required=False) or "Heat::Ungrouped",
        config=entry.get("config"),
        action=_text(entry, "action"),
        # A deployment never updated may have no time; it is then identified by its action.
        updated_time=updated if isinstance(updated, str) else json.dumps(updated),
        inputs=_inputs(entry.get("inputs")),
        outputs=_outputs(entry.get("outputs")),
        options=dict(options) if isinstance(options, Mapping) else {},
    )


@dataclass(frozen=True)
class ParsedMetadata:
    deployments: tuple[Deployment, ...]
    # One sentence per entry that was left out, naming it as well as it can.
    skipped: tuple[str, ...] = ()


def parse_metadata(raw: Sequence[Any]) -> ParsedMetadata:
    """Every usable deployment, in the server's order, and what was wrong with the others."""
    deployments: list[Deployment] = []
    skipped: list[str] = []
    for index, entry in enumerate(raw):
        try:
            deployments.append(parse_deployment(entry))
        except MetadataError as exc:
            ident = entry.get("id") if isinstance(entry, Mapping) else None
            skipped.append(f"deployment {ident or f'#{index}'} left out: {exc}")
    return ParsedMetadata(tuple(deployments), tuple(skipped))
