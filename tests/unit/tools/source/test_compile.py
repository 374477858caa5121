"""`agent_browser_source` input validation and its compiled batch (pure, no engine)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from agent_browser_tools.api import BrowserTools
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.source.compile import (
    SourceInput,
    SourceRejected,
    compile_source,
)


def _argv(**fields: Any) -> list[list[str]]:
    compiled = compile_source(SourceInput.model_validate(fields))
    return [list(step.argv) for step in compiled.steps]


def test_selector_reads_visibility_html_and_the_react_tree() -> None:
    assert _argv(selector="#save") == [
        ["is", "visible", "#save"],
        ["get", "html", "#save"],
        ["react", "tree"],
    ]


def test_dom_hints_off_skips_get_html() -> None:
    assert _argv(selector="#save", includeDomHints=False) == [
        ["is", "visible", "#save"],
        ["react", "tree"],
    ]


def test_fiber_id_is_inspected_and_component_needs_only_the_tree() -> None:
    assert _argv(reactFiberId=7) == [["react", "tree"], ["react", "inspect", "7"]]
    assert _argv(reactFiberId="12") == [["react", "tree"], ["react", "inspect", "12"]]
    assert _argv(componentName="SaveButton") == [["react", "tree"]]


def test_details_carry_the_plan_and_the_query() -> None:
    compiled = compile_source(SourceInput(selector="#save", componentName="SaveButton"))
    plan = compiled.details()["compiledSourceLookup"]
    assert plan["args"] == ["batch"]
    assert json.loads(plan["stdin"]) == plan["steps"]
    assert plan["query"] == {
        "selector": "#save",
        "componentName": "SaveButton",
        "includeDomHints": True,
    }


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "at least one of selector, reactFiberId or componentName"),
        ({"includeDomHints": False}, "at least one of"),
        ({"reactFiberId": "7; rm -rf /"}, "not a fiber id"),
        ({"reactFiberId": 0}, "not a fiber id"),
        ({"reactFiberId": "²"}, "not a fiber id"),
        ({"componentName": "Save Button"}, "not a JavaScript identifier"),
        ({"componentName": "a.*"}, "not a JavaScript identifier"),
    ],
)
def test_rejected_inputs(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(SourceRejected, match=message):
        compile_source(SourceInput.model_validate(fields))


@pytest.mark.parametrize(
    "fields",
    [
        {"selector": "#a", "maxWorkspaceFiles": 5001},
        {"selector": "#a", "maxWorkspaceFiles": 0},
        {"selector": "#a", "unknown": 1},
        {"selector": ""},
    ],
)
def test_schema_bounds(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        SourceInput.model_validate(fields)


def _tools(tmp_path: Path) -> BrowserTools:
    settings = Settings.load(
        env={"HOME": str(tmp_path), "AGENT_BROWSER_TOOLS_STATE_DIR": str(tmp_path / "state")},
        cwd=tmp_path,
    )
    return BrowserTools(settings=settings, cwd=tmp_path, persist=False)


@pytest.mark.parametrize(
    "params",
    [{}, {"includeDomHints": True}, {"componentName": "not valid"}, {"maxWorkspaceFiles": 9000}],
)
async def test_the_tool_rejects_before_any_dispatch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, params: dict[str, Any]
) -> None:
    tools = _tools(tmp_path)

    async def no_spawn(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("source lookup dispatched an engine command for an invalid input")

    monkeypatch.setattr(tools.runtime, "spawn", no_spawn)
    enabled = await tools.call("agent_browser_tools", {"enable": ["source"]})
    assert not enabled.is_error, enabled.text
    result = await tools.call("agent_browser_source", params)
    assert result.is_error
    assert result.details["failureCategory"] == "validation-error", result.text
    assert "compiledSourceLookup" not in result.details


def test_declared_read_only_and_enabled_by_source(tmp_path: Path) -> None:
    spec = _tools(tmp_path).toolkit.specs["agent_browser_source"]
    assert spec.implemented and spec.capability == "source"
    assert spec.read_only_hint and not spec.destructive_hint
    assert set(spec.input_schema["properties"]) == {
        "selector",
        "reactFiberId",
        "componentName",
        "includeDomHints",
        "maxWorkspaceFiles",
        "outputPath",
        "timeoutMs",
        "sessionMode",
    }
