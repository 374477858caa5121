"""What `serve` (stdio) loads before it answers a client's first `tools/list`, so the deferrals
that make it start quickly cannot regress unnoticed (timings are the benchmark's business:
benchmarks/server_startup.py).

Each check runs in a fresh interpreter, because this test process has long imported everything.
The script walks the start-up path: the CLI module, `serve`'s transport import, the listing a
new conversation answers and its conversion to MCP tools.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.cli import cli_env

START_PATH = """
import json, sys
import agent_browser_tools.hosts.cli.main
from agent_browser_tools.hosts.mcp import convert, serve
from agent_browser_tools.hosts.mcp.sdk_import import is_deferred
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import listed_at_start

serve._transport(http=False)
tools = [convert.tool_to_mcp(spec) for spec in listed_at_start(Settings.load())]
print(json.dumps({
    "modules": sorted(sys.modules),
    "tools": [tool.name for tool in tools],
    "deferred": [name for name in ("mcp", "mcp.server") if is_deferred(sys.modules[name])],
}))
"""

NOT_BEFORE_FIRST_CALL = (
    # The conversation: the API and what it drives open on the first tool call.
    "agent_browser_tools.api",
    "agent_browser_tools.runtime",
    "agent_browser_tools.engine.runner",
    "agent_browser_tools.engine.discovery",
    "agent_browser_tools.sandbox",
    "agent_browser_tools.credentials.store",
    "agent_browser_tools.tools.agent_browser.call",
    "agent_browser_tools.tools.electron.lifecycle",
    # Other subcommands and the other transport.
    "agent_browser_tools.hosts.cli.doctor",
    "agent_browser_tools.hosts.mcp.http",
    "agent_browser_tools.hosts.mcp.http_conn",
    # The SDK's client side and its high-level server: a lowlevel server uses neither.
    "mcp.client",
    "mcp.client.session",
    "mcp.server.mcpserver",
    "mcp.server.fastmcp",
    "quickjs",
)


def _run(script: str, tmp_path: Path) -> dict[str, list[Any]]:
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=False,
        env=cli_env(tmp_path),
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    out: dict[str, list[Any]] = json.loads(done.stdout.splitlines()[-1])
    return out


def test_the_stdio_start_path_leaves_the_conversation_and_the_sdk_client_unloaded(
    tmp_path: Path,
) -> None:
    seen = _run(START_PATH, tmp_path)
    loaded = set(seen["modules"])
    assert "agent_browser_tools.hosts.mcp.stdio" in loaded  # the walk did reach the transport
    assert "mcp.server.lowlevel.server" in loaded
    assert seen["tools"][:3] == ["agent_browser", "agent_browser_code", "agent_browser_tools"]
    assert sorted(loaded.intersection(NOT_BEFORE_FIRST_CALL)) == []
    assert seen["deferred"] == ["mcp", "mcp.server"]


@pytest.mark.parametrize(
    "use",
    [
        "from mcp import Client, ClientSession; ok = Client.__name__ == 'Client'",
        "import mcp.server; ok = mcp.server.MCPServer.__name__ == 'MCPServer'",
        "import mcp; ok = mcp.types.Tool is mcp.Tool",
        "from mcp.server import Server; ok = Server.__name__ == 'Server'",
    ],
)
def test_the_deferred_sdk_packages_complete_on_first_use(use: str, tmp_path: Path) -> None:
    """Code that uses the SDK's package-level names after the host loaded it gets them."""
    script = f"""
import json, sys
import agent_browser_tools.hosts.mcp.stdio
from agent_browser_tools.hosts.mcp.sdk_import import is_deferred
assert is_deferred(sys.modules["mcp"])
{use}
print(json.dumps({{"ok": [ok]}}))
"""
    seen = _run(script, tmp_path)
    assert seen["ok"] == [True]


def test_an_sdk_imported_first_is_left_as_it_is(tmp_path: Path) -> None:
    script = """
import json, sys
import mcp
import agent_browser_tools.hosts.mcp.stdio
from agent_browser_tools.hosts.mcp.sdk_import import is_deferred
print(json.dumps({"deferred": [is_deferred(sys.modules[n]) for n in ("mcp", "mcp.server")],
                  "client": ["mcp.client" in sys.modules]}))
"""
    seen = _run(script, tmp_path)
    assert seen["deferred"] == [False, False]
    assert seen["client"] == [True]
