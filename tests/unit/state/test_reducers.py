"""Reducers, effects and the stale-ref guard over hand-built journals (pure, no engine).

Effects are derived from the real taxonomy rows (`resolve_command`) and engine-shaped data, so
a change in a command's page effect shows up here as a state change, not only in the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args

import pytest
from pydantic import TypeAdapter

from agent_browser_tools import taxonomy
from agent_browser_tools.state.effects import (
    Probe,
    failure_effects,
    success_effects,
    text_mode_effects,
)
from agent_browser_tools.state.journal import ConversationLog, MemoryJournal
from agent_browser_tools.state.models import (
    CompletionEvent,
    ConversationState,
    Effect,
    IntentEvent,
    JournalEvent,
    NamespaceClosed,
    RefInfo,
    RefInvalidation,
    RefInvalidationReason,
    SessionKey,
    TargetUnknown,
)
from agent_browser_tools.state.reducers import INTERRUPTED_SUMMARY, apply_event, fold
from agent_browser_tools.state.stale_refs import (
    guard_direct,
    guard_unknown_target,
)
from agent_browser_tools.taxonomy import CommandMatch

KEY = SessionKey(session="abt-unit")
FORM = "http://127.0.0.1:8000/form.html"
PAGE_A = "http://127.0.0.1:8000/page-a.html"
SNAPSHOT_DATA: dict[str, Any] = {
    "origin": FORM,
    "refs": {
        "e1": {"role": "textbox", "name": "Full name"},
        "e2": {"role": "checkbox", "name": "Subscribe"},
        "e3": {"role": "button", "name": "Submit"},
    },
    "snapshot": '- textbox "Full name" [ref=e1]',
}


def match(*tokens: str) -> CommandMatch:
    found = taxonomy.resolve_command(list(tokens))
    assert found is not None, tokens
    return found


def ok(*tokens: str, data: Any = None, probe: Probe | None = None) -> list[Effect]:
    return success_effects(
        match(*tokens), tokens, data or {}, probe=probe, ownership="managed", launch_flags=()
    )


class Journal:
    """Appends completed calls (intent + completion) and folds them like a resumed process."""

    def __init__(self) -> None:
        self.events: list[JournalEvent] = []
        self.seq = 0

    def _next(self) -> int:
        self.seq += 1
        return self.seq

    def intent(self, call_id: str, key: SessionKey = KEY) -> None:
        self.events.append(
            IntentEvent(seq=self._next(), call_id=call_id, tool="agent_browser", key=key, args=())
        )

    def complete(
        self, call_id: str, effects: Sequence[Effect], key: SessionKey = KEY, success: bool = True
    ) -> None:
        self.events.append(
            CompletionEvent(
                seq=self._next(), call_id=call_id, key=key, success=success, effects=tuple(effects)
            )
        )

    def call(self, effects: Sequence[Effect], key: SessionKey = KEY) -> None:
        call_id = f"c{self.seq + 1}"
        self.intent(call_id, key)
        self.complete(call_id, effects, key)

    def state(self) -> ConversationState:
        return fold(self.events)


def on_form_with_refs() -> Journal:
    journal = Journal()
    journal.call(ok("open", FORM, data={"url": FORM, "title": "Profile Form"}))
    journal.call(ok("snapshot", "-i", data=SNAPSHOT_DATA))
    return journal


# ----- intents without completions -----------------------------------------------------


def test_intent_without_completion_leaves_target_unknown_and_refs_invalidated() -> None:
    journal = on_form_with_refs()
    assert journal.state().session(KEY).ref_snapshot is not None
    journal.intent("interrupted")  # the process died while `click @e3` ran

    entry = journal.state().session(KEY)

    assert entry.target_unknown
    assert entry.ref_snapshot is None
    assert entry.ref_invalidation is not None
    assert entry.ref_invalidation.reason == "page-transition"
    assert entry.ref_invalidation.summary == INTERRUPTED_SUMMARY
    assert journal.state().pending_intents == {}
    blocked = guard_direct(match("click", "@e3"), entry)
    assert blocked is not None and blocked.target_unknown
    assert guard_unknown_target([match("snapshot", "-i")], entry) == 1
    assert guard_unknown_target([match("get", "url"), match("snapshot", "-i")], entry) is None
    # Restoring an origin's storage navigates the active tab: not a tab the model has not seen.
    assert guard_unknown_target([match("state", "load", "s.json")], entry) == 1
    assert (
        guard_unknown_target([match("get", "url"), match("state", "load", "s.json")], entry) is None
    )


def test_completed_intent_is_not_treated_as_interrupted() -> None:
    journal = on_form_with_refs()
    journal.intent("c-done")
    journal.complete("c-done", ok("fill", "@e1", "Ada", data={"filled": "@e1"}))

    entry = journal.state().session(KEY)

    assert not entry.target_unknown
    assert entry.ref_snapshot is not None
    assert guard_direct(match("click", "@e3"), entry) is None


def test_the_live_log_is_the_fold_of_its_journal_even_across_a_restart() -> None:
    """A resumed process (fold of the persisted journal) guards exactly like the live one."""
    journal = MemoryJournal()
    log = ConversationLog(journal)
    log.intent("c1", "agent_browser", KEY, ("open", FORM))
    log.complete("c1", KEY, True, ok("open", FORM, data={"url": FORM}))
    log.intent("c2", "agent_browser", KEY, ("snapshot", "-i"))
    log.complete("c2", KEY, True, ok("snapshot", "-i", data=SNAPSHOT_DATA))
    log.intent("c3", "agent_browser", KEY, ("click", "@e3"))  # never completed

    adapter: TypeAdapter[JournalEvent] = TypeAdapter(JournalEvent)
    persisted = [adapter.dump_json(event) for event in journal.events()]
    restored = MemoryJournal()
    for raw in persisted:
        restored.append(adapter.validate_json(raw))
    resumed = ConversationLog(restored)

    assert log.state.pending_intents  # the live process is still waiting for c3
    assert resumed.state == fold(journal.events())
    assert resumed.state.session(KEY).target_unknown
    assert guard_direct(match("click", "@e3"), resumed.state.session(KEY)) is not None


# ----- snapshots and navigation ----------------------------------------------------------


def test_snapshot_records_refs_roles_and_their_page() -> None:
    journal = Journal()
    journal.call(ok("open", FORM, data={"url": FORM, "title": "Profile Form"}))
    assert journal.state().session(KEY).ref_invalidation is not None

    journal.call(ok("snapshot", "-i", data=SNAPSHOT_DATA))
    entry = journal.state().session(KEY)

    assert entry.ref_snapshot is not None
    assert entry.ref_snapshot.refs == {
        "e1": RefInfo(role="textbox", name="Full name"),
        "e2": RefInfo(role="checkbox", name="Subscribe"),
        "e3": RefInfo(role="button", name="Submit"),
    }
    assert entry.ref_snapshot.target_url == FORM
    assert entry.ref_invalidation is None
    assert entry.active and entry.target is not None and entry.target.url == FORM
    for spelling in ("@e3", "e3", "ref=e3"):
        assert guard_direct(match("click", spelling), entry) is None
    missing = guard_direct(match("click", "@e9"), entry)
    assert missing is not None and missing.refs == ("e9",)


@pytest.mark.parametrize(
    ("tokens", "data", "probe"),
    [
        (("open", PAGE_A), {"url": PAGE_A, "title": "Page A"}, None),
        (("open", FORM + "#top"), {"url": FORM + "#top"}, None),  # same page, new navigation
        (("back",), {"url": PAGE_A}, Probe(url=PAGE_A, title="Page A")),
        (("reload",), {}, Probe(url=FORM, title="Profile Form")),
    ],
)
def test_navigation_invalidates_refs(
    tokens: tuple[str, ...], data: dict[str, Any], probe: Probe | None
) -> None:
    journal = on_form_with_refs()
    journal.call(ok(*tokens, data=data, probe=probe))
    entry = journal.state().session(KEY)

    assert entry.ref_snapshot is None
    assert entry.ref_invalidation is not None
    assert entry.ref_invalidation.reason == "page-transition"
    assert not entry.target_unknown
    blocked = guard_direct(match("fill", "@e1", "Ada"), entry)
    assert blocked is not None and "stale" in blocked.reason


def test_navigation_without_an_observed_url_makes_the_target_unknown() -> None:
    journal = on_form_with_refs()
    journal.call(ok("back", data={}, probe=None))
    entry = journal.state().session(KEY)

    assert entry.target_unknown
    assert entry.ref_snapshot is None


def test_a_click_that_lands_elsewhere_keeps_refs_for_the_identity_re_read() -> None:
    """The probe saw another URL; whether it is another document is the re-read's call."""
    journal = on_form_with_refs()
    journal.call(ok("click", "@e3", data={"clicked": "@e3"}, probe=Probe(url=PAGE_A, title="A")))
    entry = journal.state().session(KEY)

    assert entry.target is not None and entry.target.url == PAGE_A
    assert entry.ref_snapshot is not None and "e1" in entry.ref_snapshot.refs
    assert guard_direct(match("click", "@e1"), entry) is None


