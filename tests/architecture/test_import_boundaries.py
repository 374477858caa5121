"""Declared import boundaries between the package's folders (DESIGN.md "Shape of the code").

Pure layers (planning, state, results) never reach the process runner, the runtime, the tools
or the hosts; the engine layer knows nothing above it; only `engine/runner.py` spawns the
engine. A violation names the file and the forbidden import.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "agent_browser_tools"
PREFIX = "agent_browser_tools."

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "planning": ("runtime", "engine.runner", "tools", "hosts", "sandbox"),
    "state": ("runtime", "engine", "tools", "hosts", "sandbox", "planning"),
    "results": ("runtime", "engine.runner", "tools", "hosts", "sandbox", "planning"),
    "engine": ("runtime", "tools", "hosts", "sandbox", "planning", "state", "results"),
    "sandbox": ("runtime", "tools", "hosts", "engine", "planning", "state"),
}


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name.removeprefix(PREFIX) for name in found if name.startswith(PREFIX)}


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_respects_its_boundary(layer: str) -> None:
    violations = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        for module in _imports(path):
            if any(module == bad or module.startswith(bad + ".") for bad in FORBIDDEN[layer]):
                violations.append(f"{path.relative_to(PACKAGE)} imports {module}")
    assert not violations, "\n".join(violations)


def test_only_the_runner_spawns_the_engine() -> None:
    spawners = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "subprocess.run(" in text or "subprocess_exec(" in text or "Popen(" in text:
            spawners.append(str(path.relative_to(PACKAGE)))
    # The sandbox worker and credential commands are not the engine; they spawn their own.
    assert set(spawners) <= {
        "engine/runner.py",
        "sandbox/bridge.py",
        "tools/web_search/config.py",
    }, spawners
