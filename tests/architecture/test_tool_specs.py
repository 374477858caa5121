"""Each tool is declared once, in a light `spec.py`, and everything else is derived from it.

Listing tools (what an MCP client does first) must not load any tool's machinery, the runtime
must not know the registry, and the capability names exist only on the specs.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agent_browser_tools import playbook
from agent_browser_tools.tools import capabilities
from agent_browser_tools.tools.catalog import declared
from agent_browser_tools.tools.registry import compact_schema

PACKAGE = Path(__file__).resolve().parents[2] / "src" / "agent_browser_tools"
PREFIX = "agent_browser_tools."
SPEC_FILES = sorted(PACKAGE.glob("tools/*/spec.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {name.removeprefix(PREFIX) for name in found if name.startswith(PREFIX)}


def _loaded_by(module: str) -> set[str]:
    """The package modules a fresh interpreter holds after importing `module`."""
    probe = f"import sys, json, {module}; print(json.dumps(sorted(sys.modules)))"
    src = str(PACKAGE.parent)
    done = subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": src},
    )
    return set(json.loads(done.stdout))


def test_every_tool_package_has_a_spec() -> None:
    packages = {p.parent.name for p in PACKAGE.glob("tools/*/__init__.py")}
    assert {p.parent.name for p in SPEC_FILES} == packages


@pytest.mark.parametrize("path", SPEC_FILES, ids=lambda p: p.parent.name)
def test_spec_files_import_only_words_inputs_and_the_registry(path: Path) -> None:
    package = f"tools.{path.parent.name}"
    allowed = {"playbook", "planning.inputs", "tools.registry"}
    extra = {m for m in _imports(path) - allowed if not m.startswith(package + ".")}
    assert not extra, f"{path.relative_to(PACKAGE)} imports {sorted(extra)}"
    own = {m for m in _imports(path) if m.startswith(package + ".")}
    assert all(m.rsplit(".", 1)[1] in {"schema", "compile"} for m in own), own


def test_runtime_does_not_know_the_tools() -> None:
    """Not even for type checking: the registry depends on the runtime, never back."""
    imported = _imports(PACKAGE / "runtime.py")
    assert not {m for m in imported if m.startswith(("tools", "hosts"))}, imported


def test_listing_tools_loads_no_tool_machinery() -> None:
    loaded = _loaded_by("agent_browser_tools.tools.catalog")
    machinery = {
        m
        for m in loaded
        if re.fullmatch(r"agent_browser_tools\.tools\.\w+\.(run|client|cell|present)", m)
        or m.startswith(("agent_browser_tools.sandbox", "httpx", "mcp"))
    }
    assert not machinery, sorted(machinery)


def test_listing_tools_loads_no_engine() -> None:
    loaded = _loaded_by("agent_browser_tools.tools.catalog")
    engine = {m for m in loaded if m.startswith(("agent_browser_tools.engine", PREFIX + "runtime"))}
    assert not engine, sorted(engine)


def test_names_and_capabilities_are_unique() -> None:
    specs = declared()
    names = [s.name for s in specs]
    assert len(set(names)) == len(names)
    caps = [s.capability for s in specs if s.capability is not None]
    assert len(set(caps)) == len(caps)
    assert tuple(caps) == capabilities.CAPABILITIES


def test_enable_offers_exactly_the_declared_capabilities() -> None:
    schema = compact_schema(capabilities.ToolsInput)
    assert schema["properties"]["enable"]["items"]["enum"] == list(capabilities.CAPABILITIES)


def test_guidance_names_the_declared_capabilities() -> None:
    line = next(
        line for line in playbook.FULL_GUIDANCE.splitlines() if line.startswith("- Advanced")
    )
    named = line.split(":", 1)[1].rstrip(".").replace(" ", "").split(",")
    assert named == list(capabilities.CAPABILITIES)


def test_every_declared_tool_is_implemented() -> None:
    """No declaration without a handler: enabling a tool must never answer "not implemented"."""
    for spec in declared():
        assert spec.title and spec.summary and spec.description
        assert spec.handler is not None and spec.unavailable_reason is None, spec.name
