"""`page_change.annotate`: a navigation is reported as observed only when something proves it."""

from __future__ import annotations

import json

import pytest

from agent_browser_tools.engine.envelope import parse_json_output
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.models import PageTarget, SessionPageState, TargetObserved
from agent_browser_tools.tools.agent_browser.observe import observe
from agent_browser_tools.tools.agent_browser.page.page_change import (
    annotate,
    saw_overlay,
    settle,
    url_move,
)
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


def test_a_fragment_change_is_an_observed_same_page_url_change() -> None:
    """An in-page anchor changed the URL the model sees: observed, said as a URL change on the
    same page (never "now on" a new page), with no unverified warning."""
    extra, warnings = _annotated("click_ref", probe=Probe(url=FORM + "#top", title="Profile Form"))
    assert extra["navigationSummary"] == {
        "url": FORM + "#top",
        "title": "Profile Form",
        "urlChanged": True,
        "sameDocument": True,
    }
    assert extra["pageChangeSummary"] == {
        "command": "click",
        "nextActionIds": NEXT,
        "changeType": "navigation",
        "observed": True,
        "sameDocument": True,
        "summary": f"click: URL changed to {FORM}#top (same page)",
        "url": FORM + "#top",
    }
    assert warnings == []


def test_the_same_fragment_again_is_no_change() -> None:
    """Clicking `#top` while already on `#top` moved nothing: still unverified."""
    on_top = page(FORM + "#top")
    extra, warnings = _annotated(
        "click_ref", prior=on_top, probe=Probe(url=FORM + "#top", title="Profile Form")
    )
    assert extra["navigationSummary"] == {
        "url": FORM + "#top",
        "title": "Profile Form",
        "urlChanged": False,
    }
    assert _part(extra, "pageChangeSummary")["observed"] is False
    assert warnings == [UNVERIFIED]


def _part(extra: dict[str, object], key: str) -> dict[str, object]:
    part = extra[key]
    assert isinstance(part, dict)
    return part


def test_a_fragment_dropped_is_a_url_change_and_a_new_path_is_a_new_page() -> None:
    """`#top` -> no fragment is a same-page URL change; another path is a new document even
    with the same fragment."""
    on_top = page(FORM + "#top")
    extra, _ = _annotated("click_ref", prior=on_top, probe=Probe(url=FORM, title="Profile Form"))
    assert _part(extra, "navigationSummary")["sameDocument"] is True
    summary = _part(extra, "pageChangeSummary")["summary"]
    assert summary == f"click: URL changed to {FORM} (same page)"
    extra, _ = _annotated("click_ref", prior=on_top, probe=Probe(url=CLEAN + "#top", title="C"))
    assert "sameDocument" not in _part(extra, "navigationSummary")
    assert _part(extra, "pageChangeSummary")["summary"] == "click: now on C"


@pytest.mark.parametrize(
    ("before", "after", "moved"),
    [
        ("https://a.test/p", "https://a.test/p", None),
        ("https://a.test/p", " https://a.test/p ", None),
        ("https://a.test/p", "https://a.test/p#x", "fragment"),
        ("https://a.test/p#x", "https://a.test/p#y", "fragment"),
        ("https://a.test/p#x", "https://a.test/p#", "fragment"),
        ("https://a.test/p?q=1#x", "https://a.test/p?q=2#x", "document"),
        ("https://a.test/p", "https://a.test/r#x", "document"),
        (None, "https://a.test/p#x", None),
        ("https://a.test/p", None, None),
    ],
)
def test_url_move(before: str | None, after: str | None, moved: str | None) -> None:
    assert url_move(before, after) == moved


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


def test_a_read_only_batch_gets_no_change_summary() -> None:
    """Only dispatch-only steps or a new page earn a batch summary."""
    answer = envelope("batch_success")
    batch = plan(["batch"], STATE, rows=[list(r.command) for r in answer.rows or ()])
    obs = observe(batch, answer)
    assert obs.success
    annotate(batch, obs, ON_FORM, Probe(url=FORM, title=None), [])
    assert "navigationSummary" not in obs.extra and "pageChangeSummary" not in obs.extra


def _batch(rows: list[list[str]]) -> tuple[ExecutionPlan, Observation]:
    """A batch whose every row succeeded with an empty result."""
    answer = parse_json_output(
        json.dumps([{"command": r, "success": True, "result": {}, "error": None} for r in rows]),
        0,
    )
    batch = plan(["batch"], STATE, rows=rows)
    return batch, observe(batch, answer)


