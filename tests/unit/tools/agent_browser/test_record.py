"""`record.effects_of`: the state changes a captured engine answer (and the probe) prove."""

from __future__ import annotations

from agent_browser_tools.state.effects import Probe
from agent_browser_tools.state.models import (
    Effect,
    RefsInvalidated,
    RefsRecorded,
    SessionActivated,
    SessionClosed,
    TargetObserved,
    TargetUnknown,
)
from agent_browser_tools.state.reducers import apply_effect
from agent_browser_tools.tools.agent_browser.guards import refusal
from agent_browser_tools.tools.agent_browser.record import effects_of
from tests.support.envelopes import command, envelope, text_answer, timed_out
from tests.support.plans import CLEAN, FORM, FORM_REFS, MANAGED, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))
ACTIVE = SessionActivated(ownership="managed")
TO_CLEAN = Probe(url=CLEAN, title="Clean Page")


def _effects(name: str, probe: Probe | None = None) -> list[Effect]:
    return effects_of(plan(command(name), STATE), envelope(name), probe)


def test_a_snapshot_records_its_refs_for_the_page_it_came_from() -> None:
    effects = _effects("snapshot_interactive")
    assert effects[:2] == [ACTIVE, TargetObserved(url=FORM)]
    recorded = effects[2]
    assert isinstance(recorded, RefsRecorded) and len(effects) == 3
    assert recorded.target_url == FORM
    assert len(recorded.refs) == 23
    assert {k: recorded.refs[k] for k in FORM_REFS} == FORM_REFS


def test_a_click_without_a_probe_proves_only_that_the_browser_ran() -> None:
    """The click answer has no URL: the page it landed on is not known from it."""
    assert _effects("click_ref") == [ACTIVE]


def test_the_probe_observes_where_a_click_landed() -> None:
    assert _effects("click_ref", TO_CLEAN) == [
        ACTIVE,
        TargetObserved(url=CLEAN, title="Clean Page", keep_refs=True),
    ]


def test_a_click_that_navigated_keeps_refs_for_the_identity_re_read() -> None:
    """End to end over pure stages: the probe saw another URL; the refs stay recorded so the
    re-read before the next dispatch can tell a new document (new nodes) from a view swap."""
    entry = STATE.sessions[MANAGED]
    for effect in _effects("click_ref", TO_CLEAN):
        entry = apply_effect(entry, effect)
    after = managed(entry)
    assert entry.target is not None and entry.target.url == CLEAN
    assert refusal(plan(["click", "@e13"], after), after) is None


def test_a_failed_click_that_moved_the_page_drops_the_refs() -> None:
    """A failure may still have acted: if the probe shows a page, old refs are not kept."""
    effects = _effects("click_missing_ref", TO_CLEAN)
    assert effects[0] == TargetObserved(url=CLEAN, title="Clean Page", keep_refs=False)
    assert isinstance(effects[1], RefsInvalidated) and effects[1].reason == "page-transition"
    assert len(effects) == 2


def test_open_observes_the_new_page_and_invalidates_refs() -> None:
    effects = _effects("open")
    observed = TargetObserved(url=FORM, title="Profile Form", keep_refs=False, tab="<TARGET_ID>")
    assert effects[:2] == [ACTIVE, observed]
    assert isinstance(effects[2], RefsInvalidated)
    assert effects[2].summary.startswith("`open` navigated;")


def test_a_timed_out_click_leaves_the_target_unknown() -> None:
    (effect,) = effects_of(plan(["click", "@e13"], STATE), timed_out(), None)
    assert isinstance(effect, TargetUnknown)
    assert effect.summary.startswith("`click` may have changed the page")


def test_a_caller_session_is_activated_as_caller_owned() -> None:
    effects = effects_of(
        plan(["--session", "mine", "get", "text", "h1"]), envelope("get_text"), None
    )
    assert effects[0] == SessionActivated(ownership="caller")


# --- text mode -------------------------------------------------------------------------------


def test_text_mode_never_observes_a_page() -> None:
    """Native text is not parsed for state: a page-changing command makes the target unknown."""
    (effect,) = effects_of(plan(["--json", "false", "click", "@e13"], STATE), text_answer(""), None)
    assert isinstance(effect, TargetUnknown)
    assert (
        effects_of(plan(["--json", "false", "get", "title"], STATE), text_answer("T"), None) == []
    )
    assert effects_of(plan(["--json", "false", "close"], STATE), text_answer(""), None) == [
        SessionClosed()
    ]


def test_help_inspection_has_no_effects() -> None:
    assert effects_of(plan(["click", "--help"]), text_answer("Usage"), None) == []


# --- batches ---------------------------------------------------------------------------------


def _batch_effects(probe: Probe | None) -> list[Effect]:
    answer = envelope("batch_failing_row")
    rows = [list(r.command) for r in answer.rows or ()]
    return effects_of(plan(["batch"], STATE, rows=rows), answer, probe)


def test_batch_rows_each_contribute_their_effects() -> None:
    """get title activates; the failed click (no probe per row) adds nothing; get url observes."""
    assert _batch_effects(None) == [ACTIVE, ACTIVE, TargetObserved(url=CLEAN)]


def test_the_batch_probe_is_observed_after_every_row() -> None:
    """The probe ran after the whole batch, so its page must win over any row's page."""
    effects = _batch_effects(TO_CLEAN)
    assert effects[:-1] == _batch_effects(None)
    assert effects[-1] == TargetObserved(url=CLEAN, title="Clean Page")


def test_a_timed_out_batch_leaves_the_target_unknown() -> None:
    batch = plan(["batch"], STATE, rows=[["click", "@e13"]])
    (effect,) = effects_of(batch, timed_out(), None)
    assert isinstance(effect, TargetUnknown)
    assert effect.summary.startswith("`batch` may have changed the page")
