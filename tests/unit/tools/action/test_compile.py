"""`agent_browser_action` input rules and compiled argv (pure; nothing is spawned).

Every bad field combination must be rejected before dispatch with the fix in the message, and
every good one must compile to exactly the native argv the contract names: locator actions to
`find`, direct selectors to their ordinary command, selects to `select`.
"""

from __future__ import annotations

import asyncio
from typing import Any, cast

import pytest
from pydantic import ValidationError

from agent_browser_tools.runtime import Runtime
from agent_browser_tools.settings import Settings
from agent_browser_tools.tools.action.compile import ActionRejected, Compiled, compile_action
from agent_browser_tools.tools.action.run import run
from agent_browser_tools.tools.action.schema import ActionInput
from agent_browser_tools.tools.action.spec import SPEC as ACTION
from agent_browser_tools.tools.catalog import build_specs


def compiled(**fields: Any) -> Compiled:
    return compile_action(ActionInput.model_validate(fields))


def rejected(**fields: Any) -> str:
    with pytest.raises(ActionRejected) as caught:
        compiled(**fields)
    return str(caught.value)


# ----- compile shapes ---------------------------------------------------------------------


def test_fill_by_label_compiles_to_find_with_the_text() -> None:
    out = compiled(action="fill", locator="label", value="Email", text="user@example.com")
    assert out.args == ("find", "label", "Email", "fill", "user@example.com")
    assert out.is_find
    assert out.semantic(out.args, None) == {
        "action": "fill",
        "locator": "label",
        "args": ["find", "label", "Email", "fill", "user@example.com"],
    }


def test_role_click_puts_the_name_after_the_action() -> None:
    out = compiled(action="click", locator="role", value="button", name="Submit")
    assert out.args == ("find", "role", "button", "click", "--name", "Submit")


def test_role_field_replaces_the_locator_value_and_implies_the_role_locator() -> None:
    assert compiled(action="click", role="button", name="Submit").args == (
        "find",
        "role",
        "button",
        "click",
        "--name",
        "Submit",
    )
    agreeing = compiled(action="check", locator="role", role="checkbox", value="Checkbox")
    assert agreeing.args == ("find", "role", "checkbox", "check")


def test_role_fill_keeps_text_before_the_name_flag() -> None:
    out = compiled(action="fill", role="textbox", name="Rich notes", text="hello")
    assert out.args == ("find", "role", "textbox", "fill", "hello", "--name", "Rich notes")


@pytest.mark.parametrize("locator", ["text", "label", "placeholder", "alt", "title", "testid"])
def test_every_value_locator_compiles_to_find(locator: str) -> None:
    assert compiled(action="check", locator=locator, value="Subscribe").args == (
        "find",
        locator,
        "Subscribe",
        "check",
    )


@pytest.mark.parametrize(
    ("fields", "args"),
    [
        ({"action": "click", "selector": "#go"}, ("click", "#go")),
        ({"action": "check", "selector": "@e9"}, ("check", "@e9")),
        ({"action": "fill", "selector": "#email", "text": ""}, ("fill", "#email", "")),
    ],
)
def test_direct_selectors_compile_to_their_ordinary_command(
    fields: dict[str, Any], args: tuple[str, ...]
) -> None:
    out = compiled(**fields)
    assert out.args == args
    assert not out.is_find
    assert out.semantic(out.args, out.selector)["selector"] == fields["selector"]


def test_session_is_a_prefix_of_every_compiled_command() -> None:
    session = {"session": "work"}
    find = compiled(action="click", locator="text", value="Go", **session)
    direct = compiled(action="click", selector="#go", **session)
    select = compiled(action="select", selector="#flavor", value="chocolate", **session)
    label = compiled(action="select", locator="label", value="Flavor", values=["x"], **session)
    assert find.args == ("--session", "work", "find", "text", "Go", "click")
    assert find.is_find
    assert direct.args == ("--session", "work", "click", "#go")
    assert select.args == ("--session", "work", "select", "#flavor", "chocolate")
    assert label.prefix == ("--session", "work")


def test_direct_select_takes_one_value_or_several_values() -> None:
    one = compiled(action="select", selector="#flavor", value="chocolate")
    many = compiled(action="select", selector="#toppings", values=["nuts", "fudge"])
    assert one.args == ("select", "#flavor", "chocolate")
    assert many.args == ("select", "#toppings", "nuts", "fudge")
    assert many.semantic(many.args, "#toppings") == {
        "action": "select",
        "selector": "#toppings",
        "values": ["nuts", "fudge"],
        "args": ["select", "#toppings", "nuts", "fudge"],
    }


def test_label_select_needs_resolution_first() -> None:
    out = compiled(action="select", locator="label", value="Flavor", values=["chocolate"])
    assert out.args is None
    assert (out.locator, out.select_role, out.select_name) == ("label", None, "Flavor")
    assert out.values == ("chocolate",)
    assert out.semantic(None, None) == {
        "action": "select",
        "locator": "label",
        "values": ["chocolate"],
        "args": [],
    }


@pytest.mark.parametrize(
    "fields",
    [
        {"locator": "role", "role": "combobox", "name": "Flavor", "value": "chocolate"},
        {"role": "combobox", "name": "Flavor", "values": ["chocolate"]},
        {"locator": "role", "role": "Combobox", "value": "combobox", "values": ["chocolate"]},
        {"locator": "role", "value": "combobox", "name": "Flavor", "values": ["chocolate"]},
    ],
)
def test_role_select_shapes(fields: dict[str, Any]) -> None:
    out = compiled(action="select", **fields)
    assert out.args is None
    assert out.select_role == "combobox"
    assert out.values == ("chocolate",)