def test_a_url_change_without_navigation_is_left_to_the_identity_re_read() -> None:
    """A click that only changed the URL (pushState, a fragment) may keep the document: the
    static guard keeps its refs and the re-read before dispatch decides per element."""
    journal = on_form_with_refs()
    journal.call(ok("click", "@e3", data={}, probe=Probe(url=FORM + "#result", title=None)))
    assert guard_direct(match("click", "@e1"), journal.state().session(KEY)) is None
    journal.call(ok("click", "@e3", data={}, probe=Probe(url=FORM + "?step=2", title=None)))
    assert guard_direct(match("click", "@e1"), journal.state().session(KEY)) is None


def test_only_ref_resolving_slots_are_checked() -> None:
    journal = on_form_with_refs()
    journal.call(ok("open", PAGE_A, data={"url": PAGE_A}))
    entry = journal.state().session(KEY)

    assert guard_direct(match("fill", "#full-name", "@e1"), entry) is None  # text, not a ref
    assert guard_direct(match("get", "count", "e1"), entry) is None  # CSS only, not guarded
    assert guard_direct(match("fill", "ref=e1", "x"), entry) is not None


# ----- close --------------------------------------------------------------------------


def test_close_all_clears_every_session_of_its_namespace_only() -> None:
    ns_a = SessionKey(session="a", namespace="ns")
    ns_b = SessionKey(session="b", namespace="ns")
    other = SessionKey(session="c", namespace="other")
    plain = SessionKey(session="d")
    journal = Journal()
    for key in (ns_a, ns_b, other, plain):
        journal.call(ok("snapshot", "-i", data=SNAPSHOT_DATA), key=key)
    assert set(journal.state().sessions) == {"ns/a", "ns/b", "other/c", "d"}

    effects = ok("close", "--all")
    assert effects == [NamespaceClosed()]
    journal.call(effects, key=ns_a)

    assert set(journal.state().sessions) == {"other/c", "d"}
    assert journal.state().session(ns_b).ref_snapshot is None
    journal.call(ok("close", "--all"), key=plain)
    assert set(journal.state().sessions) == {"other/c"}


