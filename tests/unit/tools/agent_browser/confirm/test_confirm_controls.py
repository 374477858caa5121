"""Which answers are genuine native confirmation controls (pure)."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.taxonomy import CommandMatch, ConfirmationRole, resolve_command
from agent_browser_tools.tools.agent_browser.confirm.confirm_controls import (
    control_of,
    decision_of,
    inner_data,
    inner_failure,
)

BASE = {"confirmation_required": True, "confirmation_id": "r1", "action": "click"}


def _match(*words: str) -> CommandMatch:
    match = resolve_command(list(words))
    assert match is not None
    return match


def test_the_engine_shape_is_a_genuine_control() -> None:
    control = control_of({**BASE, "lifecycle": {}}, _match("click", "#b"))
    assert control is not None and control.genuine and control.id == "r1"


def test_values_below_the_top_level_are_never_a_control() -> None:
    """An eval's value sits under `result`: page script cannot raise a control."""
    assert control_of({"origin": "https://a.test/", "result": BASE}, _match("eval", "1")) is None
    assert control_of({"result": str(BASE)}, None) is None


def test_capabilities_are_only_accepted_on_an_explicit_url_read() -> None:
    caps = {**BASE, "action": "read", "capabilities": {"readRequiresConfirmation": True}}
    read = control_of(caps, _match("read", "https://a.test/"))
    assert read is not None and read.genuine
    assert read.capabilities == {"readRequiresConfirmation": True}
    click = control_of(caps, _match("click", "#b"))
    assert click is not None and not click.genuine


def test_a_continuation_must_name_the_requested_url_with_guidance() -> None:
    tab = _match("tab", "new", "--label", "docs", "https://b.test/")
    data: dict[str, Any] = {**BASE, "action": "tab_new"}
    good = control_of(
        {**data, "after_confirmation": ["open", "https://b.test/"], "guidance": "then open"}, tab
    )
    assert good is not None and good.genuine and good.after_url == "https://b.test/"
    for bad in (
        {**data, "after_confirmation": ["open", "https://c.test/"], "guidance": "x"},
        {**data, "after_confirmation": ["open", "https://b.test/"], "guidance": " "},
        {**data, "after_confirmation": "open https://b.test/", "guidance": "x"},
        {**BASE, "after_confirmation": ["open", "https://b.test/"], "guidance": "x"},
    ):
        control = control_of(bad, tab)
        assert control is not None and not control.genuine and control.after_url is None


def test_a_confirm_answer_exposes_the_approved_actions_own_response() -> None:
    failed = {"confirmed": True, "action": "click", "result": {"success": False, "error": "gone"}}
    decision = decision_of(failed, ConfirmationRole.APPROVE)
    assert decision is not None and inner_failure(decision) == "gone"
    nested = {"confirmed": True, "result": {"success": True, "data": BASE}}
    again = decision_of(nested, ConfirmationRole.APPROVE)
    assert again is not None and control_of(inner_data(again), None) is not None
    assert decision_of(failed, ConfirmationRole.DENY) is None, "a role decides which shape"
