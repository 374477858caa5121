"""Arity, command names and never-issued refs through the whole tool, with a shim engine that
logs every process it is started as: each refusal is a validation error and starts nothing."""

from __future__ import annotations

import json
from pathlib import Path

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import ToolResult
from tests.support.fake import FakeEngine, fake_settings


async def _call(tools: BrowserTools, args: list[str], stdin: str | None = None) -> ToolResult:
    params: dict[str, object] = {"args": args}
    if stdin is not None:
        params["stdin"] = stdin
    return await tools.call("agent_browser", params)


def _refused(result: ToolResult) -> str:
    assert result.is_error, result.text
    assert result.details["failureCategory"] == "validation-error", result.details
    return result.text


async def test_a_missing_operand_is_refused_before_the_first_engine_process(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    try:
        text = _refused(await _call(tools, ["fill", "@e6"]))
        assert "`fill` needs <text>, so nothing ran. Usage: `fill <selector> <text>`." in text
        assert fake_engine.calls() == []  # not even the engine's `--version`
        rows = json.dumps([["get", "url"], ["select", "#size"]])
        text = _refused(await _call(tools, ["batch"], rows))
        assert "batch row 2: `select` needs <value...>" in text
        text = _refused(await _call(tools, ["click", "@e1", "now"]))
        assert "`click` takes at most 1 operand but got 2" in text
        assert fake_engine.calls() == []
    finally:
        await tools.aclose()


async def test_an_unknown_command_names_the_nearest_on_every_call(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    try:
        first = _refused(await _call(tools, ["frobnicate"]))
        assert "any supported agent-browser release" in first  # the engine is not read yet
        assert fake_engine.calls() == []  # not even the engine's `--version`
        assert not (await _call(tools, ["get", "url"])).is_error
        before = fake_engine.argvs()
        later = _refused(await _call(tools, ["frobnicate"]))
        assert "`frobnicate` is not a command in agent-browser 0.39.4" in later
        for text in (first, later):
            assert "Nearest commands: `" in text
            assert "agent-browser-tools://commands resource" in text
        assert "Did you mean `click`" in _refused(await _call(tools, ["clik", "@e1"]))
        rows = json.dumps([["get", "url"], ["frobnicate", "now"]])
        row = _refused(await _call(tools, ["batch"], rows))
        assert row.startswith("Error: batch row 2: `frobnicate` is not a command"), row
        assert "Nearest commands: `" in row and "agent-browser-tools://commands" in row
        # A group holding operator-only commands (`get cdp-url`): still a wrong name first.
        typo = _refused(await _call(tools, ["get", "titel"]))
        assert "`get titel` is not a command" in typo and "Did you mean `get title`?" in typo
        assert fake_engine.argvs() == before
    finally:
        await tools.aclose()


async def test_a_ref_no_snapshot_issued_is_unknown_ref_and_reaches_no_engine(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    try:
        assert not (await _call(tools, ["get", "url"])).is_error
        before = fake_engine.argvs()
        result = await _call(tools, ["click", "@e999"])
        text = _refused(result)
        assert "@e999 was never issued" in text and "Run `snapshot -i` first" in text
        assert result.details["staleRef"]["reason"] == "unknown-ref"
        rows = json.dumps([["get", "title"], ["fill", "@e3", "Ada"]])
        batch = await _call(tools, ["batch"], rows)
        assert "step 2: @e3 was never issued" in _refused(batch)
        assert batch.details["staleRef"] == {"refs": ["@e3"], "step": 2, "reason": "unknown-ref"}
        assert fake_engine.argvs() == before
    finally:
        await tools.aclose()


async def test_wrapper_only_flags_and_their_values_are_not_operands(
    fake_engine: FakeEngine, tmp_path: Path
) -> None:
    """`snapshot -i --search "Sign in" --filter role=button`: the wrapper strips its own
    flags before the count, so the search words are not an extra operand of `snapshot`."""
    tools = BrowserTools(settings=fake_settings(fake_engine, tmp_path), cwd=tmp_path)
    try:
        args = ["snapshot", "-i", "--search", "Sign in", "--filter", "role=button"]
        result = await _call(tools, args)
        assert "operand" not in result.text, result.text
        assert any(argv[-2:] == ["snapshot", "-i"] for argv in fake_engine.argvs())
        extra = _refused(await _call(tools, ["snapshot", "-i", "--search", "Sign in", "x"]))
        assert "`snapshot` takes no operands but got 1" in extra
    finally:
        await tools.aclose()
