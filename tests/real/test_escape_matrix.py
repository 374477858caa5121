"""Issue 15 acceptance: the escape matrix, on the real engine and Chromium.

Each row is one attempt a model (or a page that prompt-injects it) could make to reach past
its browser: launch flags that run host programs, operator-only commands, file reads and
writes outside the workspace roots, the server's own state, and secrets. Every attempt must
be refused (or its secret redacted) with a stable category and a message that names what was
refused. Attempts that try to run a host command carry a payload that would create a marker
file; the marker must never appear. The allowed paths (workspace files, operator settings,
ordinary browsing) are checked at the end so the policy is not "refuse everything".

Cross-conversation reach and the HTTP edges need a real `serve --http` with two MCP clients:
they are in `tests/e2e/test_escape_matrix_http.py`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

MARKER = "pwned-marker"


@dataclass(frozen=True)
class Ctx:
    """What an attempt may refer to: the workspace, the state dir, the fixture site."""

    workspace: Path
    state_dir: Path
    site: FixtureServer

    @property
    def marker(self) -> Path:
        return self.workspace / MARKER


@dataclass(frozen=True)
class Attempt:
    id: str
    tool: str
    params: Callable[[Ctx], dict[str, Any]]
    category: str
    mentions: str
    """Text the refusal must contain (what was refused), case-insensitive."""


def _ab(*args: str, **more: Any) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {"args": [a.format(ctx=ctx) for a in args], **more}


def _batch(*rows: list[str]) -> Callable[[Ctx], dict[str, Any]]:
    return lambda ctx: {
        "args": ["batch", "--bail"],
        "stdin": json.dumps([[a.format(ctx=ctx) for a in row] for row in rows]),
    }


def _cell(js_args: str) -> Callable[[Ctx], dict[str, Any]]:
    """A code cell whose one `browser()` call tries the attempt and returns its verdict."""

    def build(ctx: Ctx) -> dict[str, Any]:
        args = js_args.format(ctx=ctx)
        return {
            "code": f"const r = await browser({{ args: {args} }});"
            "return { category: r.failureCategory, error: r.error };"
        }

    return build


SH = "/bin/sh"
PREFIX = "--renderer-cmd-prefix=touch {ctx.marker}"

LAUNCH: tuple[Attempt, ...] = (
    Attempt("exec-path-sh", "agent_browser", _ab("--executable-path", SH, "open", "about:blank"),
            "policy-blocked", "--executable-path"),
    Attempt("args-renderer-prefix", "agent_browser",
            _ab("--args", PREFIX, "open", "about:blank", sessionMode="fresh"),
            "policy-blocked", "--args"),
    Attempt("args-after-command", "agent_browser", _ab("open", "about:blank", "--args", PREFIX),
            "policy-blocked", "--args"),
    Attempt("extension", "agent_browser", _ab("--extension", "{ctx.workspace}", "open", "x"),
            "policy-blocked", "--extension"),
    Attempt("profile", "agent_browser", _ab("--profile", "Default", "open", "about:blank"),
            "policy-blocked", "--profile"),
    Attempt("engine-config", "agent_browser", _ab("--config", "{ctx.workspace}/c.json", "open"),
            "policy-blocked", "--config"),
    Attempt("cdp-port", "agent_browser", _ab("--cdp", "9222", "get", "url"),
            "policy-blocked", "--cdp"),
    Attempt("auto-connect", "agent_browser", _ab("--auto-connect", "get", "url"),
            "policy-blocked", "--auto-connect"),
    Attempt("provider", "agent_browser", _ab("-p", "browserbase", "open", "x"),
            "policy-blocked", "--provider"),
    Attempt("proxy", "agent_browser", _ab("--proxy", "http://attacker:8080", "open", "x"),
            "policy-blocked", "--proxy"),
    Attempt("allow-file-access", "agent_browser", _ab("--allow-file-access", "open", "x"),
            "policy-blocked", "--allow-file-access"),
    Attempt("batch-row-exec-path", "agent_browser",
            _batch(["get", "url"], ["--executable-path", SH, "open", "about:blank"]),
            "policy-blocked", "--executable-path"),
    Attempt("batch-row-cdp", "agent_browser", _batch(["--cdp", "9222", "get", "url"]),
            "policy-blocked", "--cdp"),
    Attempt("connect-command", "agent_browser", _ab("connect", "9222"),
            "policy-blocked", "connect"),
    Attempt("cdp-url-read", "agent_browser", _ab("get", "cdp-url"),
            "policy-blocked", "get cdp-url"),
    Attempt("installer", "agent_browser", _ab("install", "--with-deps"),
            "policy-blocked", "install"),
    Attempt("dashboard-port", "agent_browser", _ab("dashboard", "start", "--port", "4848"),
            "policy-blocked", "dashboard start"),
    Attempt("engine-mcp", "agent_browser", _ab("mcp"), "policy-blocked", "mcp"),
    Attempt("timeout-unbounded", "agent_browser", _ab("get", "url", timeoutMs=86_400_000),
            "policy-blocked", "timeoutMs"),
)  # fmt: skip

CELL: tuple[Attempt, ...] = (
    Attempt("cell-exec-path", "agent_browser_code",
            _cell('["--executable-path", "/bin/sh", "open", "about:blank"]'),
            "policy-blocked", "--executable-path"),
    Attempt("cell-args", "agent_browser_code",
            _cell('["--args", "--renderer-cmd-prefix=touch {ctx.marker}", "open", "x"]'),
            "policy-blocked", "--args"),
    Attempt("cell-batch-cdp", "agent_browser_code",
            _cell('["batch", "get url", "connect 9222"]'),
            "policy-blocked", "connect"),
)  # fmt: skip

ETC = "/etc/passwd"

FILES: tuple[Attempt, ...] = (
    Attempt("file-url", "agent_browser", _ab("open", "file://" + ETC), "policy-blocked", ETC),
    Attempt("file-url-case", "agent_browser", _ab("open", "FILE:" + ETC), "policy-blocked", ETC),
    Attempt("view-source", "agent_browser", _ab("open", "view-source:file://" + ETC),
            "policy-blocked", ETC),
    Attempt("file-url-dotdot", "agent_browser",
            _ab("open", "file://{ctx.workspace}/%2e%2e/%2e%2e/%2e%2e/%2e%2e/%2e%2e/etc/passwd"),
            "policy-blocked", ETC),
    Attempt("tab-new-file", "agent_browser", _ab("tab", "new", "file://" + ETC),
            "policy-blocked", ETC),
    Attempt("state-dir-url", "agent_browser", _ab("open", "file://{ctx.state_dir}/"),
            "policy-blocked", "state"),
    Attempt("symlink-url", "agent_browser", _ab("open", "file://{ctx.workspace}/etc-link/passwd"),
            "policy-blocked", ETC),
    Attempt("html-page-in-root", "agent_browser", _ab("open", "file://{ctx.workspace}/evil.html"),
            "policy-blocked", "file pages"),
    Attempt("upload-outside", "agent_browser", _ab("upload", "#f", ETC), "policy-blocked", ETC),
    Attempt("upload-state-dir", "agent_browser", _ab("upload", "#f", "{ctx.state_dir}/x"),
            "policy-blocked", "state"),
    Attempt("state-load-outside", "agent_browser", _ab("state", "load", ETC),
            "policy-blocked", ETC),
    Attempt("state-show-outside", "agent_browser", _ab("state", "show", ETC),
            "policy-blocked", ETC),
    Attempt("state-show-state-dir", "agent_browser",
            _ab("state", "show", "{ctx.state_dir}/engine-config.json"), "policy-blocked", "state"),
    Attempt("state-save-enc-link", "agent_browser", _ab("state", "save", "enc-link"),
            "policy-blocked", "state"),
    Attempt("screenshot-outside", "agent_browser", _ab("screenshot", "/tmp/abt-escape.png"),
            "policy-blocked", "/tmp/abt-escape.png"),
    Attempt("screenshot-dotdot", "agent_browser", _ab("screenshot", "../../escape.png"),
            "policy-blocked", "escape.png"),
    Attempt("pdf-outside", "agent_browser", _ab("pdf", "/tmp/abt-escape.pdf"),
            "policy-blocked", "/tmp/abt-escape.pdf"),
    Attempt("har-outside", "agent_browser", _ab("network", "har", "stop", "/tmp/abt-escape.har"),
            "policy-blocked", "/tmp/abt-escape.har"),
    Attempt("state-save-outside", "agent_browser", _ab("state", "save", "/tmp/abt-state.json"),
            "policy-blocked", "/tmp/abt-state.json"),
    Attempt("download-dir-outside", "agent_browser",
            _ab("--download-path", "/tmp", "open", "about:blank"), "policy-blocked", "/tmp"),
    Attempt("output-path-outside", "agent_browser",
            _ab("get", "url", outputPath="/tmp/abt-escape.json"),
            "policy-blocked", "/tmp/abt-escape.json"),
    Attempt("engine-config-write", "agent_browser", _ab("screenshot", "./agent-browser.json"),
            "policy-blocked", "agent-browser.json"),
    Attempt("batch-row-file-url", "agent_browser",
            _batch(["get", "url"], ["open", "file://" + ETC]), "policy-blocked", ETC),
    Attempt("cell-file-url", "agent_browser_code", _cell('["open", "file:///etc/passwd"]'),
            "policy-blocked", ETC),
)  # fmt: skip

ATTEMPTS = LAUNCH + CELL + FILES


@pytest.fixture
def ctx(tmp_path: Path, fixture_site: FixtureServer) -> Ctx:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "etc-link").symlink_to("/etc")
    (workspace / "evil.html").write_text('<iframe src="file:///etc/passwd"></iframe>')
    # `state save enc-link` is written to `enc-link.enc`: planted as a link into the state dir.
    (workspace / "enc-link.enc").symlink_to(tmp_path / "state" / "stolen.json")
    return Ctx(workspace=workspace, state_dir=tmp_path / "state", site=fixture_site)


async def _tools(engine_env: EngineEnv, ctx: Ctx, **env: str) -> BrowserTools:
    settings = tools_settings(engine_env, ctx.state_dir, **env)
    return BrowserTools(settings=settings, cwd=ctx.workspace)


def _verdict(attempt: Attempt, result: ToolResult) -> tuple[str | None, str]:
    """(category, message) of the attempt, from the tool result or the cell's return value."""
    if attempt.tool != "agent_browser_code":
        return result.details.get("failureCategory"), str(result.details.get("error") or "")
    body = result.details.get("result") or result.details.get("data")
    text = json.dumps(body) if body is not None else result.text
    category = "policy-blocked" if "policy-blocked" in text else None
    return category, text


