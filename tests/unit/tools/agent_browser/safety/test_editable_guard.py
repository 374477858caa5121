"""Typing into a ref whose snapshot role takes no text is refused before dispatch (pure)."""

from __future__ import annotations

import pytest

from agent_browser_tools.tools.agent_browser import guards
from tests.support.plans import managed, page, plan

STATE = managed(page())


@pytest.mark.parametrize(("args", "ref", "role"), [
    (["fill", "@e13", "Ada"], "@e13", "button"),
    (["type", "@e9", "yes"], "@e9", "checkbox"),
    (["fill", "e13", "Ada"], "@e13", "button"),
])  # fmt: skip
def test_fill_or_type_on_a_non_text_role_is_a_validation_error(
    args: list[str], ref: str, role: str
) -> None:
    refused = guards.refusal(plan(args, STATE), STATE)
    assert refused is not None and refused.failure_category is not None
    assert refused.failure_category.value == "validation-error"
    assert refused.extra["notEditable"] == {"ref": ref, "role": role, "step": 1}
    assert f"{ref} is {role}" in (refused.error or "") and "nothing was sent" in (
        refused.error or ""
    )
    assert [a.id for a in refused.next_actions] == ["refresh-interactive-refs"]


@pytest.mark.parametrize("args", [
    ["fill", "@e3", "Ada"],  # a textbox
    ["click", "@e13"],  # the right verb for a button
    ["fill", "#name", "Ada"],  # a selector: the engine resolves it, not our snapshot
    ["get", "text", "@e13"],  # reads are not typing
])  # fmt: skip
def test_text_fields_clicks_selectors_and_reads_pass(args: list[str]) -> None:
    assert guards.refusal(plan(args, STATE), STATE) is None


def test_a_batch_names_the_step_that_types_into_a_button() -> None:
    rows = [["fill", "@e3", "Ada"], ["fill", "@e13", "go"]]
    refused = guards.refusal(plan(["batch", "--bail"], STATE, rows=rows), STATE)
    assert refused is not None and refused.extra["notEditable"]["step"] == 2
    assert (refused.error or "").startswith("Batch step 2: ")
