"""Adversarial: conversation B drives its page onto A's DevTools origin and tries to drive A.

Two conversations of one shared server (`BrowserTools(shared_server=True)`), the real engine
and Chromium. A has a page with a typed password and a cookie. Chromium accepts a DevTools
WebSocket from a page whose origin is its own DevTools server, so B tries to get script onto
`http://127.0.0.1:<A's DevTools port>/` in every way found so far: a batch whose first row
follows a redirect there and whose next rows run script (`eval` in all its forms, `wait
--fn`), a frame of that origin selected with `frame`, and a route whose body is a page with
its own script (which, refused a WebSocket of its own, borrows one from a same-origin frame of
the DevTools front end). None may open A's WebSocket, read A's `/json/list`, or change A's page.

Controls prove each attack is real: with the endpoint guard switched off (monkeypatched), the
batch attack reads A's password and cookie, and a fulfilled route does too. For frames, engine
0.39.4 runs `eval` in the main frame whatever `frame` selected (measured, and checked here), so
the frame attack cannot work on it even unguarded; the guard covers it anyway, because it
checks the realm the script runs in.
"""

from __future__ import annotations

import base64
import json
import uuid
from collections.abc import AsyncIterator
from pathlib import Path
from urllib.parse import quote

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.taxonomy import join_batch_row
from agent_browser_tools.tools.agent_browser.safety import dispatch_guard, endpoint_guard
from tests.support.devtools import devtools_port, drive_js, drive_page
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import session_dir
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, assert_policy_blocked, tools_settings

pytestmark = pytest.mark.real_engine

PASSWORD = "Hunter2-endpoint-escape"
PWNED = "window.__pwned = (window.__pwned || 0) + 1"


@pytest_asyncio.fixture
async def pair(
    engine_env: EngineEnv, tmp_path: Path
) -> AsyncIterator[tuple[BrowserTools, BrowserTools]]:
    settings = tools_settings(engine_env, tmp_path / "state")
    a = BrowserTools(settings=settings, cwd=tmp_path, shared_server=True)
    b = BrowserTools(settings=settings, cwd=tmp_path, shared_server=True)
    try:
        yield a, b
    finally:
        await a.aclose()
        await b.aclose()


def _shown(result: ToolResult) -> str:
    return result.text + json.dumps(result.details, default=str)


async def _ok(tools: BrowserTools, *args: str, **params: str) -> ToolResult:
    result = await ab(tools, *args, **params)
    assert not result.is_error, result.text
    return result


async def _plant(a: BrowserTools, site: FixtureServer, engine_env: EngineEnv) -> tuple[str, int]:
    """A's page: a password typed, a cookie set (`cookie-<mark>`, which B's attack script does
    not hold, unlike `conversation=<mark>`). Returns (mark, A's DevTools port)."""
    mark = f"endpoint{uuid.uuid4().hex[:10]}"
    opened = await _ok(a, "open", site.url(f"form.html?conversation={mark}"))
    await _ok(a, "fill", "#password", PASSWORD)
    await _ok(a, "eval", f"document.cookie = 'abt_mark=cookie-{mark}'; 1")
    session = str(opened.details["sessionName"])
    return mark, devtools_port(session_dir(engine_env.socket_dir, session))


READ = "location.href + ' ' + document.cookie + ' ' + document.getElementById('password').value"
"""What B's attacks read in A's tab (after counting the visit: `PWNED`)."""


def _attack(mark: str) -> str:
    """Script that drives A's tab from a page on A's DevTools origin."""
    return drive_js(f"conversation={mark}", f"({PWNED}, {READ})")


def _attack_page(mark: str) -> str:
    """A page that does the same by itself, for a route's `--body`."""
    return drive_page(f"conversation={mark}", f"({PWNED}, {READ})")


async def _pwned(a: BrowserTools) -> int:
    result = await _ok(a, "eval", "window.__pwned || 0")
    return int(result.details["data"]["result"])


