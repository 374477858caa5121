"""The allowlist through the whole tool, with a shim engine that logs every process it is
started as: what no release knows runs nothing at all, and what the running release added is
classified like the rest (a fake engine: the version it reports is the one under test)."""

from __future__ import annotations

from pathlib import Path

from agent_browser_tools.api import BrowserTools
from tests.support.fake import FakeEngine, fake_settings


def _tools(fake: FakeEngine, tmp_path: Path, version: str | None = None) -> BrowserTools:
    if version is not None:
        fake.on({"argv": ["--version"]}, stdout=f"agent-browser {version}\n")
    return BrowserTools(settings=fake_settings(fake, tmp_path), cwd=tmp_path)


async def test_an_invented_flag_is_refused_before_any_engine_process_starts(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path)
    try:
        result = await tools.call("agent_browser", {"args": ["--frobnicate", "get", "url"]})
        assert result.is_error and result.details["failureCategory"] == "validation-error"
        assert "--frobnicate is not a global flag" in result.text
        assert fake_engine.calls() == []  # not even the engine's `--version`
    finally:
        await tools.aclose()


async def test_on_0_41_the_models_cdp_headers_are_the_operators(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = _tools(fake_engine, tmp_path, "0.41.2")
    try:
        args = ["--cdp-headers", '{"Authorization": "Bearer s3cret"}', "get", "url"]
        result = await tools.call("agent_browser", {"args": args})
        assert result.is_error and result.details["failureCategory"] == "policy-blocked"
        assert "--cdp-headers is set by the operator" in result.text
        assert "s3cret" not in result.text
        assert fake_engine.argvs() == [["--version"]]
    finally:
        await tools.aclose()


async def test_on_0_41_wait_state_reaches_wait(fake_engine: FakeEngine, tmp_path: Path) -> None:
    tools = _tools(fake_engine, tmp_path, "0.41.2")
    try:
        result = await tools.call("agent_browser", {"args": ["wait", "#go", "--state", "visible"]})
        assert not result.is_error, result.text
        sent = [argv for argv in fake_engine.argvs() if "wait" in argv]
        assert sent and sent[-1][-4:] == ["wait", "#go", "--state", "visible"]
    finally:
        await tools.aclose()
