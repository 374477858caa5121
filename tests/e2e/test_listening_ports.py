"""Issue 27: no listening port of ours takes a connection from a web page.

Two conversations on one `serve --http`. The test lists every TCP port that the processes
the server started (engine daemons, Chromium and its children) listen on, the way a local
attacker would, then a page in conversation B tries each one from its loopback origin: a
WebSocket to `/`, to the real DevTools browser and page endpoints (the test reads them from
outside, so the page gets the exact URLs an attacker could only guess), and reads of the
HTTP endpoints the engine and Chromium serve. Nothing may open or be read.

A control proves the probe sees an open door: A's stream server, turned on behind the tools'
back with the raw engine (as engine 0.39.4 had it on by default), is reachable from B's page,
and A's next tool call turns it off again. The model cannot turn it on (`stream enable` is
the operator's), and both browsers still work afterwards.

The one origin from which Chromium does take a DevTools WebSocket is the DevTools server's
own. B's page is driven onto A's, as an attacker would: a batch whose first row follows a
redirect there and whose next row runs script, a frame of it selected with `frame`, and a
route whose body is a page with its own script. Nothing reaches A (the controls that show
each attack works without the guard are in tests/real/test_endpoint_escapes.py).
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import mcp_types as types
import pytest
from mcp import Client

from agent_browser_tools.engine.browser_ports import listening_ports
from tests.support import leftovers
from tests.support.devtools import devtools_port, drive_js, drive_page
from tests.support.fixture_server import FixtureServer
from tests.support.mcp_server import (
    HttpServer,
    ab,
    details_of,
    environ_of,
    http_client,
    http_server,
    serve_env,
    session_dir,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

HTTP_PATHS = ("/", "/json/version", "/json/list", "/api/tabs", "/api/status", "/api/sessions")

PROBE_JS = """
(async () => {
  const targets = %s;
  const socket = url => new Promise(resolve => {
    let ws;
    try { ws = new WebSocket(url); } catch (e) { resolve('refused'); return; }
    const timer = setTimeout(() => { try { ws.close(); } catch (e) {} resolve('timeout'); }, 3000);
    ws.onopen = () => { clearTimeout(timer); ws.close(); resolve('open'); };
    ws.onerror = () => { clearTimeout(timer); resolve('refused'); };
  });
  const read = async url => {
    try { const r = await fetch(url); await r.text(); return 'read ' + r.status; }
    catch (e) { return 'refused'; }
  };
  const out = {};
  await Promise.all(targets.map(async ([kind, url]) => {
    out[kind + ' ' + url] = kind === 'ws' ? await socket(url) : await read(url);
  }));
  return out;
})()
"""


@pytest.fixture(scope="module")
def server(engine_env: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path_factory.mktemp("ports") / "state")
    with http_server(env) as running:
        yield running
    assert running.proc.returncode == 0, running.log


async def _ok(client: Client, *args: str, **params: Any) -> types.CallToolResult:
    result = await ab(client, *args, **params)
    assert not result.is_error, text_of(result)
    return result


def _devtools_sockets(port: int) -> list[str]:
    """The DevTools WebSocket URLs a Chromium port serves (read without an Origin, as a
    local process can), or none when the port is not a DevTools server."""
    urls = []
    for path in ("/json/version", "/json/list"):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5) as answer:
                body = json.loads(answer.read())
        except (OSError, ValueError):
            continue
        for entry in body if isinstance(body, list) else [body]:
            url = entry.get("webSocketDebuggerUrl") if isinstance(entry, dict) else None
            if isinstance(url, str):
                urls.append(url)
    return urls


def _targets(ports: dict[int, int]) -> list[tuple[str, str]]:
    targets: list[tuple[str, str]] = []
    for port in sorted(ports):
        targets.append(("ws", f"ws://127.0.0.1:{port}/"))
        targets += [("ws", url) for url in _devtools_sockets(port)]
        targets += [("http", f"http://127.0.0.1:{port}{path}") for path in HTTP_PATHS]
    return targets


async def _probe(client: Client, targets: list[tuple[str, str]]) -> dict[str, str]:
    """What a page in `client`'s browser gets from each target."""
    result = await _ok(client, "eval", "--stdin", stdin=PROBE_JS % json.dumps(targets))
    verdicts = details_of(result)["data"]["result"]
    assert isinstance(verdicts, dict) and len(verdicts) == len(targets), verdicts
    return verdicts


DAEMON_ONLY = ("AGENT_BROWSER_DAEMON", "AGENT_BROWSER_SESSION", "AGENT_BROWSER_HIDE_SCROLLBARS",
               "AGENT_BROWSER_PLUGINS")  # fmt: skip
"""Variables the engine CLI adds when it spawns a daemon: a CLI run with them would act as one."""


def _cli_env(session_dir_: Path, session: str) -> dict[str, str]:
    """The environment the tools run the engine CLI with for `session` (read off its daemon)."""
    pid = int((session_dir_ / f"{session}.pid").read_text().strip())
    env = {k: v for k, v in environ_of(pid).items() if k not in DAEMON_ONLY}
    assert env.get("AGENT_BROWSER_SOCKET_DIR") == str(session_dir_), env
    return env


