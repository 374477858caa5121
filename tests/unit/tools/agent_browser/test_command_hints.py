"""Per-command diagnostics (pure): the route tracker, eval/stream hints and paired stops."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_browser_tools import taxonomy
from agent_browser_tools.results.categories import FailureCategory, SuccessCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.journal import ConversationLog, scrub_effect
from agent_browser_tools.state.models import RouteRule, RoutesChanged, SessionClosed, SessionKey
from agent_browser_tools.state.reducers import apply_effect
from agent_browser_tools.state.sqlite_journal import SqliteJournal
from agent_browser_tools.tools.agent_browser import command_hints
from agent_browser_tools.tools.agent_browser.page import routes
from tests.support.plans import managed, page, plan

MOCK = RouteRule(pattern="**/api/*", mode="mock-body")


def _routes(
    args: list[str],
    before: tuple[RouteRule, ...] = (),
    rows: list[list[str]] | None = None,
) -> tuple[RouteRule, ...] | None:
    """The tracker after `args` succeeded (None: unchanged)."""
    called = plan(args, managed(page()), rows=rows)
    obs = Observation(success=True)
    if rows is not None:
        obs.extra["batchSteps"] = [{"success": True} for _ in rows]
    effects = routes.route_effects(called, obs, before)
    if not effects:
        return None
    (effect,) = effects
    assert isinstance(effect, RoutesChanged)
    return effect.routes


def test_route_and_unroute_keep_the_session_tracker() -> None:
    assert _routes(["network", "route", "**/api/*", "--body", "{}"]) == (MOCK,)
    aborted = _routes(["network", "route", "**/api/*", "--abort"], (MOCK,))
    assert aborted == (RouteRule(pattern="**/api/*", mode="abort"),)  # same pattern replaced
    other = RouteRule(pattern="**/img/*", mode="intercept")
    assert _routes(["network", "unroute", "**/img/*"], (MOCK, other)) == (MOCK,)
    assert _routes(["network", "unroute"], (MOCK, other)) == ()
    assert _routes(["get", "url"], (MOCK,)) is None  # unrelated commands change nothing


def test_batch_rows_update_the_tracker_in_order() -> None:
    rows = [["network", "route", "**/a/*"], ["network", "route", "**/b/*", "--abort"]]
    tracked = _routes(["batch"], rows=rows)
    assert tracked == (
        RouteRule(pattern="**/a/*", mode="intercept"),
        RouteRule(pattern="**/b/*", mode="abort"),
    )


def test_the_reducer_keeps_routes_until_the_session_closes() -> None:
    entry = apply_effect(page(), RoutesChanged(routes=(MOCK,)))
    assert entry.routes == (MOCK,)
    assert apply_effect(entry, SessionClosed()).routes == ()


@pytest.mark.parametrize(
    ("snippet", "hinted"),
    [
        ("() => ({ title: document.title })", True),
        ("async () => ({ a: 1 })", True),
        ("(() => ({ a: 1 }))", True),
        ("function f() { return 1 }", True),
        ("(() => ({ a: 1 }))()", False),
        ("({ title: document.title })", False),
    ],
)
def test_eval_hint_only_for_uncalled_function_snippets(snippet: str, hinted: bool) -> None:
    called = plan(["eval", "--stdin"], managed(page()), stdin=snippet)
    obs = Observation(success=True, data={"result": {}})
    assert (command_hints.eval_stdin_hint(called, snippet, obs) is not None) is hinted
    filled = Observation(success=True, data={"result": {"a": 1}})
    assert command_hints.eval_stdin_hint(called, snippet, filled) is None


def test_stream_already_enabled_becomes_an_idempotent_success() -> None:
    called = plan(["stream", "enable"], managed(page()))
    obs = Observation(
        success=False,
        failure_category=FailureCategory.UPSTREAM_ERROR,
        error="Streaming is already enabled for this session",
    )
    assert command_hints.stream_already_enabled(called, obs, [])
    assert obs.success and obs.success_category is SuccessCategory.COMPLETED
    ids = {a.id: a.params["args"] for a in obs.next_actions}
    assert ids == {
        "check-stream-status": ["stream", "status"],
        "stop-stream": ["stream", "disable"],
    }
    other = Observation(success=False, error="Failed to bind port 9")
    assert not command_hints.stream_already_enabled(called, other, []) and not other.success


def test_every_long_running_start_offers_its_taxonomy_stop() -> None:
    starts = [s for s in taxonomy.all_commands() if s.paired_stop is not None]
    assert len(starts) >= 6
    for spec in starts:
        assert spec.paired_stop is not None
        argv = [*spec.path, *(["x.webm"] if spec.min_operands else [])]
        called = plan(argv, managed(page()))
        action = command_hints.paired_stop_action(called, ["--session", "s"])
        assert action is not None and action.id.startswith("stop-"), spec.name
        assert action.params["args"] == ["--session", "s", *spec.paired_stop]


def test_failed_requests_get_the_engine_status_filter_once() -> None:
    rows = [
        {"url": "http://x.test/api/a", "status": 500, "resourceType": "Fetch"},
        {"url": "http://x.test/", "status": 200, "resourceType": "Document"},
    ]
    listed = Observation(success=True, data={"requests": rows})
    command_hints.failed_requests_filter(plan(["network", "requests"], managed(page())), listed, [])
    (action,) = listed.next_actions
    assert action.id == "filter-failed-network-requests"
    assert action.params["args"] == ["network", "requests", "--status", "400-599"]
    filtered = Observation(success=True, data={"requests": rows})
    already = plan(["network", "requests", "--status", "500"], managed(page()))
    command_hints.failed_requests_filter(already, filtered, [])
    clean = Observation(success=True, data={"requests": rows[1:]})
    command_hints.failed_requests_filter(plan(["network", "requests"], managed(page())), clean, [])
    assert filtered.next_actions == [] and clean.next_actions == []


def test_the_route_tracker_survives_a_resume(tmp_path: Path) -> None:
    key = SessionKey(session="work")
    first = SqliteJournal(tmp_path, "conv-routes")
    log = ConversationLog(first)
    log.intent("c1", "agent_browser", key, ("network", "route", "**/api/*"))
    log.complete("c1", key, True, [RoutesChanged(routes=(MOCK,))])
    first.close()
    again = SqliteJournal(tmp_path, "conv-routes")
    try:
        assert ConversationLog(again).state.session(key).routes == (MOCK,)
    finally:
        again.close()


def test_a_key_in_a_route_pattern_is_never_kept_or_repeated() -> None:
    """The tracker is journaled and shown: a pattern's query key is masked like any URL, the
    raw pattern still removes it, and the removal action does not repeat what was masked."""
    secret = "sk-live-0123456789abcdefABCDEF"
    raw = f"https://api.example.com/*?api_key={secret}"
    (kept,) = _routes(["network", "route", raw, "--abort"]) or ()
    assert secret not in kept.pattern and kept.pattern.startswith("https://api.example.com/")
    journaled = scrub_effect(RoutesChanged(routes=(RouteRule(pattern=raw, mode="abort"),)))
    assert isinstance(journaled, RoutesChanged) and secret not in journaled.model_dump_json()
    assert _routes(["network", "unroute", raw], (kept,)) == ()
    found = [{"routePattern": kept.pattern, "summary": "s"}]
    actions = routes._actions(found, [])
    removal = next(a for a in actions if a.id == "remove-network-route")
    assert removal.params["args"] == ["network", "unroute"]
    assert secret not in str([a.params for a in actions] + [a.reason for a in actions])


def test_a_state_file_of_another_key_gets_the_hint() -> None:
    failed = Observation(success=False, error="Decryption failed: aead::Error")
    load = plan(["state", "load", "a.json"], managed(page()))
    assert command_hints.state_key_hint(load, failed) == command_hints.STATE_KEY_HINT
    missing = Observation(success=False, error="Failed to read state from a.json: not found")
    assert command_hints.state_key_hint(load, missing) is None
    assert command_hints.state_key_hint(load, Observation(success=True)) is None
    other = plan(["eval", "1"], managed(page()))
    assert command_hints.state_key_hint(other, failed) is None
