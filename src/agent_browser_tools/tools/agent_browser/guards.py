"""Direct tool, under the lock and before dispatch: refusals that need no engine call (pure).

Stale refs and unknown page targets fail before anything is dispatched: acting on a ref the
model saw on another page, or on a page it has not seen, is how a wrapper clicks the wrong
element while reporting success. A browser the wrapper closed (conversation end) is said so
plainly: any other command would launch a blank browser and fail confusingly there.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_browser_tools import taxonomy
from agent_browser_tools.engine.envelope import OutputMode
from agent_browser_tools.planning.plan import ExecutionPlan
from agent_browser_tools.redaction import REDACTED
from agent_browser_tools.results import next_actions as na
from agent_browser_tools.results.categories import FailureCategory
from agent_browser_tools.results.observation import Observation
from agent_browser_tools.state.models import ConversationState, SessionPageState
from agent_browser_tools.state.stale_refs import (
    StaleRef,
    guard_batch,
    guard_direct,
    guard_unknown_target,
    ref_ids,
)
from agent_browser_tools.taxonomy import CommandMatch
from agent_browser_tools.tools.agent_browser.confirm.confirmations import decision_refusal
from agent_browser_tools.tools.agent_browser.safety import editable_guard


def refusal(plan: ExecutionPlan, state: ConversationState) -> Observation | None:
    """The failed observation for a call that must not be dispatched, else None."""
    key = plan.session.key
    if key is None or (plan.output_mode is OutputMode.TEXT and plan.checked.inspection):
        return None
    entry = state.session(key)
    prefix = na.session_prefix(key, not plan.session.used_implicit_session)
    matches = plan.row_matches if plan.row_matches is not None else (plan.match,)
    closed = closed_refusal(plan, entry, matches, prefix) or decision_refusal(plan, entry)
    if closed is not None:
        return closed
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
    high = state.ref_high
    stale = guard_batch(batch.rows, entry, ref_high=high, latch=latch) if batch else None
    if stale is None and not plan.is_batch:
        stale = guard_direct(plan.match, entry, ref_high=high)
    if stale is not None:
        return stale_refusal(plan, stale)
    return editable_guard.refusal(plan, entry)


def stale_refusal(plan: ExecutionPlan, stale: StaleRef) -> Observation:
    """The `stale-ref` failure for a refused ref, with the refresh next action; a ref never
    issued in this conversation is a wrong argument (`validation-error`, `unknown-ref`)."""
    prefix = na.session_prefix(plan.session.key, not plan.session.used_implicit_session)
    if stale.code == "unknown-ref":
        category, error = FailureCategory.VALIDATION_ERROR, f"Nothing ran: {stale.reason}"
    else:
        category = FailureCategory.STALE_REF
        error = (
            f"Stale ref blocked before dispatch: {stale.reason} Run `snapshot -i` and use the "
            "current refs."
        )
    obs = Observation(success=False, failure_category=category, error=error)
    obs.next_actions.append(na.refresh_interactive_refs(prefix))
    obs.extra["staleRef"] = {
        "refs": ["@" + r for r in stale.refs],
        "step": stale.step,
        "reason": stale.code,
    }
    return obs


def _runs_on_closed(match: CommandMatch) -> bool:
    spec = match.spec
    return spec.session is taxonomy.SessionNeed.SESSIONLESS or spec.page_effect in (
        taxonomy.PageEffect.NAVIGATES,
        taxonomy.PageEffect.CLOSE,
    )


def closed_refusal(
    plan: ExecutionPlan,
    entry: SessionPageState,
    matches: Sequence[CommandMatch | None],
    prefix: list[str],
) -> Observation | None:
    """A call on a browser the wrapper closed, unless it navigates (or needs no page) first."""
    if not entry.closed:
        return None
    for index, match in enumerate(matches, start=1):
        if match is None:
            continue
        if match.spec.page_effect is taxonomy.PageEffect.NAVIGATES:
            return None
        if not _runs_on_closed(match):
            return _closed_observation(plan, entry, match, index, prefix)
    return None


def _closed_observation(
    plan: ExecutionPlan,
    entry: SessionPageState,
    match: CommandMatch,
    step: int,
    prefix: list[str],
) -> Observation:
    invalidation = entry.ref_invalidation
    summary = invalidation.summary if invalidation else "it was closed."
    reason = invalidation.reason if invalidation else "browser-closed"
    state = "gone" if reason == "browser-lost" else "closed"
    url = entry.target.url if entry.target is not None else None
    exact = url is not None and REDACTED not in url
    where = f"step {step} was not sent" if plan.is_batch else "nothing was sent"
    if exact:
        then = f"Reopen the last recorded page with `open {url}`, then run `snapshot -i`."
    elif url is not None:
        then = "Its recorded URL had secrets removed: open the page again, then `snapshot -i`."
    else:
        then = "Open the page you need, then run `snapshot -i`."
    ids = ref_ids(match)
    obs = Observation(
        success=False,
        failure_category=FailureCategory.STALE_REF if ids else FailureCategory.TAB_GONE,
        error=f"The browser is {state}: {summary} So {where}. {then}",
    )
    if exact and url is not None:
        obs.next_actions.append(na.reopen_recorded_url(prefix, url))
    if ids:
        obs.extra["staleRef"] = {
            "refs": ["@" + r for r in ids],
            "step": step if plan.is_batch else None,
            "reason": reason,
        }
    obs.extra["sessionTabTargetUnknown"] = True
    return obs
