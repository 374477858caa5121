"""Issue 27 item 2, adversarial: one conversation of a shared server reaching another's files.

Conversation A of a shared server (`shared_server=True`, as `serve --http` builds them) has
saved what conversations save: a state file with its session cookie, a screenshot, a PDF, an
`outputPath` file, a download, notes. Conversation B tries every way to read, upload, open
(`file://`) or overwrite them: relative and absolute paths, `..` plain and percent-encoded, a
doubled slash, symlinks planted in B's workspace and in the server's dir, whole folders, the
folder that holds the workspaces, flags (`--state`, `--download-path`, `--screenshot-dir`),
batch rows of both kinds, a code cell's inner call and its `outputPath`, the advanced tools'
`outputPath`/`screenshotPath`. It tries each one four ways: plainly; after its client declared
`file:///` as a root; after its client declared A's workspace itself as a root; and on a
server whose operator made the server's dir a root and allowed unrestricted file access.

Every attempt must be refused before anything runs, as `policy-blocked` with the rule
`other-workspace`, a message saying to use a relative path (which lands in B's own
workspace), and A's files byte for byte as they were, nothing added. The allowed paths (B's
own workspace, A reading its own files) are checked at the end, so the rule is not "refuse
everything". Two conversations over the real HTTP transport, with real browsers saving the
files, are in `tests/e2e/test_mcp_http_workspaces.py`.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from agent_browser_tools.workspaces import DIR_NAME
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

MARK = "conversation-a-private-cookie-4c1e"
A_FILES = {
    "state.json": json.dumps({"cookies": [{"name": "sid", "value": MARK}]}),
    "notes.txt": f"A's notes {MARK}",
    "shot.png": "\x89PNG not really",
    "page.pdf": "%PDF-1.4 A's page",
    "out.json": json.dumps({"url": f"https://a.test/?{MARK}"}),
    "params.json": json.dumps({"q": MARK}),
    "downloads/report.txt": f"report {MARK}",
}


@dataclass(frozen=True)
class Ctx:
    """The shared server's dir, A's workspace and B's (the attacker's)."""

    served: Path
    theirs: Path
    mine: Path

    @property
    def spaces(self) -> Path:
        return self.served / DIR_NAME

    def fill(self, text: str) -> str:
        return text.format(
            theirs=self.theirs, name=self.theirs.name, mine=self.mine, spaces=self.spaces,
            served=self.served,
        )  # fmt: skip


@dataclass(frozen=True)
class Attempt:
    id: str
    tool: str
    params: Callable[[Ctx], dict[str, Any]]


def _ab(*args: str, **more: str) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {
        "args": [ctx.fill(a) for a in args],
        **{k: ctx.fill(v) for k, v in more.items()},
    }


def _rows(*rows: list[str]) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {
        "args": ["batch", "--bail"],
        "stdin": json.dumps([[ctx.fill(a) for a in row] for row in rows]),
    }


def _tool(**params: str) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {k: ctx.fill(v) if isinstance(v, str) else v for k, v in params.items()}


def _cell(js_args: str) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {
        "code": f"const r = await browser({{ args: {ctx.fill(js_args)} }});"
        "return { category: r.failureCategory, error: r.error };"
    }


READS: tuple[Attempt, ...] = (
    Attempt("upload-absolute", "agent_browser", _ab("upload", "#f", "{theirs}/state.json")),
    Attempt("upload-relative", "agent_browser", _ab("upload", "#f", "../{name}/state.json")),
    Attempt("upload-deep-dotdot", "agent_browser",
            _ab("upload", "#f", "./x/y/../../../{name}/state.json")),
    Attempt("upload-own-then-out", "agent_browser",
            _ab("upload", "#f", "{mine}/../{name}/state.json")),
    Attempt("upload-double-slash", "agent_browser", _ab("upload", "#f", "/{theirs}//state.json")),
    Attempt("upload-download", "agent_browser",
            _ab("upload", "#f", "{theirs}/downloads/report.txt")),
    Attempt("upload-their-folder", "agent_browser", _ab("upload", "#f", "{theirs}")),
    Attempt("upload-all-workspaces", "agent_browser", _ab("upload", "#f", "{spaces}")),
    Attempt("upload-server-dir", "agent_browser", _ab("upload", "#f", "{served}")),
    Attempt("upload-parent-dotdot", "agent_browser", _ab("upload", "#f", "..")),
    Attempt("upload-own-symlink", "agent_browser", _ab("upload", "#f", "door/state.json")),
    Attempt("upload-own-file-symlink", "agent_browser", _ab("upload", "#f", "peek.json")),
    Attempt("upload-server-symlink", "agent_browser",
            _ab("upload", "#f", "{served}/shortcut/state.json")),
    Attempt("state-load-absolute", "agent_browser", _ab("state", "load", "{theirs}/state.json")),
    Attempt("state-load-relative", "agent_browser", _ab("state", "load", "../{name}/state.json")),
    Attempt("state-flag", "agent_browser",
            _ab("--state", "{theirs}/state.json", "open", "about:blank")),
    Attempt("file-url", "agent_browser", _ab("open", "file://{theirs}/notes.txt")),
    Attempt("file-url-encoded-dotdot", "agent_browser",
            _ab("open", "file://{mine}/%2e%2e/{name}/notes.txt")),
    Attempt("file-url-upper", "agent_browser", _ab("open", "FILE://{theirs}/shot.png")),
    Attempt("file-url-listing", "agent_browser", _ab("open", "file://{spaces}/")),
    Attempt("file-url-symlink", "agent_browser", _ab("open", "file://{mine}/door/notes.txt")),
    Attempt("view-source", "agent_browser", _ab("open", "view-source:file://{theirs}/out.json")),
    Attempt("tab-new-file-url", "agent_browser", _ab("tab", "new", "file://{theirs}/page.pdf")),
    Attempt("snapshot-baseline", "agent_browser",
            _ab("diff", "snapshot", "--baseline", "{theirs}/notes.txt")),
    Attempt("screenshot-baseline", "agent_browser",
            _ab("diff", "screenshot", "--baseline", "../{name}/shot.png")),
    Attempt("cookies-curl", "agent_browser", _ab("cookies", "set", "--curl", "{theirs}/notes.txt")),
    Attempt("webmcp-params", "agent_browser",
            _ab("webmcp", "invoke", "t", "--params", "@{theirs}/params.json")),
)  # fmt: skip

WRITES: tuple[Attempt, ...] = (
    Attempt("screenshot-over", "agent_browser", _ab("screenshot", "{theirs}/shot.png")),
    Attempt("screenshot-relative", "agent_browser", _ab("screenshot", "../{name}/shot.png")),
    Attempt("screenshot-new-file", "agent_browser", _ab("screenshot", "{theirs}/planted.png")),
    Attempt("screenshot-beside", "agent_browser", _ab("screenshot", "{spaces}/planted.png")),
    Attempt("screenshot-symlink", "agent_browser", _ab("screenshot", "door/shot.png")),
    Attempt("pdf-over", "agent_browser", _ab("pdf", "{theirs}/page.pdf")),
    Attempt("state-save-over", "agent_browser", _ab("state", "save", "{theirs}/state.json")),
    Attempt("output-path-over", "agent_browser", _ab("get", "url", outputPath="{theirs}/out.json")),
    Attempt("output-path-relative", "agent_browser",
            _ab("get", "url", outputPath="../{name}/out.json")),
    Attempt("output-path-at", "agent_browser", _ab("get", "url", outputPath="@{theirs}/out.json")),
    Attempt("har-stop", "agent_browser", _ab("network", "har", "stop", "{theirs}/net.har")),
    Attempt("trace-stop", "agent_browser", _ab("trace", "stop", "{theirs}/trace.json")),
    Attempt("record-start", "agent_browser", _ab("record", "start", "{theirs}/take.webm")),
    Attempt("download-over", "agent_browser",
            _ab("download", "#a", "{theirs}/downloads/report.txt")),
    Attempt("wait-download", "agent_browser", _ab("wait", "--download", "../{name}/x.txt")),
    Attempt("download-path", "agent_browser",
            _ab("--download-path", "{theirs}/downloads", "open", "about:blank")),
    Attempt("download-path-beside", "agent_browser",
            _ab("--download-path", "{spaces}/new", "open", "about:blank")),
    Attempt("screenshot-dir", "agent_browser",
            _ab("--screenshot-dir", "../{name}", "get", "url")),
    Attempt("diff-output", "agent_browser",
            _ab("diff", "screenshot", "--baseline", "mine.png", "-o", "{theirs}/shot.png")),
    Attempt("batch-stdin-row", "agent_browser",
            _rows(["get", "url"], ["state", "save", "{theirs}/state.json"])),
    Attempt("batch-argv-row", "agent_browser",
            _ab("batch", "get url", "state load ../{name}/state.json")),
    Attempt("cell-inner-upload", "agent_browser_code",
            _cell('["upload", "#f", "{theirs}/state.json"]')),
    Attempt("cell-inner-file-url", "agent_browser_code",
            _cell('["open", "file://{theirs}/notes.txt"]')),
    Attempt("cell-output-path", "agent_browser_code",
            _tool(code="return 1", outputPath="{theirs}/out.json")),
    Attempt("action-output-path", "agent_browser_action",
            _tool(action="fill", locator="label", value="Name", text="x",
                  outputPath="{theirs}/out.json")),
    Attempt("qa-output-path", "agent_browser_qa",
            _tool(url="https://a.test/", expectedText="x", outputPath="../{name}/out.json")),
    Attempt("qa-screenshot-path", "agent_browser_qa",
            _tool(url="https://a.test/", expectedText="x", screenshotPath="{theirs}/shot.png")),
    Attempt("network-source-output", "agent_browser_network_source",
            _tool(filter="api", outputPath="{theirs}/out.json")),
    Attempt("source-output", "agent_browser_source",
            _tool(selector="h1", outputPath="{mine}/../{name}/out.json")),
)  # fmt: skip

ATTEMPTS = READS + WRITES

VARIANTS = ("plain", "client-root-filesystem", "client-root-theirs", "operator-unrestricted")
"""How B's roots are widened before it tries: not at all, by its MCP client declaring
`file:///` or A's workspace as a root, or by the operator (`--file-root <server dir>
--allow-unrestricted-file-access`)."""


@pytest.fixture
def ctx(tmp_path: Path) -> Ctx:
    served = tmp_path / "served"
    served.mkdir()
    return Ctx(served=served, theirs=Path(), mine=Path())


@pytest_asyncio.fixture
async def conversation_a(
    engine_env: EngineEnv, tmp_path: Path, ctx: Ctx
) -> AsyncIterator[BrowserTools]:
    a = BrowserTools(
        settings=tools_settings(engine_env, tmp_path / "state"),
        cwd=ctx.served,
        shared_server=True,
    )
    assert a.workspace is not None
    for relative, text in A_FILES.items():
        (a.workspace / relative).parent.mkdir(parents=True, exist_ok=True)
        (a.workspace / relative).write_text(text)
    try:
        yield a
    finally:
        await a.aclose()


async def _attacker(
    engine_env: EngineEnv, tmp_path: Path, ctx: Ctx, a: BrowserTools, variant: str
) -> tuple[BrowserTools, Ctx]:
    """B on the same server, its roots widened as `variant` says, with symlinks to A's
    workspace planted in B's own workspace and in the server's dir."""
    extra: dict[str, Any] = {}
    if variant == "operator-unrestricted":
        extra = {"file_roots": [ctx.served], "unrestricted_files": True}
    settings = tools_settings(engine_env, tmp_path / "state")
    b = BrowserTools(settings=settings, cwd=ctx.served, shared_server=True, **extra)
    assert a.workspace is not None and b.workspace is not None
    if variant == "client-root-filesystem":
        b.set_client_roots(["file:///"])
    elif variant == "client-root-theirs":
        b.set_client_roots([a.workspace.as_uri()])
    await b.call("agent_browser_tools", {"enable": ["action", "qa", "network", "source"]})
    (b.workspace / "door").symlink_to(a.workspace)
    (b.workspace / "peek.json").symlink_to(a.workspace / "state.json")
    shortcut = ctx.served / "shortcut"
    if not shortcut.is_symlink():
        shortcut.symlink_to(a.workspace)
    return b, Ctx(served=ctx.served, theirs=a.workspace, mine=b.workspace)


def _snapshot(directory: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(directory)): path.read_bytes()
        for path in sorted(directory.rglob("*"))
        if path.is_file()
    }


def _seen(result: ToolResult) -> str:
    return result.text + json.dumps(result.details, default=str)


def _verdict(attempt: Attempt, result: ToolResult) -> tuple[Any, Any, str]:
    """(category, rule, message) of the attempt, from the result or the cell's return."""
    if attempt.tool != "agent_browser_code" or "outputPath" in attempt.params(_BLANK):
        policy = result.details.get("policy") or {}
        return result.details.get("failureCategory"), policy.get("rule"), result.text
    body = json.dumps(result.details.get("data"))
    category = "policy-blocked" if "policy-blocked" in body else None
    rule = "other-workspace" if "another conversation's workspace" in body else None
    return category, rule, body


_BLANK = Ctx(served=Path("/s"), theirs=Path("/t"), mine=Path("/m"))


def test_the_matrix_is_large_enough() -> None:
    assert len({a.id for a in ATTEMPTS}) == len(ATTEMPTS)
    assert len(ATTEMPTS) >= 50 and len(ATTEMPTS) * len(VARIANTS) >= 200


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda a: a.id)
async def test_another_conversations_files_are_out_of_reach(
    attempt: Attempt,
    variant: str,
    engine_env: EngineEnv,
    tmp_path: Path,
    ctx: Ctx,
    conversation_a: BrowserTools,
) -> None:
    assert conversation_a.workspace is not None
    before = _snapshot(conversation_a.workspace)
    b, where = await _attacker(engine_env, tmp_path, ctx, conversation_a, variant)
    try:
        result = await b.call(attempt.tool, attempt.params(where))
    finally:
        await b.aclose()
    category, rule, message = _verdict(attempt, result)
    assert (category, rule) == ("policy-blocked", "other-workspace"), _seen(result)[:1500]
    assert "another conversation's workspace" in message and "./" in message, message
    assert MARK not in _seen(result)
    assert _snapshot(conversation_a.workspace) == before, "A's files changed"
    assert not (ctx.spaces / "planted.png").exists() and not (ctx.spaces / "new").exists()


async def test_each_conversation_still_uses_its_own_files(
    engine_env: EngineEnv,
    tmp_path: Path,
    ctx: Ctx,
    conversation_a: BrowserTools,
    fixture_site: FixtureServer,
) -> None:
    """Controls: B saves and reads back in its own workspace by relative path, A reads its
    own files, and the operator's files in the server's dir stay readable by absolute path."""
    a = conversation_a
    assert a.workspace is not None
    (ctx.served / "fixture.txt").write_text("the operator's file")
    b, _ = await _attacker(engine_env, tmp_path, ctx, a, "plain")
    assert b.workspace is not None
    try:
        opened = await b.call("agent_browser", {"args": ["open", fixture_site.url("form.html")]})
        assert not opened.is_error, opened.text
        saved = await b.call("agent_browser", {"args": ["state", "save", "mine/state.json"]})
        assert not saved.is_error, saved.text
        assert (b.workspace / "mine" / "state.json.enc").is_file()  # encrypted state
        (b.workspace / "mine" / "note.json").write_text('{"note": "B\'s own"}')
        for args in (
            ["upload", "#attachment", "mine/state.json.enc"],
            ["upload", "#attachment", str(ctx.served / "fixture.txt")],
            ["open", (b.workspace / "mine" / "note.json").as_uri()],
        ):
            used = await b.call("agent_browser", {"args": args})
            assert not used.is_error, (args, used.text)
        own = await a.call("agent_browser", {"args": ["open", (a.workspace / "out.json").as_uri()]})
        assert not own.is_error, own.text
        text = await a.call("agent_browser", {"args": ["get", "text", "body"]})
        assert MARK in text.text, text.text  # A reads its own file; B never could
    finally:
        await b.aclose()
    assert (b.workspace / "mine" / "state.json.enc").is_file(), "B's files outlive B"
