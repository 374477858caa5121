"""Declared import boundaries between the package's folders (DESIGN.md "Shape of the code").

Pure layers (planning, state, results) never reach the process runner, the runtime, the tools
or the hosts; `state` sits below `results`; the engine layer knows nothing above it; only
`engine/runner.py` spawns the engine. Tool packages meet only through each other's public
`__init__` or light `spec` module, and hosts see only the facade. Every import counts, deferred
and `TYPE_CHECKING` ones included (`imports.py`). A violation names the file, line and import.
"""

from __future__ import annotations

import pytest

from tests.architecture.checks import (
    PACKAGE_ROOT,
    forbidden_imports,
    source_graph,
    tool_crossings,
    tool_packages,
    unlisted_imports,
)

FORBIDDEN: dict[str, tuple[str, ...]] = {
    "planning": ("runtime", "engine.runner", "tools", "hosts", "sandbox"),
    "state": ("runtime", "engine", "tools", "hosts", "sandbox", "planning", "results"),
    "results": ("runtime", "engine.runner", "tools", "hosts", "sandbox", "planning"),
    "engine": ("runtime", "tools", "hosts", "sandbox", "planning", "state", "results"),
    "sandbox": ("runtime", "tools", "hosts", "engine", "planning", "state"),
    "tools": ("hosts", "api"),
    "credentials": (
        "runtime",
        "engine",
        "tools",
        "hosts",
        "sandbox",
        "planning",
        "state",
        "results",
    ),
}

#: What a host may import. Hosts (MCP, CLI) carry no browser logic: they drive `BrowserTools`
#: and convert its `ToolResult`s, so the list is the facade and what a host needs around it:
#: its own subpackages (the CLI starts the MCP server), the package root (`__version__`),
#: `api`, the result value, its builder (`results.response`, planned) and the category names
#: for host-made refusals, the agent-facing words (`playbook`), `settings`, and the tool specs
#: for listing tools (`tools.registry`, `tools.catalog`), and the operator's launch options
#: (`launch_options`) that `serve` turns into flags. Narrower rows add to that for one
#: subcommand: `demo` for the CLI's `demo`, the journal for `state`, and the engine, private
#: dirs, policy and file-access settings for `doctor`, which checks the installation without a
#: `BrowserTools` (and reports the operator's policy). Every host may run the state-dir
#: preflight (`state.writable`): it must refuse an unusable state dir before serving, and
#: the settings preflight (`settings_check`, what `BrowserTools.check_settings` runs) without
#: importing the API before its first client's handshake.
HOSTS_MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "hosts": (
        "hosts",
        "agent_browser_tools",
        "api",
        "results.tool_result",
        "results.response",
        "results.categories",
        "playbook",
        "settings",
        "settings_check",
        "launch_options",
        "tools.registry",
        "tools.catalog",
        "state.writable",
    ),
    "hosts.cli.main": ("demo",),
    "hosts.cli.state": ("state.sqlite_journal", "state.journal"),
    "hosts.cli.doctor": (
        "engine",
        "private_fs",
        "planning.policy",
        "planning.file_config",
        "grid_settings",
    ),
    # The grid's own checks and smoke (`[browser] grid_url`).
    "hosts.cli.doctor_grid": ("engine", "grid_settings", "grid_errors"),
    # `--version` reads the engine's version the way the tools would find the engine, and
    # says whether that release is supported.
    "hosts.cli.version": ("engine.discovery", "engine.target"),
    # The stdio front lists tools before the catalog loads: web search's light package root.
    "hosts.mcp.stdio_front": ("tools.web_search",),
    # Messages the SDK cannot parse are refused by the same generic input limits.
    "hosts.mcp.wire_repair": ("input_limits",),
    "hosts.mcp.http_repair": ("input_limits",),
    "hosts.mcp.convert": ("input_limits",),
}

#: The bottom of the stack: modules every layer reads, so they import (almost) nothing.
FOUNDATIONS_MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "taxonomy": ("taxonomy",),
    "redaction": ("taxonomy", "input_limits", "redaction_scan"),
    "redaction_scan": (),
    "redaction_native": ("redaction",),
    "playbook": ("taxonomy",),
    "settings": (),
    "input_limits": (),
    "private_fs": (),
    "size_limits": (),
    "workspace_files": (),
    "launch_options": ("settings", "remote_endpoint", "grid_settings"),
    "grid_settings": ("settings", "remote_endpoint"),
    "grid_errors": (),
    "remote_endpoint": ("settings",),
}

TOOLS = "tools"
#: Modules of `tools/` that every tool package may import besides other tools' `__init__`/`spec`.
TOOLS_SHARED = ("tools.registry",)


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_respects_its_boundary(layer: str) -> None:
    violations = forbidden_imports(source_graph(), {layer: FORBIDDEN[layer]})
    assert not violations, "\n".join(violations)


def test_hosts_import_only_the_facade() -> None:
    violations = unlisted_imports(source_graph(), HOSTS_MAY_IMPORT)
    assert not violations, "\n".join(violations)


def test_foundations_import_only_below_themselves() -> None:
    violations = unlisted_imports(source_graph(), FOUNDATIONS_MAY_IMPORT)
    assert not violations, "\n".join(violations)


def test_tool_packages_are_the_expected_ones() -> None:
    """The tool rule below finds tool packages by folder; this pins which ones it sees."""
    assert tool_packages(source_graph(), TOOLS) == [
        "tools.action",
        "tools.agent_browser",
        "tools.code",
        "tools.electron",
        "tools.network_source",
        "tools.qa",
        "tools.source",
        "tools.web_search",
    ]


def test_tools_meet_only_through_package_or_spec() -> None:
    crossings = sorted(tool_crossings(source_graph(), TOOLS, TOOLS_SHARED))
    assert not crossings, (
        "a tool imports another tool's internals (import its package or spec):\n"
        + ("\n".join(f"{importer} -> {target}" for importer, target in crossings))
    )


def test_only_the_runner_spawns_the_engine() -> None:
    spawners = []
    for path in sorted(PACKAGE_ROOT.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if "subprocess.run(" in text or "subprocess_exec(" in text or "Popen(" in text:
            spawners.append(str(path.relative_to(PACKAGE_ROOT)))
    # The sandbox worker and credential commands are not the engine; they spawn their own.
    # `engine/apps.py` starts the desktop apps `agent_browser_electron` launches (they must
    # outlive the call, which `run_engine` never lets a child do).
    assert set(spawners) <= {
        "engine/runner.py",
        "engine/apps.py",
        "sandbox/bridge.py",
        "tools/web_search/config.py",
    }, spawners
