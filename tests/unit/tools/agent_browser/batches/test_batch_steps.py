"""Per-step next actions of a batch and the failed step's at the top (pure)."""

from __future__ import annotations

from agent_browser_tools.engine.envelope import BatchRow, Envelope, OutputMode
from agent_browser_tools.tools.agent_browser.batches import batch_steps
from agent_browser_tools.tools.agent_browser.observe import observe
from tests.support.plans import FORM, managed, page, plan

STATE = managed(page(FORM, refs_from=FORM))


def _batch(rows: tuple[BatchRow, ...]) -> Envelope:
    return Envelope(
        mode=OutputMode.JSON,
        success=all(r.success for r in rows),
        rows=rows,
        error=None if all(r.success for r in rows) else "a step failed",
    )


def test_a_failed_step_carries_its_recovery_and_leads_the_top_level_actions() -> None:
    rows = (
        BatchRow(("get", "title"), True, {"title": "A"}, None),
        BatchRow(("open", "http://127.0.0.1:9/"), False, None, "net::ERR_CONNECTION_REFUSED"),
    )
    call = plan(["batch"], STATE, rows=[list(r.command) for r in rows])
    obs = observe(call, _batch(rows))
    batch_steps.annotate(call, obs)
    steps = obs.extra["batchSteps"]
    assert "nextActions" not in steps[0]
    (action,) = steps[1]["nextActions"]
    assert action["id"] == "check-page-after-failed-navigation"
    assert obs.extra["batchFailure"]["failedStep"]["nextActions"] == steps[1]["nextActions"]
    assert obs.next_actions[0].to_dict() == action


def test_a_ref_miss_step_offers_fresh_refs_and_a_pending_recording_its_stop() -> None:
    rows = (
        BatchRow(("record", "start", "run.webm"), True, {"path": "run.webm"}, None),
        BatchRow(("click", "@e13"), False, None, "Unknown ref: e13"),
    )
    call = plan(["batch"], STATE, rows=[list(r.command) for r in rows])
    obs = observe(call, _batch(rows))
    obs.extra["artifacts"] = [{"step": 1, "state": "pending", "path": "run.webm"}]
    batch_steps.annotate(call, obs)
    first, second = obs.extra["batchSteps"]
    assert [a["id"] for a in first["nextActions"]] == ["stop-pending-recording"]
    assert [a["id"] for a in second["nextActions"]] == ["refresh-interactive-refs"]
    assert [a.id for a in obs.next_actions].count("refresh-interactive-refs") == 1
    assert obs.next_actions[0].id == "refresh-interactive-refs"