def test_close_forgets_the_page_but_keeps_ownership() -> None:
    journal = on_form_with_refs()
    journal.call(ok("close"))
    entry = journal.state().session(KEY)

    assert entry.ownership == "managed"
    assert not entry.active and entry.target is None and entry.ref_snapshot is None


# ----- native text mode -----------------------------------------------------------------


@pytest.mark.parametrize(
    "tokens",
    [("open", PAGE_A), ("back",), ("reload",), ("click", "@e3"), ("tab", "new"), ("eval", "1")],
)
def test_text_mode_page_changing_commands_make_the_target_unknown(tokens: tuple[str, ...]) -> None:
    journal = on_form_with_refs()
    effects = text_mode_effects(match(*tokens), tokens)
    assert [type(e) for e in effects] == [TargetUnknown]
    journal.call(effects)
    entry = journal.state().session(KEY)

    assert entry.target_unknown
    assert entry.ref_snapshot is None
    assert guard_unknown_target([match("snapshot", "-i")], entry) == 1


@pytest.mark.parametrize("tokens", [("get", "url"), ("snapshot", "-i"), ("fill", "@e1", "x")])
def test_text_mode_commands_that_keep_the_page_change_nothing(tokens: tuple[str, ...]) -> None:
    assert text_mode_effects(match(*tokens), tokens) == []


