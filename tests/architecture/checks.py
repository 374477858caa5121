"""The architecture rules as pure checks over an `ImportGraph`, each returning its violations.

Why separate from the tests that apply them to the real package: `test_checkers.py` runs the
same checks on small planted packages, so a check that stopped finding anything would fail
there instead of passing silently here. Module names in rules and messages are relative to the
package (`state.effects`); the package's own `__init__` keeps its full name.
"""

from __future__ import annotations

import ast
import functools
from collections import Counter
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from tests.architecture.imports import Import, ImportGraph, build_graph, cycles, functions

PACKAGE = "agent_browser_tools"
PACKAGE_ROOT = Path(__file__).resolve().parents[2] / "src" / PACKAGE


@functools.cache
def source_graph() -> ImportGraph:
    """The import graph of the package under `src/`, built once per test run."""
    return build_graph(PACKAGE_ROOT, PACKAGE)


def within(module: str, prefix: str) -> bool:
    """`module` is `prefix` or inside it (`state.effects` is within `state`, `stateful` is not)."""
    return module == prefix or module.startswith(prefix + ".")


def _relative_imports(graph: ImportGraph) -> Iterator[tuple[str, str, Import]]:
    for imp in graph.imports:
        yield graph.relative(imp.importer), graph.relative(imp.target), imp


def _describe(graph: ImportGraph, imp: Import) -> str:
    return (
        f"{graph.path_of(imp.importer)}:{imp.line} imports {graph.relative(imp.target)}"
        f" ({imp.kind.value})"
    )


def forbidden_imports(graph: ImportGraph, forbidden: Mapping[str, Collection[str]]) -> list[str]:
    """Imports by a module within a key of `forbidden` of a module within one of its values."""
    found = []
    for importer, target, imp in _relative_imports(graph):
        for layer, banned in forbidden.items():
            if within(importer, layer) and any(within(target, bad) for bad in banned):
                found.append(_describe(graph, imp))
    return sorted(set(found))


def unlisted_imports(graph: ImportGraph, may_import: Mapping[str, Collection[str]]) -> list[str]:
    """Imports by a module within a key of `may_import` of a module outside every allowed list
    of the keys it is within (keys nest: `hosts.cli.doctor` adds to what `hosts` allows)."""
    found = []
    for importer, target, imp in _relative_imports(graph):
        scopes = [allowed for scope, allowed in may_import.items() if within(importer, scope)]
        if scopes and not any(within(target, ok) for allowed in scopes for ok in allowed):
            found.append(_describe(graph, imp))
    return sorted(set(found))


def tool_packages(graph: ImportGraph, tools: str) -> list[str]:
    """The subpackages of `tools` (relative names): one per tool."""
    return sorted(
        graph.relative(name)
        for name, path in graph.modules.items()
        if path.name == "__init__.py" and graph.relative(name).rpartition(".")[0] == tools
    )


def tool_crossings(
    graph: ImportGraph, tools: str, shared: Collection[str]
) -> list[tuple[str, str]]:
    """(importer, target) where a tool package reaches into `tools` outside itself other than
    through another tool's package `__init__`, its `spec` module or a `shared` module."""
    packages = tool_packages(graph, tools)
    allowed = {*shared, *packages, *(f"{package}.spec" for package in packages)}
    found = set()
    for importer, target, _ in _relative_imports(graph):
        own = next((package for package in packages if within(importer, package)), None)
        if own is None or not within(target, tools) or within(target, own):
            continue
        if target not in allowed:
            found.add((importer, target))
    return sorted(found)


def participant_crossings(graph: ImportGraph, table: str, package: str) -> list[str]:
    """Imports that tie one participant of `package` to another.

    The participants are the feature modules (inside a subpackage of `package`) that the
    table of contents `table` imports; every other feature module is a service. A participant
    may import services, a service other services, and neither a participant: a behaviour
    registered in the table then changes in its own module only."""

    def feature(module: str) -> bool:
        return within(module, package) and "." in module[len(package) + 1 :]

    participants = {
        target
        for importer, target, _ in _relative_imports(graph)
        if importer == table and feature(target)
    }
    found = []
    for importer, target, imp in _relative_imports(graph):
        if feature(importer) and target in participants and target != importer:
            role = "participant" if importer in participants else "service"
            found.append(f"{_describe(graph, imp)}: a {role} importing a participant")
    return sorted(set(found))


def unexpected_cycles(
    graph: ImportGraph, known: Collection[frozenset[str]]
) -> tuple[list[tuple[str, ...]], list[frozenset[str]]]:
    """Cycles (relative names) not in `known`, and known ones that no longer exist as written."""
    found = [tuple(graph.relative(name) for name in cycle) for cycle in cycles(graph.edges())]
    new = [cycle for cycle in found if frozenset(cycle) not in known]
    gone = [cycle for cycle in known if cycle not in {frozenset(c) for c in found}]
    return new, sorted(gone, key=sorted)


def oversized(graph: ImportGraph, max_file_lines: int, max_function_lines: int) -> list[str]:
    """Files longer than `max_file_lines`, and functions (methods and nested ones included)
    longer than `max_function_lines` from their `def` line to their last line."""
    found = []
    for name in sorted(graph.modules):
        path = graph.path_of(name)
        source = graph.modules[name].read_text(encoding="utf-8")
        lines = len(source.splitlines())
        if lines > max_file_lines:
            found.append(f"{path}: {lines} lines (limit {max_file_lines})")
        for function in functions(source):
            if function.length > max_function_lines:
                found.append(
                    f"{path}:{function.qualname} (line {function.line}): {function.length} "
                    f"lines (limit {max_function_lines})"
                )
    return found


def _is_path(node: ast.expr) -> bool:
    """`path`, `x.path`, or a slice or index of one (`plan.path[:1]`)."""
    if isinstance(node, ast.Subscript):
        return _is_path(node.value)
    if isinstance(node, ast.Name):
        return node.id == "path"
    return isinstance(node, ast.Attribute) and node.attr == "path"


def _words(node: ast.expr) -> tuple[str, ...] | None:
    """The command words of a literal `("network", "requests")` or `"find"`, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return (node.value,)
    if isinstance(node, ast.Tuple) and node.elts:
        words = [_words(element) for element in node.elts]
        if all(word is not None and len(word) == 1 for word in words):
            return tuple(word[0] for word in words if word is not None)
    return None


def command_path_literals(graph: ImportGraph, outside: str) -> Counter[tuple[str, str]]:
    """(file, command words) for each comparison of a command path with a literal in a module
    not within `outside`: a rule that re-lists command names instead of reading the table."""
    found: Counter[tuple[str, str]] = Counter()
    for name in sorted(graph.modules):
        if within(graph.relative(name), outside):
            continue
        tree = ast.parse(graph.modules[name].read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Compare) or len(node.comparators) != 1:
                continue
            left, right = node.left, node.comparators[0]
            literal = _words(right) if _is_path(left) else _words(left) if _is_path(right) else None
            if literal is not None:
                found[(graph.path_of(name), " ".join(literal))] += 1
    return found
