"""Over MCP, as the OpenAI Agents SDK uses it with `convert_schemas_to_strict=True`: it makes
every field of the listed schema required, so the model sends `null` for what it does not
want; the listing must allow that and the server must read it as absent."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import details_of, eventually, live_sessions, serve_env, stdio_client
from tests.support.real_engine import EngineEnv, track_socket_dir
from tests.support.strict_schema import accepts_null, agents_sdk_strict

pytestmark = pytest.mark.real_engine


async def test_the_sdk_converted_listing_takes_null_and_the_server_runs_it(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path / "state")
    async with stdio_client(env) as client:
        listed = {tool.name: tool.input_schema for tool in (await client.list_tools()).tools}
        converted = agents_sdk_strict(listed["agent_browser"])
        nulls: dict[str, Any] = {name: None for name in converted["required"] if name != "args"}
        assert nulls and all(accepts_null(converted["properties"][name]) for name in nulls)
        url = fixture_site.url("/tabs.html")
        opened = await client.call_tool("agent_browser", {"args": ["open", url], **nulls})
        assert not opened.is_error, opened
        session = details_of(opened)["sessionName"]
    gone = await eventually(lambda: session not in live_sessions(engine_env.socket_dir), 15.0)
    assert gone, f"managed session {session} still has a live engine daemon"