def test_matrix_is_large_enough() -> None:
    assert len({a.id for a in ATTEMPTS}) == len(ATTEMPTS)
    assert len(ATTEMPTS) >= 40


@pytest.mark.parametrize("attempt", ATTEMPTS, ids=lambda a: a.id)
async def test_attempt_is_refused(attempt: Attempt, engine_env: EngineEnv, ctx: Ctx) -> None:
    tools = await _tools(engine_env, ctx)
    try:
        result = await tools.call(attempt.tool, attempt.params(ctx))
        category, message = _verdict(attempt, result)
        assert category == attempt.category, result.text
        assert attempt.mentions.lower() in message.lower(), message
    finally:
        await tools.aclose()
    assert not ctx.marker.exists(), "a host command ran"
    assert "root:x:0:0" not in result.text + json.dumps(result.details, default=str)
    for escaped in ("/tmp/abt-escape.png", "/tmp/abt-escape.pdf", "/tmp/abt-escape.har"):
        assert not Path(escaped).exists()


async def test_operator_launch_settings_and_model_flags_still_work(
    engine_env: EngineEnv, ctx: Ctx
) -> None:
    """The operator's `[browser]` settings reach the real browser; the model's own appearance
    flags (`--user-agent` on a fresh launch) still work; an allowed flag passes."""
    config = ctx.workspace.parent / "operator.toml"
    config.write_text('[browser]\nuser_agent = "OperatorBot/1"\nviewport = "900x700"\n')
    tools = await _tools(
        engine_env,
        ctx,
        AGENT_BROWSER_TOOLS_CONFIG=str(config),
        AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--args",
    )
    try:
        opened = await tools.call("agent_browser", {"args": ["open", ctx.site.url("/index.html")]})
        assert not opened.is_error, opened.text
        probe = await tools.call(
            "agent_browser", {"args": ["eval", "JSON.stringify([navigator.userAgent, innerWidth])"]}
        )
        assert "OperatorBot/1" in probe.text and "900" in probe.text, probe.text
        fresh = await tools.call(
            "agent_browser",
            {
                "args": [
                    "--user-agent",
                    "ModelBot/2",
                    "--args",
                    "--lang=fr",
                    "open",
                    "about:blank",
                ],
                "sessionMode": "fresh",
            },
        )
        assert not fresh.is_error, fresh.text
        agent = await tools.call("agent_browser", {"args": ["eval", "navigator.userAgent"]})
        assert "ModelBot/2" in agent.text, agent.text
    finally:
        await tools.aclose()


