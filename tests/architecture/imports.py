"""An AST import graph of one package, shared by the architecture tests.

Why a graph and not a grep: a deferred (function-level) or `TYPE_CHECKING` import is still a
dependency a reader has to follow, so the cycle and layer checks count every import, and they
resolve relative imports and `from pkg import submodule` to the module that is really loaded.
Importing `a.b.c` counts as depending on `a.b.c` only, not on its parents' `__init__`; naming a
package (`from a import b` where `b` is not a submodule) depends on that package's `__init__`.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class Kind(StrEnum):
    """Where an import statement sits, which decides when it runs."""

    MODULE = "module"
    DEFERRED = "deferred"
    TYPE_CHECKING = "type-checking"


@dataclass(frozen=True, slots=True)
class Import:
    """One resolved import of a module of the package by another one."""

    importer: str
    target: str
    line: int
    kind: Kind


@dataclass(frozen=True, slots=True)
class ImportGraph:
    """Every module of a package (dotted name -> file) and every import between them."""

    package: str
    root: Path
    modules: Mapping[str, Path]
    imports: tuple[Import, ...]

    def edges(self) -> dict[str, set[str]]:
        """Module -> the modules it imports, whatever the kind of import."""
        graph: dict[str, set[str]] = {name: set() for name in self.modules}
        for imp in self.imports:
            graph[imp.importer].add(imp.target)
        return graph

    def relative(self, module: str) -> str:
        """`pkg.a.b` -> `a.b` (the package's own `__init__` stays `pkg`)."""
        return module.removeprefix(self.package + ".")

    def path_of(self, module: str) -> str:
        """The module's file relative to the package root, for messages."""
        return self.modules[module].relative_to(self.root).as_posix()


def build_graph(root: Path, package: str) -> ImportGraph:
    """Parse every `.py` file under `root`, the directory of package `package`."""
    modules = {_module_name(path, root, package): path for path in sorted(root.rglob("*.py"))}
    imports: list[Import] = []
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        is_package = path.name == "__init__.py"
        for node, kind in _import_nodes(tree.body, Kind.MODULE):
            for target in _targets(node, name, is_package, modules):
                if target.startswith(package + ".") or target == package:
                    imports.append(Import(name, target, node.lineno, kind))
    return ImportGraph(package, root, modules, tuple(imports))


def _module_name(path: Path, root: Path, package: str) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((package, *parts))


def _is_type_checking(test: ast.expr) -> bool:
    if isinstance(test, ast.Name):
        return test.id == "TYPE_CHECKING"
    return isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"


def _import_nodes(
    body: list[ast.stmt], kind: Kind
) -> Iterator[tuple[ast.Import | ast.ImportFrom, Kind]]:
    """Each import statement in `body` (recursively) with where it sits."""
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield node, kind
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            inner = kind if kind is Kind.TYPE_CHECKING else Kind.DEFERRED
            yield from _import_nodes(node.body, inner)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            yield from _import_nodes(node.body, Kind.TYPE_CHECKING)
            yield from _import_nodes(node.orelse, kind)
        else:
            for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                children = getattr(node, field, None)
                if isinstance(children, list):
                    yield from _import_nodes(_statements(children), kind)


def _statements(children: list[object]) -> list[ast.stmt]:
    """Statements of a block, flattening `except` handlers and `match` cases into theirs."""
    found: list[ast.stmt] = []
    for child in children:
        if isinstance(child, ast.stmt):
            found.append(child)
        elif isinstance(child, ast.ExceptHandler | ast.match_case):
            found.extend(child.body)
    return found


def _targets(
    node: ast.Import | ast.ImportFrom, importer: str, is_package: bool, modules: Mapping[str, Path]
) -> list[str]:
    if isinstance(node, ast.Import):
        return [_known(alias.name, modules) for alias in node.names]
    base = _absolute(node, importer, is_package)
    found: list[str] = []
    for alias in node.names:
        submodule = f"{base}.{alias.name}"
        found.append(submodule if submodule in modules else _known(base, modules))
    return found


def _absolute(node: ast.ImportFrom, importer: str, is_package: bool) -> str:
    """The absolute module a `from` import reads from, relative levels resolved."""
    if node.level == 0:
        return node.module or ""
    parts = importer.split(".")
    # A package's `__init__` is its own package; a plain module's package is its parent.
    anchor = parts if is_package else parts[:-1]
    anchor = anchor[: len(anchor) - (node.level - 1)]
    return ".".join([*anchor, node.module] if node.module else anchor)


def _known(name: str, modules: Mapping[str, Path]) -> str:
    """`name` itself, or its longest prefix that is a module (`import pkg.a.Thing` is odd but
    legal for packages); unchanged when nothing matches (an outside import)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return name


def _reachable(graph: Mapping[str, set[str]], start: str) -> set[str]:
    """Every module reachable from `start` by one or more imports."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for succ in graph.get(todo.pop(), ()):
            if succ not in seen:
                seen.add(succ)
                todo.append(succ)
    return seen


def cycles(graph: Mapping[str, set[str]]) -> list[tuple[str, ...]]:
    """Strongly connected components with more than one module, plus self loops (sorted).

    Plain mutual reachability: the package has about a hundred modules, so clarity wins over
    a linear-time algorithm.
    """
    reach = {node: _reachable(graph, node) for node in graph}
    found = {
        tuple(sorted(m for m in reach[node] if node in reach.get(m, set())))
        for node in graph
        if node in reach[node]
    }
    return sorted(found)


@dataclass(frozen=True, slots=True)
class Function:
    """A function or method and its length from the `def` line to its last line."""

    qualname: str
    line: int
    length: int


def functions(source: str) -> list[Function]:
    """Every function in `source`, nested ones and methods included (decorators excluded)."""
    found: list[Function] = []

    def walk(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                end = node.end_lineno if node.end_lineno is not None else node.lineno
                found.append(Function(prefix + node.name, node.lineno, end - node.lineno + 1))
                walk(node.body, f"{prefix}{node.name}.")
            elif isinstance(node, ast.ClassDef):
                walk(node.body, f"{prefix}{node.name}.")
            else:
                for field in ("body", "orelse", "finalbody", "handlers", "cases"):
                    children = getattr(node, field, None)
                    if isinstance(children, list):
                        walk(_statements(children), prefix)

    walk(ast.parse(source).body, "")
    return found
