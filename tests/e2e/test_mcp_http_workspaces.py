"""Issue 27 acceptance (item 2): two conversations on one `serve --http`, each in its own workspace.

Client A, driving a real browser through the official MCP client, saves what a conversation
saves: `state save` (with the site's HttpOnly session cookie in it), a screenshot, an
`outputPath` file, and a download nobody asked a path for. Client B, on the same server,
knows where A's files are (the test finds them the way a local user could) and tries to read
them (upload to its own page, `state load`, `file://`) and to overwrite them, by relative and
by absolute path, and again from a client that declares `file:///` as its root. Every attempt
is refused (`policy-blocked`, rule `other-workspace`) and says to use a relative path; B never
sees A's cookie, A's files are unchanged, and both browsers still work. Controls: each client
saves and uploads its own files by relative path, and A reads its own. A state file A saves
in the server's dir, which both can name by absolute path, B can name but not load: each
conversation's browsers encrypt state with a key of their own.

After the sessions end, the workspaces that hold files stay (they are what the user asked
for) and are private; an empty one is gone.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import mcp_types as types
import pytest
from mcp import Client

from agent_browser_tools.workspaces import DIR_NAME
from tests.support.fixture_server import SET_COOKIE_NAME, SET_COOKIE_SECRET, FixtureServer
from tests.support.mcp_server import (
    HttpServer,
    ab,
    details_of,
    eventually,
    http_client,
    http_server,
    serve_env,
    text_of,
)
from tests.support.real_engine import EngineEnv, track_socket_dir

pytestmark = pytest.mark.real_engine

CLOSE_WINDOW_S = 15.0


@pytest.fixture(scope="module")
def server(engine_env: EngineEnv, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    track_socket_dir(engine_env.socket_dir)
    env = serve_env(engine_env, tmp_path_factory.mktemp("ws") / "state")
    with http_server(env) as running:
        yield running
    assert running.proc.returncode == 0, running.log


def _spaces(server: HttpServer) -> Path:
    return server.cwd / DIR_NAME


def _seen(result: types.CallToolResult) -> str:
    """Everything a client got back: the model-visible text and the details."""
    return text_of(result) + (json.dumps(result.meta, default=str) if result.meta else "")


async def _ok(client: Client, *args: str, **params: str) -> types.CallToolResult:
    result = await ab(client, *args, **params)
    assert not result.is_error, text_of(result)
    return result


def _files(directory: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(directory)): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


def _refused(result: types.CallToolResult) -> None:
    details = details_of(result)
    assert result.is_error and details["failureCategory"] == "policy-blocked", details
    assert details["policy"]["rule"] == "other-workspace", details["policy"]
    text = text_of(result)
    assert "another conversation's workspace" in text and "./" in text, text
    assert SET_COOKIE_SECRET not in _seen(result)


async def _a_saves(a: Client, site: FixtureServer, spaces: Path) -> Path:
    """A saves a state (HttpOnly cookie inside), a screenshot, an outputPath file and an
    unrequested download, all by relative path; returns A's workspace."""
    await _ok(a, "open", site.url("set-cookie"))
    saved = await _ok(a, "state", "save", "a/state.json")
    assert "a/state.json.enc" in _seen(saved)  # encrypted, written as `<path>.enc`
    [state] = list(spaces.glob("*/a/state.json.enc"))
    workspace = state.parent.parent
    assert SET_COOKIE_SECRET.encode() not in state.read_bytes()
    await _ok(a, "screenshot", "shots/a.png")
    await _ok(a, "get", "url", outputPath="a/url.json")
    await _ok(a, "open", site.url("downloads.html"))
    await _ok(a, "click", "#report-link")
    landed = await eventually(lambda: list((workspace / "downloads").glob("*")), 10.0)
    assert landed, "the unrequested download did not land in A's workspace"
    assert {"a/state.json.enc", "shots/a.png", "a/url.json"} <= set(_files(workspace))
    assert os.stat(workspace).st_mode & 0o777 == 0o700
    assert os.stat(spaces).st_mode & 0o777 == 0o700
    return workspace


def state_file(workspace: Path) -> Path:
    return workspace / "a" / "state.json.enc"


async def _b_cannot_load_a_state_file_of_the_server_dir(
    a: Client, b: Client, site: FixtureServer, served: Path
) -> None:
    """The server's dir is a root for every conversation: A saves a state there by absolute
    path; B can name it, but its browser's key is not A's, so the load fails and B never gets
    A's session cookie."""
    shared = served / "shared-state.json"
    await _ok(a, "open", site.url("set-cookie"))
    await _ok(a, "state", "save", str(shared))
    await _ok(a, "open", site.url("downloads.html"))
    loaded = await ab(b, "state", "load", str(shared))
    assert loaded.is_error and "another key" in text_of(loaded), text_of(loaded)
    await _ok(b, "get", "url")
    cookies = details_of(await _ok(b, "cookies"))["data"]["cookies"]
    assert SET_COOKIE_NAME not in {cookie["name"] for cookie in cookies}, cookies
    assert SET_COOKIE_SECRET not in _seen(loaded)


