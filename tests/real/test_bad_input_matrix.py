"""Issue 27, item 5: the bad-input matrix, on the real engine and Chromium (Python API).

Each row is input no tool can use, sent the way a model (or a page that prompt-injects it)
could send it: a NUL byte or a lone surrogate in every kind of field, nesting 100,000 levels
deep, absurd sizes, a URL where a file path belongs (or an upload of a file that is not
there, which the engine reports done), and the same inside batch rows and code cells. Every
row must be refused before anything runs, as `validation-error` with a message that names
the problem (and `details.inputLimit` for the generic limits), never as a raw exception or
an internal error; and the same conversation must then answer a good call on the page it had
open. The page's own odd text (NUL bytes, lone surrogates) is checked at the end: reading and
acting on it must work and answer well-formed text.

The MCP transports (stdio, HTTP, bytes the official client cannot write) are in
`tests/e2e/test_mcp_bad_input.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.hosts.mcp.convert import result_to_mcp
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

DEEP = "[" * 100_000 + "]" * 100_000


@dataclass(frozen=True)
class Ctx:
    workspace: Path
    site: FixtureServer

    @property
    def note(self) -> Path:
        return self.workspace / "note.txt"


@dataclass(frozen=True)
class Attempt:
    id: str
    tool: str
    params: Callable[[Ctx], dict[str, Any]]
    mentions: str
    """Text the refusal must contain, case-insensitive."""
    limit: str | None = None
    """`details.inputLimit.limit`, for refusals by the generic limits."""


def _ab(*args: str, **more: Any) -> Callable[[Ctx], dict[str, Any]]:
    def build(ctx: Ctx) -> dict[str, Any]:
        fields = {k: v.format(ctx=ctx) if "{ctx." in str(v) else v for k, v in more.items()}
        return {"args": [a.format(ctx=ctx) for a in args], **fields}

    return build


def _rows(*rows: list[str]) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {
        "args": ["batch", "--bail"],
        "stdin": json.dumps([[a.format(ctx=ctx) for a in row] for row in rows]),
    }


def _cell(js_args: str, **more: str) -> Callable[[Ctx], dict[str, Any]]:
    """A code cell whose one `browser()` call is the attempt."""

    def build(ctx: Ctx) -> dict[str, Any]:
        args = js_args.format(ctx=ctx)
        extra = "".join(f", {k}: {v}" for k, v in more.items())
        return {"code": f"return await browser({{ args: {args}{extra} }});"}

    return build


def _nested(levels: int) -> Any:
    value: Any = "x"
    for _ in range(levels):
        value = {"a": value}
    return value


NUL_AND_SURROGATES: tuple[Attempt, ...] = (
    Attempt("args-nul", "agent_browser", _ab("open", "https://a.test/\x00"), "NUL", "nul-byte"),
    Attempt("flag-nul", "agent_browser", _ab("--session", "s\x00", "get", "url"), "`args[1]`",
            "nul-byte"),
    Attempt("stdin-nul", "agent_browser", _ab("eval", "--stdin", stdin="1;\x00"), "`stdin`",
            "nul-byte"),
    Attempt("output-path-nul", "agent_browser", _ab("get", "url", outputPath="o\x00.json"),
            "`outputPath`", "nul-byte"),
    Attempt("timeout-key-nul", "agent_browser", _ab("get", "url", **{"timeout\x00Ms": 5}),
            "(a key)", "nul-byte"),
    Attempt("code-nul", "agent_browser_code", lambda ctx: {"code": "return 1;\x00"}, "`code`",
            "nul-byte"),
    Attempt("args-surrogate", "agent_browser", _ab("fill", "#name", "half \ud83d"),
            "\\ud83d", "lone-surrogate"),
    Attempt("stdin-surrogate", "agent_browser", _ab("eval", "--stdin", stdin="'\udc00'"),
            "lone UTF-16 surrogate", "lone-surrogate"),
    Attempt("code-surrogate", "agent_browser_code", lambda ctx: {"code": "return '\ud800';"},
            "`code`", "lone-surrogate"),
    Attempt("batch-row-nul", "agent_browser", _rows(["get", "url"], ["open", "x\x00"]),
            "`batch stdin[1][1]` contains a NUL byte"),
    Attempt("batch-row-surrogate", "agent_browser", _rows(["fill", "#name", "\udfff"]),
            "`batch stdin[0][2]` contains a lone UTF-16 surrogate"),
    Attempt("batch-arg-row-nul", "agent_browser", _ab("batch", "get url", "open x\x00"),
            "`args[2]`", "nul-byte"),
    Attempt("cell-call-nul", "agent_browser_code", _cell('["open", "https://a.test/\\u0000"]'),
            "contains a NUL byte"),
    Attempt("cell-call-surrogate", "agent_browser_code", _cell('["fill", "#name", "\\ud800"]'),
            "lone UTF-16 surrogate"),
    Attempt("cell-stdin-nul", "agent_browser_code",
            _cell('["eval", "--stdin"]', stdin='"1\\u0000"'), "`stdin` contains a NUL byte"),
)  # fmt: skip

NESTING_AND_SIZE: tuple[Attempt, ...] = (
    Attempt("batch-stdin-deep", "agent_browser", _ab("batch", "--bail", stdin=DEEP),
            "more than 64 levels deep"),
    Attempt("batch-stdin-deep-objects", "agent_browser",
            _ab("batch", stdin='{"a":' * 100_000 + "1" + "}" * 100_000),
            "more than 64 levels deep"),
    Attempt("batch-stdin-deep-unclosed", "agent_browser", _ab("batch", stdin="[" * 200_000),
            "more than 64 levels deep"),
    Attempt("arguments-deep", "agent_browser",
            lambda ctx: {"args": ["get", "url"], "extra": _nested(100_000)},
            "more than 32 levels deep", "nesting"),
    Attempt("args-list-deep", "agent_browser", lambda ctx: {"args": [_nested(50)]},
            "more than 32 levels deep", "nesting"),
    Attempt("cell-call-deep", "agent_browser_code",
            lambda ctx: {"code": "let x = {}; for (let i = 0; i < 40; i++) x = {x};"
                         "return await browser({ args: ['get', 'url'], extra: x });"},
            "more than 32 levels deep"),
    Attempt("args-many", "agent_browser", lambda ctx: {"args": ["get", *["url"] * 20_000]},
            "10,000", "items"),
    Attempt("arg-huge", "agent_browser", _ab("fill", "#name", "x" * 2_500_000), "2,000,000",
            "string-size"),
    Attempt("stdin-huge", "agent_browser", _ab("eval", "--stdin", stdin="1;" * 1_250_001),
            "`stdin`", "string-size"),
    Attempt("total-huge", "agent_browser",
            lambda ctx: {"args": ["eval", "--stdin", "y" * 1_500_000, "z" * 1_500_000],
                         "stdin": "1;" * 600_000},
            "4,000,000", "total-size"),
)  # fmt: skip

PATH = "is a URL, but this takes a local file path"

URLS_AND_MISSING_FILES: tuple[Attempt, ...] = (
    Attempt("upload-file-url", "agent_browser", _ab("upload", "#attachment", "file://{ctx.note}"),
            "give the path {ctx.note}, not file://"),
    Attempt("upload-file-upper", "agent_browser",
            _ab("upload", "#attachment", "FILE://{ctx.note}"), "give the path {ctx.note}"),
    Attempt("upload-file-one-slash", "agent_browser",
            _ab("upload", "#attachment", "file:{ctx.note}"), "give the path {ctx.note}"),
    Attempt("upload-file-escaped", "agent_browser",
            lambda ctx: {"args": ["upload", "#attachment",
                                  ctx.note.as_uri().replace("note", "n%6Fte")]},
            "give the path {ctx.note}"),
    Attempt("upload-file-localhost", "agent_browser",
            _ab("upload", "#attachment", "file://localhost{ctx.note}"),
            "give the path {ctx.note}"),
    Attempt("upload-second-file", "agent_browser",
            _ab("upload", "#attachment", "{ctx.note}", "file:///etc/hostname"),
            "give the path /etc/hostname"),
    Attempt("upload-http", "agent_browser",
            _ab("upload", "#attachment", "http://127.0.0.1:9/x.txt"), "save the file"),
    Attempt("upload-other-host", "agent_browser",
            _ab("upload", "#attachment", "file://server/share/x.txt"), "save the file"),
    Attempt("state-load-file-url", "agent_browser", _ab("state", "load", "file://{ctx.note}"),
            "give the path {ctx.note}"),
    Attempt("global-state-file-url", "agent_browser",
            _ab("--state", "file://{ctx.note}", "get", "url", sessionMode="fresh"),
            "give the path {ctx.note}"),
    Attempt("curl-file-url", "agent_browser",
            _ab("cookies", "set", "--curl", "file://{ctx.note}"), "give the path {ctx.note}"),
    Attempt("screenshot-file-url", "agent_browser",
            _ab("screenshot", "file://{ctx.workspace}/s.png"), "give the path {ctx.workspace}"),
    Attempt("output-path-file-url", "agent_browser",
            _ab("get", "url", outputPath="file://{ctx.workspace}/o.json"), "give the path"),
    Attempt("batch-stdin-upload-url", "agent_browser",
            _rows(["get", "url"], ["upload", "#attachment", "file://{ctx.note}"]),
            "batch row 2: `upload` file"),
    Attempt("batch-args-upload-url", "agent_browser",
            _ab("batch", "upload #attachment file://{ctx.note}"), "batch row 1: `upload` file"),
    Attempt("cell-upload-url", "agent_browser_code",
            _cell('["upload", "#attachment", "file://{ctx.note}"]'), PATH),
    Attempt("upload-missing-file", "agent_browser", _ab("upload", "#attachment", "nothere.txt"),
            "{ctx.workspace}/nothere.txt, which does not exist"),
    Attempt("upload-one-missing", "agent_browser",
            _ab("upload", "#attachment", "note.txt", "{ctx.workspace}/gone.txt"),
            "gone.txt, which does not exist"),
)  # fmt: skip

ATTEMPTS = NUL_AND_SURROGATES + NESTING_AND_SIZE + URLS_AND_MISSING_FILES


def test_matrix_is_large_enough() -> None:
    assert len({a.id for a in ATTEMPTS}) == len(ATTEMPTS)
    assert len(ATTEMPTS) >= 40


@pytest.fixture
def ctx(tmp_path: Path, fixture_site: FixtureServer) -> Ctx:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "note.txt").write_text("hello")
    return Ctx(workspace=workspace, site=fixture_site)


def _verdict(attempt: Attempt, result: ToolResult) -> tuple[str | None, str]:
    """(category, message): a code cell's inner call is refused inside its observation."""
    if attempt.tool != "agent_browser_code" or result.is_error:
        return result.details.get("failureCategory"), result.text
    body = json.dumps(result.details.get("result") or result.details.get("data"))
    return ("validation-error" if "validation-error" in body else None), body


