"""The operator's remote browser (`[browser] cdp_url`), on the real engine and a real Chromium.

The "remote" browser is a headless Chromium this test starts itself with
`--remote-debugging-port=0` (its port read from DevToolsActivePort), standing in for a remote
Chrome or a browser farm. Two conversations drive pages in it through the setting alone (the
model passes no `--cdp`): each works in its own tab, a tab the browser's user already had is
neither read nor moved, and closing the conversations closes exactly the tabs they opened while
the browser, which is not ours, keeps running. The fixture kills it whatever happens.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.own_chromium import own_chromium
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine


@dataclass(frozen=True)
class StandIn:
    """The stand-in remote browser: its process and DevTools port."""

    process: subprocess.Popen[bytes]
    port: int

    def pages(self) -> dict[str, str]:
        """Page targets: id -> URL, read over CDP's HTTP endpoint."""
        url = f"http://127.0.0.1:{self.port}/json/list"
        with urllib.request.urlopen(url, timeout=5) as answer:
            targets = json.load(answer)
        return {t["id"]: t["url"] for t in targets if t.get("type") == "page"}

    def new_page(self, url: str) -> str:
        """A tab the browser's own user opened (not through us)."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/json/new?{url}", method="PUT"
        )
        with urllib.request.urlopen(request, timeout=5) as answer:
            return str(json.load(answer)["id"])


@pytest.fixture
def remote(engine_env: EngineEnv, tmp_path: Path) -> Iterator[StandIn]:
    """A headless Chromium that is not ours; killed at teardown even when the test fails."""
    with own_chromium(engine_env, tmp_path / "remote-chrome") as (chrome, port):
        yield StandIn(chrome, port)


def _remote_tools(
    engine_env: EngineEnv, tmp_path: Path, port: int, conversation: str
) -> BrowserTools:
    settings = tools_settings(engine_env, tmp_path / "state").with_layer(
        "serve", {"browser": {"cdp_url": f"http://127.0.0.1:{port}"}}
    )
    return BrowserTools(settings=settings, cwd=tmp_path, conversation_id=conversation)


async def test_conversations_drive_their_own_tabs_and_leave_the_remote_running(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, remote: StandIn
) -> None:
    users_page = fixture_site.url("/clean.html")
    users_tab = remote.new_page(users_page)
    before = remote.pages()
    first = _remote_tools(engine_env, tmp_path, remote.port, "remote-a")
    second = _remote_tools(engine_env, tmp_path, remote.port, "remote-b")
    try:
        opened = await ab(first, "open", fixture_site.url("/links.html"))
        assert not opened.is_error, opened.text
        other = await ab(second, "open", fixture_site.url("/form.html"))
        assert not other.is_error, other.text

        snapshot = await ab(first, "snapshot", "-i")
        assert not snapshot.is_error, snapshot.text
        click = await ab(first, "click", ref_for(snapshot, "link", "Go to Page A"))
        assert not click.is_error, click.text
        title = await ab(first, "get", "title")
        assert title.details["data"]["title"] == "Page A", title.text
        extra = await ab(first, "tab", "new", fixture_site.url("/page-b.html"))
        assert not extra.is_error, extra.text

        # The other conversation's tab was not moved by any of that.
        still = await ab(second, "get", "title")
        assert still.details["data"]["title"] == "Profile Form", still.text
        opened_urls = set(remote.pages().values())
        assert fixture_site.url("/page-a.html") in opened_urls
        assert fixture_site.url("/form.html") in opened_urls
    finally:
        await first.aclose()
        await second.aclose()

    assert remote.process.poll() is None, "the remote browser is not ours to stop"
    after = remote.pages()
    assert after == before, f"tabs we opened were left (or the user's were closed): {after}"
    assert after[users_tab] == users_page


async def test_the_model_cannot_point_a_call_elsewhere(
    engine_env: EngineEnv, tmp_path: Path, remote: StandIn
) -> None:
    """`--cdp` stays the operator's even when the operator set a remote browser."""
    tools = _remote_tools(engine_env, tmp_path, remote.port, "remote-c")
    try:
        refused = await ab(tools, "--cdp", "ws://attacker.example:9222", "get", "url")
        assert refused.is_error
        assert refused.details["failureCategory"] == "policy-blocked", refused.text
    finally:
        await tools.aclose()
    assert remote.process.poll() is None
