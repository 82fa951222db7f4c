"""The import rules of conv_tasks' faces, checked: `make lint` runs this and fails on any breach.

Every folder under conv_tasks/ that holds Python is a package with a face, its __init__.py:
a docstring that says what the folder is for and what it must never do, the names other
packages may import, and the folder's import rules as two tuples of strings:

    MAY_IMPORT = ("conv_tasks.errors", "conv_tasks.template")
    MUST_NOT_IMPORT = ("conv_tasks.db", "conv_tasks.engine", "sqlalchemy")

MAY_IMPORT names the conv_tasks packages and modules outside the folder that its modules may
import (their faces: a name covers what is inside it only for the layer and may-import rules).
MUST_NOT_IMPORT names what they must never import, conv_tasks' own or a third party's (by its
top-level name). A face may also declare LAYERS, its children by layer, highest first
(a tuple of tuples of names): the root face's LAYERS places every top-level package and
module of conv_tasks.

The rules, for every import: at module level, inside a function (a lazy import), and under
`if TYPE_CHECKING:` alike (a dependency is a dependency, whenever it is resolved):

- face: a folder with Python files has an __init__.py with a docstring, MAY_IMPORT and
  MUST_NOT_IMPORT (the root needs only LAYERS), whose names exist and do not contradict;
  and the face binds no name of one of its modules to something from another module
  (which one `from P import n` gives would depend on the order of imports).
- behind-face: an import from outside a package names the package's face, never a module
  behind it (`from conv_tasks.resources import X`, not `conv_tasks.resources.nested`).
- own-face: a module never imports the face of a package it is inside (the face imports it).
- may-import: an import that leaves a package is one its face's MAY_IMPORT allows; every
  package the import leaves is asked (engine/node/ and engine/ both, for engine/node/x.py).
- must-not-import: nothing inside a package imports what its face's MUST_NOT_IMPORT names.
- layer: an import between two children of a face with LAYERS goes to a lower layer; two
  children in one layer are independent of each other.
- cycle: no cycle among the children of a package that a package takes part in (modules of
  one folder importing each other in a circle are that folder's own business).

It reads the sources (ast) and never imports them. Dynamic imports (importlib, entry points,
Celery's task names) are not imports here.

    .venv/bin/python scripts/check_imports.py [PACKAGE_DIR]    # default: conv_tasks
"""

from __future__ import annotations

import ast
import sys
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeGuard

RULE_NAMES = ("MAY_IMPORT", "MUST_NOT_IMPORT", "LAYERS")


@dataclass(frozen=True, order=True)
class Breach:
    """One rule broken: where, which rule, and a sentence saying what to do."""

    path: str
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.rule}: {self.message}"


@dataclass(frozen=True)
class Import:
    """One imported name, resolved: `target` is the module (or package) it reaches."""

    module: str
    path: str
    line: int
    target: str
    how: str  # "eager", "lazy" (inside a function) or "type-checking"


@dataclass
class Face:
    """A package's face and the rules it declares."""

    package: str
    path: str
    docstring: bool
    may_import: tuple[str, ...] | None = None
    must_not_import: tuple[str, ...] | None = None
    layers: tuple[tuple[str, ...], ...] | None = None
    lines: dict[str, int] = field(default_factory=dict)
    # Names the face binds itself (a function re-exported under its module's name, say).
    names: set[str] = field(default_factory=set)
    # Where each name the face imports comes from: (module, line).
    sources: dict[str, tuple[str, int]] = field(default_factory=dict)
    # Rules whose value is not a literal tuple of names.
    malformed: list[str] = field(default_factory=list)


@dataclass
class Tree:
    """The modules of one package tree and the imports between them."""

    root: str
    base: Path  # the folder that holds the root package
    modules: dict[str, Path] = field(default_factory=dict)
    faces: dict[str, Face] = field(default_factory=dict)
    imports: list[Import] = field(default_factory=list)
    faceless: list[str] = field(default_factory=list)

    packages: set[str] = field(default_factory=set)

    def shown(self, path: Path) -> str:
        return path.relative_to(self.base).as_posix()

    def is_package(self, name: str) -> bool:
        return name in self.packages


