"""Direct tool, under the lock and before dispatch: refusals that need no engine call (pure).

Stale refs and unknown page targets fail before anything is dispatched: acting on a ref the
model saw on another page, or on a page it has not seen, is how a wrapper clicks the wrong
element while reporting success.
"""

from __future__ import annotations

from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import ConversationState
from agent_browser_tools.state.stale_refs import (
    StaleRef,
    guard_batch,
    guard_direct,
    guard_unknown_target,
)


def refusal(plan: ExecutionPlan, state: ConversationState) -> Observation | None:
    """The failed observation for a call that must not be dispatched, else None."""
    key = plan.session.key
    if key is None or (plan.output_mode is OutputMode.TEXT and plan.checked.inspection):
        return None
    entry = state.session(key)
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    step = guard_unknown_target(matches, entry)
    if step is not None:
        where = f"step {step}" if plan.is_batch else "this command"
        obs = Observation(
            success=False,
            failure_category=FailureCategory.TAB_DRIFT,
            error=(
                f"The session's page target is unknown, so {where} could act on a page you have "
                "not seen. Run `get url` first (then `snapshot -i`)."
            ),
        )
        obs.next_actions.append(na.verify_page_target(prefix, "verify-page-target"))
        obs.extra["sessionTabTargetUnknown"] = True
        return obs
    batch = plan.checked.batch
    # A stdin batch is split where a ref follows a page-changing step and re-read there
    # (`segments`), so the static latch is only needed for args batches.
    latch = batch is not None and (batch.source != "stdin" or entry.ref_snapshot is None)
    stale = guard_batch(batch.rows, entry, latch=latch) if batch else None
    if stale is None and not plan.is_batch:
        stale = guard_direct(plan.match, entry)
    return None if stale is None else stale_refusal(plan, stale)


def stale_refusal(plan: ExecutionPlan, stale: StaleRef) -> Observation:
    """The `stale-ref` failure for a refused ref, with the refresh next action."""
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    obs = Observation(
        success=False,
        failure_category=FailureCategory.STALE_REF,
        error=f"Stale ref blocked before dispatch: {stale.reason} Run `snapshot -i` and use the "
        "current refs.",
    )
    obs.next_actions.append(na.refresh_interactive_refs(prefix))
    obs.extra["staleRef"] = {
        "refs": ["@" + r for r in stale.refs],
        "step": stale.step,
        "reason": stale.code,
    }
    return obs