def test_listbox_role_select_without_a_name_is_allowed() -> None:
    out = compiled(action="select", role="listbox", values=["nuts", "fudge"])
    assert (out.select_role, out.select_name, out.values) == ("listbox", None, ("nuts", "fudge"))


def test_compiled_argv_echo_is_redacted() -> None:
    out = compiled(action="fill", selector="#token", text="Bearer abcdefghijklmnop")
    echoed = out.semantic(out.args, out.selector)["args"]
    assert "abcdefghijklmnop" not in " ".join(echoed)


# ----- rejections -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "fix"),
    [
        ({"action": "fill", "locator": "label", "value": "Email"}, "fill needs `text`"),
        ({"action": "click", "selector": "#a", "text": "x"}, "`text` is fill text"),
        ({"action": "select", "selector": "#a", "value": "x", "text": "y"}, "`text` is fill"),
        ({"action": "click", "selector": "#a", "values": ["x"]}, "`values` lists select"),
        ({"action": "fill", "selector": "#a", "text": "x", "values": ["x"]}, "`values`"),
        ({"action": "check", "locator": "label", "value": "S", "values": ["x"]}, "`values`"),
        ({"action": "click", "selector": "#a", "locator": "text"}, "cannot be combined"),
        ({"action": "click", "selector": "#a", "role": "button"}, "cannot be combined"),
        ({"action": "fill", "selector": "#a", "name": "N", "text": "x"}, "cannot be combined"),
        ({"action": "select", "selector": "#a", "locator": "label", "value": "x"}, "combined"),
        ({"action": "click", "selector": "#a", "value": "Go"}, "`value` is a locator value"),
        ({"action": "click"}, "needs a target"),
        ({"action": "check", "value": "Subscribe"}, "needs a target"),
        ({"action": "click", "locator": "text", "value": "Go", "name": "Go"}, "only apply"),
        ({"action": "click", "locator": "label", "value": "Go", "role": "button"}, "only apply"),
        ({"action": "click", "locator": "label"}, "non-empty `value`"),
        ({"action": "click", "locator": "text", "value": ""}, "non-empty `value`"),
        ({"action": "click", "locator": "role"}, "needs `role`"),
        ({"action": "click", "locator": "role", "role": "button", "value": "link"}, "disagree"),
        ({"action": "select", "locator": "text", "value": "Flavor"}, "only the role and label"),
        ({"action": "select", "locator": "label", "value": "Flavor"}, "needs the options"),
        ({"action": "select", "locator": "label", "values": ["x"]}, "needs `value`"),
        (
            {"action": "select", "locator": "label", "value": "F", "name": "F", "values": ["x"]},
            "role select",
        ),
        ({"action": "select", "locator": "label", "value": "F", "role": "combobox"}, "role select"),
        ({"action": "select", "role": "button", "value": "x"}, "combobox or listbox"),
        ({"action": "select", "selector": "#a", "value": "x", "values": ["y"]}, "not both"),
        ({"action": "select", "selector": "#a"}, "option(s)"),
        ({"action": "select"}, "select needs `selector`"),
        ({"action": "select", "role": "combobox", "value": "x", "values": ["y"]}, "must equal"),
        ({"action": "select", "locator": "role", "value": "combobox"}, "role select needs"),
        ({"action": "select", "role": "combobox", "name": "Flavor"}, "option(s)"),
    ],
)
def test_bad_combinations_are_rejected_with_the_fix(fields: dict[str, Any], fix: str) -> None:
    assert fix in rejected(**fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"action": "click", "selector": "#a", "sessionMode": "fresh"},
        {"action": "hover", "selector": "#a"},
        {"action": "uncheck", "selector": "#a"},
        {"action": "click", "locator": "css", "value": "#a"},
        {"action": "select", "selector": "#a", "values": []},
        {"action": "click", "selector": ""},
        {"action": "click", "selector": "#a", "timeoutMs": 0},
        {"action": "click", "selector": 3},
        {"action": "click", "selector": "#a", "args": ["click", "#a"]},
    ],
)
def test_schema_rejects_unknown_fields_and_bad_types(fields: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        ActionInput.model_validate(fields)


def test_run_rejects_before_touching_the_runtime() -> None:
    """Validation failures never reach the runtime: a `None` runtime proves nothing ran."""
    no_runtime = cast(Runtime, None)
    bad_fields = asyncio.run(
        ACTION.call(no_runtime, {"action": "click", "selector": "#a", "value": "x"})
    )
    bad_schema = asyncio.run(ACTION.call(no_runtime, {"action": "click", "sessionMode": "fresh"}))
    for result in (bad_fields, bad_schema):
        assert result.is_error
        assert result.details["failureCategory"] == "validation-error"
        assert result.details["validationError"].startswith("agent_browser_action input rejected")
    assert "sessionMode" in bad_schema.details["validationError"]


def test_catalog_wires_the_real_tool_with_a_compact_closed_schema() -> None:
    spec = build_specs(Settings.load(env={}))["agent_browser_action"]
    assert spec is ACTION and spec.load_handler() is run
    assert spec.capability == "action"
    schema = spec.input_schema
    assert schema["additionalProperties"] is False
    assert schema["required"] == ["action"]
    assert "sessionMode" not in schema["properties"]
    assert set(schema["properties"]) == {
        "action",
        "selector",
        "locator",
        "value",
        "values",
        "text",
        "role",
        "name",
        "session",
        "outputPath",
        "timeoutMs",
    }
