"""The tool registry: what the model sees, enabling, allowlists and the context budgets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict

from agent_browser_tools import playbook
from agent_browser_tools.api import BrowserTools
from agent_browser_tools.results.tool_result import TextBlock, ToolResult
from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools import capabilities
from agent_browser_tools.tools.registry import Toolkit, ToolSpec

ALWAYS_ON_BUDGET = 6_000
INSTRUCTIONS_BUDGET = 3_000


def _tools(tmp_path: Path, tools: list[str] | None = None, **env: str) -> BrowserTools:
    settings = Settings.load(
        env={
            "HOME": str(tmp_path),
            "PATH": "/usr/bin",
            **env,
            "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state"),
        },
        cwd=tmp_path,
    )
    return BrowserTools(settings=settings, tools=tools, persist=False)


def _names(tools: BrowserTools) -> list[str]:
    return [spec.name for spec in tools.listed_tools()]


def test_web_search_is_listed_only_when_a_credential_resolves(tmp_path: Path) -> None:
    assert "agent_browser_web_search" not in _names(_tools(tmp_path))
    assert "agent_browser_web_search" in _names(_tools(tmp_path, EXA_API_KEY="exa-test-key"))


def test_always_on_list_and_instructions_fit_their_budgets(tmp_path: Path) -> None:
    tools = _tools(tmp_path, EXA_API_KEY="exa-test-key", BRAVE_API_KEY="brave-test-key")
    size = len(json.dumps(tools.tool_specs()))
    assert size <= ALWAYS_ON_BUDGET, size
    assert len(playbook.INSTRUCTIONS) <= INSTRUCTIONS_BUDGET


async def test_advanced_tools_start_inactive_and_unknown_ones_are_refused(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    assert "agent_browser_qa" not in _names(tools)
    refused = await tools.call("agent_browser_qa", {"url": "http://x.test"})
    assert refused.is_error and "enable it first" in refused.text
    inventory = await tools.call("agent_browser_tools", {})
    rows = {row["name"]: row["status"] for row in inventory.details["inventory"]}
    assert rows["agent_browser"] == "active" and rows["agent_browser_qa"] != "active"
    bad = await tools.call("agent_browser_tools", {"enable": ["teleport"]})
    assert bad.is_error and bad.details["failureCategory"] == "validation-error"


async def test_the_inventory_lists_every_tool_with_its_status_then_the_guide_and_reference(
    tmp_path: Path,
) -> None:
    """`agent_browser_tools {}`: one row per tool (active, inactive or unavailable, with why),
    then the full guidance and the generated command reference, on demand."""
    tools = _tools(tmp_path, tools=["agent_browser", "agent_browser_tools", "agent_browser_qa"])
    result = await tools.call("agent_browser_tools", {})
    assert not result.is_error, result.text
    rows = {row["name"]: row for row in result.details["inventory"]}
    advanced = {"qa", "action", "electron", "source", "network_source"}
    assert {f"agent_browser_{name}" for name in advanced} <= set(rows)
    assert rows["agent_browser"]["status"] == "active"
    assert rows["agent_browser_tools"]["status"] == "active"
    assert rows["agent_browser_qa"]["status"] == "inactive"
    assert rows["agent_browser_action"]["status"] == "unavailable (excluded by allowlist)"
    assert all(row["description"] for row in rows.values())
    assert rows["agent_browser_qa"]["capability"] == "qa"
    assert "- agent_browser_qa [inactive]: " in result.text
    assert playbook.FULL_GUIDANCE in result.text
    assert playbook.command_reference() in result.text


async def test_allowlist_excludes_tools_and_enabling_cannot_bypass_it(tmp_path: Path) -> None:
    tools = _tools(tmp_path, tools=["agent_browser", "agent_browser_tools"])
    assert _names(tools) == ["agent_browser", "agent_browser_tools"]
    result = await tools.call("agent_browser_tools", {"enable": ["qa"]})
    assert result.is_error and "allowlist" in result.text
    assert "agent_browser_qa" not in _names(tools)
    direct = await tools.call("agent_browser_qa", {"url": "http://x.test"})
    assert direct.is_error and "unavailable" in direct.text


@pytest.mark.parametrize("flavor", ["openai", "anthropic"])
def test_tool_specs_have_the_function_tool_shapes(tmp_path: Path, flavor: str) -> None:
    specs = _tools(tmp_path).tool_specs(flavor)  # type: ignore[arg-type]
    for spec in specs:
        if flavor == "openai":
            assert spec["type"] == "function"
            assert set(spec["function"]) == {"name", "description", "parameters"}
            assert spec["function"]["parameters"]["type"] == "object"
        else:
            assert set(spec) == {"name", "description", "input_schema"}
            assert spec["input_schema"]["type"] == "object"


def test_command_reference_is_generated_from_the_taxonomy() -> None:
    reference = playbook.command_reference()
    for command in ("`open`", "`snapshot`", "`get url`", "`network requests`", "`batch`"):
        assert command in reference


# --- one gate, one validation -------------------------------------------------------------


class Echo(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    word: str


def _echo_kit(seen: list[Any]) -> Toolkit:
    async def handler(rt: Runtime, inp: Echo) -> ToolResult:
        seen.append(inp)
        return ToolResult((TextBlock(inp.word),))

    spec = ToolSpec(
        name="echo",
        title="Echo",
        summary="tests",
        description="Echo a word.",
        input_model=Echo,
        handler=handler,
        read_only_hint=True,
        destructive_hint=False,
        open_world_hint=False,
        field_hints={"text": "the field is `word`"},
    )
    return Toolkit(specs={"echo": spec})


async def test_toolkit_call_validates_once_and_hands_over_the_typed_input(tmp_path: Path) -> None:
    seen: list[Any] = []
    kit = _echo_kit(seen)
    no_runtime = Runtime(Settings.load(env={}, cwd=tmp_path), cwd=tmp_path)
    assert (await kit.call(no_runtime, "echo", {"word": "hi"})).text == "hi"
    assert seen == [Echo(word="hi")]
    bad = await kit.call(no_runtime, "echo", {"text": "hi"})
    assert bad.is_error and bad.details["failureCategory"] == "validation-error"
    assert bad.details["validationError"] == (
        "echo input rejected: missing required field `word`; unknown field `text` (the field is "
        "`word`). echo accepts only word."
    )
    for refused in (
        await kit.call(no_runtime, "echo", ["hi"]),
        await kit.call(no_runtime, "nope", {}),
    ):
        assert refused.is_error and refused.details["failureCategory"] == "validation-error"
    assert len(seen) == 1


async def test_direct_tool_rejections_render_json_when_the_args_ask_for_it(
    tmp_path: Path,
) -> None:
    tools = _tools(tmp_path)
    prose = await tools.call("agent_browser", {"args": ["get", "url"], "bogus": 1})
    assert prose.text.startswith("Error: agent_browser input rejected: unknown field `bogus`")
    assert prose.details["args"] == ["get", "url"]
    shaped = await tools.call("agent_browser", {"args": ["get", "url", "--json"], "bogus": 1})
    assert json.loads(shaped.text)["failureCategory"] == "validation-error"
    other = await tools.call("agent_browser_code", {"code": "1", "args": ["--json"]})
    assert other.text.startswith("Error: agent_browser_code input rejected")


def test_enable_is_bound_to_the_conversation_toolkit(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    bound = tools.toolkit.specs["agent_browser_tools"]
    assert bound.handler is not capabilities.SPEC.handler
    assert bound.input_schema == capabilities.SPEC.input_schema
