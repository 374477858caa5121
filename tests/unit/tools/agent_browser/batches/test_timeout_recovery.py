"""Recovery after the watchdog stopped a batch (pure): never a blind repeat of an action."""

from __future__ import annotations

import json
from typing import Any

from agent_browser_tools.planning.policy import DEFAULT_MAX_TIMEOUT_MS
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.tools.agent_browser.batches import timeout_recovery
from tests.support.plans import FORM, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))


def _stopped(rows: list[list[str]], stopped_at: int) -> Observation:
    steps: list[dict[str, Any]] = [
        {"step": i + 1, "command": " ".join(r), "status": "done"} for i, r in enumerate(rows)
    ]
    steps[stopped_at]["status"] = "timed-out"
    for later in steps[stopped_at + 1 :]:
        later["status"] = "not-run"
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    obs.extra["timeoutPartialProgress"] = {
        "completedSteps": stopped_at,
        "timedOutStep": stopped_at + 1,
        "steps": steps,
        "remainingRows": rows[stopped_at:],
    }
    return obs


def test_a_stopped_wait_is_retried_from_where_it_stopped() -> None:
    rows = [["open", FORM], ["wait", "3000"], ["get", "url"]]
    obs = _stopped(rows, 1)
    timeout_recovery.add(plan(["batch"], STATE, rows=rows), obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    (retry,) = [a for a in obs.next_actions if a.id == "retry-remaining-batch-steps"]
    assert '"open"' not in str(retry.params["stdin"]) and retry.params["timeoutMs"] > 3000


def test_a_stopped_click_is_never_offered_again_only_the_steps_after_it() -> None:
    """The click may have acted (its dialog opened): the retry holds the steps that never
    ran, and the safety says to check the page before running the click again."""
    rows = [["get", "title"], ["click", "@e13"], ["get", "url"], ["get", "title"]]
    obs = _stopped(rows, 1)
    timeout_recovery.add(plan(["batch"], STATE, rows=rows), obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    (retry,) = [a for a in obs.next_actions if a.id == "retry-remaining-batch-steps"]
    assert json.loads(retry.params["stdin"]) == rows[2:]
    assert retry.safety is not None and "Step 2 may have acted" in retry.safety


def test_a_stopped_last_step_that_may_have_acted_leaves_nothing_to_retry() -> None:
    rows = [["get", "title"], ["eval", "new Promise(() => {})"]]
    obs = _stopped(rows, 1)
    timeout_recovery.add(plan(["batch"], STATE, rows=rows), obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    assert all(a.id != "retry-remaining-batch-steps" for a in obs.next_actions)
    assert any("no step after it is left" in w for w in obs.warnings)


def test_steps_of_unknown_fate_that_may_have_acted_get_no_retry() -> None:
    """A batch stopped as one engine call: which of its steps ran is unknown."""
    rows = [["click", "@e13"], ["get", "url"]]
    obs = _stopped(rows, 0)
    obs.extra["timeoutPartialProgress"]["steps"][1]["status"] = "unknown"
    obs.extra["timeoutPartialProgress"]["steps"][0]["status"] = "unknown"
    timeout_recovery.add(plan(["batch"], STATE, rows=rows), obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    assert all(a.id != "retry-remaining-batch-steps" for a in obs.next_actions)
    assert any("Steps 1-2 may have acted" in w for w in obs.warnings)


def test_a_read_only_timeout_offers_a_longer_retry_and_an_action_does_not() -> None:
    """Repeating a read cannot act twice; repeating a click could."""
    read = plan(["get", "text", "h1"], STATE, timeout_ms=2000)
    obs = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    timeout_recovery.add(read, obs, [], False, DEFAULT_MAX_TIMEOUT_MS)
    assert [a.id for a in obs.next_actions] == ["retry-with-longer-timeout"]
    assert obs.next_actions[0].params == {"args": ["get", "text", "h1"], "timeoutMs": 4000}
    click = plan(["click", "@e13"], STATE, timeout_ms=2000)
    acted = Observation(success=False, failure_category=FailureCategory.TIMEOUT, error="stopped")
    timeout_recovery.add(click, acted, [], False, DEFAULT_MAX_TIMEOUT_MS)
    assert all(a.id != "retry-with-longer-timeout" for a in acted.next_actions)
