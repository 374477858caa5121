"""Nothing leaks and nothing lies after a conversation ends (real engine and Chromium).

A conversation whose every call failed still launched a daemon and a browser: `aclose` must
close them. A conversation resumed after a normal close must know its browser is gone, refuse
old refs with that reason, and name a reopen call that works when followed. A daemon or
browser killed mid-session is seen before the next call: nothing is sent to a blank browser,
the orphans are stopped and the reopen call works.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from tests.support.fixture_server import FixtureServer
from tests.support.leftovers import EXIT_WAIT_S, baseline, gone, left_after_exit, started_here
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine


@pytest.mark.parametrize("blocked", [False, True], ids=["unreachable", "blocked-domain"])
async def test_a_conversation_whose_calls_all_failed_leaves_nothing_running(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, blocked: bool
) -> None:
    env: dict[str, str] = {}
    url = "http://127.0.0.1:1/"
    if blocked:
        config = tmp_path / "operator.toml"
        config.write_text('[browser]\nallowed_domains = ["example.invalid"]\n')
        env["AGENT_BROWSER_TOOLS_CONFIG"] = str(config)
        url = fixture_site.url("/form.html")
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state", **env)
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        failed = await ab(tools, "open", url)
        assert failed.is_error, failed.text
        started = started_here(before, engine_env.socket_dir)
        assert any(p.kind == "engine" for p in started), "the failed call launched a daemon"
    finally:
        await tools.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []


async def test_a_resumed_conversation_knows_its_browser_was_closed(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state")
    page = fixture_site.url("/form.html")
    async with BrowserTools(settings=settings, cwd=tmp_path, conversation_id="closed-1") as first:
        assert not (await ab(first, "open", page)).is_error
        snapshot = await ab(first, "snapshot", "-i")
        ref = ref_for(snapshot, "textbox", "Full name")
    assert left_after_exit(before, engine_env.socket_dir) == []

    resumed = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="closed-1")
    try:
        click = await ab(resumed, "click", ref)
        assert click.details["failureCategory"] == "stale-ref", click.text
        assert click.details["staleRef"]["reason"] == "browser-closed"
        assert "The browser is closed" in click.text
        (action,) = click.details["nextActions"]
        assert action["params"]["args"] == ["open", page]
        assert started_here(before, engine_env.socket_dir) == [], "nothing sent"

        reopened = await resumed.call("agent_browser", action["params"])
        assert not reopened.is_error, reopened.text
        fresh = await ab(resumed, "snapshot", "-i")
        filled = await ab(resumed, "fill", ref_for(fresh, "textbox", "Full name"), "Ada")
        assert not filled.is_error, filled.text
    finally:
        await resumed.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []


def _daemon_and_browser(socket_dir: Path) -> tuple[int, int, Path]:
    """The one managed daemon under `socket_dir`, its Chromium and that browser's profile."""
    (pid_file,) = list(socket_dir.rglob("abt-*.pid"))
    daemon = int(pid_file.read_text())
    for child in Path(f"/proc/{daemon}/task").glob("*/children"):
        for pid in child.read_text().split():
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            profiles = [a[len(b"--user-data-dir=") :] for a in argv if a.startswith(b"--user-")]
            if profiles:
                return daemon, int(pid), Path(profiles[0].decode())
    raise AssertionError(f"daemon {daemon} has no browser child")