async def _b_tries(b: Client, theirs: Path) -> None:
    """Every way in B has, by absolute and by relative path."""
    up = f"../{theirs.name}"
    download = next((theirs / "downloads").iterdir())
    attempts = [
        ["upload", "#attachment", str(theirs / "a" / "state.json.enc")],
        ["upload", "#attachment", f"{up}/a/state.json.enc"],
        ["upload", "#attachment", str(download)],
        ["upload", "#attachment", str(theirs)],
        ["state", "load", str(theirs / "a" / "state.json")],
        ["state", "load", f"{up}/a/state.json"],
        ["open", (theirs / "a" / "url.json").as_uri()],
        ["open", f"file://{theirs.parent}/%2e%2e/{theirs.parent.name}/{theirs.name}/a/url.json"],
        ["open", theirs.parent.as_uri() + "/"],
        ["state", "save", str(theirs / "a" / "state.json")],
        ["state", "save", f"{up}/a/state.json"],
        ["screenshot", str(theirs / "shots" / "a.png")],
        ["screenshot", f"{up}/shots/a.png"],
        ["--download-path", str(theirs / "downloads"), "open", "about:blank"],
    ]
    for args in attempts:
        _refused(await ab(b, *args))
    _refused(await ab(b, "get", "url", outputPath=str(theirs / "a" / "url.json")))
    _refused(await ab(b, "get", "url", outputPath=f"{up}/a/url.json"))
    _refused(await ab(b, "batch", stdin=json.dumps([["state", "load", f"{up}/a/state.json"]])))


async def test_b_cannot_read_or_overwrite_as_files_and_both_browsers_work(
    server: HttpServer, fixture_site: FixtureServer
) -> None:
    assert server.url is not None
    spaces = _spaces(server)
    assert any(f"files go to its own dir in {spaces}" in line for line in server.log), server.log
    async with http_client(server.url) as a:
        theirs = await _a_saves(a, fixture_site, spaces)
        before = _files(theirs)
        async with http_client(server.url) as b:
            await _ok(b, "open", fixture_site.url("form.html"))
            await _b_tries(b, theirs)
            attached = await _ok(b, "eval", "document.querySelector('#attachment').files.length")
            assert details_of(attached)["data"]["result"] == 0
            # Controls: B saves and uploads its own files by relative path, in its own dir.
            await _ok(b, "state", "save", "b/state.json")
            await _ok(b, "upload", "#attachment", "b/state.json.enc")
            [mine] = [p.parent.parent for p in spaces.glob("*/b/state.json.enc")]
            assert mine != theirs and mine.parent == theirs.parent
            async with http_client(server.url, roots=[Path("/")]) as wide:
                await _ok(wide, "open", fixture_site.url("form.html"))
                _refused(await ab(wide, "upload", "#attachment", str(state_file(theirs))))
                _refused(await ab(wide, "open", (theirs / "a" / "url.json").as_uri()))
            await _b_cannot_load_a_state_file_of_the_server_dir(a, b, fixture_site, server.cwd)
            # Both browsers still work, each on its own page.
            assert text_of(await _ok(b, "get", "url")).strip() == fixture_site.url("form.html")
        assert _files(theirs) == before, "A's files changed"
        assert text_of(await _ok(a, "get", "url")).strip() == fixture_site.url("downloads.html")
        await _ok(a, "state", "load", "a/state.json")  # A reads its own files
        await _ok(a, "open", (theirs / "a" / "url.json").as_uri())
    assert before.items() <= _files(theirs).items(), "A's files outlive A"
    assert (mine / "b" / "state.json.enc").is_file(), "B's files outlive B"


async def test_a_conversation_that_saved_nothing_leaves_no_workspace(server: HttpServer) -> None:
    assert server.url is not None
    spaces = _spaces(server)
    before = set(spaces.iterdir()) if spaces.exists() else set()
    async with http_client(server.url) as client:
        await _ok(client, "get", "url")
        opened = set(spaces.iterdir()) - before
        assert len(opened) == 1, opened  # its workspace exists while it runs
    gone = await eventually(lambda: not opened & set(spaces.iterdir()), CLOSE_WINDOW_S)
    assert gone, [sorted(p.rglob("*")) for p in opened]
