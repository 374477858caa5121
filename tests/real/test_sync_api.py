"""`SyncBrowserTools` on the real engine: a blocking script opens a page, reads it, and
`close()` shuts the managed browser it launched."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from agent_browser_tools.api import SyncBrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine


def test_sync_tools_drive_a_real_browser_and_close_it(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    settings = tools_settings(engine_env, tmp_path / "state")
    with SyncBrowserTools(settings=settings, cwd=tmp_path) as tools:
        opened = tools.call("agent_browser", {"args": ["open", fixture_site.url("/tabs.html")]})
        assert not opened.is_error, opened.text
        title = tools.call("agent_browser", {"args": ["get", "title"]})
        assert title.details["data"]["title"] == "Tabs"
        session = title.details["sessionName"]
        assert tools.tool_specs("openai")[0]["type"] == "function"
        assert _daemon_files(engine_env, session)  # the browser's daemon runs
    deadline = time.monotonic() + 10
    while _daemon_files(engine_env, session) and time.monotonic() < deadline:
        time.sleep(0.1)  # `close` answers before the daemon has removed its files
    assert _daemon_files(engine_env, session) == []


def _daemon_files(engine_env: EngineEnv, session: str) -> list[Path]:
    return sorted(engine_env.socket_dir.rglob(f"{session}.*"))