@pytest.mark.parametrize("victim", ["daemon", "chromium"])
async def test_a_killed_daemon_or_browser_is_reported_reaped_and_recoverable(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path, victim: str
) -> None:
    """SIGKILL the engine daemon (its Chromium is orphaned) or Chromium (the daemon would
    relaunch a blank one): the next call says the browser is gone, sends nothing, stops the
    orphans and removes their profile, and its reopen next action works when followed."""
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state")
    page = fixture_site.url("/form.html")
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        assert not (await ab(tools, "open", page)).is_error
        ref = ref_for(await ab(tools, "snapshot", "-i"), "textbox", "Full name")
        daemon, browser, profile = _daemon_and_browser(engine_env.socket_dir)
        os.kill(daemon if victim == "daemon" else browser, signal.SIGKILL)
        deadline = time.monotonic() + EXIT_WAIT_S
        while not gone(daemon if victim == "daemon" else browser):
            assert time.monotonic() < deadline
            time.sleep(0.05)

        click = await ab(tools, "fill", ref, "Ada")
        assert click.details["failureCategory"] == "stale-ref", click.text
        assert click.details["staleRef"]["reason"] == "browser-lost"
        lost = click.details["browserLost"]
        assert "The browser is gone" in click.text
        if victim == "daemon":
            assert lost["cause"] == "daemon-died" and lost["daemonPid"] == daemon
            assert lost["stoppedProcesses"] >= 1 and lost["removedProfiles"] == [str(profile)]
            assert gone(browser) and not profile.exists(), "the orphaned browser was reaped"
        else:
            assert lost["cause"] == "browser-died" and not gone(daemon)
        read = await ab(tools, "get", "url")
        assert read.details["failureCategory"] == "tab-gone", "no about:blank passed as the page"

        (action,) = click.details["nextActions"]
        assert action["id"] == "reopen-recorded-url"
        reopened = await tools.call("agent_browser", action["params"])
        assert not reopened.is_error, reopened.text
        fresh = await ab(tools, "snapshot", "-i")
        filled = await ab(tools, "fill", ref_for(fresh, "textbox", "Full name"), "Ada")
        assert not filled.is_error, filled.text
        assert (await ab(tools, "get", "url")).details["data"]["url"] == page
    finally:
        await tools.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []


async def test_a_kept_browser_lets_the_resumed_conversation_use_its_refs(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """`close_on_exit=False` (what every CLI `call` does): the browser outlives the process,
    so the resumed conversation acts with the refs of its last snapshot on the same page, and
    its enabled tools are listed again. Closing it then leaves nothing."""
    before = baseline()
    settings = tools_settings(engine_env, tmp_path / "state")
    page = fixture_site.url("/form.html")
    first = BrowserTools(
        settings=settings, cwd=tmp_path, conversation_id="kept-1", close_on_exit=False
    )
    try:
        assert not (await ab(first, "open", page)).is_error
        ref = ref_for(await ab(first, "snapshot", "-i"), "textbox", "Full name")
        enabled = await first.call("agent_browser_tools", {"enable": ["qa"]})
        assert enabled.details["enable"] == {"qa": "enabled"}, enabled.text
    finally:
        await first.aclose()
    assert started_here(before, engine_env.socket_dir), "the browser was kept"

    resumed = BrowserTools(settings=settings, cwd=tmp_path, conversation_id="kept-1")
    try:
        assert "agent_browser_qa" in [spec.name for spec in resumed.listed_tools()]
        filled = await ab(resumed, "fill", ref, "Ada")
        assert not filled.is_error, filled.text
        url = await ab(resumed, "get", "url")
        assert url.details["data"]["url"] == page
    finally:
        await resumed.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []


async def test_a_browser_that_idled_out_is_reported_gone_and_reopened(
    engine_env: EngineEnv, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """The engine stops a browser idle for `AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS`; the
    conversation goes on: its next call sends nothing, says the browser is gone
    (`no-daemon`), refuses the old ref and offers to reopen the recorded page."""
    before = baseline()
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_IDLE_TIMEOUT_MS="2000"
    )
    page = fixture_site.url("/form.html")
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        assert not (await ab(tools, "open", page)).is_error
        ref = ref_for(await ab(tools, "snapshot", "-i"), "textbox", "Full name")
        deadline = time.monotonic() + 30
        while list(engine_env.socket_dir.rglob("abt-*.pid")):
            assert time.monotonic() < deadline, "the daemon did not idle out"
            time.sleep(0.2)

        filled = await ab(tools, "fill", ref, "Ada")

        assert filled.details["failureCategory"] == "stale-ref", filled.text
        assert filled.details["staleRef"]["reason"] == "browser-lost"
        assert filled.details["browserLost"]["cause"] == "no-daemon"
        (action,) = filled.details["nextActions"]
        assert action["id"] == "reopen-recorded-url"
        assert action["params"]["args"] == ["open", page]
        reopened = await tools.call("agent_browser", action["params"])
        assert not reopened.is_error, reopened.text
    finally:
        await tools.aclose()
    assert left_after_exit(before, engine_env.socket_dir) == []
