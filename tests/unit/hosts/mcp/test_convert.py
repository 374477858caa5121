"""`tools/list` entries carry each spec's title and behaviour hints as MCP annotations; the
message budget's measure bounds what the SDK actually sends."""

from __future__ import annotations

import mcp_types as types
import pytest

from agent_browser_tools.hosts.mcp import convert
from agent_browser_tools.results.message_budget import fit_message, message_bytes
from agent_browser_tools.results.tool_result import ImageBlock, TextBlock, ToolResult
from agent_browser_tools.tools.catalog import declared
from agent_browser_tools.tools.registry import ToolSpec


@pytest.mark.parametrize("spec", declared(), ids=lambda s: s.name)
def test_every_tool_is_listed_with_title_and_annotations(spec: ToolSpec) -> None:
    tool = convert.tool_to_mcp(spec)
    assert (tool.name, tool.title, tool.description) == (spec.name, spec.title, spec.description)
    assert tool.input_schema == spec.input_schema
    hints = tool.annotations
    assert hints is not None and hints.title == spec.title
    assert hints.read_only_hint is spec.read_only_hint
    assert hints.destructive_hint is spec.destructive_hint
    assert hints.idempotent_hint is spec.idempotent_hint
    assert hints.open_world_hint is spec.open_world_hint


def test_annotations_use_the_mcp_wire_names() -> None:
    direct = next(s for s in declared() if s.name == "agent_browser")
    wire = convert.tool_to_mcp(direct).model_dump(by_alias=True, mode="json", exclude_none=True)
    assert wire["title"] == "Browser"
    assert wire["annotations"] == {
        "title": "Browser",
        "readOnlyHint": False,
        "destructiveHint": True,
        "idempotentHint": False,
        "openWorldHint": True,
    }
    search = next(s for s in declared() if s.name == "agent_browser_web_search")
    hints = convert.tool_to_mcp(search).model_dump(by_alias=True, exclude_none=True)
    assert hints["annotations"] == {
        "title": "Web search",
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": True,
    }


def test_details_with_a_lone_surrogate_are_mended_on_the_way_to_the_wire() -> None:
    """The SDK cannot write a lone surrogate as UTF-8 (it would fail the whole answer)."""
    details = {"data": {"title": "t\ud800", "emoji": "😀", "n": [1, None]}, "k\udc80": "v"}
    result = ToolResult(content=(TextBlock(text="ok"),), details=details)
    mcp = convert.result_to_mcp(result)
    mcp.model_dump_json(by_alias=True).encode("utf-8")
    assert mcp.meta is not None
    assert mcp.meta[convert.DETAILS_META_KEY] == {
        "data": {"title": "t\ufffd", "emoji": "😀", "n": [1, None]},
        "k\ufffd": "v",
    }
    plain = {"data": {"emoji": "😀"}}
    converted = convert.result_to_mcp(ToolResult(content=(), details=plain))
    assert converted.meta is not None and converted.meta[convert.DETAILS_META_KEY] == plain


def _wire_bytes(result: ToolResult) -> int:
    """The bytes the SDK writes for this answer (its own JSON-RPC serialization)."""
    call = convert.result_to_mcp(result).model_dump(by_alias=True, exclude_unset=True)
    message = types.JSONRPCResponse(jsonrpc="2.0", id=2**53, result=call)
    return len(message.model_dump_json(by_alias=True, exclude_unset=True).encode("utf-8"))


@pytest.mark.parametrize(
    "text", ["plain ascii " * 5_000, 'é😀\u2028\x00"\\<>' * 5_000, "\n".join(["row"] * 9_000)]
)
def test_the_budget_measure_is_never_below_what_the_sdk_sends(text: str) -> None:
    """`message_bytes` (ASCII-escaped JSON) bounds the real message from above, so an answer
    within the budget is within it on the wire too, whatever its characters."""
    image = ImageBlock(data="iVBORw0KGgo" * 1_000, mime_type="image/png", path="/s/a.png")
    details = {"resultCategory": "success", "data": {"text": text, "n": [1, 2.5, None]}}
    result = ToolResult(content=(TextBlock(text=text), image), details=details)
    assert message_bytes(result) >= _wire_bytes(result)
    fitted = fit_message(result, lambda stem, suffix, data: f"/s/{stem}{suffix}", budget=16_384)
    assert _wire_bytes(fitted) <= message_bytes(fitted) <= 16_384
