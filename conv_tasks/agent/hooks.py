"""Hooks: the programs that run a deployment's config, chosen by the config's `group`.

A hook gets the deployment and a private working directory and returns what
happened: stdout, stderr, a status code and the outputs it could read. It
never signals and never touches the agent's state; the agent does both.

`script` is Heat's script hook: the config is written to a file and
executed, each input is an environment variable, and the script sets an
output NAME by writing it to the file `$heat_outputs_path.NAME`.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from conv_tasks.agent.metadata import Deployment

# Where a script finds the prefix of its output files, as in Heat's hook.
OUTPUTS_PATH_VARIABLE = "heat_outputs_path"
# The agent's own configuration (broker URLs that may hold passwords, its credential) is no
# business of a script's: variables with this prefix are left out of a hook's environment.
AGENT_VARIABLE_PREFIX = "CONV_TASKS_"


@dataclass(frozen=True)
class HookResult:
    """What running one deployment produced."""

    status_code: int
    stdout: str = ""
    stderr: str = ""
    outputs: Mapping[str, str] = field(default_factory=dict)
    # Set when the hook could not run the config at all, or failed it for a reason of its own.
    failure: str | None = None

    @property
    def succeeded(self) -> bool:
        return self.failure is None and self.status_code == 0


class Hook(Protocol):
    name: str

    def run(self, deployment: Deployment, workdir: Path) -> HookResult: ...


def _env_value(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return json.dumps(value)


def script_environment(
    deployment: Deployment, outputs_path: Path, base: Mapping[str, str]
) -> tuple[dict[str, str], list[str]]:
    """The script's environment, and the inputs that cannot be environment variables."""
    env = {k: v for k, v in base.items() if not k.startswith(AGENT_VARIABLE_PREFIX)}
    left_out = []
    for name, value in deployment.hook_inputs().items():
        text = _env_value(value)
        if not name or "=" in name or "\0" in name or "\0" in text:
            left_out.append(name)
            continue
        env[name] = text
    env[OUTPUTS_PATH_VARIABLE] = str(outputs_path)
    return env, left_out


def read_outputs(deployment: Deployment, outputs_path: Path) -> dict[str, str]:
    """Each declared output the script wrote, as text; an output not written is absent."""
    values = {}
    for spec in deployment.outputs:
        if "/" in spec.name or spec.name in ("", ".", ".."):
            continue
        try:
            data = Path(f"{outputs_path}.{spec.name}").read_bytes()
        except OSError:
            continue
        values[spec.name] = data.decode("utf-8", errors="replace")
    return values


class ScriptHook:
    """Heat's `script` group: the config is an executable, inputs are its environment."""

    name = "script"

    def __init__(self, base_env: Mapping[str, str] | None = None) -> None:
        self.base_env = dict(os.environ if base_env is None else base_env)

    def run(self, deployment: Deployment, workdir: Path) -> HookResult:
        if not isinstance(deployment.config, str) or not deployment.config:
            return HookResult(1, failure="the script hook needs the config to be the script's text")
        script = workdir / "config"
        outputs_path = workdir / "outputs"
        fd = os.open(script, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o700)
        with os.fdopen(fd, "w") as handle:
            handle.write(deployment.config)
        env, left_out = script_environment(deployment, outputs_path, self.base_env)
        try:
            done = subprocess.run(
                [str(script)],
                cwd=workdir,
                env=env,
                stdin=subprocess.DEVNULL,
                capture_output=True,
                check=False,
            )
        except OSError as exc:
            hint = " (does it start with #!?)" if exc.errno == 8 else ""
            return HookResult(1, failure=f"the script could not be started: {exc.strerror}{hint}")
        stderr = done.stderr.decode("utf-8", errors="replace")
        if left_out:
            note = ", ".join(repr(n) for n in left_out)
            stderr += (
                f"\n[conv-tasks agent] inputs left out (not valid in an environment): {note}\n"
            )
        return HookResult(
            status_code=done.returncode,
            stdout=done.stdout.decode("utf-8", errors="replace"),
            stderr=stderr,
            outputs=read_outputs(deployment, outputs_path),
        )


def default_hooks() -> dict[str, Hook]:
    """The hooks this agent has, by group name."""
    hook = ScriptHook()
    return {hook.name: hook}
