"""Every tool's schema works under strict function calling and in every spec flavour.

Strict function calling (OpenAI `strict`, the Agents SDK's `convert_schemas_to_strict`) makes
every field required; the model must then be able to say "not given", so optional fields
accept `null` and every tool reads `null` as absent.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator  # type: ignore[import-untyped]  # mcp's own dep

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.catalog import declared
from agent_browser_tools.tools.flavors import FLAVORS, SpecFlavor, strict_schema
from agent_browser_tools.tools.registry import ToolSpec, absent_nulls
from tests.support.strict_schema import accepts_null, agents_sdk_strict, strict_violations

SPECS = {spec.name: spec for spec in declared(web_search=True)}
REQUIRED_VALUES: dict[str, dict[str, Any]] = {
    "agent_browser": {"args": ["open", "http://x.test/"]},
    "agent_browser_code": {"code": "return 1"},
    "agent_browser_web_search": {"query": "strict schemas"},
    "agent_browser_action": {"action": "click", "selector": "#go"},
    "agent_browser_qa": {"url": "http://x.test/"},
    "agent_browser_electron": {"action": "list"},
    "agent_browser_source": {"selector": "#app"},
    "agent_browser_network_source": {"filter": "/api"},
}
"""Per tool, the fields a valid call needs; every other field is sent as `null`."""


def _all_null_call(spec: ToolSpec) -> dict[str, Any]:
    given = REQUIRED_VALUES.get(spec.name, {})
    return {name: given.get(name) for name in spec.input_schema["properties"]}


def _tools(tmp_path: Path) -> BrowserTools:
    settings = Settings.load(
        env={"AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")}, cwd=tmp_path
    )
    return BrowserTools(settings=settings, persist=False)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_strict_schema_passes_the_strict_rules(name: str) -> None:
    schema = strict_schema(SPECS[name].input_schema)
    assert strict_violations(schema) == []
    assert agents_sdk_strict(schema) == schema  # the SDK's conversion leaves it as it is


@pytest.mark.parametrize("name", sorted(SPECS))
def test_published_optional_fields_accept_null_even_after_the_sdk_conversion(
    name: str,
) -> None:
    """The Agents SDK converts the published (MCP) schema itself: every field becomes
    required, so an optional one that refuses `null` forces the model to make a value up."""
    schema = SPECS[name].input_schema
    optional = set(schema["properties"]) - set(schema.get("required", ()))
    converted = agents_sdk_strict(schema)
    for field in optional:
        assert accepts_null(schema["properties"][field]), field
        assert accepts_null(converted["properties"][field]), field
        assert field in converted["required"]


def test_the_checker_catches_what_strict_mode_refuses() -> None:
    loose = {
        "type": "object",
        "properties": {"a": {"type": "string", "minLength": 1, "default": "x"}},
    }
    problems = strict_violations(loose)
    assert "$: additionalProperties must be false" in problems
    assert "$: every property must be in required" in problems
    assert "$.a: unsupported keyword 'minLength'" in problems
    assert "$.a: unsupported keyword 'default'" in problems
    assert strict_violations(strict_schema(loose)) == []


@pytest.mark.parametrize("name", sorted(SPECS))
def test_a_call_with_every_optional_field_null_is_valid(name: str) -> None:
    spec = SPECS[name]
    call = _all_null_call(spec)
    for schema in (spec.input_schema, strict_schema(spec.input_schema)):
        Draft202012Validator(schema).validate(call)
    spec.input_model.model_validate(absent_nulls(call))


async def test_every_optional_field_null_runs_the_tools_tool(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    try:
        listed = await tools.call("agent_browser_tools", {"enable": None})
        assert not listed.is_error, listed.text
        enabled = await tools.call("agent_browser_tools", {"enable": ["qa"]})
        assert not enabled.is_error, enabled.text
        names = [spec["name"] for spec in tools.tool_specs("anthropic", strict=True)]
        assert "agent_browser_qa" in names  # re-read after an enable: the new tool is there
    finally:
        await tools.aclose()


@pytest.mark.parametrize(
    ("tool", "given", "expected"),
    [
        ("agent_browser_code", {"code": "return 1 + 1"}, "Output:\n2"),
        ("agent_browser_electron", {"action": "status", "all": True}, "0 launch record(s)"),
    ],
)
async def test_every_optional_field_null_runs_tools_that_need_no_browser(
    tmp_path: Path, tool: str, given: dict[str, Any], expected: str
) -> None:
    tools = _tools(tmp_path)
    try:
        enabled = await tools.call("agent_browser_tools", {"enable": ["electron"]})
        assert not enabled.is_error, enabled.text
        nulls = {name: None for name in SPECS[tool].input_schema["properties"]}
        result = await tools.call(tool, {**nulls, **given})
        assert not result.is_error, result.text
        assert expected in result.text
    finally:
        await tools.aclose()


async def test_null_for_a_required_field_is_refused_as_missing(tmp_path: Path) -> None:
    tools = _tools(tmp_path)
    try:
        result = await tools.call("agent_browser", {"args": None, "stdin": None})
        assert result.is_error
        assert result.details["failureCategory"] == "validation-error"
        assert "args" in result.text
    finally:
        await tools.aclose()


@pytest.mark.parametrize("strict", [False, True])
def test_every_flavour_has_its_api_shape(tmp_path: Path, strict: bool) -> None:
    tools = _tools(tmp_path)
    chat: tuple[SpecFlavor, ...] = ("chat", "openai")
    for flavor in chat:
        for spec in tools.tool_specs(flavor, strict=strict):
            assert spec["type"] == "function"
            expected = {"name", "description", "parameters"} | ({"strict"} if strict else set())
            assert set(spec["function"]) == expected
    for spec in tools.tool_specs("responses", strict=strict):
        assert set(spec) == {"type", "name", "description", "parameters", "strict"}
        assert spec["type"] == "function" and spec["strict"] is strict
    anthropic: tuple[SpecFlavor, ...] = ("anthropic", "generic")
    for flavor in anthropic:
        for spec in tools.tool_specs(flavor, strict=strict):
            assert set(spec) == {"name", "description", "input_schema"}
            assert (strict_violations(spec["input_schema"]) == []) is strict


def test_an_unknown_flavour_raises_with_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as raised:
        _tools(tmp_path).tool_specs("gemini")  # type: ignore[arg-type]
    assert "gemini" in str(raised.value)
    assert all(flavor in str(raised.value) for flavor in FLAVORS)
