"""File roots on the real engine and Chromium: local files outside the workspace stay out of
reach, and the workspace itself keeps working.

The `browser_tools` conversation runs in `tmp_path` (its execution dir, the only root) with its
state dir at `tmp_path/state`, so "the state dir inside a root" is the normal case here. It
allows file:// pages (the operator's `--allow-file-pages`), because most checks here need an
HTML page in the workspace; `test_file_pages_are_off_by_default` covers the default.
"""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, assert_policy_blocked, tools_settings

pytestmark = pytest.mark.real_engine

PASSWD_MARK = "root:x:0:0"
"""The first line of /etc/passwd: if it ever shows up, a file escaped."""


def _blocked(result: ToolResult, subject: str | None = None) -> dict[str, Any]:
    policy = assert_policy_blocked(result, "file-root", subject)
    if subject is not None:
        assert subject in result.text, "the message names the resolved path"
    assert PASSWD_MARK not in result.text
    return policy


def _page(root: Path, name: str, body: str) -> Path:
    page = root / name
    page.write_text(f"<!doctype html><title>{name}</title><body>{body}</body>")
    return page


@pytest_asyncio.fixture
async def browser_tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A conversation whose operator allows file:// pages inside the roots."""
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_ALLOW_FILE_PAGES="1"
    )
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        yield tools
    finally:
        await tools.aclose()


async def test_file_pages_are_off_by_default(engine_env: EngineEnv, tmp_path: Path) -> None:
    """A markup page or a folder in the workspace could frame or link any local file, so
    only inert files open as file:// pages unless the operator allows file pages."""
    evil = _page(tmp_path, "evil.html", '<iframe src="file:///etc/passwd"></iframe>')
    notes = tmp_path / "notes.txt"
    notes.write_text("plain workspace notes")
    tools = BrowserTools(settings=tools_settings(engine_env, tmp_path / "state"), cwd=tmp_path)
    try:
        for target in (evil, tmp_path):
            refused = await ab(tools, "open", target.as_uri())
            assert refused.details["failureCategory"] == "policy-blocked", refused.text
            assert refused.details["policy"]["rule"] == "file-page"
            assert refused.details["policy"]["allowWith"] == "--allow-file-pages"
            assert PASSWD_MARK not in refused.text
        opened = await ab(tools, "open", notes.as_uri())
        assert not opened.is_error, opened.text
        text = await ab(tools, "get", "text", "body")
        assert "plain workspace notes" in text.text
    finally:
        await tools.aclose()


async def _url(tools: BrowserTools) -> str:
    result = await ab(tools, "--json", "get", "url")
    assert not result.is_error, result.text
    return str(result.details["data"]["url"])


async def test_local_pages_inside_the_workspace_open_and_others_do_not(
    browser_tools: BrowserTools, tmp_path: Path
) -> None:
    page = _page(tmp_path, "page.html", "<h1>Workspace page</h1>")
    opened = await ab(browser_tools, "open", page.as_uri())
    assert not opened.is_error, opened.text
    text = await ab(browser_tools, "get", "text", "body")
    assert "Workspace page" in text.text
    for url in (
        "file:///etc/passwd",
        "FILE:/etc/passwd",
        "file://localhost/etc/passwd",
        "view-source:file:///etc/passwd",
        f"file://{tmp_path}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd",
    ):
        _blocked(await ab(browser_tools, "open", url), "/etc/passwd")
    _blocked(await ab(browser_tools, "tab", "new", "file:///etc/passwd"), "/etc/passwd")
    assert await _url(browser_tools) == page.as_uri(), "no refused call navigated"


async def test_a_path_without_a_scheme_is_no_file_read(browser_tools: BrowserTools) -> None:
    """The engine turns `/etc/passwd` into `https:///etc/passwd`, a failed name lookup."""
    result = await ab(browser_tools, "open", "/etc/passwd")
    assert PASSWD_MARK not in result.text
    body = await ab(browser_tools, "get", "text", "body")
    assert PASSWD_MARK not in body.text


