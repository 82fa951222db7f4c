"""The optional parts of conv_tasks, and the one sentence a missing one gets.

The core (engine, workers, beat, CLI, agent, the SDK and every built-in resource type) needs
only the package's own dependencies. Each part named here needs an extra as well
(pyproject.toml's [project.optional-dependencies]): `require` is asked at the door of the
part (its face, or the command that reaches it) so that an install without the extra hears
which one to install, instead of a traceback from deep inside an import. tests/
test_packaging.py ties these module names to the distributions each extra declares.

This module imports nothing but the error root: it must be importable in any install.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Mapping, Sequence

from conv_tasks.errors import ConvTasksError

# extra -> the top-level modules that only it installs: one of them missing means the extra is
# (anyio and MarkupSafe, which the edge imports too, come with the core's httpx and alembic).
EXTRA_MODULES: Mapping[str, tuple[str, ...]] = {
    "edge": ("starlette", "uvicorn", "jinja2"),
    "keystone": ("keystonemiddleware",),
    "kit": ("pytest",),
}

# The parts of the package that need an extra (a package, or one module), and which: all the
# rest is the core, which must never import them at module level.
EXTRA_PARTS: Mapping[str, str] = {
    "conv_tasks.api": "edge",
    "conv_tasks.edge": "edge",
    "conv_tasks.server": "edge",
    "conv_tasks.ui": "edge",
    "conv_tasks.testing.plugin": "kit",
}


class MissingExtra(ConvTasksError):
    """A part of conv_tasks was asked for whose extra is not installed."""

    code = "missing_extra"

    def __init__(self, what: str, extra: str, missing: Sequence[str]) -> None:
        self.what = what
        self.extra = extra
        self.missing = tuple(missing)
        super().__init__(
            f"{what} needs the {extra} extra, which is not installed (no module "
            f"{', '.join(self.missing)}): pip install 'conv_tasks[{extra}]'."
        )


def missing_modules(extra: str) -> list[str]:
    """The modules of `extra` this Python cannot import (found without importing them)."""
    return [name for name in EXTRA_MODULES[extra] if importlib.util.find_spec(name) is None]


def require(extra: str, what: str) -> None:
    """Nothing if `extra` is installed; MissingExtra naming `what` and the extra if not."""
    missing = missing_modules(extra)
    if missing:
        raise MissingExtra(what, extra, missing)
