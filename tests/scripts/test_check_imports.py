"""scripts/check_imports.py, the faces' import rules that `make lint` runs: the real tree keeps
them, and each rule broken on purpose (in a copy of the tree, or in a small package of its
own) fails the check with the file, the line and the rule."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "check_imports.py"


@pytest.fixture(scope="module")
def checker() -> ModuleType:
    spec = importlib.util.spec_from_file_location("check_imports", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while being made
    spec.loader.exec_module(module)
    return module


def run(package_dir: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(package_dir)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def write(base: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = base / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return base / "pkg"


def breaches(checker: ModuleType, package_dir: Path) -> list[str]:
    return [str(found) for found in checker.check(package_dir)]


# --------------------------------------------------------------------------- the real tree


def test_the_real_tree_keeps_every_rule() -> None:
    done = run(ROOT / "conv_tasks")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == ""


@pytest.fixture
def tree_copy(tmp_path: Path) -> Path:
    copy = tmp_path / "conv_tasks"
    shutil.copytree(ROOT / "conv_tasks", copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def _add_lines(path: Path, text: str) -> int:
    """Append `text` to the module at `path`; the number of its first line."""
    before = path.read_text(encoding="utf-8")
    path.write_text(before + "\n\n" + textwrap.dedent(text).lstrip(), encoding="utf-8")
    return before.count("\n") + 3


def test_a_lazy_import_behind_a_face_fails_the_copy_naming_file_line_and_rule(
    tree_copy: Path,
) -> None:
    module = tree_copy / "engine" / "node" / "unhealthy.py"
    line = _add_lines(
        module,
        """
        def _dummy() -> object:
            from conv_tasks.resources.builtin.dummy import DummyResource

            return DummyResource
        """,
    )
    done = run(tree_copy)
    assert done.returncode == 1
    assert (
        f"conv_tasks/engine/node/unhealthy.py:{line + 1}: behind-face: "
        "conv_tasks.engine.node.unhealthy imports conv_tasks.resources.builtin.dummy, behind "
        "the face of conv_tasks.resources: import it from conv_tasks.resources (lazy import)"
    ) in done.stdout.splitlines()
    assert done.stdout.splitlines()[-1].endswith("see docs/development/layout.md")


def test_the_api_importing_the_web_view_again_fails_the_copy(tree_copy: Path) -> None:
    module = tree_copy / "api" / "app.py"
    line = _add_lines(
        module,
        """
        from typing import TYPE_CHECKING

        if TYPE_CHECKING:
            from conv_tasks.ui import UiApp
        """,
    )
    found = run(tree_copy).stdout.splitlines()
    at = f"conv_tasks/api/app.py:{line + 3}: "
    rules = {entry[len(at) :].split(":")[0] for entry in found if entry.startswith(at)}
    assert rules == {"layer", "may-import", "must-not-import"}
    assert (
        f"{at}layer: conv_tasks.api.app imports conv_tasks.ui: conv_tasks.ui is in the same "
        "layer as conv_tasks.api (conv_tasks's LAYERS) (type-checking import)"
    ) in found


def test_a_built_in_type_that_imports_the_engine_fails_the_copy(tree_copy: Path) -> None:
    module = tree_copy / "resources" / "builtin" / "none.py"
    line = _add_lines(module, "from conv_tasks.engine import EngineEnv\n")
    found = run(tree_copy).stdout.splitlines()
    at = f"conv_tasks/resources/builtin/none.py:{line}: "
    mine = sorted(entry[len(at) :].split(":")[0] for entry in found if entry.startswith(at))
    # Refused by built-in types' own rules, by resources' rules, by the layers, and as the
    # cycle it would close (the engine imports resources).
    assert mine == [
        "cycle",
        "layer",
        "may-import",
        "may-import",
        "must-not-import",
        "must-not-import",
    ]
    assert (
        f"{at}may-import: conv_tasks.resources.builtin.none imports conv_tasks.engine, which "
        "conv_tasks.resources.builtin's MAY_IMPORT does not allow"
    ) in found


def test_a_folder_without_a_face_fails_the_copy(tree_copy: Path) -> None:
    (tree_copy / "engine" / "stray").mkdir()
    (tree_copy / "engine" / "stray" / "thing.py").write_text("X = 1\n", encoding="utf-8")
    done = run(tree_copy)
    assert done.returncode == 1
    assert (
        "conv_tasks/engine/stray:0: face: this folder holds Python but has no __init__.py (face)"
        in done.stdout.splitlines()
    )


# ----------------------------------------------------------------- each rule, on its own


FACES = {
    "pkg/__init__.py": '''
        """A package."""

        LAYERS = (("pkg.top",), ("pkg.low", "pkg.side"), ("pkg.base",))
        ''',
    "pkg/base.py": "X = 1\n",
    "pkg/low/__init__.py": '''
        """Low: its face exports `thing`."""

        from pkg.low.inner import thing

        MAY_IMPORT = ("pkg.base",)
        MUST_NOT_IMPORT = ("sqlalchemy",)
        ''',
    "pkg/low/inner.py": "def thing() -> int:\n    return 1\n",
    "pkg/side/__init__.py": '''
        """Side."""

        MAY_IMPORT = ()
        MUST_NOT_IMPORT = ()
        ''',
    "pkg/top/__init__.py": '''
        """Top."""

        MAY_IMPORT = ("pkg.low", "pkg.base")
        MUST_NOT_IMPORT = ("pkg.side",)
        ''',
    "pkg/top/user.py": "from pkg.low import thing\n",
}


def _package(tmp_path: Path, changes: dict[str, str] | None = None) -> Path:
    return write(tmp_path, {**FACES, **(changes or {})})


def test_the_small_package_keeps_its_rules(checker: ModuleType, tmp_path: Path) -> None:
    assert breaches(checker, _package(tmp_path)) == []


@pytest.mark.parametrize(
    ("source", "how"),
    [
        ("from pkg.low.inner import thing\n", ""),
        ("def f() -> None:\n    import pkg.low.inner\n", " (lazy import)"),
        (
            "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
            "    from pkg.low.inner import thing\n",
            " (type-checking import)",
        ),
    ],
)
def test_an_import_behind_a_face_is_refused_however_it_is_made(
    checker: ModuleType, tmp_path: Path, source: str, how: str
) -> None:
    package = _package(tmp_path, {"pkg/top/user.py": source})
    line = source.count("\n")
    assert breaches(checker, package) == [
        f"pkg/top/user.py:{line}: behind-face: pkg.top.user imports pkg.low.inner, behind the "
        f"face of pkg.low: import it from pkg.low{how}"
    ]


def test_an_import_its_face_does_not_allow_is_refused(checker: ModuleType, tmp_path: Path) -> None:
    package = _package(tmp_path, {"pkg/low/inner.py": "import pkg.side\n"})
    assert breaches(checker, package) == [
        "pkg/low/inner.py:1: layer: pkg.low.inner imports pkg.side: pkg.side is in the same "
        "layer as pkg.low (pkg's LAYERS)",
        "pkg/low/inner.py:1: may-import: pkg.low.inner imports pkg.side, which pkg.low's "
        "MAY_IMPORT does not allow",
    ]


def test_what_a_face_must_never_import_is_refused_third_parties_too(
    checker: ModuleType, tmp_path: Path
) -> None:
    package = _package(
        tmp_path,
        {
            "pkg/low/inner.py": "def f() -> None:\n    from sqlalchemy.orm import Session\n",
            "pkg/top/user.py": "from pkg.low import thing\nfrom pkg import side\n",
        },
    )
    assert breaches(checker, package) == [
        "pkg/low/inner.py:2: must-not-import: pkg.low.inner imports sqlalchemy.orm: pkg.low's "
        "face says it must never import sqlalchemy (lazy import)",
        "pkg/top/user.py:2: may-import: pkg.top.user imports pkg.side, which pkg.top's "
        "MAY_IMPORT does not allow",
        "pkg/top/user.py:2: must-not-import: pkg.top.user imports pkg.side: pkg.top's face "
        "says it must never import pkg.side",
    ]


def test_an_upward_import_is_refused(checker: ModuleType, tmp_path: Path) -> None:
    package = _package(tmp_path, {"pkg/base.py": "def f() -> None:\n    import pkg.top.user\n"})
    found = breaches(checker, package)
    assert (
        "pkg/base.py:2: layer: pkg.base imports pkg.top.user: pkg.top is in a layer above "
        "pkg.base (pkg's LAYERS) (lazy import)"
    ) in found


def test_a_cycle_through_a_lazy_import_is_refused_naming_every_edge(
    checker: ModuleType, tmp_path: Path
) -> None:
    package = write(
        tmp_path,
        {
            "pkg/__init__.py": '"""A package without layers."""\n\nLAYERS = ()\n',
            "pkg/one/__init__.py": (
                '"""One."""\n\nMAY_IMPORT = ("pkg.two",)\nMUST_NOT_IMPORT = ()\n'
            ),
            "pkg/one/a.py": "from pkg.two import b\n",
            "pkg/two/__init__.py": (
                '"""Two."""\n\nb = 1\n\nMAY_IMPORT = ("pkg.one",)\nMUST_NOT_IMPORT = ()\n'
            ),
            "pkg/two/c.py": "def f() -> None:\n    from pkg.one import a\n",
        },
    )
    assert [f for f in breaches(checker, package) if ": cycle: " in f] == [
        "pkg/one/a.py:1: cycle: pkg.one.a imports pkg.two, closing the cycle "
        "pkg.one -> pkg.two -> pkg.one",
        "pkg/two/c.py:2: cycle: pkg.two.c imports pkg.one.a, closing the cycle "
        "pkg.one -> pkg.two -> pkg.one (lazy import)",
    ]


def test_a_module_never_imports_its_own_face(checker: ModuleType, tmp_path: Path) -> None:
    package = _package(tmp_path, {"pkg/low/inner.py": "def f() -> None:\n    import pkg.low\n"})
    assert breaches(checker, package) == [
        "pkg/low/inner.py:2: own-face: pkg.low.inner imports the face of its own package "
        "pkg.low: import the module behind it that holds the name (lazy import)"
    ]


def test_a_face_without_its_rules_or_with_wrong_ones_is_refused(
    checker: ModuleType, tmp_path: Path
) -> None:
    package = _package(
        tmp_path,
        {
            "pkg/side/__init__.py": (
                "MAY_IMPORT = ('pkg.nowhere',)\nMUST_NOT_IMPORT = ['pkg.base']\n"
            ),
            "pkg/top/__init__.py": (
                '"""Top."""\nMAY_IMPORT = ("pkg.low", "pkg.base")\n'
                'MUST_NOT_IMPORT = ("pkg.base",)\n'
            ),
        },
    )
    assert breaches(checker, package) == [
        "pkg/side/__init__.py:1: face: MAY_IMPORT names pkg.nowhere, which is no module of pkg",
        "pkg/side/__init__.py:1: face: the face has no docstring saying what it is for",
        "pkg/side/__init__.py:2: face: MUST_NOT_IMPORT must be a literal tuple of names",
        "pkg/top/__init__.py:3: face: pkg.base is in both MAY_IMPORT and MUST_NOT_IMPORT",
    ]


def test_the_root_places_every_child_in_a_layer(checker: ModuleType, tmp_path: Path) -> None:
    package = _package(
        tmp_path, {"pkg/__init__.py": '"""A package."""\n\nLAYERS = (("pkg.top",), ("pkg.x",))\n'}
    )
    found = breaches(checker, package)
    assert "pkg/__init__.py:3: face: LAYERS names pkg.x, no child of it" in found
    assert "pkg/__init__.py:3: face: LAYERS does not place pkg.base" in found


def test_a_name_a_face_binds_is_the_faces_even_if_a_module_has_that_name(
    checker: ModuleType, tmp_path: Path
) -> None:
    # pkg.low's face re-exports the function `inner` from pkg.low.inner: importing the name
    # from the face is the face's, not the module's.
    package = _package(
        tmp_path,
        {
            "pkg/low/__init__.py": (
                '"""Low."""\n\nfrom pkg.low.inner import thing as inner\n\n'
                'MAY_IMPORT = ("pkg.base",)\nMUST_NOT_IMPORT = ()\n'
            ),
            "pkg/top/user.py": "from pkg.low import inner\n",
        },
    )
    assert breaches(checker, package) == []


def test_a_face_never_binds_the_name_of_one_of_its_modules_to_something_else(
    checker: ModuleType, tmp_path: Path
) -> None:
    # `from pkg.low import inner` would give the function or the module pkg.low.inner,
    # depending on whether that module was imported after the face.
    package = _package(
        tmp_path,
        {
            "pkg/low/__init__.py": (
                '"""Low."""\n\nfrom pkg.low.other import helper as inner\n\n'
                'MAY_IMPORT = ("pkg.base",)\nMUST_NOT_IMPORT = ()\n'
            ),
            "pkg/low/other.py": "def helper() -> int:\n    return 2\n",
        },
    )
    assert breaches(checker, package) == [
        "pkg/low/__init__.py:3: face: the face binds inner (from pkg.low.other), the name of "
        "its module pkg.low.inner"
    ]
