"""Secrets stay secret, on the real engine and Chromium (issue 15 item 4).

The fixture page `login.html` has a password field the snapshot shows as `textbox "Code"`, a
one-time-code field (whose value the snapshot does show) and a page-side check that prints
the typed password's length and FNV-1a hash, never the value. Every test searches the model's
text, the details, every file under the state dir (the SQLite journal rows, its WAL, spills)
and the files it wrote for the secret.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.credentials import READ_PLACEHOLDER, TYPED_PLACEHOLDER
from agent_browser_tools.redaction import REDACTED
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fixture_server import FixtureServer
from tests.support.real_engine import EngineEnv
from tests.support.tools import ab, ref_for, tools_settings

pytestmark = pytest.mark.real_engine

PASSWORD = "Tr0ub4dor-and-3"
OTP = "90817263"
OPERATOR_VALUE = "Op3rator-Secret-77"


def fnv1a(text: str) -> str:
    """The page's hash of what was typed (see login.html)."""
    value = 0x811C9DC5
    for byte in text.encode("utf-8"):
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{value:08x}"


@pytest_asyncio.fixture
async def secret_tools(engine_env: EngineEnv, tmp_path: Path) -> AsyncIterator[BrowserTools]:
    """A conversation whose operator defined `LOGIN_PW` (closed at teardown)."""
    config = tmp_path / "config.toml"
    config.write_text(f'[secrets]\nLOGIN_PW = "{OPERATOR_VALUE}"\n', encoding="utf-8")
    settings = tools_settings(
        engine_env, tmp_path / "state", AGENT_BROWSER_TOOLS_CONFIG=str(config)
    )
    tools = BrowserTools(settings=settings, cwd=tmp_path)
    try:
        yield tools
    finally:
        await tools.aclose()


def _state_text(state_dir: Path) -> str:
    """Every file under the state dir, plus the journal's rows read through SQLite."""
    parts = [p.read_bytes().decode("utf-8", "replace") for p in state_dir.rglob("*") if p.is_file()]
    with sqlite3.connect(f"file:{state_dir / 'journal.sqlite3'}?mode=ro", uri=True) as conn:
        parts += [row[0] for row in conn.execute("SELECT payload FROM events")]
    return "\n".join(parts)


def _shown(*results: ToolResult) -> str:
    return "\n".join(r.text + json.dumps(r.details, default=str) for r in results)


async def _ok(tools: BrowserTools, *args: str, **params: Any) -> ToolResult:
    result = await ab(tools, *args, **params)
    assert not result.is_error, f"{args} failed: {result.text[:1500]}"
    return result


