"""Attack probes on the real engine and Chromium: bypasses of the README's security model.

Each test is one confirmed way a model's input gets past the boundary (a host program runs,
another browser's DevTools endpoint is reached, a typed password or an operator secret comes
back or is stored raw). They fail while the bypass exists.
"""

from __future__ import annotations

import json
import shutil
import urllib.request
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.browser_ports import browser_ports
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import tools_settings

pytestmark = pytest.mark.real_engine

OPERATOR_SECRET = "Op3rator-secret-value"
TYPED = ("Hunter2-quoted-row", "Hunter2-camel-case")


@pytest_asyncio.fixture
async def tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    secrets = tmp_path / "secrets.env"
    secrets.write_text(f"PW={OPERATOR_SECRET}\n")
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_SECRETS_FILE=str(secrets)
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    browser = BrowserTools(settings=settings, cwd=workspace)
    try:
        yield browser
    finally:
        await browser.aclose()


async def _ab(tools: BrowserTools, *args: str) -> ToolResult:
    return await tools.call("agent_browser", {"args": list(args)})


def _shown(result: ToolResult) -> str:
    return result.text + json.dumps(result.details, default=str)


def _devtools_version_url() -> str:
    """The `/json/version` URL of a running browser's DevTools server (stream ports aside)."""
    for port in sorted(browser_ports()):
        url = f"http://127.0.0.1:{port}/json/version"
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                if b"webSocketDebuggerUrl" in answer.read():
                    return url
        except OSError:
            continue
    raise AssertionError("no DevTools port to aim at")


@pytest.mark.skipif(shutil.which("npx") is None, reason="needs npx to show the host program")
async def test_plugin_install_runs_no_host_program(tools: BrowserTools, tmp_path: Path) -> None:
    """`plugin install DIR` is the engine's alias of `plugin add`: it runs `npx -y DIR`."""
    marker = tmp_path / "pwned-marker"
    package = tmp_path / "evil-plugin"
    (package / "bin").mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "abt-evil-plugin", "version": "1.0.0", "bin": {"p": "bin/p.js"}})
    )
    script = package / "bin" / "p.js"
    script.write_text(f"#!/usr/bin/env node\nrequire('fs').writeFileSync({str(marker)!r}, 'x');\n")
    script.chmod(0o755)
    result = await _ab(tools, "plugin", "install", str(package), "--global")
    assert not marker.exists(), "a host program ran"
    assert result.details.get("failureCategory") == "policy-blocked", result.text


async def test_batch_row_cannot_read_the_cdp_url(tools: BrowserTools) -> None:
    await _ab(tools, "open", "about:blank")
    result = await _ab(tools, "batch", '"\\g"et cdp-url')
    assert "devtools/browser" not in _shown(result)
    assert result.details.get("failureCategory") == "policy-blocked", result.text


async def test_batch_row_cannot_open_a_devtools_port(tools: BrowserTools) -> None:
    await _ab(tools, "open", "about:blank")
    url = _devtools_version_url()
    result = await _ab(tools, "batch", f'open "\\h"ttp{url[4:]}', '"\\e"val document.title')
    assert "webSocketDebuggerUrl" not in _shown(result)
    assert result.details.get("failureCategory") == "policy-blocked", result.text


async def test_typed_password_is_never_shown_or_stored(
    tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await _ab(tools, "open", fixture_site.url("/login.html"))
    row = await _ab(tools, "batch", f'"\\f"ill #code {TYPED[0]}', '"\\g"et value #code')
    assert TYPED[0] not in _shown(row)
    await _ab(tools, "focus", "#code")
    await _ab(tools, "keyboard", "insertText", TYPED[1])
    await _ab(tools, "get", "url")
    for path in (tmp_path / "state").rglob("*"):
        if path.is_file():
            raw = path.read_bytes()
            for typed in TYPED:
                assert typed.encode() not in raw, (typed, path.name)


async def test_operator_secret_does_not_come_back_transformed(
    tools: BrowserTools, fixture_site: FixtureServer
) -> None:
    await _ab(tools, "open", fixture_site.url("/login.html"))
    result = await _ab(tools, "eval", "'{{secret:PW}}'.split('').reverse().join('')")
    assert OPERATOR_SECRET[::-1] not in _shown(result)
