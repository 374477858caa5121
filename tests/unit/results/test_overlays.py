"""Overlay-blocker evidence: a dialog role plus dismiss-like controls, nothing less."""

from __future__ import annotations

from agent_browser_tools.results.overlays import overlay_blockers


def test_dialog_with_a_close_button_is_reported() -> None:
    refs = {
        "e1": {"role": "button", "name": "Buy now"},
        "e2": {"role": "dialog", "name": "We value your privacy"},
        "e3": {"role": "button", "name": "Close"},
        "e4": {"role": "button", "name": "No thanks"},
    }
    found = overlay_blockers(refs)
    assert found is not None
    assert [c["ref"] for c in found["candidates"]] == ["@e3", "@e4"]
    assert found["candidates"][0]["args"] == ["click", "@e3"]


def test_no_dialog_role_means_no_report_even_with_chrome_words() -> None:
    refs = {
        "e1": {"role": "banner", "name": "privacy"},
        "e2": {"role": "button", "name": "Close"},
        "e3": {"role": "link", "name": "Sign in"},
    }
    assert overlay_blockers(refs) is None


def test_dialog_without_dismiss_controls_is_not_reported_and_candidates_are_bounded() -> None:
    assert (
        overlay_blockers({"e1": {"role": "dialog"}, "e2": {"role": "button", "name": "Save"}})
        is None
    )
    many = {"e0": {"role": "alertdialog", "name": "Session"}}
    many |= {f"e{i}": {"role": "button", "name": "Close"} for i in range(1, 8)}
    found = overlay_blockers(many)
    assert found is not None and len(found["candidates"]) == 3