def _judge(attempt: Attempt, ctx: Ctx, result: ToolResult) -> str | None:
    """Why the attempt's answer is wrong, or None."""
    category, message = _verdict(attempt, result)
    mentions = attempt.mentions.format(ctx=ctx)
    if result.details.get("internalError"):
        return f"internal error: {result.text[:300]}"
    if category != "validation-error":
        return f"category {category}: {result.text[:300]}"
    if mentions.lower() not in message.lower():
        return f"does not mention {mentions!r}: {message[:400]}"
    if attempt.limit is not None and result.details["inputLimit"]["limit"] != attempt.limit:
        return f"limit {result.details['inputLimit']}"
    if len(result.text) > 4_000:
        return f"the refusal is {len(result.text)} characters long"
    result.text.encode("utf-8")  # what every host writes; details are mended for the wire:
    result_to_mcp(result).model_dump_json().encode("utf-8")
    return None


async def test_every_bad_input_is_a_validation_error_and_the_browser_still_works(
    engine_env: EngineEnv, ctx: Ctx, tmp_path: Path
) -> None:
    settings = tools_settings(engine_env, tmp_path / "state")
    tools = BrowserTools(settings=settings, cwd=ctx.workspace)
    page = ctx.site.url("form.html")
    wrong: dict[str, str] = {}
    try:
        assert not (await tools.call("agent_browser", {"args": ["open", page]})).is_error
        for attempt in ATTEMPTS:
            result = await tools.call(attempt.tool, attempt.params(ctx))
            problem = _judge(attempt, ctx, result)
            now = await tools.call("agent_browser", {"args": ["get", "url"]})
            if now.is_error or now.text.strip() != page:
                problem = f"{problem or ''} / then get url: {now.text[:200]}"
            if problem is not None:
                wrong[attempt.id] = problem
        uploaded = await tools.call(
            "agent_browser", {"args": ["upload", "#attachment", "note.txt"]}
        )
        assert not uploaded.is_error, uploaded.text
        assert (
            await tools.call("agent_browser", {"args": ["get", "title"]})
        ).text == "Profile Form"
    finally:
        await tools.aclose()
    assert not wrong, "\n".join(f"{k}: {v}" for k, v in wrong.items())