def _dotted(path: Path, base: Path) -> str:
    parts = list(path.relative_to(base).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def inside(name: str, package: str) -> bool:
    """Whether `name` is `package` or within it."""
    return name == package or name.startswith(package + ".")


def read_tree(package_dir: Path) -> Tree:
    """Every module under `package_dir`, its face's rules, and every import it makes."""
    package_dir = package_dir.resolve()
    tree = Tree(package_dir.name, package_dir.parent)
    for path in sorted(package_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        tree.modules[_dotted(path, tree.base)] = path
        folder = path.parent
        tree.packages.add(_dotted(folder / "__init__.py", tree.base))
        if not (folder / "__init__.py").exists() and tree.shown(folder) not in tree.faceless:
            tree.faceless.append(tree.shown(folder))
    sources = {
        name: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for name, path in tree.modules.items()
    }
    for name, path in tree.modules.items():
        if path.name == "__init__.py":
            tree.faces[name] = _face(name, tree.shown(path), sources[name])
    for name, path in tree.modules.items():
        tree.imports.extend(_imports(tree, name, path, sources[name]))
    return tree


def _face(package: str, shown: str, source: ast.Module) -> Face:
    face = Face(package, shown, ast.get_docstring(source) is not None)
    for node in source.body:
        if isinstance(node, ast.ImportFrom) and node.module:
            for alias in node.names:
                if f"{node.module}.{alias.name}" != f"{package}.{alias.name}":
                    bound = alias.asname or alias.name
                    face.names.add(bound)
                    face.sources[bound] = (node.module, node.lineno)
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            face.names.add(node.name)
        if not (isinstance(node, ast.Assign | ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        for target in targets:
            if isinstance(target, ast.Name) and target.id in RULE_NAMES:
                face.lines[target.id] = node.lineno
                _read_rule(face, target.id, node.value)
    return face


def _read_rule(face: Face, name: str, value: ast.expr | None) -> None:
    """One rule's value, which must be a literal: a tuple of names (LAYERS: of tuples)."""
    try:
        found = ast.literal_eval(value) if value is not None else None
    except ValueError:
        found = None
    if name == "LAYERS":
        if isinstance(found, tuple) and all(_names(layer) for layer in found):
            face.layers = tuple(layer for layer in found if _names(layer))
            return
    elif _names(found):
        if name == "MAY_IMPORT":
            face.may_import = found
        else:
            face.must_not_import = found
        return
    face.malformed.append(name)


def _names(value: object) -> TypeGuard[tuple[str, ...]]:
    return isinstance(value, tuple) and all(isinstance(item, str) for item in value)


def _imports(tree: Tree, module: str, path: Path, source: ast.Module) -> Iterator[Import]:
    home = module if path.name == "__init__.py" else module.rpartition(".")[0]
    shown = tree.shown(path)

    def walk(node: ast.AST, how: str) -> Iterator[Import]:
        # A lazy import (inside a function) and one under `if TYPE_CHECKING:` count as much
        # as one at module level: they are named, so that a breach says which it is.
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                yield from walk(child, "type-checking")
            for child in node.orelse:
                yield from walk(child, how)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            how = "lazy" if how == "eager" else how
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield Import(module, shown, node.lineno, alias.name, how)
        elif isinstance(node, ast.ImportFrom):
            base = _from_base(home, node)
            if base == "__future__":
                return
            face = tree.faces.get(base)
            for alias in node.names:
                # `from P import n` names the module P.n unless P's face binds n itself.
                target = f"{base}.{alias.name}"
                if target not in tree.modules or (face and alias.name in face.names):
                    target = base
                yield Import(module, shown, node.lineno, target, how)
        for inner in ast.iter_child_nodes(node):
            yield from walk(inner, how)

    return walk(source, "eager")


def _from_base(home: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    parts = home.split(".")
    parts = parts[: len(parts) - (node.level - 1)]
    return ".".join([*parts, node.module] if node.module else parts)


def check(package_dir: Path) -> list[Breach]:
    """Every breach of the rules in the package tree at `package_dir`, in file order."""
    tree = read_tree(package_dir)
    found: list[Breach] = []
    found.extend(_face_breaches(tree))
    for imported in tree.imports:
        found.extend(_import_breaches(tree, imported))
    found.extend(_cycles(tree))
    return sorted(set(found))


def _face_breaches(tree: Tree) -> Iterator[Breach]:
    for folder in tree.faceless:
        yield Breach(folder, 0, "face", "this folder holds Python but has no __init__.py (face)")
    known = set(tree.modules)
    for face in tree.faces.values():
        if not face.docstring:
            yield Breach(face.path, 1, "face", "the face has no docstring saying what it is for")
        for rule in face.malformed:
            yield Breach(
                face.path,
                face.lines[rule],
                "face",
                f"{rule} must be a literal tuple of names"
                + (" (LAYERS: a tuple of such tuples)" if rule == "LAYERS" else ""),
            )
        for name, (source, line) in sorted(face.sources.items()):
            module = f"{face.package}.{name}"
            if module in tree.modules and source != module:
                # Which one `from P import n` gives would depend on the order of imports.
                yield Breach(
                    face.path,
                    line,
                    "face",
                    f"the face binds {name} (from {source}), the name of its module {module}",
                )
        wanted = ("LAYERS",) if face.package == tree.root else RULE_NAMES[:2]
        for rule in wanted:
            if rule not in face.lines:
                yield Breach(face.path, 1, "face", f"the face declares no {rule}")
        for entry in face.may_import or ():
            if not inside(entry, tree.root) or entry not in known:
                yield Breach(
                    face.path,
                    face.lines["MAY_IMPORT"],
                    "face",
                    f"MAY_IMPORT names {entry}, which is no module of {tree.root}",
                )
            elif inside(entry, face.package):
                yield Breach(
                    face.path,
                    face.lines["MAY_IMPORT"],
                    "face",
                    f"MAY_IMPORT names {entry}, which is inside {face.package} itself",
                )
        for entry in face.must_not_import or ():
            if inside(entry, tree.root) and entry not in known:
                yield Breach(
                    face.path,
                    face.lines["MUST_NOT_IMPORT"],
                    "face",
                    f"MUST_NOT_IMPORT names {entry}, which is no module of {tree.root}",
                )
            if any(inside(entry, allowed) for allowed in face.may_import or ()):
                yield Breach(
                    face.path,
                    face.lines["MUST_NOT_IMPORT"],
                    "face",
                    f"{entry} is in both MAY_IMPORT and MUST_NOT_IMPORT",
                )
        yield from _layer_breaches(tree, face)
    for imported in tree.imports:
        if imported.module == tree.root and inside(imported.target, tree.root):
            yield Breach(
                imported.path,
                imported.line,
                "face",
                f"the root's face imports {imported.target}: it must import nothing of {tree.root}",
            )


def _layer_breaches(tree: Tree, face: Face) -> Iterator[Breach]:
    if face.layers is None:
        return
    line = face.lines["LAYERS"]
    children = _children(tree, face.package)
    placed = [name for layer in face.layers for name in layer]
    for name in placed:
        if name not in children:
            yield Breach(face.path, line, "face", f"LAYERS names {name}, no child of it")
        elif placed.count(name) > 1:
            yield Breach(face.path, line, "face", f"LAYERS places {name} more than once")
    if face.package == tree.root:
        for name in sorted(children - set(placed)):
            yield Breach(face.path, line, "face", f"LAYERS does not place {name}")


def _children(tree: Tree, package: str) -> set[str]:
    depth = package.count(".") + 1
    return {
        ".".join(name.split(".")[: depth + 1])
        for name in tree.modules
        if name != package and inside(name, package)
    }


def _child_of(name: str, package: str) -> str:
    return ".".join(name.split(".")[: package.count(".") + 2])


def _ancestors(name: str) -> list[str]:
    parts = name.split(".")
    return [".".join(parts[:n]) for n in range(1, len(parts) + 1)]


def _import_breaches(tree: Tree, imported: Import) -> Iterator[Breach]:
    target, module = imported.target, imported.module
    how = "" if imported.how == "eager" else f" ({imported.how} import)"

    def breach(rule: str, message: str) -> Breach:
        return Breach(imported.path, imported.line, rule, message + how)

    packages = [p for p in _ancestors(module) if tree.is_package(p)]
    home = packages[-1]
    for package in packages:
        face = tree.faces.get(package)
        if face is None or inside(target, package):
            continue
        for entry in face.must_not_import or ():
            if inside(target, entry):
                yield breach(
                    "must-not-import",
                    f"{module} imports {target}: {package}'s face says it must never import "
                    f"{entry}",
                )
        # The root's face (the distribution's name and version) is anyone's to import.
        allowed = target == tree.root or any(inside(target, e) for e in face.may_import or ())
        if inside(target, tree.root) and package != tree.root and not allowed:
            yield breach(
                "may-import",
                f"{module} imports {target}, which {package}'s MAY_IMPORT does not allow",
            )
    if not inside(target, tree.root):
        return
    if inside(home, target) and target != module:
        if tree.is_package(target) and target != tree.root:
            yield breach(
                "own-face",
                f"{module} imports the face of its own package {target}: import the module "
                "behind it that holds the name",
            )
        return
    common = [p for p in _ancestors(home) if inside(target, p)][-1]
    face_name = _child_of(target, common)
    if target != face_name and tree.is_package(face_name):
        yield breach(
            "behind-face",
            f"{module} imports {target}, behind the face of {face_name}: import it from "
            f"{face_name}",
        )
    owner = tree.faces.get(common)
    if owner is not None and owner.layers is not None:
        upper, lower = _child_of(module, common), face_name
        rank = {name: n for n, layer in enumerate(owner.layers) for name in layer}
        if upper in rank and lower in rank and rank[lower] <= rank[upper]:
            where = "the same layer as" if rank[lower] == rank[upper] else "a layer above"
            yield breach(
                "layer",
                f"{module} imports {target}: {lower} is in {where} {upper} ({common}'s LAYERS)",
            )


def _cycles(tree: Tree) -> Iterator[Breach]:
    # The children of each package, and one import line for each edge between two of them.
    edges: dict[str, dict[str, dict[str, Import]]] = defaultdict(lambda: defaultdict(dict))
    for imported in tree.imports:
        target, module = imported.target, imported.module
        if not inside(target, tree.root) or inside(module, target) or inside(target, module):
            continue
        common = [p for p in _ancestors(module) if inside(target, p)][-1]
        a, b = _child_of(module, common), _child_of(target, common)
        if a != b:
            edges[common][a].setdefault(b, imported)
    for graph in edges.values():
        for cycle in _strong_components(graph):
            if not any(tree.is_package(name) for name in cycle):
                continue
            members = set(cycle)
            shown = " -> ".join([*cycle, cycle[0]])
            for name in cycle:
                for other, imported in sorted(graph[name].items()):
                    if other in members:
                        how = "" if imported.how == "eager" else f" ({imported.how} import)"
                        yield Breach(
                            imported.path,
                            imported.line,
                            "cycle",
                            f"{imported.module} imports {imported.target}, closing the cycle "
                            f"{shown}{how}",
                        )


def _strong_components(graph: Mapping[str, Mapping[str, object]]) -> list[list[str]]:
    """The graph's cycles: its strongly connected components of more than one node."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, {})):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                other = stack.pop()
                on_stack.discard(other)
                component.append(other)
                if other == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def main(argv: Sequence[str]) -> int:
    package_dir = Path(argv[0]) if argv else Path(__file__).resolve().parents[1] / "conv_tasks"
    breaches = check(package_dir)
    for found in breaches:
        print(found)
    if breaches:
        print(f"{len(breaches)} import rule(s) broken: see docs/development/layout.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