async def test_a_typed_password_never_comes_back(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await _ok(browser_tools, "open", fixture_site.url("login.html"))
    snap = await _ok(browser_tools, "snapshot", "-i")
    code = ref_for(snap, "textbox", "Code")  # nothing in the snapshot says "password"
    filled = await _ok(browser_tools, "fill", code, PASSWORD)
    assert filled.details["args"] == ["fill", code, TYPED_PLACEHOLDER]
    assert filled.details["redacted"]["fields"][0]["why"] == "input type=password"
    check = await _ok(browser_tools, "get", "text", "#check")
    assert f"{len(PASSWORD)} characters, fnv {fnv1a(PASSWORD)}" in check.text
    by_ref = await _ok(browser_tools, "get", "value", code)
    by_selector = await _ok(browser_tools, "get", "value", "#code", "--json")
    for read in (by_ref, by_selector):
        assert read.details["data"]["value"] == READ_PLACEHOLDER
        assert read.details["redacted"]["reason"] == "credential-field"
    assert json.loads(by_selector.text)["data"]["value"] == READ_PLACEHOLDER
    evaluated = await _ok(browser_tools, "eval", "document.querySelector('#code').value")
    assert TYPED_PLACEHOLDER in evaluated.text
    exported = tmp_path / "value.json"
    await _ok(
        browser_tools, "eval", "document.querySelector('#code').value", outputPath=str(exported)
    )
    # Over the engine runner's 512 KiB memory limit and the visible budget: the runner's
    # overflow file and the observation spill must hold the placeholder too.
    huge = await _ok(
        browser_tools, "eval", "document.querySelector('#code').value + 'y'.repeat(600000)"
    )
    spill = Path(huge.details["observationPath"])
    assert TYPED_PLACEHOLDER in spill.read_text(encoding="utf-8")
    shown = _shown(snap, filled, check, by_ref, by_selector, evaluated, huge)
    assert PASSWORD not in shown
    assert PASSWORD not in exported.read_text(encoding="utf-8")
    assert PASSWORD not in _state_text(tmp_path / "state")


async def test_batch_rows_and_snapshots_hide_a_one_time_code(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await _ok(browser_tools, "open", fixture_site.url("login.html"))
    rows = [
        ["fill", "#otp", OTP],
        ["fill", "#note", "plain note"],
        ["snapshot", "-i"],
        ["get", "value", "#otp"],
        ["get", "value", "#note"],
    ]
    result = await _ok(browser_tools, "batch", stdin=json.dumps(rows))
    steps = result.details["batchSteps"]
    assert steps[0]["command"] == ["fill", "#otp", TYPED_PLACEHOLDER]
    assert steps[3]["result"]["value"] == READ_PLACEHOLDER
    assert steps[4]["result"]["value"] == "plain note"
    assert TYPED_PLACEHOLDER in json.dumps(steps[2]["result"])  # the snapshot shows values
    args_form = await _ok(browser_tools, "batch", f"fill #otp {OTP}7", "get value #otp")
    assert args_form.details["args"][1] == f"fill #otp {TYPED_PLACEHOLDER}"
    assert args_form.details["batchSteps"][1]["result"]["value"] == READ_PLACEHOLDER
    # Keyboard typing goes to the focused element: the probe reads that one.
    await _ok(browser_tools, "fill", "#otp", "")
    await _ok(browser_tools, "focus", "#otp")
    keyed = await _ok(browser_tools, "keyboard", "type", OTP[::-1])
    assert keyed.details["args"] == ["keyboard", "type", TYPED_PLACEHOLDER]
    assert keyed.details["redacted"]["fields"][0]["why"] == "autocomplete=one-time-code"
    read = await _ok(browser_tools, "get", "value", "#otp")
    assert read.details["data"]["value"] == READ_PLACEHOLDER
    shown = _shown(result, args_form, keyed, read)
    assert OTP not in shown and OTP[::-1] not in shown
    state = _state_text(tmp_path / "state")
    assert OTP not in state and OTP[::-1] not in state


async def test_a_code_cell_reading_a_password_back_gets_it_scrubbed(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await browser_tools.call("agent_browser_tools", {"enable": ["code"]})
    await _ok(browser_tools, "open", fixture_site.url("login.html"))
    code = f"""
      const filled = await browser({{ args: ['fill', '#code', '{PASSWORD}'] }});
      const read = await browser({{ args: ['eval', "document.querySelector('#code').value"] }});
      const value = await browser({{ args: ['get', 'value', '#code'] }});
      emit({{ typed: read.data }});
      emit({{ filled: filled.success, read: read.data, value: value.data }});
    """
    out = tmp_path / "cell.json"
    result = await browser_tools.call("agent_browser_code", {"code": code, "outputPath": str(out)})
    assert not result.is_error, result.text
    first, second = result.details["data"]
    assert TYPED_PLACEHOLDER in json.dumps(first["typed"])
    assert second["filled"] is True
    assert TYPED_PLACEHOLDER in json.dumps(second["read"])
    assert second["value"]["value"] == READ_PLACEHOLDER
    assert PASSWORD not in _shown(result)
    assert PASSWORD not in out.read_text(encoding="utf-8")
    assert PASSWORD not in _state_text(tmp_path / "state")


async def test_har_files_are_scrubbed_on_disk(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    bearer = "abcdefSECRETtoken123456"
    url_token = "tok-7f3e9a1c55"
    basic = "wonderland99"
    await _ok(browser_tools, "open", fixture_site.url("login.html"))
    await _ok(browser_tools, "network", "har", "start")
    await _ok(browser_tools, "set", "headers", json.dumps({"Authorization": f"Bearer {bearer}"}))
    authed = fixture_site.url(f"login.html?token={url_token}&lang=en").replace(
        "http://", f"http://alice:{basic}@"
    )
    await _ok(browser_tools, "open", authed)
    stopped = await _ok(browser_tools, "network", "har", "stop", "net.har")
    # The path is the one the engine was given: relative paths are pinned to the workspace.
    assert stopped.details["scrubbedFiles"] == [
        {"path": str(tmp_path / "net.har"), "kind": "har", "status": "scrubbed"}
    ]
    har = (tmp_path / "net.har").read_text(encoding="utf-8")
    for leak in (bearer, url_token, basic):
        assert leak not in har, leak
    request = next(
        e["request"] for e in json.loads(har)["log"]["entries"] if "lang=en" in e["request"]["url"]
    )
    assert f"token={REDACTED}" in request["url"] and "lang=en" in request["url"]
    headers = {h["name"].lower(): h["value"] for h in request["headers"]}
    assert headers["authorization"] == REDACTED
    # The same in a batch row.
    await _ok(browser_tools, "network", "har", "start")
    await _ok(browser_tools, "open", authed)
    batch = await _ok(
        browser_tools, "batch", stdin=json.dumps([["network", "har", "stop", "b.har"]])
    )
    assert batch.details["scrubbedFiles"][0]["status"] == "scrubbed"
    assert url_token not in (tmp_path / "b.har").read_text(encoding="utf-8")


async def test_an_operator_secret_is_typed_by_name_and_never_shown(
    secret_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    await _ok(secret_tools, "open", fixture_site.url("login.html"))
    filled = await _ok(secret_tools, "fill", "#code", "{{secret:LOGIN_PW}}")
    assert filled.details["args"] == ["fill", "#code", "{{secret:LOGIN_PW}}"]
    # The page saw the value itself: its length and hash match.
    check = await _ok(secret_tools, "get", "text", "#check")
    assert f"{len(OPERATOR_VALUE)} characters, fnv {fnv1a(OPERATOR_VALUE)}" in check.text
    # Typed into an ordinary field, it is still shown by name only.
    await _ok(secret_tools, "fill", "#note", "note {{secret:LOGIN_PW}}")
    note = await _ok(secret_tools, "get", "value", "#note")
    assert note.details["data"]["value"] == "note {{secret:LOGIN_PW}}"
    page = await _ok(secret_tools, "eval", "document.querySelector('#code').value")
    assert "{{secret:LOGIN_PW}}" in page.text
    unknown = await ab(secret_tools, "fill", "#code", "{{secret:NOPE}}")
    assert unknown.details["failureCategory"] == "validation-error"
    assert "LOGIN_PW" in unknown.text
    shown = _shown(filled, check, note, page, unknown)
    assert OPERATOR_VALUE not in shown
    assert OPERATOR_VALUE not in _state_text(tmp_path / "state")


async def test_trace_and_profile_files_lose_url_tokens(
    browser_tools: BrowserTools, fixture_site: FixtureServer, tmp_path: Path
) -> None:
    token = "tok-trace-5a5a5a"
    await _ok(browser_tools, "open", fixture_site.url("login.html"))
    for start, stop, name in (
        (("trace", "start"), ("trace", "stop"), "trace.json"),
        (("profiler", "start"), ("profiler", "stop"), "profile.json"),
    ):
        await _ok(browser_tools, *start)
        await _ok(browser_tools, "open", fixture_site.url(f"login.html?token={token}"))
        stopped = await _ok(browser_tools, *stop, name)
        (outcome,) = stopped.details["scrubbedFiles"]
        assert outcome["path"] == str(tmp_path / name), outcome
        assert outcome["status"] == "scrubbed", outcome
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert token not in text and f"token={REDACTED}" in text
        json.loads(text)  # still a JSON document
