"""`serve --image-responses omit` over stdio, seen by the official MCP client: a screenshot's
`tools/call` answer holds no `ImageContent` at all, and its text names the saved file. The
default server sends the image (the contract), checked in `scenarios.browse`."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
import pytest

from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import ab, details_of, serve_env, stdio_client, text_of
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine


async def test_serve_image_responses_omit_sends_no_image_content(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_CWD=str(tmp_path))
    async with stdio_client(env, "--image-responses", "omit") as client:
        opened = await ab(client, "open", fixture_site.url("page-a.html"))
        assert not opened.is_error, text_of(opened)
        shot = await ab(client, "screenshot", "x.png")
    assert not shot.is_error, text_of(shot)
    assert [block.type for block in shot.content] == ["text"]
    assert not [b for b in shot.content if isinstance(b, types.ImageContent)]
    saved = tmp_path / "x.png"
    assert saved.read_bytes().startswith(b"\x89PNG")
    assert str(saved) in text_of(shot) and "verified" in text_of(shot), text_of(shot)
    assert details_of(shot)["artifactVerification"]["verifiedCount"] == 1