async def test_a_page_in_b_reaches_no_port_of_our_processes(
    server: HttpServer, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    assert server.url is not None
    base = engine_env.socket_dir
    before = leftovers.baseline()
    async with http_client(server.url) as a, http_client(server.url) as b:
        opened = await _ok(a, "open", fixture_site.url("form.html"))
        a_session = str(details_of(opened)["sessionName"])
        await _ok(b, "open", fixture_site.url("page-b.html"))
        a_dir = session_dir(base, a_session)

        ours = leftovers.started_here(before, base)
        kinds = {proc.kind for proc in ours}
        assert {"engine", "chromium"} <= kinds, [p.describe() for p in ours]
        ports = listening_ports(proc.pid for proc in ours)
        daemons = {proc.pid for proc in ours if proc.kind == "engine"}
        targets = _targets(ports)
        assert len([t for t in targets if "/devtools/" in t[1]]) >= 4, targets  # 2 browsers
        verdicts = await _probe(b, targets)
        reached = {target: got for target, got in verdicts.items() if got != "refused"}
        assert not reached, reached
        assert not [port for port, pid in ports.items() if pid in daemons], ports
        assert not (a_dir / f"{a_session}.stream").exists()

        # Control: the same probe finds A's stream server when it is on.
        env = _cli_env(a_dir, a_session)
        subprocess.run(
            [engine_env.binary, "--session", a_session, "stream", "enable"],
            env=env,
            check=True,
            capture_output=True,
            timeout=30,
        )
        stream_port = int((a_dir / f"{a_session}.stream").read_text().split()[0])
        control = await _probe(b, [("ws", f"ws://127.0.0.1:{stream_port}/")])
        assert list(control.values()) == ["open"], control

        # A's next call turns it off again; the model cannot turn it on.
        await _ok(a, "get", "title")
        assert not (a_dir / f"{a_session}.stream").exists()
        again = await _probe(b, [("ws", f"ws://127.0.0.1:{stream_port}/")])
        assert list(again.values()) == ["refused"], again
        enable = await ab(a, "stream", "enable")
        details = details_of(enable)
        assert enable.is_error and details["failureCategory"] == "policy-blocked", details
        assert details["policy"]["rule"] == "operator-command", details
        status = await _ok(a, "stream", "status")
        assert details_of(status)["data"]["enabled"] is False, details_of(status)

        # Both browsers still work.
        assert "Form" in text_of(await _ok(a, "get", "title"))
        assert text_of(await _ok(b, "get", "url")).strip() == fixture_site.url("page-b.html")


PASSWORD = "Hunter2-listening-ports"
PWNED = "window.__pwned = (window.__pwned || 0) + 1"
READ = "location.href + ' ' + document.cookie + ' ' + document.getElementById('password').value"


def _refused(result: types.CallToolResult) -> None:
    details = details_of(result)
    assert result.is_error and details["failureCategory"] == "policy-blocked", details
    assert details["policy"]["rule"] == "browser-endpoint", details


async def test_b_driven_onto_as_devtools_origin_reaches_nothing(
    server: HttpServer, fixture_site: FixtureServer, engine_env: EngineEnv
) -> None:
    assert server.url is not None
    mark = f"ports{uuid.uuid4().hex[:10]}"
    async with http_client(server.url) as a, http_client(server.url) as b:
        opened = await _ok(a, "open", fixture_site.url(f"form.html?conversation={mark}"))
        await _ok(a, "fill", "#password", PASSWORD)
        await _ok(a, "eval", f"document.cookie = 'abt_mark=cookie-{mark}'; 1")
        a_dir = session_dir(engine_env.socket_dir, str(details_of(opened)["sessionName"]))
        port = devtools_port(a_dir)
        origin = f"http://127.0.0.1:{port}"
        attack = drive_js(f"conversation={mark}", f"({PWNED}, {READ})")
        await _ok(b, "open", fixture_site.url("page-b.html"))
        seen: list[str] = []

        # 1. A batch: follow a redirect onto A's origin, then run script there.
        hop = fixture_site.url("redirect?to=" + quote(f"{origin}/json/version", safe=""))
        batch = await ab(b, "batch", stdin=json.dumps([["open", hop], ["eval", attack]]))
        steps = details_of(batch)["batchSteps"]
        assert str(steps[0]["result"]["url"]).startswith(origin + "/"), steps[0]
        _refused(batch)
        seen.append(text_of(batch) + json.dumps(details_of(batch)))

        # 2. A frame of A's origin (its DevTools front end may be framed), selected.
        src = quote(f"{origin}/devtools/inspector.html", safe="")
        await _ok(b, "open", fixture_site.url(f"frame?src={src}"))
        framed = await ab(b, "batch", stdin=json.dumps([["frame", "#f"], ["eval", attack]]))
        seen.append(text_of(framed) + json.dumps(details_of(framed)))
        await _ok(b, "frame", "main")

        # 3. A route whose body is a page with its own script.
        page = drive_page(f"conversation={mark}", f"({PWNED}, {READ})")
        for pattern in ("*", f"{origin}/x*", "https://example.com/x"):
            route = await ab(b, "network", "route", pattern, "--body", page)
            _refused(route)
            seen.append(text_of(route))

        leaks = [s for s in seen for secret in (f"cookie-{mark}", PASSWORD) if secret in s]
        assert not leaks, leaks
        pwned = await _ok(a, "eval", "window.__pwned || 0")
        assert details_of(pwned)["data"]["result"] == 0
        assert "Form" in text_of(await _ok(a, "get", "title"))
