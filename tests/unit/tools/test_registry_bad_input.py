"""The one gate (`Toolkit.call`) and bad input: every string field of every tool refuses a NUL
byte and a lone surrogate, deep or huge input is refused with the limit named, and nothing a
tool raises or returns can break the host that writes the answer."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.input_limits import MAX_NESTING
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import build_toolkit
from agent_browser_tools.tools.registry import Toolkit, ToolSpec

BAD = {"nul-byte": "a\x00b", "lone-surrogate": "a\ud800b"}


def _tools(tmp_path: Path) -> BrowserTools:
    env = {
        "HOME": str(tmp_path),
        "PATH": "/usr/bin",
        "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        "EXA_API_KEY": "exa-test-key",
    }
    tools = BrowserTools(settings=Settings.load(env=env, cwd=tmp_path), persist=False)
    capabilities = [s.capability for s in tools.toolkit.specs.values() if s.capability]
    tools.toolkit.enable(capabilities)
    return tools


def _string_fields(schema: dict[str, Any]) -> list[tuple[str, bool]]:
    """(field, is a list of strings) for every property that takes text."""
    found = []
    for name, prop in schema.get("properties", {}).items():
        kinds = prop.get("type")
        kinds = kinds if isinstance(kinds, list) else [kinds]
        items = prop.get("items", {})
        if "string" in kinds:
            found.append((name, False))
        elif "array" in kinds and "string" in str(items.get("type")):
            found.append((name, True))
    return found


def _catalog_fields() -> list[tuple[str, str, bool]]:
    """(tool, field, is a list) for every text field of every tool the catalog declares."""
    env = {"HOME": "/nonexistent", "PATH": "/usr/bin", "EXA_API_KEY": "exa-test-key"}
    toolkit = build_toolkit(Settings.load(env=env, cwd=Path("/")))
    return [
        (spec.name, field, is_list)
        for spec in toolkit.specs.values()
        if spec.implemented
        for field, is_list in _string_fields(spec.input_schema)
    ]


FIELDS = _catalog_fields()


@pytest.mark.parametrize("limit", sorted(BAD))
@pytest.mark.parametrize(
    ("tool", "field", "is_list"), FIELDS, ids=[f"{t}.{f}" for t, f, _ in FIELDS]
)
async def test_every_string_field_of_every_tool_refuses_bad_text(
    tmp_path: Path, tool: str, field: str, is_list: bool, limit: str
) -> None:
    tools = _tools(tmp_path)
    value: Any = [BAD[limit]] if is_list else BAD[limit]
    result = await tools.call(tool, {field: value})
    assert result.is_error, result.text
    assert result.details["failureCategory"] == "validation-error"
    assert result.details["inputLimit"]["limit"] == limit
    assert result.details["inputLimit"]["field"] == (f"{field}[0]" if is_list else field)
    json.dumps(result.details, ensure_ascii=False).encode("utf-8")  # writable as UTF-8
    assert "\x00" not in result.text


def test_the_string_fields_found_cover_the_tools() -> None:
    """The parametrization above must not silently shrink to nothing."""
    fields = {(tool, field) for tool, field, _ in FIELDS}
    expected = {
        ("agent_browser", "args"),
        ("agent_browser", "stdin"),
        ("agent_browser", "outputPath"),
        ("agent_browser_code", "code"),
        ("agent_browser_qa", "url"),
        ("agent_browser_web_search", "query"),
    }
    assert expected <= fields, sorted(fields)


async def test_deep_and_huge_arguments_are_refused_with_the_limit(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    deep: Any = "x"
    for _ in range(100_000):
        deep = {"a": deep}
    nested = await tools.call("agent_browser", {"args": ["get", "url"], "extra": deep})
    assert nested.details["inputLimit"] == {
        "field": nested.details["inputLimit"]["field"],
        "limit": "nesting",
        "maximum": MAX_NESTING,
    }
    assert f"more than {MAX_NESTING} levels" in nested.text
    many = await tools.call("agent_browser", {"args": ["echo"] * 20_000})
    assert many.details["inputLimit"]["limit"] == "items" and "10,000" in many.text
    assert len(many.details["args"]) == 40  # the echo is cut short
    huge = await tools.call("agent_browser", {"args": ["fill", "@e1", "x" * 3_000_000]})
    assert huge.details["inputLimit"]["limit"] == "string-size"
    assert len(json.dumps(huge.details)) < 5_000
    as_json = await tools.call("agent_browser", {"args": ["get", "url\x00", "--json"]})
    assert json.loads(as_json.text)["failureCategory"] == "validation-error"


async def test_a_deep_batch_stdin_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    stdin = "[" * 100_000 + "]" * 100_000
    batch = await tools.call("agent_browser", {"args": ["batch", "--bail"], "stdin": stdin})
    assert batch.is_error and batch.details["failureCategory"] == "validation-error"
    assert "more than 64 levels deep" in batch.text and '[["get", "url"]' in batch.text


# --- the last resort -------------------------------------------------------------------


class Word(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    word: str


def _kit(handler: Any) -> Toolkit:
    spec = ToolSpec(
        name="probe",
        title="Probe",
        summary="tests",
        description="A tool for the gate's tests.",
        input_model=Word,
        handler=handler,
        read_only_hint=True,
        destructive_hint=False,
        open_world_hint=False,
    )
    return Toolkit(specs={"probe": spec})


async def test_an_exception_no_tool_handled_is_a_stable_result_and_a_logged_traceback(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def handler(rt: Runtime, inp: Word) -> ToolResult:
        raise RuntimeError("secret internal detail /srv/x.py")

    runtime = Runtime(Settings.load(env={}, cwd=tmp_path), cwd=tmp_path)
    with caplog.at_level(logging.ERROR):
        result = await _kit(handler).call(runtime, "probe", {"word": "hi"})
    assert result.is_error
    assert result.details["failureCategory"] == "aborted"
    assert result.details["internalError"] is True
    assert "internal error" in result.text and "get url" in result.text
    assert "secret internal detail" not in result.text + json.dumps(result.details)
    assert any(
        r.exc_info and "secret internal detail" in str(r.exc_info[1]) for r in caplog.records
    )


async def test_cancellation_still_propagates(tmp_path: Path) -> None:
    import asyncio

    async def handler(rt: Runtime, inp: Word) -> ToolResult:
        raise asyncio.CancelledError

    runtime = Runtime(Settings.load(env={}, cwd=tmp_path), cwd=tmp_path)
    with pytest.raises(asyncio.CancelledError):
        await _kit(handler).call(runtime, "probe", {"word": "hi"})


async def test_an_answer_with_a_lone_surrogate_leaves_well_formed(tmp_path: Path) -> None:
    async def handler(rt: Runtime, inp: Word) -> ToolResult:
        return ToolResult((TextBlock("page \udc80 text"),), {"data": {"title": "t\ud800"}})

    runtime = Runtime(Settings.load(env={}, cwd=tmp_path), cwd=tmp_path)
    result = await _kit(handler).call(runtime, "probe", {"word": "hi"})
    assert result.text == "page \ufffd text"  # what every host writes as UTF-8


async def test_an_unknown_tool_name_is_echoed_short_and_escaped(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    result = await tools.call("x\x00\ud800" + "y" * 5_000_000, {})
    assert result.is_error and result.details["failureCategory"] == "validation-error"
    assert len(result.text) < 2_000 and "\\x00" in result.text and "\\ud800" in result.text
