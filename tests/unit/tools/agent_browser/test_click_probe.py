"""`click_probe.target_of`: only a target whose identity can be proven gets a dispatch probe."""

from __future__ import annotations

from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.taxonomy import CommandMatch, resolve_command
from agent_browser_tools.tools.agent_browser.click_probe import target_of

REFS = {
    "e1": RefInfo(role="button", name="Save", engine="e7"),
    "e2": RefInfo(role="link", name="Home"),
    "e3": RefInfo(role="button", name="Delete"),
    "e4": RefInfo(role="button", name="Delete"),
    "e5": RefInfo(role="checkbox", name=""),
}


def _click(*args: str) -> CommandMatch:
    match = resolve_command(["click", *args])
    assert match is not None
    return match


def test_a_unique_eligible_ref_is_located_by_role_and_name_and_read_back_by_engine_id() -> None:
    target = target_of(_click("@e1"), REFS)
    assert target is not None
    assert target.locate == {"role": "button", "name": "Save"}
    assert target.selector == "@e7", "the read-back speaks the engine's id"
    assert target.descriptor == {
        "kind": "accessible",
        "refId": "@e1",
        "role": "button",
        "name": "Save",
    }


def test_an_xpath_target_is_located_by_its_expression() -> None:
    target = target_of(_click("xpath=//button[1]"), REFS)
    assert target is not None and target.locate == {"xpath": "//button[1]"}
    assert target.descriptor == {"kind": "xpath", "selector": "xpath=//button[1]"}


def test_unprovable_targets_get_no_probe() -> None:
    """A link is not an eligible role, look-alike names are no proof of identity, a nameless
    box cannot be found by name, and a CSS selector or unknown ref names no recorded
    element."""
    for operand in ("@e2", "@e3", "@e5", "#save", "@e99"):
        assert target_of(_click(operand), REFS) is None, operand
