"""Operator policy on the fake engine: a refused call spawns nothing and says why.

The fake engine records every spawn, so "nothing reached the engine" is checked exactly; the
real engine's side of the same attempts is in `tests/real/test_escape_matrix.py`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from tests.support.fake import FakeEngine, fake_settings


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> None:
    clear_engine_cache()


def _tools(fake: FakeEngine, tmp_path: Path, **env: str) -> BrowserTools:
    settings = fake_settings(fake, tmp_path, **env)
    tools = BrowserTools(settings=settings, conversation_id="conv-policy", cwd=tmp_path)
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


ATTEMPTS: list[tuple[dict[str, Any], str, str]] = [
    ({"args": ["--executable-path", "/bin/sh", "open", "x"]}, "operator-flag", "--executable-path"),
    (
        {"args": ["--args", "--renderer-cmd-prefix=touch /tmp/x", "open", "x"]},
        "operator-flag",
        "--args",
    ),
    ({"args": ["--cdp", "9222", "get", "url"]}, "operator-flag", "--cdp"),
    ({"args": ["connect", "9222"]}, "operator-command", "connect"),
    ({"args": ["get", "cdp-url"]}, "operator-command", "get cdp-url"),
    ({"args": ["install", "--with-deps"]}, "operator-command", "install"),
    (
        {"args": ["batch"], "stdin": json.dumps([["get", "url"], ["--proxy", "http://p", "open"]])},
        "operator-flag",
        "--proxy",
    ),
    ({"args": ["get", "url"], "timeoutMs": 10_000_000}, "timeout-cap", "timeoutMs"),
]


@pytest.mark.parametrize(("params", "rule", "subject"), ATTEMPTS)
async def test_refused_before_any_spawn(
    fake_engine: FakeEngine, tmp_path: Path, params: dict[str, Any], rule: str, subject: str
) -> None:
    tools = _tools(fake_engine, tmp_path)
    result = await tools.call("agent_browser", params)
    assert fake_engine.calls() == []
    assert result.is_error
    assert result.details["failureCategory"] == "policy-blocked"
    assert result.details["policy"]["rule"] == rule
    assert result.details["policy"]["subject"] == subject
    assert "policy-blocked" in result.text and subject in result.text
    await tools.aclose()


async def test_json_callers_get_a_parseable_refusal(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    result = await tools.call(
        "agent_browser", {"args": ["--json", "--profile", "Default", "open", "x"]}
    )
    body = json.loads(result.text)
    assert body["failureCategory"] == "policy-blocked" and "--profile" in body["error"]
    assert fake_engine.calls() == []
    await tools.aclose()


async def test_operator_can_allow_a_flag_by_name(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_ALLOW_MODEL_FLAGS="--args")
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/"}})
    result = await tools.call(
        "agent_browser", {"args": ["--args", "--lang=fr", "open", "https://a.test/"]}
    )
    assert not result.is_error, result.text
    assert any("--args" in argv for argv in fake_engine.argvs())
    await tools.aclose()


async def test_operator_launch_settings_reach_every_spawn(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    config = tmp_path / "c.toml"
    config.write_text('[browser]\nuser_agent = "OpBot/1"\nviewport = "900x700"\n')
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(config))
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/"}})
    await tools.call("agent_browser", {"args": ["open", "https://a.test/"]})
    calls = fake_engine.calls()
    assert calls
    for call in calls:
        env = call["env"]
        assert isinstance(env, dict)
        assert env.get("AGENT_BROWSER_USER_AGENT") == "OpBot/1"
        assert "--window-size=900,700" in env.get("AGENT_BROWSER_ARGS", "")
    await tools.aclose()


async def test_code_cell_inner_call_obeys_the_same_policy(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    code = (
        'const r = await browser({ args: ["--executable-path", "/bin/sh", "open", "x"] });'
        "return { category: r.failureCategory, error: r.error };"
    )
    result = await tools.call("agent_browser_code", {"code": code})
    assert fake_engine.calls() == []
    assert "policy-blocked" in result.text and "--executable-path" in result.text
    await tools.aclose()


async def test_every_tool_timeout_is_bounded_by_the_operator(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_MAX_TIMEOUT_MS="5000")
    enabled = await tools.call("agent_browser_tools", {"enable": ["qa"]})
    assert not enabled.is_error, enabled.text
    for tool, params in (
        ("agent_browser_code", {"code": "return 1", "timeoutMs": 6000}),
        ("agent_browser_qa", {"url": "https://a.test/", "timeoutMs": 6000}),
        ("agent_browser", {"args": ["get", "url"], "timeoutMs": 6000}),
    ):
        result = await tools.call(tool, params)
        assert result.details["failureCategory"] == "policy-blocked", (tool, result.text)
        assert "5000" in result.text
    assert fake_engine.calls() == []
    await tools.aclose()


async def test_a_timeout_retry_covers_the_wait_within_the_operators_limit(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """The suggested `timeoutMs` covers what `wait` asked for and is one the server accepts;
    past the operator's limit the result says no retry can finish instead."""
    tools = _tools(fake_engine, tmp_path, AGENT_BROWSER_TOOLS_MAX_TIMEOUT_MS="8000")
    fake_engine.on({"command": ["wait"]}, hang=True)
    slow = await tools.call("agent_browser", {"args": ["wait", "3000"], "timeoutMs": 200})
    assert slow.details["failureCategory"] == "timeout"
    (retry,) = [a for a in slow.details["nextActions"] if a["id"] == "retry-with-longer-timeout"]
    assert retry["params"] == {"args": ["wait", "3000"], "timeoutMs": 8000}
    too_long = await tools.call("agent_browser", {"args": ["wait", "9000"], "timeoutMs": 200})
    ids = [a["id"] for a in too_long.details.get("nextActions", [])]
    assert "retry-with-longer-timeout" not in ids
    assert "no retry of it can finish" in too_long.text
    await tools.aclose()