ODD_PAGE = (
    "document.title = 'odd\\u0000title\\ud800';"
    "const b = document.createElement('button');"
    "b.setAttribute('aria-label', 'Odd\\u0000 button \\udfff');"
    "b.onclick = () => { b.dataset.clicked = 'yes\\u0000'; };"
    "document.body.prepend(b);"
    "const i = document.createElement('input');"
    "i.setAttribute('aria-label', 'Odd field'); i.value = 'v\\u0000\\ud83d';"
    "document.body.prepend(i); 'ready'"
)
"""Script that gives the page a title, a button name and a field value holding NUL bytes and
lone surrogates (a page can; HTML parsing alone cannot)."""


async def test_a_page_full_of_odd_text_can_be_read_and_acted_on(
    engine_env: EngineEnv, ctx: Ctx, tmp_path: Path
) -> None:
    """What the page says is not the model's input: reads and actions on it succeed, and every
    answer is well-formed text."""
    settings = tools_settings(engine_env, tmp_path / "state")
    tools = BrowserTools(settings=settings, cwd=ctx.workspace)
    results: list[ToolResult] = []

    async def ab(*args: str) -> ToolResult:
        result = await tools.call("agent_browser", {"args": list(args)})
        results.append(result)
        assert not result.is_error, (args, result.text[:500])
        return result

    try:
        await ab("open", ctx.site.url("clean.html"))
        await ab("eval", ODD_PAGE)
        snapshot = await ab("snapshot", "-i")
        refs = snapshot.details["refSnapshot"]["refs"]
        button = next(f"@{r}" for r, info in refs.items() if info.get("role") == "button")
        await ab("click", button)
        await ab("get", "title")
        await ab("get", "value", "input")
        await ab("eval", "document.querySelector('button').dataset.clicked")
        await ab("eval", "'\\ud800' + '\\u0000'")
        await ab("batch", "get title", "get url")
        cell = await tools.call("agent_browser_code", {"code": "return await browser({ args: "
                                                       "['get', 'title'] });"})  # fmt: skip
        results.append(cell)
        assert not cell.is_error, cell.text
    finally:
        await tools.aclose()
    for result in results:
        assert not result.details.get("internalError"), result.text
        result.text.encode("utf-8")  # no lone surrogate in what the model reads
        result_to_mcp(result).model_dump_json().encode("utf-8")  # nor on the wire


