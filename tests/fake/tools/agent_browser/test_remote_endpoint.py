"""The operator's remote browser on the fake engine: exact spawns, env and refusals.

With `[browser] cdp_url` set, every spawn of a conversation (the model's call, the wrapper's
attach, probes, the closes) carries the endpoint and the tab pin, and the model's argv never
does (it cannot set or change the endpoint); the conversation's close first closes the tab the
attach opened, then detaches. The real remote browser's side is in
`tests/real/tools/agent_browser/test_remote_browser.py`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.engine.discovery import clear_engine_cache
from tests.support.fake import FakeEngine, fake_settings

ENDPOINT = "wss://op:pa55-s3cr3t@farm.test/cdp?s=k3yvalue99"
"""Credentials where the generic URL redaction does not look (a password, an odd query key)."""


@pytest.fixture(autouse=True)
def _fresh_engine_cache() -> None:
    clear_engine_cache()


def _tools(fake: FakeEngine, tmp_path: Path) -> BrowserTools:
    config = tmp_path / "c.toml"
    config.write_text(f'[browser]\ncdp_url = "{ENDPOINT}"\n')
    settings = fake_settings(fake, tmp_path, AGENT_BROWSER_TOOLS_CONFIG=str(config))
    tools = BrowserTools(settings=settings, conversation_id="conv-remote", cwd=tmp_path)
    assert tools.runtime.engine.path == str(fake.path)
    fake.reset()
    return tools


async def test_every_spawn_carries_the_endpoint_and_the_attach_tab_is_closed(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.on(
        {"command": ["tab", "list"]},
        envelope={"data": {"tabs": [{"targetId": "T-OURS", "active": True, "url": "about:blank"}]}},
    )
    fake_engine.on({"command": ["open"]}, envelope={"data": {"url": "https://a.test/"}})
    opened = await tools.call("agent_browser", {"args": ["open", "https://a.test/"]})
    assert not opened.is_error, opened.text
    await tools.aclose()
    calls = fake_engine.calls()
    argvs = fake_engine.argvs()
    commands = [[t for t in argv[1:] if not t.startswith("-")][1:3] for argv in argvs]
    assert ["tab", "list"] in commands and ["open", "https://a.test/"] in commands
    assert commands.index(["tab", "list"]) < commands.index(["open", "https://a.test/"])
    close_tab = [argv for argv in argvs if argv[-3:] == ["tab", "close", "T-OURS"]]
    assert len(close_tab) == 1
    assert argvs.index(close_tab[0]) < max(i for i, a in enumerate(argvs) if "close" in a[-2:])
    for call, argv in zip(calls, argvs, strict=True):
        env = call["env"]
        assert isinstance(env, dict)
        assert env.get("AGENT_BROWSER_CDP") == ENDPOINT, argv
        assert env.get("AGENT_BROWSER_PIN_TAB") == "true", argv
        assert "--cdp" not in argv and ENDPOINT not in argv
    assert "s3cr3t" not in opened.text and "s3cr3t" not in str(opened.details)


@pytest.mark.parametrize(
    "args",
    [
        ["--cdp", "ws://attacker.test:9222", "open", "https://a.test/"],
        ["--provider", "browserless", "open", "https://a.test/"],
        ["connect", "ws://attacker.test:9222"],
        ["get", "cdp-url"],
    ],
)
async def test_the_model_cannot_set_change_or_read_the_endpoint(
    fake_engine: FakeEngine, tmp_path: Path, args: list[str]
) -> None:
    tools = _tools(fake_engine, tmp_path)
    refused = await tools.call("agent_browser", {"args": args})
    assert refused.is_error
    assert refused.details["failureCategory"] == "policy-blocked", refused.text
    assert fake_engine.calls() == []
    await tools.aclose()


async def test_an_engine_error_quoting_the_endpoint_does_not_leak_its_token(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    fake_engine.default(
        json={"success": False, "error": f"CDP connect to {ENDPOINT} failed: 401", "data": None}
    )
    failed = await tools.call("agent_browser", {"args": ["get", "url"]})
    assert failed.is_error
    assert "farm.test" in failed.text, failed.text
    for secret in ("s3cr3t", "k3yvalue99"):
        assert secret not in failed.text and secret not in str(failed.details), failed.text
    await tools.aclose()