async def test_uploads_come_only_from_the_workspace(
    browser_tools: BrowserTools, tmp_path: Path
) -> None:
    page = _page(tmp_path, "upload.html", '<input type="file" id="f" multiple>')
    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "a.txt").write_text("workspace file")
    await ab(browser_tools, "open", page.as_uri())
    _blocked(await ab(browser_tools, "upload", "#f", "/etc/passwd"), "/etc/passwd")
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("outside")
    try:
        (tmp_path / "files" / "link.txt").symlink_to(outside)
        _blocked(await ab(browser_tools, "upload", "#f", "files/link.txt"), str(outside))
    finally:
        outside.unlink()
    # The engine takes every position as a file, flag-like or not, and strips no global
    # flag inside a batch row: both uploaded /etc/passwd before the slots followed it.
    _blocked(await ab(browser_tools, "upload", "#f", "-x", "/etc/passwd"), "/etc/passwd")
    row = json.dumps([["upload", "#f", "--namespace", "/etc/passwd"]])
    _blocked(await ab(browser_tools, "batch", stdin=row), "/etc/passwd")
    _blocked(await ab(browser_tools, "batch", "upload #f --namespace /etc/passwd"), "/etc/passwd")
    ok = await ab(browser_tools, "upload", "#f", "files/a.txt")
    assert not ok.is_error, ok.text
    names = await ab(
        browser_tools, "eval", "[...document.querySelector('#f').files].map(f => f.name)"
    )
    assert "a.txt" in names.text and "passwd" not in names.text


async def test_the_state_dir_is_unreachable_though_the_root_contains_it(
    browser_tools: BrowserTools, tmp_path: Path
) -> None:
    state = tmp_path / "state"
    await ab(browser_tools, "open", _page(tmp_path, "p.html", "x").as_uri())
    files = [path for path in state.rglob("*") if path.is_file()]
    assert files, "the conversation journal lives in the state dir"
    target = files[0]
    _blocked(await ab(browser_tools, "open", target.as_uri()), str(target))
    page = _page(tmp_path, "up.html", '<input type="file" id="f">')
    await ab(browser_tools, "open", page.as_uri())
    _blocked(await ab(browser_tools, "upload", "#f", str(target)), str(target))
    relative = os.path.relpath(target, tmp_path)
    _blocked(await ab(browser_tools, "upload", "#f", relative), str(target))
    _blocked(await ab(browser_tools, "screenshot", "state/x.png"))


