"""Where a proof test could skip or xfail instead of failing (pure: reads test files only).

A proof that xfails, or skips in CI, proves nothing there: a regression would show as an
expected failure or a skip, and the coverage table would still say the row holds. So the
coverage check follows each proof test into everything it runs that this repository wrote:
its own decorators, its class's, the module's `pytestmark` and import-time calls, the fixtures
it asks for and the autouse ones (from its module or a `conftest.py` above it) and the
`tests.*` helpers it calls, transitively. Any `pytest.mark.xfail`/`skip`/`skipif` or
`pytest.xfail(`/`pytest.skip(`/`pytest.importorskip(` found there is an escape, unless
`ACCEPTED_SKIPS` names that very place (`path::function`, `path::pytestmark`, or
`path::<module>` for a call at import) with the reason it cannot trigger in CI. An xfail is
never accepted.

CI (`.ci/run`) runs as root on Linux with Chromium, the engine and the React fixture bundle
installed, and without ffmpeg (`scripts/setup.sh` installs none).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ESCAPE_MARKS = frozenset({"skip", "skipif", "xfail"})
ESCAPE_CALLS = frozenset({"skip", "xfail", "importorskip"})

ACCEPTED_SKIPS: dict[str, str] = {
    "tests/real/tools/agent_browser/test_recording_real.py::pytestmark": (
        "skips only where ffmpeg is installed; CI installs none, and these tests are about "
        "the engine's answer without it"
    ),
    "tests/real/tools/source/test_source.py::require_bundle": (
        "calls pytest.fail instead when CI is set; the skip is for a local checkout without "
        "the React bundle"
    ),
    "tests/support/own_chromium.py::own_chromium": (
        "calls pytest.fail instead when CI is set; the skip is for a machine without Chromium"
    ),
}
"""`path::function` (or `path::pytestmark`) holding a skip -> why it cannot skip in CI."""


@dataclass(frozen=True)
class Escape:
    where: str  # path::function holding it
    line: int
    what: str  # e.g. "pytest.xfail(" or "@pytest.mark.skipif"

    @property
    def accepted(self) -> bool:
        return "xfail" not in self.what and self.where in ACCEPTED_SKIPS


@dataclass
class _Module:
    path: str
    tree: ast.Module
    functions: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = field(default_factory=dict)
    imported: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """local name -> (module path, name in it or None for a module)."""


class Reach:
    """Loads test modules once and walks what a proof test runs."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._modules: dict[str, _Module | None] = {}

    def escapes(self, path: str, name: str) -> list[Escape]:
        """Every skip/xfail reachable from the test `name` (`func` or `Class::func`)."""
        module = self._module(path)
        if module is None:
            return []
        class_name, _, func_name = name.rpartition("::")
        found = list(_marks(module, "pytestmark", _pytestmark(module.tree)))
        found += _module_level_calls(module)
        function = _find(module.tree, class_name, func_name)
        if function is None:
            return found
        if class_name:
            owner = next(
                n for n in module.tree.body if isinstance(n, ast.ClassDef) and n.name == class_name
            )
            found += _marks(module, class_name, owner.decorator_list)
        seen: set[tuple[str, str]] = set()
        for owner_module, fixture in self._autouse(module):
            found += self._walk(owner_module, fixture, seen)
        found += self._walk(module, function, seen)
        return found

    def _autouse(
        self, module: _Module
    ) -> Iterator[tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
        """Autouse fixtures of the test's module and of every `conftest.py` above it."""
        owners = [module]
        folder = Path(module.path).parent
        while folder.parts and folder.parts[0] == "tests":
            conftest = self._module(str(folder / "conftest.py"))
            if conftest is not None:
                owners.append(conftest)
            folder = folder.parent
        for owner in owners:
            for function in owner.functions.values():
                if any(_is_autouse(d) for d in function.decorator_list):
                    yield owner, function

    def _walk(
        self,
        module: _Module,
        function: ast.FunctionDef | ast.AsyncFunctionDef,
        seen: set[tuple[str, str]],
    ) -> list[Escape]:
        key = (module.path, function.name)
        if key in seen:
            return []
        seen.add(key)
        found = list(_marks(module, function.name, [function]))  # decorators, add_marker(...)
        for node in ast.walk(function):
            if isinstance(node, ast.Call) and _pytest_attr(node.func) in ESCAPE_CALLS:
                attr = _pytest_attr(node.func)
                found.append(
                    Escape(f"{module.path}::{function.name}", node.lineno, f"pytest.{attr}(")
                )
        for target_module, target in self._callees(module, function):
            found += self._walk(target_module, target, seen)
        return found

    def _callees(
        self, module: _Module, function: ast.FunctionDef | ast.AsyncFunctionDef
    ) -> Iterator[tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef]]:
        names = [arg.arg for arg in (*function.args.posonlyargs, *function.args.args)]
        names += [a.arg for a in function.args.kwonlyargs]
        for node in ast.walk(function):
            if isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    names.append(node.func.id)
                elif isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                    names.append(f"{node.func.value.id}.{node.func.attr}")
        for name in names:
            resolved = self._resolve(module, name)
            if resolved is None and "." not in name:
                resolved = self._conftest_fixture(module.path, name)
            if resolved is not None:
                yield resolved

    def _resolve(
        self, module: _Module, name: str
    ) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        head, _, attr = name.partition(".")
        if not attr and head in module.functions:
            return module, module.functions[head]
        if head not in module.imported:
            return None
        path, member = module.imported[head]
        target = self._module(path)
        if target is None:
            return None
        wanted = attr if member is None else member
        if member is not None and attr:
            return None
        function = target.functions.get(wanted)
        if function is not None:
            return target, function
        if wanted in target.imported:  # re-exported (a conftest importing fixtures)
            return self._resolve(target, wanted)
        return None

    def _conftest_fixture(
        self, path: str, name: str
    ) -> tuple[_Module, ast.FunctionDef | ast.AsyncFunctionDef] | None:
        folder = Path(path).parent
        while folder.parts and folder.parts[0] == "tests":
            conftest = self._module(str(folder / "conftest.py"))
            if conftest is not None:
                resolved = self._resolve(conftest, name)
                if resolved is not None:
                    return resolved
            folder = folder.parent
        return None

    def _module(self, path: str) -> _Module | None:
        if path not in self._modules:
            file = self.root / path
            self._modules[path] = _load(self.root, path) if file.is_file() else None
        return self._modules[path]