def test_text_mode_close_all_still_clears_the_namespace() -> None:
    assert text_mode_effects(match("close", "--all"), ("close", "--all")) == [NamespaceClosed()]


def test_an_untitled_observation_keeps_the_title_of_the_same_url_only() -> None:
    journal = on_form_with_refs()  # open reported the title, the snapshot did not
    target = journal.state().session(KEY).target
    assert target is not None and target.title == "Profile Form"

    journal.call(ok("get", "url", data={"url": PAGE_A}))
    target = journal.state().session(KEY).target
    assert target is not None and (target.url, target.title) == (PAGE_A, None)


def test_get_url_clears_an_unknown_target_but_not_the_stale_refs() -> None:
    journal = on_form_with_refs()
    journal.call(text_mode_effects(match("back"), ("back",)))
    journal.call(ok("get", "url", data={"url": PAGE_A}))
    entry = journal.state().session(KEY)

    assert not entry.target_unknown
    assert entry.target is not None and entry.target.url == PAGE_A
    assert guard_direct(match("click", "@e3"), entry) is not None  # still needs `snapshot -i`


# ----- failures ---------------------------------------------------------------------------


def test_failure_probe_keeps_the_url_but_drops_refs() -> None:
    journal = on_form_with_refs()
    effects = failure_effects(
        match("back"),
        ("back",),
        "navigation failed",
        timed_out=False,
        probe=Probe(url=PAGE_A, title="Page A"),
    )
    journal.call(effects)
    entry = journal.state().session(KEY)

    assert not entry.target_unknown
    assert entry.target is not None and entry.target.url == PAGE_A
    assert entry.target.title == "Page A"
    assert entry.ref_snapshot is None
    assert entry.ref_invalidation is not None
    assert entry.ref_invalidation.reason == "page-transition"


def test_failed_history_navigation_without_a_probe_makes_the_target_unknown() -> None:
    effects = failure_effects(match("back"), ("back",), "boom", timed_out=False, probe=None)
    assert [type(e) for e in effects] == [TargetUnknown]


def test_failed_open_drops_refs_because_the_page_may_have_changed() -> None:
    """A failed `open` can commit Chromium's error page or time out after the new document."""
    journal = on_form_with_refs()
    tokens = ("open", PAGE_A)
    journal.call(failure_effects(match(*tokens), tokens, "net::ERR", timed_out=False, probe=None))
    entry = journal.state().session(KEY)

    assert entry.ref_snapshot is None
    assert guard_direct(match("click", "@e3"), entry) is not None


def test_failed_read_only_command_changes_nothing() -> None:
    tokens = ("get", "text", "#missing")
    effects = failure_effects(match(*tokens), tokens, "not found", timed_out=False, probe=None)
    assert effects == []