async def test_artifacts_stay_in_the_workspace(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    outside = tmp_path.parent / f"{tmp_path.name}-x.png"
    _blocked(await ab(browser_tools, "screenshot", str(outside)), str(outside))
    _blocked(await ab(browser_tools, "screenshot", "../x.png"), str(tmp_path.parent / "x.png"))
    escape = tmp_path.parent / f"{tmp_path.name}-escape"
    escape.mkdir()
    (tmp_path / "link").symlink_to(escape)
    _blocked(await ab(browser_tools, "screenshot", "link/x.png"), str(escape / "x.png"))
    _blocked(await ab(browser_tools, "pdf", "/tmp/abt-file-roots.pdf"))
    assert not outside.exists() and not list(escape.iterdir())
    (tmp_path / "shots").mkdir()  # the engine does not create a screenshot's parent dir
    shot = await ab(browser_tools, "screenshot", "./shots/x.png")
    assert shot.details["successCategory"] == "artifact-saved", shot.text
    assert (tmp_path / "shots" / "x.png").stat().st_size > 1000


async def test_har_destinations_are_confined(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    started = await ab(browser_tools, "network", "har", "start")
    assert not started.is_error, started.text
    _blocked(await ab(browser_tools, "network", "har", "stop", "/tmp/abt-x.har"), "/tmp/abt-x.har")
    stopped = await ab(browser_tools, "network", "har", "stop", "./net.har")
    assert not stopped.is_error, stopped.text
    assert (tmp_path / "net.har").is_file() and not Path("/tmp/abt-x.har").exists()


async def test_output_path_outside_is_refused_before_the_call_runs(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    outside = tmp_path.parent / f"{tmp_path.name}-out.json"
    _blocked(await ab(browser_tools, "get", "url", outputPath=str(outside)), str(outside))
    _blocked(await ab(browser_tools, "get", "url", outputPath="agent-browser.json"))
    assert not outside.exists() and not (tmp_path / "agent-browser.json").exists()
    ok = await ab(browser_tools, "get", "url", outputPath="out/url.json")
    assert not ok.is_error and (tmp_path / "out" / "url.json").is_file()


async def test_a_batch_with_one_bad_row_runs_none_of_its_rows(
    browser_tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    first, second = fixture_site.url("/clean.html"), fixture_site.url("/form.html")
    await ab(browser_tools, "open", first)
    rows = [["open", second], ["screenshot", "/tmp/abt-batch.png"]]
    stdin = await ab(browser_tools, "batch", "--bail", stdin=json.dumps(rows))
    _blocked(stdin, "/tmp/abt-batch.png")
    assert "batch row 2" in stdin.text
    strings = await ab(browser_tools, "batch", f"open {second}", "open file:///etc/passwd")
    _blocked(strings, "/etc/passwd")
    assert await _url(browser_tools) == first
    assert not Path("/tmp/abt-batch.png").exists()


async def test_code_cells_obey_the_roots(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    outside = tmp_path.parent / f"{tmp_path.name}-cell.json"
    refused = await browser_tools.call(
        "agent_browser_code", {"code": "return 1", "outputPath": str(outside)}
    )
    _blocked(refused, str(outside))
    code = f"""
      await browser({{args: ["open", "{fixture_site.url("/clean.html")}"]}});
      const secret = await browser({{args: ["open", "file:///etc/passwd"]}});
      const escape = await browser({{args: ["screenshot", "../cell.png"]}});
      const shot = await browser({{args: ["screenshot", "./cell.png"]}});
      return [secret.failureCategory, escape.failureCategory, shot.success];
    """
    result = await browser_tools.call("agent_browser_code", {"code": code, "outputPath": "c.json"})
    assert not result.is_error, result.text
    assert result.details["data"] == ["policy-blocked", "policy-blocked", True]
    assert json.loads((tmp_path / "c.json").read_text()) == result.details["data"]
    assert (tmp_path / "cell.png").is_file() and not (tmp_path.parent / "cell.png").exists()
    assert not outside.exists()


async def test_relative_paths_land_in_the_execution_dir_whoever_launched_the_browser(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """The engine daemon resolves relative paths against its own working dir: a browser
    launched from another dir (same settings, so the wrapper reuses it) would write there."""
    elsewhere = tmp_path.parent / f"{tmp_path.name}-elsewhere"
    (elsewhere / "shots").mkdir(parents=True)
    (tmp_path / "shots").mkdir()
    rt = browser_tools.runtime
    name = f"t-{uuid.uuid4().hex[:8]}"

    def engine(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [rt.engine.path, "--json", "--session", name, *args]
        return subprocess.run(
            argv, env=rt.child_env, cwd=elsewhere, capture_output=True, text=True, timeout=60
        )

    try:
        assert engine("open", fixture_site.url("/clean.html")).returncode == 0
        shot = await ab(browser_tools, "--session", name, "screenshot", "shots/r.png")
        assert not shot.is_error, shot.text
        assert shot.details["effectiveArgs"][-1] == str(tmp_path / "shots" / "r.png")
        assert (tmp_path / "shots" / "r.png").is_file()
        assert not (elsewhere / "shots" / "r.png").exists()
    finally:
        engine("close")


async def test_the_engine_ignores_a_workspace_agent_browser_json(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    """A page could plant `agent-browser.json` in the workspace; the engine must not load it."""
    (tmp_path / "agent-browser.json").write_text(json.dumps({"userAgent": "PLANTED-UA"}))
    await ab(browser_tools, "open", fixture_site.url("/clean.html"))
    agent = await ab(browser_tools, "eval", "navigator.userAgent")
    assert not agent.is_error, agent.text
    assert "PLANTED-UA" not in agent.text and "Mozilla" in agent.text