HOSTILE_JSON = (
    "const deep = '['.repeat(100000) + ']'.repeat(100000);"
    "JSON.stringify = () => deep; JSON.parse = () => ({}); 'armed'"
)
"""Page script that makes every `JSON.stringify` answer JSON nested 100,000 levels deep: the
wrapper's own probes (click, screenshot geometry, date entry, navigation settle) read what
page script answers."""


async def test_a_page_that_answers_absurd_json_to_the_wrappers_probes(
    engine_env: EngineEnv, ctx: Ctx, tmp_path: Path
) -> None:
    settings = tools_settings(engine_env, tmp_path / "state")
    tools = BrowserTools(settings=settings, cwd=ctx.workspace)
    page = ctx.site.url("form.html")
    seen: list[ToolResult] = []

    async def ab(*args: str) -> ToolResult:
        result = await tools.call("agent_browser", {"args": list(args)})
        seen.append(result)
        assert not result.details.get("internalError"), (args, result.text[:500])
        return result

    try:
        await ab("open", page)
        await ab("eval", HOSTILE_JSON)
        refs = (await ab("snapshot", "-i")).details["refSnapshot"]["refs"]
        box = next(f"@{r}" for r, info in refs.items() if info.get("role") == "checkbox")
        await ab("click", box)
        await ab("screenshot", "shot.png")
        await ab("click", "text=Submit")
        await ab("fill", "#name", "Ada")
        assert (await ab("get", "url")).text.strip().startswith(page)
    finally:
        await tools.aclose()
    assert all(r.details.get("failureCategory") != "aborted" for r in seen)
