"""The package a user installs: what it declares is what its code imports.

A user's `pip install conv_tasks` gets pyproject.toml's dependencies and nothing of
requirements.txt, so a module that imports a distribution pyproject does not declare works
here (the dev venv has everything) and fails for them: httpx was one. These tests read the
source (every import, module-level and lazy) and pyproject, and check that each import is
declared by the core or by the extra of the part it is in (conv_tasks.extras), that each
declared distribution is pinned in requirements*.txt within its range, that every data file
is package data, and, in a subprocess where the extras' modules cannot be imported, that the
SDK, the kit and the CLI's `resource-type list` work and the edge names its extra.
`make test-wheel` proves the same on a built wheel in a fresh venv, end to end.
"""

from __future__ import annotations

import ast
import fnmatch
import functools
import importlib.metadata
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from conv_tasks.extras import EXTRA_MODULES, EXTRA_PARTS

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "conv_tasks"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
OPTIONAL = PROJECT["optional-dependencies"]
# Extras `make setup` does not install, so requirements*.txt do not pin them.
UNPINNED_EXTRAS = {"keystone"}


def normalized(name: str) -> str:
    """A distribution's name as PEP 503 compares names."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared(extra: str | None = None) -> set[str]:
    """The distributions the core declares, and with `extra` those the extra adds (its
    references to conv_tasks' own extras followed)."""
    names: set[str] = set()
    todo = [str(spec) for spec in PROJECT["dependencies"]]
    seen: set[str] = set()
    if extra is not None:
        todo += OPTIONAL[extra]
        seen.add(extra)
    while todo:
        requirement = Requirement(todo.pop())
        if normalized(requirement.name) == normalized(PROJECT["name"]):
            for inner in requirement.extras - seen:
                seen.add(inner)
                todo += OPTIONAL[inner]
            continue
        names.add(normalized(requirement.name))
    return names


def everything_declared() -> set[str]:
    return set().union(*(declared(extra) for extra in OPTIONAL))


@dataclass(frozen=True)
class Import:
    module: str  # the conv_tasks module that imports
    name: str  # the dotted name it imports
    lazy: bool  # inside a function: imported when that runs, not with the module
    line: int

    def __str__(self) -> str:
        when = "in a function" if self.lazy else "at module level"
        return f"{self.module}:{self.line} imports {self.name} {when}"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> Iterator[Import]:
    """Every absolute import in the file, but those under `if TYPE_CHECKING:`."""
    module = module_name(path)

    def walk(nodes: Iterable[ast.AST], lazy: bool) -> Iterator[Import]:
        for node in nodes:
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                yield from walk(node.orelse, lazy)
                continue
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield Import(module, alias.name, lazy, node.lineno)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                yield Import(module, node.module, lazy, node.lineno)
            inner = lazy or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from walk(ast.iter_child_nodes(node), inner)

    yield from walk(ast.parse(path.read_text(), str(path)).body, False)


@functools.cache
def all_imports() -> tuple[Import, ...]:
    files = sorted([*PACKAGE.rglob("*.py"), ROOT / "celeryconfig.py"])
    return tuple(imp for path in files for imp in imports_of(path))


def part_of(module: str) -> str | None:
    """The extra the module's part needs; None for the core."""
    for part, extra in EXTRA_PARTS.items():
        if module == part or module.startswith(f"{part}."):
            return extra
    return None


DISTRIBUTIONS = importlib.metadata.packages_distributions()


def distributions_of(name: str) -> set[str]:
    """The distributions that provide the top-level module of `name` (installed here); a
    module not installed here is taken to be its distribution's name (keystonemiddleware)."""
    top = name.split(".")[0]
    return {normalized(dist) for dist in DISTRIBUTIONS.get(top, [top])}


def third_party(imp: Import) -> bool:
    top = imp.name.split(".")[0]
    return top not in sys.stdlib_module_names and top != "conv_tasks" and top != "__future__"


def test_the_import_scan_finds_what_the_package_is_known_to_import() -> None:
    found = {(imp.module, imp.name, imp.lazy) for imp in all_imports()}
    assert ("conv_tasks.resources.builtin.http.target", "httpx", False) in found
    assert ("conv_tasks.edge.auth", "keystonemiddleware", True) in found
    assert ("conv_tasks.testing.plugin", "pytest", False) in found
    assert ("conv_tasks.cli.commands.api", "conv_tasks.server", True) in found
    # Under `if TYPE_CHECKING:` an import is for the type checker: never made at run time.
    assert ("conv_tasks.testing", "conv_tasks.testing.cluster", False) not in found


def test_every_module_level_import_is_declared_by_the_core_or_its_parts_extra() -> None:
    core = declared()
    wrong = []
    for imp in all_imports():
        if imp.lazy or not third_party(imp):
            continue
        extra = part_of(imp.module)
        allowed = core if extra is None else declared(extra)
        if not distributions_of(imp.name) & allowed:
            needs = "the core" if extra is None else f"the core or the {extra} extra"
            wrong.append(f"{imp}, which {needs} does not declare in pyproject.toml")
    assert not wrong, "\n".join(wrong)


def test_every_lazy_import_is_declared_by_its_part_or_is_an_extras_module() -> None:
    # A function may import what only an extra installs (keystonemiddleware) when it says
    # which extra is missing; anything else it imports is its part's, as at module level.
    optional = {module: extra for extra, modules in EXTRA_MODULES.items() for module in modules}
    wrong = []
    for imp in all_imports():
        if not imp.lazy or not third_party(imp):
            continue
        extra = part_of(imp.module)
        allowed = declared(extra)
        top = imp.name.split(".")[0]
        if top in optional:
            allowed |= declared(optional[top])
        if not distributions_of(imp.name) & allowed:
            needs = "the core" if extra is None else f"the core or the {extra} extra"
            wrong.append(f"{imp}, which {needs} does not declare in pyproject.toml")
    assert not wrong, "\n".join(wrong)


def test_the_core_never_imports_a_part_that_needs_an_extra_at_module_level() -> None:
    wrong = [
        f"{imp}, a part that needs the {part_of(imp.name)} extra"
        for imp in all_imports()
        if not imp.lazy and part_of(imp.module) is None and part_of(imp.name) is not None
    ]
    assert not wrong, "\n".join(wrong)


def test_each_extras_modules_come_from_what_that_extra_declares() -> None:
    core = declared()
    assert set(EXTRA_PARTS.values()) <= set(EXTRA_MODULES) <= set(OPTIONAL)
    for extra, modules in EXTRA_MODULES.items():
        for module in modules:
            dists = distributions_of(module)
            assert dists & declared(extra), f"{module} is in no distribution of the {extra} extra"
            # A module the core installs too would say the extra is there when it is not.
            assert not dists & core, f"{module} comes with the core, not only the {extra} extra"


def test_the_old_and_the_module_names_of_extras_install_the_same() -> None:
    assert declared("api") == declared("edge")
    assert declared("testing") == declared("kit")


def pins() -> dict[str, str]:
    found: dict[str, str] = {}
    for name in ("requirements.txt", "requirements-dev.txt"):
        for line in (ROOT / name).read_text().splitlines():
            line = line.split("#")[0].strip()
            if "==" in line:
                dist, version = line.split("==")
                found[normalized(dist)] = version.strip()
    return found


def test_every_declared_distribution_is_pinned_within_its_range() -> None:
    pinned = pins()
    specs = [*PROJECT["dependencies"]]
    specs += [
        spec for extra, items in OPTIONAL.items() if extra not in UNPINNED_EXTRAS for spec in items
    ]
    wrong = []
    for spec in specs:
        requirement = Requirement(spec)
        name = normalized(requirement.name)
        if name == normalized(PROJECT["name"]):
            continue
        if name not in pinned:
            wrong.append(f"{spec} is not pinned in requirements.txt or requirements-dev.txt")
        elif not requirement.specifier.contains(pinned[name], prereleases=True):
            wrong.append(f"{spec}: requirements*.txt pins {pinned[name]}, outside the range")
    assert not wrong, "\n".join(wrong)


def test_every_data_file_of_the_package_is_package_data() -> None:
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"]["conv_tasks"]

    def matches(relative: str, pattern: str) -> bool:
        # setuptools' globs: `*` stays within one folder.
        parts, globs = relative.split("/"), pattern.split("/")
        return len(parts) == len(globs) and all(map(fnmatch.fnmatchcase, parts, globs))

    data = [
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_file() and path.suffix not in {".py", ".pyc"} and "__pycache__" not in path.parts
    ]
    assert "ui/templates/base.html" in data  # the walk sees the data files
    missing = [file for file in data if not any(matches(file, p) for p in patterns)]
    assert not missing, f"not in [tool.setuptools.package-data]: {missing}"


# What a Python without any extra sees: their modules cannot be imported (a None in
# sys.modules makes `import` raise ModuleNotFoundError and find_spec answer None).
WITHOUT_EXTRAS = (
    "import sys\n"
    f"for name in {sorted({*sum(EXTRA_MODULES.values(), ()), '_pytest'})!r}:\n"
    "    sys.modules[name] = None\n"
)


def run_without_extras(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS + code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def test_the_sdk_and_the_kit_import_without_any_extra() -> None:
    done = run_without_extras(
        "import conv_tasks.sdk, conv_tasks.testing\n"
        "for name in conv_tasks.testing.__all__:\n"
        "    getattr(conv_tasks.testing, name)\n"
        "from conv_tasks.resources import default_registry\n"
        "print(sorted(cls.type_name for cls in default_registry().list()))\n"
        "import importlib.util\n"
        "print('hidden:', [importlib.util.find_spec(name) for name in ('starlette', 'pytest')])\n"
    )
    assert done.returncode == 0, done.stderr
    assert "ConvTasks::HTTP::Resource" in done.stdout
    assert "hidden: [None, None]" in done.stdout  # the extras were out of reach there


def cli_without_extras(*args: str) -> subprocess.CompletedProcess[str]:
    return run_without_extras(
        f"sys.argv = ['conv-tasks', *{list(args)!r}]\n"
        "from conv_tasks.cli.main import main\n"
        "main()\n"
    )


def test_resource_type_list_works_without_any_extra() -> None:
    done = cli_without_extras("resource-type", "list")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^ConvTasks::HTTP::Resource +SUPPORTED$", done.stdout, re.M), done.stdout
    assert re.search(r"^ConvTasks::PostgreSQL::Database +SUPPORTED$", done.stdout, re.M)


@pytest.mark.parametrize("args", [("api", "serve"), ("api", "token-hash")])
def test_the_edge_without_its_extra_says_which_to_install_in_one_line(
    args: tuple[str, ...],
) -> None:
    done = cli_without_extras(*args)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "ERROR: The HTTP edge (`conv-tasks api`) needs the edge extra, which "
        "is not installed (no module starlette, uvicorn, jinja2): "
        "pip install 'conv_tasks[edge]'."
    ]


def test_version_is_the_installed_packages() -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from conv_tasks.cli.main import main; main()", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"conv-tasks {PROJECT['version']}\n"