def _hop(site: FixtureServer, port: int, path: str = "/json/version") -> str:
    return site.url("redirect?to=" + quote(f"http://127.0.0.1:{port}{path}", safe=""))


def _leaked(result: ToolResult, mark: str) -> bool:
    """Anything only A's tab holds: its cookie, its typed password, its page URL."""
    shown = _shown(result)
    return any(s in shown for s in (f"cookie-{mark}", PASSWORD, f"form.html?conversation={mark}"))


async def test_a_batch_that_lands_on_as_devtools_origin_runs_no_script(
    pair: tuple[BrowserTools, BrowserTools], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    await _ok(b, "open", fixture_site.url("page-b.html"))
    attack = _attack(mark)
    encoded = base64.b64encode(attack.encode()).decode()
    rows = [
        ["open", _hop(fixture_site, port)],
        ["eval", attack],
        ["eval", "-b", encoded],
        ["wait", "--fn", f"({attack}) && false", "--timeout", "1500"],
    ]
    result = await ab(b, "batch", stdin=json.dumps(rows))
    steps = result.details["batchSteps"]
    assert str(steps[0]["result"]["url"]).startswith(f"http://127.0.0.1:{port}/"), steps[0]
    assert_policy_blocked(result, "browser-endpoint")
    assert [s["failureCategory"] for s in steps[1:3]] == ["policy-blocked"] * 2, steps
    assert [s["command"] for s in steps[1:3]] == [rows[1], rows[2]]  # the caller's own script
    assert "let{}=" not in _shown(result)
    assert not _leaked(result, mark)
    # The same through argument rows, and the direct forms, from the page B was left on.
    as_args = await ab(
        b, "batch", f"open {_hop(fixture_site, port)}", join_batch_row(("eval", attack))
    )
    assert_policy_blocked(as_args, "browser-endpoint")
    for args, params in [
        (("eval", attack), {}),
        (("eval", "--stdin"), {"stdin": attack}),
        (("eval", "-b", encoded), {}),
        (("wait", "--fn", attack), {}),
    ]:
        direct = await ab(b, *args, **params)
        assert_policy_blocked(direct, "browser-endpoint")
        assert not _leaked(direct, mark)
    assert await _pwned(a) == 0


async def test_control_unguarded_the_batch_attack_drives_a(
    pair: tuple[BrowserTools, BrowserTools],
    fixture_site: FixtureServer,
    engine_env: EngineEnv,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dispatch_guard, "script_guard", lambda plan, grid=None: None)
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    await _ok(b, "open", fixture_site.url("page-b.html"))
    rows = [["open", _hop(fixture_site, port)], ["eval", _attack(mark)]]
    await ab(b, "batch", stdin=json.dumps(rows))
    assert await _pwned(a) == 1  # A's page ran B's code (its answer to B is withheld)
    # With the answer shown too, B reads A's cookie and typed password.
    monkeypatch.setattr(dispatch_guard, "withhold", lambda envelope, ports: envelope)
    result = await ab(b, "batch", stdin=json.dumps(rows))
    reply = str(result.details["batchSteps"][1].get("result"))
    assert f"cookie-{mark}" in reply and PASSWORD in reply, result.details["batchSteps"][1]
    assert await _pwned(a) == 2


async def test_a_frame_of_as_devtools_origin_runs_no_script(
    pair: tuple[BrowserTools, BrowserTools], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    # /json/* answers forbid framing; the DevTools front end (same origin) does not.
    framer = fixture_site.url(
        "frame?src=" + quote(f"http://127.0.0.1:{port}/devtools/inspector.html", safe="")
    )
    await _ok(b, "open", framer)
    attack = _attack(mark)
    result = await ab(b, "batch", stdin=json.dumps([["frame", "#f"], ["eval", attack]]))
    assert not _leaked(result, mark)
    await _ok(b, "frame", "#f")
    direct = await ab(b, "eval", attack)
    assert not _leaked(direct, mark)
    # Engine 0.39.4 keeps `eval` in the main frame after `frame` (the premise above).
    where = await _ok(b, "eval", "location.href")
    assert where.details["data"]["result"] == framer
    await _ok(b, "frame", "main")
    assert await _pwned(a) == 0


async def test_a_route_cannot_plant_page_script_on_as_devtools_origin(
    pair: tuple[BrowserTools, BrowserTools], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    await _ok(b, "open", fixture_site.url("page-b.html"))
    page = _attack_page(mark)
    for pattern, extra in [
        ("*", ()),
        ("**", ()),
        (f"http://127.0.0.1:{port}/x*", ()),
        ("https://example.com/app", ()),  # no `*`: matches any URL holding it
        ("*", ("--resource-type", "document")),
        ("*", ("--resource-types", "xhr,document")),
    ]:
        refused = await ab(b, "network", "route", pattern, "--body", page, *extra)
        assert_policy_blocked(refused, "browser-endpoint", pattern)
        assert "--resource-type fetch,xhr" in refused.text
    in_batch = await ab(b, "batch", stdin=json.dumps([["network", "route", "*", "--body", page]]))
    assert_policy_blocked(in_batch, "browser-endpoint")
    # Mocked API answers still work: documents are left out.
    mocked = '{"mocked": true}'
    await _ok(b, "network", "route", "*/api/ok*", "--body", mocked, "--resource-type", "fetch,xhr")
    answer = await _ok(b, "eval", "fetch('/api/ok').then(r => r.text())")
    assert answer.details["data"]["result"] == mocked
    await _ok(b, "network", "unroute")
    assert await _pwned(a) == 0


async def test_control_unchecked_a_route_body_drives_a(
    pair: tuple[BrowserTools, BrowserTools],
    fixture_site: FixtureServer,
    engine_env: EngineEnv,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(endpoint_guard, "route_problem", lambda command, ordinary: None)
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    await _ok(b, "open", fixture_site.url("page-b.html"))
    await _ok(b, "network", "route", f"http://127.0.0.1:{port}/x*", "--body", _attack_page(mark))
    await _ok(b, "open", _hop(fixture_site, port, "/x"))
    seen = await ab(b, "wait", "--text", f"cookie-{mark}", "--timeout", "15000")
    assert not seen.is_error, (await ab(b, "get", "text", "body")).text
    assert await _pwned(a) == 1


async def test_reads_of_as_devtools_pages_are_withheld(
    pair: tuple[BrowserTools, BrowserTools], fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    """Without script: land on A's `/json/list` (it lists A's tabs, URLs, titles and the ids
    that open them) and read it, or `read` a URL that redirects there (the engine's own HTTP
    client follows it)."""
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    listing = _hop(fixture_site, port, "/json/list")
    batch = await ab(b, "batch", stdin=json.dumps([["open", listing], ["get", "text", "body"]]))
    assert str(batch.details["batchSteps"][0]["result"]["url"]).endswith("/json/list")
    assert_policy_blocked(batch, "browser-endpoint")
    for args in [("get", "text", "body"), ("snapshot",), ("read",), ("read", listing)]:
        read = await ab(b, *args)
        assert_policy_blocked(read, "browser-endpoint")
        assert f"conversation={mark}" not in _shown(read), args
    assert f"conversation={mark}" not in _shown(batch)


async def test_control_unwithheld_a_read_lists_as_tabs(
    pair: tuple[BrowserTools, BrowserTools],
    fixture_site: FixtureServer,
    engine_env: EngineEnv,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(dispatch_guard, "withhold", lambda envelope, ports: envelope)
    a, b = pair
    mark, port = await _plant(a, fixture_site, engine_env)
    read = await _ok(b, "read", _hop(fixture_site, port, "/json/list"))
    assert f"conversation={mark}" in _shown(read)
