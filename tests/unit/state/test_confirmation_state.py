"""The confirmation marker and the confirmed capture's one use, over hand-built journals."""

from __future__ import annotations

from agent_browser_tools.state.journal import ConversationLog, MemoryJournal
from agent_browser_tools.state.models import (
    ConfirmationMarked,
    Effect,
    FreshCaptureGranted,
    ReadConfirmation,
    SessionClosed,
    SessionKey,
)

KEY = SessionKey(session="s1")
PENDING = ReadConfirmation(
    id="r1", source="native-guarded-action", state="pending", command="a11y", action="a11y"
)


def _log(*calls: tuple[Effect, ...]) -> ConversationLog:
    log = ConversationLog(MemoryJournal())
    for index, effects in enumerate(calls):
        log.complete(f"c{index}", KEY, True, effects)
    return log


def test_the_marker_is_kept_until_a_close_retires_it() -> None:
    log = _log((ConfirmationMarked(marker=PENDING),), ())
    assert log.state.session(KEY).read_confirmation == PENDING, "other calls keep it"
    log.complete("close", KEY, True, (SessionClosed(),))
    assert log.state.session(KEY).read_confirmation is None


def test_a_restart_folds_the_same_marker_from_the_journal() -> None:
    log = _log((ConfirmationMarked(marker=PENDING),))
    assert ConversationLog(log.journal).state.session(KEY).read_confirmation == PENDING


def test_the_confirmed_capture_is_spent_by_the_next_completed_call() -> None:
    log = _log((FreshCaptureGranted(url="https://a.test/#tab=1"),))
    capture = log.state.session(KEY).fresh_capture
    assert capture is not None and capture.url == "https://a.test/#tab=1"
    log.complete("any", KEY, True, ())
    assert log.state.session(KEY).fresh_capture is None


def test_the_capture_url_is_journaled_redacted_with_its_fragment() -> None:
    log = _log((FreshCaptureGranted(url="https://u:pw@a.test/p?token=abc#frag"),))
    capture = log.state.session(KEY).fresh_capture
    assert capture is not None
    assert "pw" not in capture.url and "abc" not in capture.url
    assert capture.url.endswith("#frag")