SECRET_READS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("get-value-selector", {"args": ["get", "value", "#code"]}),
    ("eval-value", {"args": ["eval", "document.querySelector('#code').value"]}),
    ("batch-get-value", {"args": ["batch"], "stdin": json.dumps([["get", "value", "#code"]])}),
    ("get-value-operator-secret", {"args": ["get", "value", "#note"]}),
    ("eval-operator-secret", {"args": ["eval", "document.querySelector('#note').value"]}),
    ("get-html-form", {"args": ["eval", "JSON.stringify([...document.forms[0]].map(e=>e.value))"]}),
)
"""Reads that would show a typed password or an operator secret; each must come back redacted."""


async def test_secret_reads_are_redacted(engine_env: EngineEnv, ctx: Ctx) -> None:
    typed = "Hunter2-typed-secret"
    operator = "Op3rator-secret-value"
    secrets_file = ctx.workspace.parent / "secrets.env"
    secrets_file.write_text(f"NOTE_PW={operator}\n")
    tools = await _tools(engine_env, ctx, AGENT_BROWSER_TOOLS_SECRETS_FILE=str(secrets_file))
    try:
        await tools.call("agent_browser", {"args": ["open", ctx.site.url("/login.html")]})
        filled = await tools.call("agent_browser", {"args": ["fill", "#code", typed]})
        assert not filled.is_error, filled.text
        note = await tools.call("agent_browser", {"args": ["fill", "#note", "{{secret:NOTE_PW}}"]})
        assert not note.is_error, note.text
        seen = [filled, note]
        for name, params in SECRET_READS:
            result = await tools.call("agent_browser", params)
            seen.append(result)
            body = result.text + json.dumps(result.details, default=str)
            assert typed not in body and operator not in body, name
        assert len(SECRET_READS) + len(ATTEMPTS) >= 45
        placeholders = " ".join(r.text for r in seen)
        assert "redacted" in placeholders and "{{secret:NOTE_PW}}" in placeholders
    finally:
        await tools.aclose()
    for path in ctx.state_dir.rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            assert typed.encode() not in raw and operator.encode() not in raw, path