def test_a_batch_of_dispatch_only_steps_is_unverified() -> None:
    batch, obs = _batch([["click", "@e13"], ["get", "title"], ["press", "Enter"]])
    annotate(batch, obs, ON_FORM, Probe(url=FORM, title="Profile Form"), [])
    assert obs.extra["pageChangeSummary"] == {
        "command": "batch",
        "nextActionIds": NEXT,
        "changeType": "mutation",
        "observed": False,
        "summary": "batch steps 1, 3 dispatched; no application change was observed.",
    }
    assert obs.warnings[0] == (
        "Action dispatched; application change unverified (dispatch-only steps 1, 3)."
    )


def test_a_batch_that_reached_a_new_page_is_an_observed_navigation() -> None:
    batch, obs = _batch([["click", "@e13"]])
    annotate(batch, obs, ON_FORM, None, [TargetObserved(url=CLEAN, title="Clean Page")])
    summary = obs.extra["pageChangeSummary"]
    assert summary["changeType"] == "navigation" and summary["observed"] is True
    assert (summary["url"], summary["title"]) == (CLEAN, "Clean Page")
    assert not any("unverified" in w for w in obs.warnings)


def test_a_same_url_click_that_changed_the_dom_or_title_is_observed() -> None:
    """Unverified only when nothing was seen: DOM mutations or a new title count."""
    call, answer = plan(command("click_ref"), STATE), envelope("click_ref")
    mutated = observe(call, answer)
    annotate(call, mutated, ON_FORM, None, [], dom_mutations=3)
    assert mutated.extra["pageChangeSummary"]["observed"] is True
    assert mutated.warnings == []
    titled = observe(call, answer)
    before = SessionPageState(active=True, target=PageTarget(url=FORM, title="Profile Form"))
    annotate(call, titled, before, Probe(url=FORM, title="Saved"), [], dom_mutations=0)
    assert titled.extra["pageChangeSummary"]["summary"] == "click: title is now Saved"
    assert titled.warnings == []
    still = observe(call, answer)
    annotate(call, still, before, Probe(url=FORM, title="Profile Form"), [], dom_mutations=0)
    assert still.extra["pageChangeSummary"]["observed"] is False
    assert still.warnings == [UNVERIFIED]


def test_a_value_read_back_as_asked_is_observed_and_an_unread_one_is_not() -> None:
    """A verified `actionEffect` needs no "unverified" warning; an unread one keeps it."""
    call, answer = plan(command("click_ref"), STATE), envelope("click_ref")
    verified = observe(call, answer)
    verified.extra["actionEffect"] = {"verb": "clicked", "checked": True, "verified": True}
    annotate(call, verified, ON_FORM, None, [], dom_mutations=0)
    assert verified.extra["pageChangeSummary"]["observed"] is True
    assert verified.extra["pageChangeSummary"]["summary"] == "click: read back as asked."
    assert verified.warnings == []
    unread = observe(call, answer)
    unread.extra["actionEffect"] = {"verb": "clicked", "verified": None}
    annotate(call, unread, ON_FORM, None, [], dom_mutations=0)
    assert unread.extra["pageChangeSummary"]["observed"] is False
    assert unread.warnings == [UNVERIFIED]


def test_an_overlay_makes_an_unverified_click_observed() -> None:
    call, answer = plan(command("click_ref"), STATE), envelope("click_ref")
    obs = observe(call, answer)
    annotate(call, obs, ON_FORM, None, [])
    obs.next_actions.append(na.inspect_overlay_state([]))
    saw_overlay(obs, "click")
    settle(call, obs)
    summary = obs.extra["pageChangeSummary"]
    assert summary["observed"] is True and "dialog" in summary["summary"]
    assert summary["nextActionIds"] == ["inspect-overlay-state"]
    assert obs.warnings == []


def _entry(path: str, state: str = "verified") -> dict[str, object]:
    return {"kind": "image", "path": path, "state": state, "command": "screenshot"}


def test_artifacts_win_the_summary_with_their_count_and_path() -> None:
    shot = plan(["screenshot", "a.png"], STATE)
    one = Observation(success=True)
    one.extra["artifacts"] = [_entry("a.png")]
    settle(shot, one)
    assert one.extra["pageChangeSummary"] == {
        "command": "screenshot",
        "changeType": "artifact",
        "observed": True,
        "artifactCount": 1,
        "savedFilePath": "a.png",
        "summary": "screenshot: 1 of 1 artifact(s) verified on disk.",
        "nextActionIds": [],
    }
    batch, rolled = _batch([["click", "@e13"], ["screenshot", "a.png"], ["pdf", "b.pdf"]])
    annotate(batch, rolled, ON_FORM, None, [])
    rolled.extra["artifacts"] = [_entry("a.png"), _entry("b.pdf", "missing")]
    settle(batch, rolled)
    summary = rolled.extra["pageChangeSummary"]
    assert summary["changeType"] == "artifact" and summary["artifactCount"] == 2
    assert "savedFilePath" not in summary and summary["command"] == "batch"