def test_a_timed_out_mutation_makes_the_target_unknown() -> None:
    tokens = ("click", "@e3")
    effects = failure_effects(match(*tokens), tokens, None, timed_out=True, probe=None)
    assert [type(e) for e in effects] == [TargetUnknown]


def test_snapshot_without_an_active_page_invalidates_refs() -> None:
    journal = on_form_with_refs()
    tokens = ("snapshot", "-i")
    journal.call(
        failure_effects(match(*tokens), tokens, "No active page", timed_out=False, probe=None)
    )
    entry = journal.state().session(KEY)
    assert entry.ref_invalidation is not None
    assert entry.ref_invalidation.reason == "no-active-page"


def test_apply_event_ignores_completions_of_other_sessions() -> None:
    state = on_form_with_refs().state()
    other = SessionKey(session="other")
    after = apply_event(
        state,
        CompletionEvent(
            seq=99, call_id="x", key=other, success=True, effects=tuple(ok("open", PAGE_A))
        ),
    )
    assert after.session(KEY) == state.session(KEY)
    assert after.last_seq == 99


def test_a_call_repeating_some_daemon_settings_keeps_the_others() -> None:
    """`--debug snapshot` on a browser started with `--confirm-actions click --debug` must not
    make `--confirm-actions` look unset: the next call would drop it and replace the daemon."""
    from agent_browser_tools.state.models import SessionActivated, SessionPageState
    from agent_browser_tools.state.reducers import apply_effect

    started = SessionPageState(
        ownership="managed", active=True, launch_flags=("--confirm-actions=click", "--debug")
    )
    after = apply_effect(started, SessionActivated(ownership="managed", launch_flags=("--debug",)))
    assert set(after.launch_flags) == {"--confirm-actions=click", "--debug"}
    fresh = apply_effect(
        SessionPageState(), SessionActivated(ownership="managed", launch_flags=("--debug",))
    )
    assert fresh.launch_flags == ("--debug",)


@pytest.mark.parametrize("reason", get_args(RefInvalidationReason))
def test_every_invalidation_reason_is_reported_as_one_the_contract_knows(reason: str) -> None:
    details = RefInvalidation.model_validate({"reason": reason, "summary": "s"}).contract_details()
    assert details["reason"] in ("no-active-page", "page-transition")
    assert details.get("cause", details["reason"]) == reason
    assert details["summary"] == "s"


# ----- refs an earlier snapshot of the page showed (issue 28) ----------------------------------


def test_a_remembered_ref_is_refused_for_what_became_of_its_element() -> None:
    """Gone: its engine id is in no later snapshot. Changed: its node now shows something else
    under another shown id. Not old: a ref kept by the latest snapshot passes."""
    from agent_browser_tools.state.models import RefInfo, RefsRecorded, SessionPageState
    from agent_browser_tools.state.reducers import apply_effect
    from agent_browser_tools.state.stale_refs import guard_direct
    from agent_browser_tools.taxonomy import resolve_command

    first = {
        "e1": RefInfo(role="button", name="Save"),
        "e2": RefInfo(role="button", name="Continue"),
        "e3": RefInfo(role="button", name="Details A"),
    }
    later = {
        "e1": RefInfo(role="button", name="Save"),
        "e4": RefInfo(role="button", name="Details C", engine="e3"),
    }
    entry = apply_effect(SessionPageState(), RefsRecorded(refs=first))
    entry = apply_effect(entry, RefsRecorded(refs=later))

    def code(ref: str) -> str | None:
        stale = guard_direct(resolve_command(["click", ref]), entry)
        return stale.code if stale is not None else None

    assert code("@e1") is None
    assert code("@e2") == "element-gone"
    assert code("@e3") == "element-changed"
    stale = guard_direct(resolve_command(["click", "@e3"]), entry)
    assert stale is not None and 'now shows button "Details C"' in stale.reason
    assert code("@e9") == "not-in-latest-snapshot"
