"""The README's standard config works as written: the official MCP client starts the console
script with exactly the `command` and `args` every client snippet uses, lists the tools and
drives a page with them."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import ab, serve_env, text_of
from tests.support.real_engine import EngineEnv, track_socket_dir

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
import client_configs

pytestmark = pytest.mark.real_engine
SRC = Path(__file__).resolve().parents[2] / "src"


async def test_the_standard_config_starts_a_server_that_browses(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    track_socket_dir(engine_env.socket_dir)
    entry = client_configs.standard_entry()
    # The console script of this environment (a client finds it on PATH after pipx install).
    command = shutil.which(entry["command"], path=str(Path(sys.executable).parent))
    assert command is not None, f"{entry['command']} is not installed next to {sys.executable}"
    env = serve_env(engine_env, tmp_path / "state", PYTHONPATH=str(SRC))
    params = StdioServerParameters(command=command, args=entry["args"], env=env)
    async with Client(params) as client:
        listed = await client.list_tools()
        assert {"agent_browser", "agent_browser_code", "agent_browser_tools"} <= {
            tool.name for tool in listed.tools
        }
        opened = await ab(client, "open", fixture_site.url("/tabs.html"))
        assert not opened.is_error, text_of(opened)
        closed = await ab(client, "close")
        assert not closed.is_error, text_of(closed)