def _load(root: Path, path: str) -> _Module:
    tree = ast.parse((root / path).read_text(encoding="utf-8"))
    module = _Module(path, tree)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            module.functions[node.name] = node
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("tests"):
            base = node.module.replace(".", "/")
            for alias in node.names:
                local = alias.asname or alias.name
                if (root / base / f"{alias.name}.py").is_file():
                    module.imported[local] = (f"{base}/{alias.name}.py", None)
                else:
                    module.imported[local] = (f"{base}.py", alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("tests.") and alias.asname:
                    module.imported[alias.asname] = (alias.name.replace(".", "/") + ".py", None)
    return module


def _find(
    tree: ast.Module, class_name: str, name: str
) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    body: list[ast.stmt] = tree.body
    if class_name:
        owner = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
        body = owner[0].body if owner else []
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            return node
    return None


def _module_level_calls(module: _Module) -> list[Escape]:
    """`pytest.importorskip(...)` or `pytest.skip(..., allow_module_level=True)` at import."""
    found = []
    for statement in module.tree.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for node in ast.walk(statement):
            if isinstance(node, ast.Call) and _pytest_attr(node.func) in ESCAPE_CALLS:
                what = f"pytest.{_pytest_attr(node.func)}("
                found.append(Escape(f"{module.path}::<module>", node.lineno, what))
    return found


def _is_autouse(decorator: ast.expr) -> bool:
    return isinstance(decorator, ast.Call) and any(
        k.arg == "autouse" and isinstance(k.value, ast.Constant) and k.value.value is True
        for k in decorator.keywords
    )


def _pytestmark(tree: ast.Module) -> list[ast.expr]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            return [node.value]
    return []


def _marks(module: _Module, owner: str, decorators: Sequence[ast.AST]) -> Iterator[Escape]:
    for decorator in decorators:
        for node in ast.walk(decorator):
            if (
                isinstance(node, ast.Attribute)
                and node.attr in ESCAPE_MARKS
                and isinstance(node.value, ast.Attribute)
                and node.value.attr == "mark"
            ):
                yield Escape(f"{module.path}::{owner}", node.lineno, f"@pytest.mark.{node.attr}")


def _pytest_attr(func: ast.expr) -> str | None:
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "pytest"
    ):
        return func.attr
    return None
