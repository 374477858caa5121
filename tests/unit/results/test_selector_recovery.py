"""Selector-miss recovery from snapshot refs (pure): candidates, diagnostics and next actions.

The refs mirror the fixture form as captured from engine 0.39.4
(`tests/fixtures/envelopes/snapshot_interactive.json`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agent_browser_tools.results import selector_recovery as sr
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import refs_from_snapshot
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools.agent_browser.page.selector_miss import apply_find_recovery

ENVELOPE = Path(__file__).parents[2] / "fixtures" / "envelopes" / "snapshot_interactive.json"
FORM_REFS = refs_from_snapshot(json.loads(ENVELOPE.read_text())["stdout"]["data"])
SNAPSHOT: dict[str, Any] = {"refs": {}, "target": {"url": "http://127.0.0.1/form.html"}}
SECRET = "Draft-7Q secret note"


def target(*operands: str, name: str | None = None) -> sr.FindTarget:
    found = sr.find_target(operands, name)
    assert found is not None
    return found


def test_find_target_reads_semantic_locators_only() -> None:
    assert target("label", "Email", "fill", SECRET).to_dict() == {
        "locator": "label",
        "value": "Email",
        "action": "fill",
    }
    assert target("role", "button", name="Submit").action == "click"  # the engine's default
    assert target("role", "Button", "click", name="Submit").role == "button"
    assert sr.find_target(("nth", "2", ".card", "click"), None) is None
    assert sr.find_target(("first", "li"), None) is None
    assert sr.find_target(("label",), None) is None


def test_exact_matches_use_role_for_role_locators_and_names_for_all() -> None:
    assert sr.exact_matches(target("label", "Submit", "click"), FORM_REFS) == [
        ("e13", FORM_REFS["e13"])
    ]
    assert sr.exact_matches(target("role", "textbox", "click", name="Submit"), FORM_REFS) == []
    assert [r for r, _ in sr.exact_matches(target("text", "Rich  notes", "fill"), FORM_REFS)] == [
        "e11"
    ]
    assert sr.exact_matches(target("label", "submit", "click"), FORM_REFS) == []


def test_click_fallback_carries_direct_ref_args_with_the_session_prefix() -> None:
    find = target("label", "Submit", "click")
    diag = sr.visible_ref_fallback(
        find, sr.exact_matches(find, FORM_REFS), SNAPSHOT, ["--session", "s1"]
    )
    assert diag is not None
    assert diag["candidates"][0]["args"] == ["--session", "s1", "click", "@e13"]
    assert diag["snapshot"] == SNAPSHOT
    actions = sr.visible_ref_actions(diag)
    assert [(a.id, a.params) for a in actions] == [
        ("try-current-visible-ref", {"args": ["--session", "s1", "click", "@e13"]})
    ]
    assert sr.fallback_text(diag).startswith("Current snapshot ref fallback")


def test_fill_recovery_never_repeats_the_text_types_or_submits() -> None:
    obs = Observation(success=False)
    apply_find_recovery(
        obs, target("placeholder", "Rich notes", "fill", SECRET), FORM_REFS, SNAPSHOT, []
    )
    fallback, rich = obs.extra["visibleRefFallback"], obs.extra["richInputRecovery"]
    assert "args" not in fallback["candidates"][0]
    assert rich["candidates"] == [
        {
            "ref": "@e11",
            "role": "textbox",
            "name": "Rich notes",
            "focusArgs": ["focus", "@e11"],
            "clickArgs": ["click", "@e11"],
            "reason": rich["candidates"][0]["reason"],
        }
    ]
    assert rich["nextActionIds"] == ["focus-current-editable-ref", "click-current-editable-ref"]
    assert [a.id for a in obs.next_actions] == rich["nextActionIds"]
    everything = json.dumps([obs.to_dict(), obs.warnings])
    assert SECRET not in everything
    for action in obs.next_actions:
        args = action.params["args"]
        assert args[0] in ("focus", "click")
        assert not {"press", "keyboard", "Enter", "submit", "fill", "type"} & set(args)
    assert any(w.startswith("Rich input recovery") for w in obs.warnings)


def test_several_editable_candidates_get_numbered_ids_and_stay_bounded() -> None:
    refs = {f"e{i}": RefInfo(role="textbox", name="Notes") for i in range(1, 6)}
    find = target("label", "Notes", "fill", SECRET)
    rich = sr.rich_input_recovery(find, sr.exact_matches(find, refs), [])
    assert rich is not None
    assert len(rich["candidates"]) == sr.MAX_CANDIDATES
    assert rich["nextActionIds"] == [
        "focus-current-editable-ref-1",
        "click-current-editable-ref-1",
        "focus-current-editable-ref-2",
        "click-current-editable-ref-2",
        "focus-current-editable-ref-3",
        "click-current-editable-ref-3",
    ]
    assert [a.id for a in sr.rich_input_actions(rich)] == rich["nextActionIds"]


def test_non_editable_exact_match_gets_no_rich_input_recovery() -> None:
    find = target("label", "Submit", "fill", SECRET)
    assert sr.rich_input_recovery(find, sr.exact_matches(find, FORM_REFS), []) is None


def test_click_miss_without_exact_match_offers_bounded_name_candidates() -> None:
    refs = {
        "e1": RefInfo(role="button", name="Save draft"),
        "e2": RefInfo(role="link", name="Save all drafts now"),
        "e3": RefInfo(role="button", name="Cancel"),
        "e4": RefInfo(role="textbox", name="Save"),
        "e5": RefInfo(role="button", name="Save copy"),
        "e6": RefInfo(role="button", name="Save later"),
    }
    obs = Observation(success=False)
    apply_find_recovery(obs, target("text", "save", "click"), refs, SNAPSHOT, [])
    guesses = obs.extra["nameCandidateFallback"]["candidates"]
    assert [c["ref"] for c in guesses] == ["@e1", "@e2", "@e5"]
    assert guesses[0]["args"] == [
        "find",
        "role",
        "button",
        "click",
        "--name",
        "Save draft",
        "--exact",
    ]
    assert [a.id for a in obs.next_actions] == [
        "try-name-candidate-1",
        "try-name-candidate-2",
        "try-name-candidate-3",
        "refresh-interactive-refs",
    ]
    assert "visibleRefFallback" not in obs.extra
    fill = Observation(success=False)
    apply_find_recovery(fill, target("text", "save", "fill", SECRET), refs, SNAPSHOT, [])
    assert "nameCandidateFallback" not in fill.extra


def test_select_targets_filter_by_role_and_exact_name() -> None:
    assert sr.select_targets(FORM_REFS, None, "Flavor") == [("e7", FORM_REFS["e7"])]
    assert sr.select_targets(FORM_REFS, "listbox", "Flavor") == []
    assert [r for r, _ in sr.select_targets(FORM_REFS, None, None)] == ["e7", "e8"]


def test_numbering() -> None:
    assert sr.numbered("x", 0, 1) == "x"
    assert [sr.numbered("x", i, 2) for i in range(2)] == ["x-1", "x-2"]
