"""`overlay_probe.already_there`: a dialog the session's recorded snapshot already showed is
not something the click opened."""

from __future__ import annotations

from typing import Any

from agent_browser_tools.results.overlays import overlay_blockers
from agent_browser_tools.state.models import RefInfo
from agent_browser_tools.tools.agent_browser.page.overlay_probe import already_there

NOW = {"e7": {"role": "dialog", "name": "Cookies"}, "e8": {"role": "button", "name": "Close"}}
"""The post-click read (engine ids)."""


def _found() -> dict[str, Any]:
    found = overlay_blockers(NOW)
    assert found is not None
    return found


def test_a_dialog_in_the_recorded_snapshot_is_evidence_with_the_recorded_refs() -> None:
    prior = {
        "e1": RefInfo(role="link", name="More"),
        "e2": RefInfo(role="dialog", name="Cookies"),
        "e3": RefInfo(role="button", name="Close"),
    }
    known = already_there(prior, NOW, "", _found())
    assert known is not None and known["preexisting"] is True
    (candidate,) = known["candidates"]
    assert candidate["ref"] == "@e3" and candidate["args"] == ["click", "@e3"]
    assert "already on the page before this click" in known["summary"]


def test_an_interactive_snapshot_without_dialogs_matches_on_the_dismiss_controls() -> None:
    prior = {"e1": RefInfo(role="link", name="More"), "e3": RefInfo(role="button", name="Close")}
    known = already_there(prior, NOW, "", _found())
    assert known is not None and known["candidates"][0]["ref"] == "@e3"


def test_a_new_dialog_or_new_controls_may_be_the_clicks_doing() -> None:
    other = {
        "e2": RefInfo(role="dialog", name="Newsletter"),
        "e3": RefInfo(role="button", name="Close"),
    }
    assert already_there(other, NOW, "", _found()) is None, "a different dialog was there"
    plain = {"e1": RefInfo(role="link", name="More")}
    assert already_there(plain, NOW, "", _found()) is None, "its Close button is new"
    assert already_there({}, NOW, "", _found()) is None, "nothing recorded"
