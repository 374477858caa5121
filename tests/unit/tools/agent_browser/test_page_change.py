"""`page_change.annotate`: a navigation is reported as observed only when something proves it."""

from __future__ import annotations

from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.models import SessionPageState
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.page_change import annotate
from agent_browser_tools.tools.agent_browser.record import effects_of
from tests.support.envelopes import command, envelope
from tests.support.plans import CLEAN, FORM, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))
ON_FORM = page(FORM)
UNVERIFIED = "Action dispatched; application change unverified."
NEXT = ["inspect-after-mutation"]


def _annotated(
    name: str, *, prior: SessionPageState | None = ON_FORM, probe: Probe | None = None
) -> tuple[dict[str, object], list[str]]:
    """Observe a capture, derive its effects as `read_back` does, annotate; (extra, warnings)."""
    call, answer = plan(command(name), STATE), envelope(name)
    obs = observe(call, answer)
    annotate(call, obs, prior, probe, effects_of(call, answer, probe))
    # The engine's launch evidence (`lifecycle`) is not a page change.
    return {k: v for k, v in obs.extra.items() if k != "lifecycle"}, obs.warnings


def test_a_click_whose_probe_shows_a_new_url_is_an_observed_navigation() -> None:
    extra, warnings = _annotated("click_ref", probe=Probe(url=CLEAN, title="Clean Page"))
    assert extra["navigationSummary"] == {"url": CLEAN, "title": "Clean Page", "urlChanged": True}
    assert extra["pageChangeSummary"] == {
        "command": "click",
        "nextActionIds": NEXT,
        "changeType": "navigation",
        "observed": True,
        "summary": "click: now on Clean Page",
        "url": CLEAN,
        "title": "Clean Page",
    }
    assert warnings == []


def test_a_fragment_change_is_not_a_navigation() -> None:
    """URLs are compared without the fragment: an in-page anchor did not change the page."""
    extra, warnings = _annotated("click_ref", probe=Probe(url=FORM + "#top", title="Profile Form"))
    assert extra["navigationSummary"] == {
        "url": FORM + "#top",
        "title": "Profile Form",
        "urlChanged": False,
    }
    assert extra["pageChangeSummary"] == {
        "command": "click",
        "nextActionIds": NEXT,
        "changeType": "mutation",
        "observed": False,
        "summary": "click dispatched; no application change was observed.",
    }
    assert warnings == [UNVERIFIED]


def test_without_a_known_prior_url_a_probed_click_is_not_called_a_navigation() -> None:
    extra, warnings = _annotated("click_ref", prior=None, probe=Probe(url=CLEAN, title=None))
    assert extra["navigationSummary"] == {"url": CLEAN, "title": None, "urlChanged": False}
    assert warnings == [UNVERIFIED]


def test_an_unprobed_click_is_dispatched_and_unverified() -> None:
    extra, warnings = _annotated("click_ref")
    assert "navigationSummary" not in extra
    assert extra["pageChangeSummary"] == {
        "command": "click",
        "nextActionIds": NEXT,
        "changeType": "mutation",
        "observed": False,
        "summary": "click dispatched; no application change was observed.",
    }
    assert warnings == [UNVERIFIED]


def test_open_reports_the_page_its_own_answer_observed() -> None:
    """`open` answers with its URL and title: a navigation observed without any probe."""
    extra, warnings = _annotated("open")
    assert extra == {
        "pageChangeSummary": {
            "command": "open",
            "nextActionIds": NEXT,
            "changeType": "navigation",
            "observed": True,
            "summary": "open: now on Profile Form",
            "url": FORM,
            "title": "Profile Form",
        }
    }
    assert warnings == []


def test_history_navigation_is_observed_even_back_to_the_same_url() -> None:
    """`back` replaces the document whatever the URL says; the probe proves where it is."""
    extra, _ = _annotated("back", probe=Probe(url=FORM, title="Profile Form"))
    summary = extra["pageChangeSummary"]
    assert isinstance(summary, dict)
    assert summary["changeType"] == "navigation" and summary["observed"] is True
    assert summary["summary"] == "back: now on Profile Form"


def test_read_only_commands_get_no_change_summary() -> None:
    """A screenshot has a change summary flag but writes no page state: nothing to verify."""
    assert _annotated("get_text") == ({}, [])
    assert _annotated("screenshot") == ({}, [])


def test_a_failure_is_not_annotated() -> None:
    assert _annotated("click_missing_ref", probe=Probe(url=CLEAN, title=None)) == ({}, [])


def test_a_successful_batch_is_not_annotated() -> None:
    """Batch steps carry their own outcomes; one summary would hide which row moved the page."""
    answer = envelope("batch_success")
    batch = plan(["batch"], STATE, rows=[list(r.command) for r in answer.rows or ()])
    obs = observe(batch, answer)
    assert obs.success
    annotate(batch, obs, ON_FORM, Probe(url=CLEAN, title=None), [])
    assert "navigationSummary" not in obs.extra and "pageChangeSummary" not in obs.extra
